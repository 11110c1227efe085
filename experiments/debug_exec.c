/* 104 dr-exec: instruction breakpoints in DR0-DR3.
 *
 * SDM vol.3 18.3.1.1: an enabled breakpoint with R/W=00 (LEN must be 00) is a
 * fault-class #DB taken before the instruction at DRn executes: the saved RIP is
 * that instruction, DR6.Bn is set, and the saved RFLAGS.RF is the current RF (0).
 * If the handler returns without more ado, the breakpoint fires again on the same
 * instruction; setting RF in the saved RFLAGS makes IRET restore RF=1, which
 * suppresses instruction breakpoints for exactly one instruction (the processor
 * clears RF when that instruction completes).
 *
 * Each of DR0-DR3 in turn, alternating local (Ln) and global (Gn) enables: one
 * fault, RIP at the target, DR6 = init | Bn, the instruction ran once.  Then DR0
 * with a handler that does not set RF the first time: the fault repeats once at the
 * same RIP and the instruction still runs once.  Finally, RF does not outlive the
 * instruction: a second call hits the breakpoint again. */
#include "cr.h"
#include "debug_common.h"
#include "experiment.h"
#include "fmt.h"
#include "x86.h"

__asm__(
	".pushsection .text\n"
	".global dbg_exec_fn, dbg_exec_target\n"
	"dbg_exec_fn:\n"
	"	xor %eax, %eax\n"
	"dbg_exec_target:\n"
	"	inc %eax\n"                     /* the breakpointed instruction */
	"	ret\n"
	".popsection\n");

extern uint64_t dbg_exec_fn(void);
extern const char dbg_exec_target[];

static void arm_exec(int n)
{
	uint64_t dr7 = DR7_INIT | DR7_RW_EXEC << DR7_RW_SHIFT(n) | DR7_LEN_1 << DR7_LEN_SHIFT(n);

	dr7 |= (n & 1) ? DR7_G(n) : DR7_L(n);
	write_dr(n, (uint64_t)dbg_exec_target);
	write_dr7(dr7);
}

/* Off, and the address gone: a disabled breakpoint that still matches may set its
 * Bn too (SDM 18.2.3 "may or may not"), which would blur the exact DR6 checks. */
static void disarm(void)
{
	dbg_end();
}

/* Leaves RF clear on the first delivery, so the breakpoint must re-trigger. */
static void rf_on_second(struct trap_frame *tf, struct dbg_event *e, int n)
{
	if (n >= 1)
		dbg_resume(tf, e, n);
}

static void exp_dr_exec(void)
{
	char what[64];
	uint64_t ran;

	for (int n = 0; n < 4; n++) {
		dbg_begin(0);
		arm_exec(n);
		ran = dbg_exec_fn();
		disarm();
		tl_snprintf(what, sizeof what, "DR%d (%s) DB count", n, (n & 1) ? "G" : "L");
		dbg_check_count(what, 1);
		tl_snprintf(what, sizeof what, "DR%d fault before the instruction", n);
		dbg_check_event(what, 0, 1, (uint64_t)dbg_exec_target, dr6_with(DR6_BN(n)));
		if (dbg_log.n >= 1) {
			tl_snprintf(what, sizeof what, "DR%d saved RFLAGS.RF", n);
			check_eq(what, dbg_log.ev[0].rflags & RFLAGS_RF, 0);
		}
		tl_snprintf(what, sizeof what, "DR%d resumed with RF: instruction ran once", n);
		check_eqd(what, ran, 1);
	}

	/* Without RF the same fault comes back; observed once, then resumed with RF. */
	dbg_begin(rf_on_second);
	arm_exec(0);
	ran = dbg_exec_fn();
	disarm();
	dbg_check_count("no RF: DB count (fault repeats once)", 2);
	dbg_check_event("no RF: first fault", 0, 1, (uint64_t)dbg_exec_target, dr6_with(DR6_B0));
	dbg_check_event("no RF: repeated fault", 1, 1, (uint64_t)dbg_exec_target, dr6_with(DR6_B0));
	check_eqd("no RF: instruction ran once", ran, 1);

	/* RF covers one instruction only: the next pass faults again. */
	dbg_begin(0);
	arm_exec(0);
	ran = dbg_exec_fn();
	ran += dbg_exec_fn();
	disarm();
	dbg_check_count("RF cleared after the instruction: two calls, two faults", 2);
	check_eqd("two calls: instruction ran twice", ran, 2);
	dbg_end();
}
EXPERIMENT(104, "dr-exec", "", "none",
	   "DR0-DR3 instruction breakpoints: fault before, DR6.Bn, RF resume runs it once", exp_dr_exec);
