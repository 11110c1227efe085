/* One printf for serial and screen. */
#include "console.h"
#include "fmt.h"
#include "screen.h"
#include "serial.h"

void console_write(const char *s, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		if (s[i] == '\n')
			serial_putc('\r');
		serial_putc(s[i]);
		screen_putc(s[i]);
	}
}

void console_color(int c)
{
	screen_color(c);
}

void kvprintf(const char *fmt, va_list ap)
{
	char buf[512];
	int n = tl_vsnprintf(buf, sizeof buf, fmt, ap);
	if (n > (int)sizeof buf - 1)
		n = sizeof buf - 1;
	console_write(buf, (unsigned long)n);
}

void kprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	kvprintf(fmt, ap);
	va_end(ap);
}
