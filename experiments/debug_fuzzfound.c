/* 170-172: deviations the differential fuzzer (fuzz=debug, tools/dbfuzz.py, issue
 * 21) found that no other experiment covered, each reduced to the shortest
 * sequence that shows it (the fuzzer's shrunk scenario, rewritten by hand), with
 * the recorder of debug_common.c.  tests/expect/dbfuzz-known.txt names these
 * numbers for the groups of fuzz scenarios they explain. */
#include "cpu.h"
#include "cr.h"
#include "debug_common.h"
#include "experiment.h"
#include "x86.h"

static uint32_t watch[4] __attribute__((aligned(16)));

__asm__(".text\n"
	/* 170: an instruction breakpoint on INT3 and one on the instruction after it */
	".global dbf170_seq, dbf170_int3, dbf170_next\n"
	"dbf170_seq:\n"
	"dbf170_int3:\n"
	"	int3\n"
	"dbf170_next:\n"
	"	nop\n"
	"	ret\n"
	/* 171: TF set by POPF (its first trap comes after the next instruction, the
	 * OUT), an I/O breakpoint on the OUT's port, TF cleared again */
	".global dbf171_seq, dbf171_out, dbf171_after\n"
	"dbf171_seq:\n"
	"	pushfq\n"
	"	orq $0x100, (%rsp)\n"
	"	popfq\n"
	"dbf171_out:\n"
	"	outb %al, $0x80\n"
	"dbf171_after:\n"
	"	pushfq\n"
	"	andq $~0x100, (%rsp)\n"
	"	popfq\n"
	"	ret\n"
	/* 172: one 4-byte store to *rdi */
	".global dbf172_seq, dbf172_after\n"
	"dbf172_seq:\n"
	"	movl %esi, (%rdi)\n"
	"dbf172_after:\n"
	"	ret\n");

extern void dbf170_seq(void), dbf171_seq(void), dbf172_seq(uint32_t *p, uint32_t v);
extern const char dbf170_int3[], dbf170_next[], dbf171_out[], dbf171_after[], dbf172_after[];

/* ---- 170 the RF that INT3 pushes -----------------------------------------------------
 * An instruction breakpoint on INT3 (DR0) faults first; the handler resumes with
 * RF=1 (SDM 18.3.1.1), so INT3 runs and delivers BP.  SDM 18.3.1.1: "RF is cleared
 * at the start of the instruction after the check for code breakpoint" and for
 * "software-generated interrupts RF is pushed as 0": the BP frame holds RF=0, and
 * the IRET back to the next instruction, which has its own instruction breakpoint
 * (DR1), takes that breakpoint: DB B1 there.  The fuzzer found QEMU 7.2 and 10.0
 * pushing RF=1 (both Bochs models push 0).  The APM says RF is cleared after the
 * next instruction completes (13.1.3.1) and nothing about the image a software
 * interrupt pushes, so on AMD CPUs the two RF-dependent results are reported. */
static void exp_rf_soft_int(void)
{
	dbg_begin(0);
	write_dr0((uint64_t)(uintptr_t)dbf170_int3);
	write_dr1((uint64_t)(uintptr_t)dbf170_next);
	write_dr7(dr7_bp(0, DR7_RW_EXEC, DR7_LEN_1) | dr7_bp(1, DR7_RW_EXEC, DR7_LEN_1));
	dbf170_seq();
	dbg_end();
	dbg_log_dump("170");
	if (!dbg_check_event("instruction breakpoint on INT3", 0, 1, (uint64_t)(uintptr_t)dbf170_int3,
			     dr6_with(DR6_B0)))
		return;
	if (!check(dbg_nrec() >= 2 && dbg_log.ev[1].vector == 3,
		   "INT3 then delivers vector 3 (BP): vector %lu (expected 3)",
		   dbg_nrec() >= 2 ? (unsigned long)dbg_log.ev[1].vector : 0UL))
		return;
	check_eq("BP saved RIP: after INT3", dbg_log.ev[1].rip, (uint64_t)(uintptr_t)dbf170_next);
	uint64_t rf = dbg_log.ev[1].rflags & RFLAGS_RF;
	if (cpu.vendor == VENDOR_INTEL) {
		check_eq("RFLAGS.RF in the BP frame (software interrupt: pushed as 0)", rf, 0);
		const struct dbg_expect x[] = {
			{ 1, dbf170_int3, dr6_with(DR6_B0), 0 },
			{ 3, dbf170_next, DBG_ANY, 0 },
			{ 1, dbf170_next, dr6_with(DR6_B1), 0 },
		};
		dbg_check_seq("then the instruction breakpoint after INT3 fires", x, 3);
	} else {
		diag("RFLAGS.RF in the BP frame: %lu; DB B1 at the next instruction: %s "
		     "(APM: not stated; the SDM's rule is 0 and taken)", (unsigned long)(rf >> 16),
		     dbg_nrec() >= 3 && dbg_log.ev[2].rip == (uint64_t)(uintptr_t)dbf170_next ? "taken" :
		     "not taken");
	}
}
EXPERIMENT(170, "rf-soft-int", "", "none",
	   "INT3 run with RF=1 after its breakpoint pushes RF=0: the next instruction's breakpoint fires",
	   exp_rf_soft_int);

/* ---- 171 I/O breakpoint and single-step on the same OUT --------------------------------
 * With CR4.DE=1 an I/O breakpoint (R/W=10b) on port 80H traps after the OUT that
 * touches it (SDM 18.2.4, 18.3.1.3); TF is set for that OUT too.  Both are
 * trap-class conditions of the same instruction, so one DB reports both, DR6 =
 * BS|B0, at the instruction after the OUT (18.2.3: DR6 holds every condition met
 * when the DB is generated; Table 6-2 puts them in one class).  The fuzzer found
 * QEMU 7.2 and 10.0 delivering B0 alone and losing the single-step trap; both
 * Bochs models report BS|B0.  The APM (13.1.1.3) describes DR6 the same way, but
 * it does not state the merge either: on AMD CPUs the result is reported. */
static void exp_io_bp_step(void)
{
	uint64_t cr4 = read_cr4();
	dbg_begin(0);
	write_cr4(cr4 | CR4_DE);
	write_dr0(0x80);
	write_dr7(dr7_bp(0, DR7_RW_IO, DR7_LEN_1));
	dbf171_seq();
	dbg_end();
	write_cr4(cr4);
	dbg_log_dump("171");
	int at = 0;
	uint64_t seen = 0;
	for (int i = 0; i < dbg_nrec(); i++)
		if (dbg_log.ev[i].vector == 1 && dbg_log.ev[i].rip == (uint64_t)(uintptr_t)dbf171_after) {
			at++;
			seen |= dbg_log.ev[i].dr6;
		}
	if (!check(dbg_nrec() >= 1, "a DB after the OUT: %d events (expected at least 1)", dbg_nrec()))
		return;
	check_eq("first DB: saved RIP after the OUT", dbg_log.ev[0].rip, (uint64_t)(uintptr_t)dbf171_after);
	check_eq("DR6.B0 among the DBs after the OUT (I/O breakpoint)", seen & DR6_B0, DR6_B0);
	if (cpu.vendor == VENDOR_INTEL) {
		check_eq("first DB: DR6 = BS|B0 (both trap conditions of the OUT in one DB)",
			 dbg_log.ev[0].dr6, dr6_with(DR6_BS | DR6_B0));
		check_eqd("DBs at the instruction after the OUT", (uint64_t)at, 1);
	} else {
		diag("DBs after the OUT: %d, DR6 union 0x%lx (APM: merge not stated; SDM: one, BS|B0)",
		     at, (unsigned long)seen);
	}
}
EXPERIMENT(171, "io-bp-step", "", "CR4.DE",
	   "TF and an I/O breakpoint on the same OUT: one DB after it, DR6 = BS|B0",
	   exp_io_bp_step);

/* ---- 172 two data breakpoints on the same bytes ------------------------------------------
 * DR0 and DR1 both watch the same 4 bytes for writes; one store hits both.  SDM
 * 18.2.3 / APM 13.1.1.3: each of B0-B3 is set when its breakpoint's condition was
 * met, so the one DB after the store reports B0|B1.  The fuzzer found QEMU 7.2 and
 * 10.0 reporting only one of them (both Bochs models report both). */
static void exp_two_data_bp(void)
{
	const struct dbg_expect x[] = { { 1, dbf172_after, dr6_with(DR6_B0 | DR6_B1), 0 } };
	dbg_begin(0);
	write_dr0((uint64_t)(uintptr_t)&watch[1]);
	write_dr1((uint64_t)(uintptr_t)&watch[1]);
	write_dr7(dr7_bp(0, DR7_RW_WRITE, DR7_LEN_4) | dr7_bp(1, DR7_RW_WRITE, DR7_LEN_4));
	dbf172_seq(&watch[1], 0x1234);
	dbg_end();
	dbg_check_seq("one store hitting two write watches", x, 1);
	check_eq("the store happened", watch[1], 0x1234);
}
EXPERIMENT(172, "two-data-bp", "", "none",
	   "one store hitting two data breakpoints: one DB, DR6 = B0|B1",
	   exp_two_data_bp);
