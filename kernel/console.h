/* Console output: COM1 and the screen (framebuffer or VGA text), one printf for both. */
#ifndef KERNEL_CONSOLE_H
#define KERNEL_CONSOLE_H
#include <stdarg.h>

void kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void kvprintf(const char *fmt, va_list ap);
void console_write(const char *s, unsigned long n);
/* Screen colour for what follows: 0 normal, 1 pass, 2 fail, 3 skip, 4 heading */
void console_color(int c);

#endif
