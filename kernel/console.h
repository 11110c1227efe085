/* Console output: COM1 and the screen (framebuffer or VGA text), one printf for both. */
#ifndef KERNEL_CONSOLE_H
#define KERNEL_CONSOLE_H
#include <stdarg.h>
#include <stdbool.h>

void kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void kvprintf(const char *fmt, va_list ap);
void console_write(const char *s, unsigned long n);
/* Screen colour for what follows: 0 normal, 1 pass, 2 fail, 3 skip, 4 heading */
void console_color(int c);
/* Holding: everything printed from console_hold() on is kept back (with its
 * colours) until console_release(head), which prints head first and then what
 * was held.  KTAP wants a block's plan line before its checks, and the number
 * of checks is known only at the end; every path that ends a block early (an
 * exception, the watchdog, a CPU that does not come back) releases it first, so
 * what an experiment printed before it died is on the console. */
void console_hold(void);
bool console_holding(void);
void console_release(const char *head);
/* Bulk output for the serial log only (fuzz=debug's thousands of trace lines:
 * scrolling the screen for each would cost more than the scenario); not held. */
void console_serial(const char *s, unsigned long n);

#endif
