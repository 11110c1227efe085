/* The KTAP writer: what kernel/results.c tells it, as KTAP v1 (Linux
 * Documentation/dev-tools/ktap.rst) on the console, serial and screen alike:
 *
 *   KTAP version 1
 *   1..50
 *       KTAP version 1
 *       # Subtest: 101 int3
 *       1..13
 *       ok 1 BP deliveries: 2 (expected 2)
 *       ...
 *   ok 1 101 int3
 *   ok 19 201 bts-circular # SKIP CPUID.01H:EDX.DS[21]=0
 *   # tracelab: pass:15 fail:6 skip:29 total:50
 *
 * A block's plan comes first, and its number of checks is known only at its
 * end: the block is held on the console (console_hold) until then, and
 * released at once when it ends early (results_flush: an exception, the
 * watchdog, a CPU that does not come back), so what an experiment printed
 * before it died is out. */
#include "console.h"
#include "fmt.h"
#include "ktap.h"
#include "results.h"
#include "screen.h"

static void plan(int planned)
{
	kprintf("KTAP version 1\n1..%d\n", planned);
}

static void open(const struct results_block *b)
{
	console_hold();
}

static void line(const struct results_block *b, enum results_line kind, bool ok, const char *text)
{
	if (kind == RL_DIAG) {
		kprintf("    # %s\n", text);
		return;
	}
	console_color(ok ? SC_PASS : SC_FAIL);
	kprintf("    %s %d %s\n", ok ? "ok" : "not ok", b->nchecks, text);
	console_color(SC_NORMAL);
}

static void flush(const struct results_block *b, int more)
{
	char head[160];
	if (!console_holding())
		return;
	tl_snprintf(head, sizeof head, "    KTAP version 1\n    # Subtest: %s\n    1..%d\n", b->label,
		    b->nchecks + more);
	console_release(head);
}

static void close(const struct results_block *b)
{
	flush(b, 0);
	switch (b->v) {
	case V_PASS:
		console_color(SC_PASS);
		kprintf("ok %d %s\n", b->test_no, b->label);
		break;
	case V_SKIP:
		console_color(SC_SKIP);
		kprintf("ok %d %s # SKIP %s\n", b->test_no, b->label, b->reason);
		break;
	case V_TIMEOUT:
		console_color(SC_FAIL);
		kprintf("not ok %d %s # TIMEOUT %s\n", b->test_no, b->label, b->reason);
		break;
	default:
		console_color(SC_FAIL);
		kprintf("not ok %d %s\n", b->test_no, b->label);
		break;
	}
	console_color(SC_NORMAL);
}

static void finish(const struct results_totals *t)
{
	kprintf("# tracelab: pass:%d fail:%d skip:%d total:%d\n", t->n[V_PASS],
		t->n[V_FAIL] + t->n[V_TIMEOUT], t->n[V_SKIP], t->done);
}

static const struct results_sink writer = {
	.plan = plan, .open = open, .line = line, .flush = flush, .close = close, .finish = finish,
};

void ktap_init(void)
{
	results_add_sink(&writer);
}
