/* Bounded text writer: see lib/fbuf.h. */
#include <stdarg.h>
#include "fbuf.h"
#include "fmt.h"

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

/* Numbers go through the one formatter (lib/fmt.c). */
void fbuf_printf(struct fbuf *f, const char *fmt, ...)
{
	char t[128];
	va_list ap;
	va_start(ap, fmt);
	int n = tl_vsnprintf(t, sizeof t, fmt, ap);
	va_end(ap);
	fbuf_puts(f, t);
	if (n >= (int)sizeof t)
		f->overflow = true;
}

void fbuf_hex(struct fbuf *f, uint64_t v, unsigned digits)
{
	fbuf_printf(f, "0x%0*llx", (int)(digits > 16 ? 16 : digits), (unsigned long long)v);
}

void fbuf_dec(struct fbuf *f, uint64_t v)
{
	fbuf_printf(f, "%llu", (unsigned long long)v);
}

void fbuf_col(struct fbuf *f, size_t col)
{
	while (!f->overflow && f->len - f->line < col)
		fbuf_putc(f, ' ');
}
