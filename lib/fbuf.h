/* A bounded text writer over a caller's char buffer (no libc), used by the
 * decoders' table formatters.  Output is always NUL-terminated; overflow is
 * sticky and truncates rather than writing past cap. */
#ifndef LIB_FBUF_H
#define LIB_FBUF_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fbuf {
	char *p;
	size_t cap;      /* bytes in p, including the NUL */
	size_t len;      /* characters written so far */
	size_t line;     /* offset where the current line starts (for fbuf_col) */
	bool overflow;
};

void fbuf_init(struct fbuf *f, char *p, size_t cap);
void fbuf_putc(struct fbuf *f, char c);
void fbuf_puts(struct fbuf *f, const char *s);
/* "0x" then v in hex, zero-padded to at least `digits` digits */
void fbuf_hex(struct fbuf *f, uint64_t v, unsigned digits);
void fbuf_dec(struct fbuf *f, uint64_t v);
void fbuf_printf(struct fbuf *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* pad with spaces until the current line is `col` characters long */
void fbuf_col(struct fbuf *f, size_t col);

#endif
