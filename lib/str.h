/* String helpers shared by the kernel and the host (no libc in the kernel). */
#ifndef LIB_STR_H
#define LIB_STR_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

size_t tl_strlen(const char *s);
size_t tl_strnlen(const char *s, size_t max);
int tl_strcmp(const char *a, const char *b);
int tl_strncmp(const char *a, const char *b, size_t n);
/* Copies at most size-1 characters and always terminates; returns strlen(src). */
size_t tl_strlcpy(char *dst, const char *src, size_t size);
/* Parses a decimal or 0x-hex unsigned number occupying exactly [s, s+n). */
bool tl_parse_u64(const char *s, size_t n, uint64_t *out);
/* [src, src+len) with every byte outside printable ASCII, '"' and '\\' written as
 * a C escape (\n \r \t \" \\ \xNN); never splits an escape; always terminates
 * (size > 0).  Returns the length written. */
size_t tl_escape(char *dst, size_t size, const char *src, size_t len);

#endif
