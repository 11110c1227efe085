#include "fmt.h"
#include <stdbool.h>
#include <stdint.h>

struct out {
	char *buf;
	size_t size;
	size_t len;
};

static void put(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void pad(struct out *o, char c, int n)
{
	while (n-- > 0)
		put(o, c);
}

struct spec {
	bool left, zero, alt, space, plus;
	int width, prec;        /* prec < 0: none */
};

static void emit_str(struct out *o, const struct spec *s, const char *str)
{
	int n = 0;
	if (!str)
		str = "(null)";
	while (str[n] && (s->prec < 0 || n < s->prec))
		n++;
	if (!s->left)
		pad(o, ' ', s->width - n);
	for (int i = 0; i < n; i++)
		put(o, str[i]);
	if (s->left)
		pad(o, ' ', s->width - n);
}

static void emit_num(struct out *o, const struct spec *s, uint64_t v, bool neg,
		     unsigned base, bool upper, const char *prefix)
{
	char digits[24];
	int nd = 0;
	const char *set = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	while (v) {
		digits[nd++] = set[v % base];
		v /= base;
	}
	int prec = s->prec < 0 ? 1 : s->prec;
	int zeros = prec > nd ? prec - nd : 0;
	char sign = neg ? '-' : s->plus ? '+' : s->space ? ' ' : 0;
	int plen = 0;
	while (prefix && prefix[plen])
		plen++;
	int total = nd + zeros + (sign != 0) + plen;
	if (s->zero && !s->left && s->prec < 0 && s->width > total) {
		zeros += s->width - total;
		total = s->width;
	}
	if (!s->left)
		pad(o, ' ', s->width - total);
	if (sign)
		put(o, sign);
	for (int i = 0; i < plen; i++)
		put(o, prefix[i]);
	pad(o, '0', zeros);
	while (nd)
		put(o, digits[--nd]);
	if (s->left)
		pad(o, ' ', s->width - total);
}

static int parse_int(const char **p)
{
	int v = 0;
	while (**p >= '0' && **p <= '9') {
		if (v < 100000)
			v = v * 10 + (**p - '0');
		(*p)++;
	}
	return v;
}

int tl_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = { buf, size, 0 };
	for (const char *p = fmt; *p; p++) {
		if (*p != '%') {
			put(&o, *p);
			continue;
		}
		p++;
		struct spec s = { .prec = -1 };
		for (;; p++) {
			if (*p == '-') s.left = true;
			else if (*p == '0') s.zero = true;
			else if (*p == '#') s.alt = true;
			else if (*p == ' ') s.space = true;
			else if (*p == '+') s.plus = true;
			else break;
		}
		if (*p == '*') {
			s.width = va_arg(ap, int);
			if (s.width < 0) {
				s.left = true;
				s.width = -s.width;
			}
			p++;
		} else {
			s.width = parse_int(&p);
		}
		if (*p == '.') {
			p++;
			if (*p == '*') {
				s.prec = va_arg(ap, int);
				p++;
			} else {
				s.prec = parse_int(&p);
			}
		}
		int lng = 0;    /* 0 int, 1 long, 2 long long, -1 short, -2 char */
		for (;; p++) {
			if (*p == 'l') lng++;
			else if (*p == 'h') lng--;
			else if (*p == 'z' || *p == 'j' || *p == 't') lng = 2;
			else break;
		}
		char c = *p;
		if (!c)
			break;
		uint64_t u;
		int64_t i;
		switch (c) {
		case '%':
			put(&o, '%');
			break;
		case 'c': {
			char ch = (char)va_arg(ap, int);
			char str[2] = { ch, 0 };
			struct spec cs = s;
			cs.prec = 1;
			if (!ch) {      /* a NUL character still counts */
				if (!s.left) pad(&o, ' ', s.width - 1);
				put(&o, 0);
				if (s.left) pad(&o, ' ', s.width - 1);
			} else {
				emit_str(&o, &cs, str);
			}
			break;
		}
		case 's':
			emit_str(&o, &s, va_arg(ap, const char *));
			break;
		case 'd':
		case 'i':
			if (lng >= 2) i = va_arg(ap, long long);
			else if (lng == 1) i = va_arg(ap, long);
			else i = va_arg(ap, int);
			if (lng == -1) i = (short)i;
			if (lng <= -2) i = (signed char)i;
			u = i < 0 ? (uint64_t)0 - (uint64_t)i : (uint64_t)i;
			emit_num(&o, &s, u, i < 0, 10, false, 0);
			break;
		case 'u':
		case 'x':
		case 'X':
		case 'o':
			if (lng >= 2) u = va_arg(ap, unsigned long long);
			else if (lng == 1) u = va_arg(ap, unsigned long);
			else u = va_arg(ap, unsigned int);
			if (lng == -1) u = (unsigned short)u;
			if (lng <= -2) u = (unsigned char)u;
			s.plus = s.space = false;
			if (c == 'u')
				emit_num(&o, &s, u, false, 10, false, 0);
			else if (c == 'o')
				emit_num(&o, &s, u, false, 8, false, s.alt && u ? "0" : 0);
			else
				emit_num(&o, &s, u, false, 16, c == 'X',
					 s.alt && u ? (c == 'X' ? "0X" : "0x") : 0);
			break;
		case 'p':
			u = (uintptr_t)va_arg(ap, void *);
			s.plus = s.space = false;
			emit_num(&o, &s, u, false, 16, false, "0x");
			break;
		default:        /* unknown conversion: print it verbatim */
			put(&o, '%');
			put(&o, c);
			break;
		}
	}
	if (o.size)
		o.buf[o.len < o.size ? o.len : o.size - 1] = 0;
	return (int)o.len;
}

int tl_snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = tl_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
