/* Bounded text writer: see inc/fbuf.h. */
#include "fbuf.h"

void fbuf_init(struct fbuf *f, char *p, size_t cap)
{
	f->p = p;
	f->cap = cap;
	f->len = 0;
	f->line = 0;
	f->overflow = cap == 0;
	if (cap)
		p[0] = 0;
}

void fbuf_putc(struct fbuf *f, char c)
{
	if (f->cap == 0 || f->len + 1 >= f->cap) {
		f->overflow = true;
		return;
	}
	f->p[f->len++] = c;
	f->p[f->len] = 0;
	if (c == '\n')
		f->line = f->len;
}

void fbuf_puts(struct fbuf *f, const char *s)
{
	while (s && *s)
		fbuf_putc(f, *s++);
}

void fbuf_hex(struct fbuf *f, uint64_t v, unsigned digits)
{
	char t[16];
	unsigned n = 0;
	do {
		t[n++] = "0123456789abcdef"[v & 0xf];
		v >>= 4;
	} while (v && n < 16);
	fbuf_puts(f, "0x");
	for (unsigned i = n; i < digits && i < 16; i++)
		fbuf_putc(f, '0');
	while (n)
		fbuf_putc(f, t[--n]);
}

void fbuf_dec(struct fbuf *f, uint64_t v)
{
	char t[20];
	unsigned n = 0;
	do {
		t[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		fbuf_putc(f, t[--n]);
}

void fbuf_col(struct fbuf *f, size_t col)
{
	while (!f->overflow && f->len - f->line < col)
		fbuf_putc(f, ' ');
}
