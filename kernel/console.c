/* One printf for serial and screen. */
#include "console.h"
#include "fmt.h"
#include "screen.h"
#include "serial.h"
#include "str.h"

/* The held block: text, and a colour change as COLOR_MARK followed by the colour. */
#define HOLD_SIZE (256 * 1024)
#define COLOR_MARK '\x01'
static char held[HOLD_SIZE];
static unsigned long nheld, dropped;
static bool holding;

static void emit(const char *s, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		if (s[i] == '\n')
			serial_putc('\r');
		serial_putc(s[i]);
		screen_putc(s[i]);
	}
}

static void keep(char c)
{
	if (nheld < HOLD_SIZE)
		held[nheld++] = c;
	else
		dropped++;
}

void console_write(const char *s, unsigned long n)
{
	if (!holding) {
		emit(s, n);
		return;
	}
	for (unsigned long i = 0; i < n; i++)
		keep(s[i]);
}

void console_color(int c)
{
	if (!holding) {
		screen_color(c);
		return;
	}
	keep(COLOR_MARK);
	keep((char)c);
}

void console_hold(void)
{
	nheld = dropped = 0;
	holding = true;
}

bool console_holding(void)
{
	return holding;
}

void console_release(const char *head)
{
	if (!holding)
		return;
	holding = false;
	emit(head, tl_strlen(head));
	unsigned long from = 0;
	for (unsigned long i = 0; i < nheld; i++) {
		if (held[i] != COLOR_MARK)
			continue;
		emit(held + from, i - from);
		if (++i < nheld)
			screen_color(held[i]);
		from = i + 1;
	}
	if (from < nheld)
		emit(held + from, nheld - from);
	if (dropped)
		kprintf("    # console: %lu bytes of this block not shown (hold buffer of %u bytes full)\n",
			dropped, HOLD_SIZE);
	nheld = dropped = 0;
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
