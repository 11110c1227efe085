#include "str.h"

size_t tl_strlen(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

size_t tl_strnlen(const char *s, size_t max)
{
	size_t n = 0;
	while (n < max && s[n])
		n++;
	return n;
}

int tl_strcmp(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

int tl_strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b || !*a)
			return (unsigned char)*a - (unsigned char)*b;
	}
	return 0;
}

size_t tl_strlcpy(char *dst, const char *src, size_t size)
{
	size_t n = tl_strlen(src);
	if (size) {
		size_t c = n < size - 1 ? n : size - 1;
		for (size_t i = 0; i < c; i++)
			dst[i] = src[i];
		dst[c] = 0;
	}
	return n;
}

bool tl_parse_u64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	unsigned base = 10;
	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		n -= 2;
	}
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned d;
		char c = s[i];
		if (c >= '0' && c <= '9') d = c - '0';
		else if (base == 16 && c >= 'a' && c <= 'f') d = c - 'a' + 10;
		else if (base == 16 && c >= 'A' && c <= 'F') d = c - 'A' + 10;
		else return false;
		if (v > (UINT64_MAX - d) / base)
			return false;
		v = v * base + d;
	}
	*out = v;
	return true;
}

/* Bytes that may reach a terminal or the KTAP stream raw are written as C
 * escapes: a newline in the input must not start a new output line, an ESC
 * must not reach the terminal, and '"' and '\' are escaped so that the quoted
 * text reads back unambiguously. */
size_t tl_escape(char *dst, size_t size, const char *src, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)src[i];
		char e[5];
		size_t k = 0;
		if (ch == '\n') e[k++] = '\\', e[k++] = 'n';
		else if (ch == '\r') e[k++] = '\\', e[k++] = 'r';
		else if (ch == '\t') e[k++] = '\\', e[k++] = 't';
		else if (ch == '"' || ch == '\\') e[k++] = '\\', e[k++] = (char)ch;
		else if (ch < 0x20 || ch >= 0x7f)
			e[k++] = '\\', e[k++] = 'x', e[k++] = hex[ch >> 4], e[k++] = hex[ch & 15];
		else
			e[k++] = (char)ch;
		if (size && o + k > size - 1)   /* never half an escape */
			break;
		for (size_t j = 0; j < k; j++, o++)
			if (size)
				dst[o] = e[j];
	}
	if (size)
		dst[o < size ? o : size - 1] = 0;
	return o;
}
