/* fuzz=debug (issue 21): run generated scenarios (lib/dbfuzz.c) and print each
 * one's trace of exceptions as one line, for tools/dbfuzz.py to compare across
 * emulators and machines.
 *
 * Per scenario: the code goes to its own page (so TCG's self-modifying-code
 * tracking is not hit by the data and stack writes), DR0-DR3 then DR7 are
 * written, and an IRETQ enters the sequence at CPL 0 or 3 with the chosen TF, RF
 * and IF.  Every vector 0-31 (but NMI, #DF, #MC), the DPL-3 "ring" gate and the
 * end gate go to handlers here while the run lasts.  Each event records vector,
 * RIP as an offset into the sequence, DR6 (vector 1), the error code and CPL.
 * A #DB/#BP returns as a debugger would (DR6 cleared, SDM vol.3 18.2.3; RF set
 * for a fault-class instruction breakpoint at the RIP, 18.3.1.1); a fault on an
 * instruction of the sequence is stepped over; anything outside the sequence, or
 * more than DBF_MAX_EVENTS events, or the watchdog ends that scenario only. */
#include "apic.h"
#include "apicdef.h"
#include "console.h"
#include "cr.h"
#include "ctx.h"
#include "dbfuzz.h"
#include "dr.h"
#include "experiment.h"
#include "fmt.h"
#include "runner.h"
#include "seg.h"
#include "smp.h"
#include "trap.h"
#include "x86.h"
#include "../lib/dbfuzz.h"

_Static_assert(DBF_VEC_END == VEC_USER_RETURN, "the end gate is the DPL-3 user-return gate");
_Static_assert(DBF_VEC_RING == VEC_FUZZ_RING, "the ring gate is DPL 3 in idt_init()");

void dbf_enter(const uint64_t frame[5], uint64_t data) __attribute__((noreturn));

const struct cmdline *dbfuzz_cmdline;

static uint8_t code_page[4096] __attribute__((aligned(4096)));
static uint8_t data_page[4096] __attribute__((aligned(4096)));
static uint8_t stack_page[4096] __attribute__((aligned(4096)));

static struct {
	struct dbf_code c;
	uint64_t base;
	struct dbf_event ev[DBF_MAX_EVENTS];
	int nev;
	enum dbf_end end;
	volatile bool active;
	struct kctx ctx;
	uint64_t escape_rip;    /* the RIP of an event outside the sequence */
} fz;

static void disarm(void)
{
	write_dr7(DR7_INIT);    /* with GD set this traps once (BD): fz_db() lets it retry */
	for (int i = 0; i < 4; i++)
		write_dr(i, 0);
	write_dr6(DR6_INIT);
}

static __attribute__((noreturn)) void finish(enum dbf_end end)
{
	fz.end = end;
	fz.active = false;
	ctx_resume(&fz.ctx);
}

/* Records tf as an event; ends the scenario when it is one too many or happened
 * outside the sequence.  Returns the event. */
static struct dbf_event *record(struct trap_frame *tf, uint64_t dr6)
{
	uint64_t off = tf->rip - fz.base;
	struct dbf_event e = {
		.vector = (uint8_t)tf->vector, .cpl = (uint8_t)(tf->cs & 3),
		.in_seq = tf->rip >= fz.base && off <= (uint64_t)fz.c.len,
		.off = (uint16_t)off, .dr6 = dr6,
		.error = dbf_has_error_code((int)tf->vector) ? tf->error : 0,
	};
	if (fz.nev == DBF_MAX_EVENTS) {
		disarm();
		finish(DBF_END_OVERFLOW);
	}
	fz.ev[fz.nev] = e;
	if (!e.in_seq) {
		fz.escape_rip = tf->rip;
		fz.nev++;
		finish(DBF_END_ESCAPE);
	}
	return &fz.ev[fz.nev++];
}

static void fz_db(struct trap_frame *tf)
{
	uint64_t dr6 = read_dr6();
	if (!fz.active) {
		/* The harness's own MOV to DR7 after a sequence that left DR7.GD set:
		 * the processor cleared GD on delivery, so the MOV now succeeds. */
		if (dr6 & DR6_BD) {
			write_dr6(DR6_INIT);
			return;
		}
		runner_unexpected(tf);
	}
	record(tf, dr6);
	write_dr6(DR6_INIT);
	for (int n = 0; n < 4; n++) {
		bool exec = ((fz.c.dr7 >> (2 * n)) & 3) && !((fz.c.dr7 >> (16 + 4 * n)) & 3);
		if ((dr6 & DR6_BN(n)) && exec && fz.c.dr[n] == tf->rip)
			tf->rflags |= RFLAGS_RF;
	}
}

static void fz_event(struct trap_frame *tf)
{
	if (!fz.active)
		runner_unexpected(tf);
	struct dbf_event *e = record(tf, 0);
	int v = (int)tf->vector;
	if (v == 3 || v == DBF_VEC_RING)
		return;         /* traps: RIP is already past the instruction */
	/* A fault: step over the instruction that raised it. */
	int i = dbf_insn_at(&fz.c, e->off);
	if (i < 0 || i == fz.c.ninsn - 1)
		finish(DBF_END_ESCAPE);
	tf->rip += fz.c.insn[i].len;
}

static void fz_end(struct trap_frame *tf)
{
	if (!fz.active)
		runner_unexpected(tf);
	if (tf->rip != fz.base + (uint64_t)fz.c.len) {
		record(tf, 0);
		finish(DBF_END_ESCAPE);
	}
	finish(DBF_END_OK);
}

static void fz_timer(struct trap_frame *tf)
{
	if (!apic_watchdog_expired()) { /* a link of the chained LVT timer */
		apic_eoi();
		return;
	}
	if (!fz.active) {
		runner_watchdog(tf);
		return;
	}
	apic_eoi();
	disarm();
	finish(DBF_END_HANG);
}

/* One scenario: returns how it ended, the events in fz. */
static enum dbf_end run_scenario(const struct dbf_scenario *s, uint32_t drop)
{
	fz.base = (uint64_t)(uintptr_t)code_page;
	if (!dbf_build(s, drop, fz.base, (uint64_t)(uintptr_t)data_page, &fz.c)) {
		fz.nev = 0;
		return DBF_END_ESCAPE;
	}
	for (int i = 0; i < fz.c.len; i++)
		code_page[i] = fz.c.bytes[i];
	for (int i = 0; i < DBF_DATA_SIZE; i++)
		data_page[i] = (uint8_t)i;
	uint64_t frame[5] = {
		fz.base,
		fz.c.cpl == 3 ? (SEL_UCODE64 | 3) : SEL_KCODE64,
		fz.c.rflags,
		(uint64_t)(uintptr_t)(stack_page + sizeof stack_page - 64),
		fz.c.cpl == 3 ? (SEL_UDATA | 3) : SEL_KDATA,
	};
	fz.nev = 0;
	fz.end = DBF_END_OK;
	for (int i = 0; i < 4; i++)
		write_dr(i, fz.c.dr[i]);
	write_dr6(DR6_INIT);
	if (ctx_save(&fz.ctx) == 0) {
		fz.active = true;
		write_dr7(fz.c.dr7);    /* last: with GD, no debug register is touched after */
		dbf_enter(frame, (uint64_t)(uintptr_t)data_page);
	}
	disarm();
	return fz.end;
}

/* Bochs's port_e9_hack and QEMU's isa-debugcon read back 0xE9 from port 0xE9 and
 * print what is written there at once; a real PC reads 0xFF.  The trace lines go
 * there when it exists: Bochs's 16550 model paces each character at the baud
 * rate in emulated time, which made the serial log the cost of a Bochs run. */
static bool use_e9;

static void out_lines(const char *s, unsigned long n)
{
	if (!use_e9) {
		console_serial(s, n);
		return;
	}
	for (unsigned long i = 0; i < n; i++)
		outb(0xe9, (uint8_t)s[i]);
}

static void print_line(uint32_t index, uint32_t drop, enum dbf_end end)
{
	char t[DBF_MAX_EVENTS * 24 + 8];
	dbf_format(t, sizeof t, fz.ev, fz.nev, end);
	char line[sizeof t + 64];
	int n = tl_snprintf(line, sizeof line, "    # dbf %u %x %s h=%08x\n", index, drop, t, dbf_hash(t));
	if (end == DBF_END_ESCAPE)      /* where, for whoever reads the log (not compared) */
		n += tl_snprintf(line + n, sizeof line - (size_t)n,
				 "    # dbf-escape %u rip=0x%llx (code at 0x%llx)\n", index,
				 (unsigned long long)fz.escape_rip, (unsigned long long)fz.base);
	out_lines(line, (unsigned long)(n < (int)sizeof line ? n : (int)sizeof line - 1));
	if (index % 1000 == 999 && !drop)
		kprintf("    # dbfuzz: %u scenarios\n", index + 1);   /* progress on the screen too */
}

static void dbfuzz_run(void)
{
	const struct cmdline *cl = dbfuzz_cmdline;
	uint64_t cr4 = read_cr4();
	uint32_t ends[4] = { 0 }, n = 0, planned = cl->fuzz_count;
	static const int skip_vec[] = { 2, 8, 18 };

	for (int v = 0; v < 32; v++)
		trap_set_handler(v, fz_event);
	for (unsigned i = 0; i < sizeof skip_vec / sizeof skip_vec[0]; i++)
		trap_set_handler(skip_vec[i], 0);
	trap_set_handler(1, fz_db);
	trap_set_handler(DBF_VEC_RING, fz_event);
	trap_set_handler(DBF_VEC_END, fz_end);
	trap_set_handler(VEC_TIMER, fz_timer);
	/* I/O breakpoints (DR7 R/W = 10b) are defined only with CR4.DE = 1 (18.2.4). */
	write_cr4(cr4 | CR4_DE);
	exp_stream(1);
	use_e9 = inb(0xe9) == 0xe9;
	if (use_e9)
		kprintf("    # dbfuzz: trace lines on the debug port 0xE9, not on COM1\n");
	cli();

	uint64_t t0 = rdtsc();
	if (cl->fuzz_index >= 0) {
		struct dbf_scenario s;
		uint32_t idx = (uint32_t)cl->fuzz_index;
		dbf_generate(cl->fuzz_seed, idx, &s);
		apic_watchdog_arm(cl->watchdog_ms);
		ends[run_scenario(&s, cl->fuzz_drop)]++;
		print_line(idx, cl->fuzz_drop, fz.end);
		char d[256];
		dbf_describe(d, sizeof d, &s, cl->fuzz_drop);
		kprintf("    # dbf-scenario %u %x %s\n", idx, cl->fuzz_drop, d);
		n++;
		planned = 1;
		for (int b = 0; cl->fuzz_shrink && b < 32; b++) {
			uint32_t bit = 1u << b;
			if (!(DBF_DROP_ALL & bit) || (cl->fuzz_drop & bit) ||
			    (b < DBF_MAX_ITEMS && b >= s.nitems))
				continue;
			planned++;
			apic_watchdog_arm(cl->watchdog_ms);
			ends[run_scenario(&s, cl->fuzz_drop | bit)]++;
			print_line(idx, cl->fuzz_drop | bit, fz.end);
			n++;
		}
	} else {
		for (uint32_t i = 0; i < cl->fuzz_count; i++) {
			struct dbf_scenario s;
			dbf_generate(cl->fuzz_seed, i, &s);
			apic_watchdog_arm(cl->watchdog_ms);
			ends[run_scenario(&s, 0)]++;
			print_line(i, 0, fz.end);
			n++;
		}
	}
	uint64_t t1 = rdtsc();
	apic_watchdog_arm(cl->watchdog_ms);
	write_cr4(cr4);
	sti();

	uint64_t per_ms = smp_tsc_per_ms();
	uint64_t us = per_ms ? (t1 - t0) * 1000 / per_ms : 0;
	kprintf("    # dbfuzz: seed=%llu %u scenarios in %llu us (%llu per second); ended: "
		"%u at the end, %u overflow, %u escaped, %u watchdog\n",
		(unsigned long long)cl->fuzz_seed, n, (unsigned long long)us,
		(unsigned long long)(us ? (uint64_t)n * 1000000 / us : 0), ends[DBF_END_OK],
		ends[DBF_END_OVERFLOW], ends[DBF_END_ESCAPE], ends[DBF_END_HANG]);
	check_eqd("dbfuzz: scenario runs printed", n, planned);
}

const struct experiment dbfuzz_experiment = {
	.num = 0, .name = "dbfuzz", .family = "debug", .book = "", .needs = "",
	.summary = "differential fuzzing of debug-exception delivery", .run = dbfuzz_run,
};
