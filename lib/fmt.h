/* printf-style formatting without libc: the kernel's and the host tools' formatter. */
#ifndef LIB_FMT_H
#define LIB_FMT_H
#include <stdarg.h>
#include <stddef.h>

/* C99 vsnprintf semantics for the subset: %% %c %s %d %i %u %x %X %p %o,
 * flags '-' '0' '#' ' ' '+', width and precision (numbers or '*'), length
 * modifiers hh h l ll z j t.  Returns the length the full output would have. */
int tl_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int tl_snprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
