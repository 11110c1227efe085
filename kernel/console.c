/* One printf for serial and screen.
 *
 * A write is whole: interrupts are off while it goes out (or into the held
 * block), and a lock keeps the other CPUs' writes out of it, so the watchdog's
 * message (from its interrupt) or another CPU's line comes before or after a
 * line, never in the middle of one.  Every caller writes whole lines (each
 * kprintf ends with its '\n').  The lock is not waited for forever: a CPU that
 * was parked with INIT while it held it (kernel/smp.c) must not silence the
 * console, so after a bound the writer goes ahead; and a CPU that re-enters (an
 * NMI or an exception in the middle of a write) does not wait for itself. */
#include "console.h"
#include "fmt.h"
#include "percpu.h"
#include "screen.h"
#include "serial.h"
#include "str.h"
#include "x86.h"

#define LOCK_SPINS      20000000u       /* far beyond any one line's time on the wire */

static volatile uintptr_t owner;        /* the writing CPU's struct percpu, 0 when free */

struct guard { uint64_t flags; bool locked; };

static struct guard enter(void)
{
	struct guard g = { read_rflags(), false };
	cli();
	uintptr_t self = (uintptr_t)this_cpu();
	if (!self)
		self = 1;
	if (owner == self)
		return g;               /* nested on this CPU */
	for (uint32_t i = 0; i < LOCK_SPINS; i++) {
		uintptr_t expected = 0;
		if (__atomic_compare_exchange_n(&owner, &expected, self, false, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED)) {
			g.locked = true;
			break;
		}
		cpu_relax();
	}
	return g;
}

static void leave(struct guard g)
{
	if (g.locked)
		__atomic_store_n(&owner, 0, __ATOMIC_RELEASE);
	write_rflags(g.flags);
}

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

/* A write is kept whole or not at all: a full hold buffer must not leave half
 * a line for the next writer's line to follow. */
void console_write(const char *s, unsigned long n)
{
	struct guard g = enter();
	if (!holding) {
		screen_batch(true);
		emit(s, n);
		screen_batch(false);
	} else if (nheld + n > HOLD_SIZE)
		dropped += n;
	else
		for (unsigned long i = 0; i < n; i++)
			keep(s[i]);
	leave(g);
}

void console_serial(const char *s, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		if (s[i] == '\n')
			serial_putc('\r');
		serial_putc(s[i]);
	}
}

void console_color(int c)
{
	struct guard g = enter();
	if (!holding) {
		screen_color(c);
	} else {
		keep(COLOR_MARK);
		keep((char)c);
	}
	leave(g);
}

void console_hold(void)
{
	struct guard g = enter();
	nheld = dropped = 0;
	holding = true;
	leave(g);
}

bool console_holding(void)
{
	return holding;
}

void console_release(const char *head)
{
	struct guard g = enter();
	if (!holding) {
		leave(g);
		return;
	}
	holding = false;
	/* The whole block goes to the screen as one batch: only what is still
	 * visible at its end is drawn (kernel/screen.c). */
	screen_batch(true);
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
	screen_batch(false);
	if (dropped)
		kprintf("    # console: %lu bytes of this block not shown (hold buffer of %u bytes full)\n",
			dropped, HOLD_SIZE);
	nheld = dropped = 0;
	leave(g);
}

void kvprintf(const char *fmt, va_list ap)
{
	char buf[512];
	int n = tl_vsnprintf(buf, sizeof buf, fmt, ap);
	if (n > (int)sizeof buf - 1) {
		/* cut, but still a whole line */
		n = sizeof buf - 1;
		buf[n - 1] = '\n';
	}
	console_write(buf, (unsigned long)n);
}

void kprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	kvprintf(fmt, ap);
	va_end(ap);
}
