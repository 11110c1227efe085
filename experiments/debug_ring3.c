/* 144, 145, 147-149: INT 1 as a software interrupt, and debug events raised at CPL 3
 * that 114-118 do not cover.  Sequences in debug_seq.S (and 104's dbg_exec_fn). */
#include "cr.h"
#include "debug_common.h"
#include "debug_seq.h"
#include "experiment.h"
#include "user.h"
#include "x86.h"

/* ---- 144 INT 1 (CD 01) at CPL 0 -----------------------------------------------------
 * CD 01 is INT n with n = 1 (SDM vol.2 INT n; 6.12.1.1): a software interrupt through
 * gate 1, saved RIP after the 2-byte instruction, no DR6 condition (DR6 as init), and
 * not the ICEBP (F1) "privileged software exception".  The gate's DPL (0) allows it at
 * CPL 0. */
static void exp_int1_cd01(void)
{
	const struct dbg_expect x[] = { { 1, dq_int1_1, DR6_INIT, 0 } };
	dbg_begin(0);
	dq_int1();
	dbg_check_seq("INT 1 (CD 01) at CPL 0", x, 1);
	if (dbg_nrec() >= 1)
		check_eq("saved RFLAGS.RF (a trap: 0)", dbg_log.ev[0].rflags & RFLAGS_RF, 0);
}
EXPERIMENT(144, "int1-cd01", "", "none",
	   "INT 1 (CD 01) at CPL 0: vector 1 as a software interrupt, RIP after, DR6 untouched",
	   exp_int1_cd01);

/* ---- 145 INT 1 (CD 01) at CPL 3 --------------------------------------------------------
 * INT n checks the gate's DPL against CPL (SDM 6.12.1.1): gate 1 has DPL 0, so CD 01 at
 * CPL 3 raises #GP with error code (1 << 3) | 2 (IDT, vector 1), saved RIP = the INT,
 * and no #DB — unlike ICEBP (118), which is exempt from the DPL check. */
static void call_int1(void *a) { dq_int1(); }

static void exp_user_int1_gp(void)
{
	dbg_begin(0);
	dbg_catch(13, dq_int1_1);
	run_user(call_int1, 0);
	const struct dbg_expect x[] = { { 13, dq_int1, DBG_ANY, 3 } };
	dbg_check_seq("INT 1 (CD 01) at CPL 3 through a DPL-0 gate", x, 1);
	if (dbg_nrec() >= 1)
		check_eq("GP error code: IDT vector 1", dbg_log.ev[0].error, (1 << 3) | 2);
}
EXPERIMENT(145, "user-int1-gp", "", "none",
	   "INT 1 (CD 01) at CPL 3 with a DPL-0 gate: GP(0x0a) at the INT, no DB, unlike ICEBP",
	   exp_user_int1_gp);

/* ---- 147 instruction breakpoint at CPL 3, resumed with RF through IRET -----------------
 * SDM 18.3.1.1: the handler sets RF in the saved RFLAGS; IRET to CPL 3 restores it and
 * the instruction runs once without faulting again. */
extern uint64_t dbg_exec_fn(void);
extern const char dbg_exec_target[];
static uint64_t user_ran;
static void call_exec(void *a) { user_ran = dbg_exec_fn(); }

static void exp_user_exec_rf(void)
{
	dbg_begin(0);
	user_ran = 0;
	write_dr0((uint64_t)(uintptr_t)dbg_exec_target);
	write_dr7(dr7_bp(0, DR7_RW_EXEC, DR7_LEN_1));
	run_user(call_exec, 0);
	dbg_end();
	const struct dbg_expect x[] = { { 1, dbg_exec_target, dr6_with(DR6_B0), 3 } };
	dbg_check_seq("instruction breakpoint at CPL 3", x, 1);
	check_eqd("resumed with RF through IRET: the instruction ran once", user_ran, 1);
}
EXPERIMENT(147, "user-exec-bp-rf", "", "none",
	   "instruction breakpoint at CPL 3: fault before, RF set by the handler, IRET runs it once",
	   exp_user_exec_rf);

/* ---- 148 I/O breakpoint at CPL 3 (IOPL 3) --------------------------------------------------
 * SDM 18.2.4, 18.3.1.2: with CR4.DE=1 an I/O breakpoint traps after the IN/OUT at any
 * CPL; IOPL 3 lets the OUT run at CPL 3 (SDM vol.1 13.5). */
static void call_out(void *a) { dq_out80(); }

static void exp_user_io_bp(void)
{
	uint64_t cr4 = read_cr4();

	write_cr4(cr4 | CR4_DE);
	dbg_begin(0);
	write_dr0(0x80);
	write_dr7(dr7_bp(0, DR7_RW_IO, DR7_LEN_1));
	run_user_flags(call_out, 0, RFLAGS_IF | RFLAGS_IOPL3);
	dbg_end();
	write_cr4(cr4);
	const struct dbg_expect x[] = { { 1, dq_out80_1, dr6_with(DR6_B0), 3 } };
	dbg_check_seq("OUT 0x80 at CPL 3 with an I/O breakpoint", x, 1);
}
EXPERIMENT(148, "user-io-bp", "", "CR4.DE",
	   "I/O breakpoint hit by an OUT at CPL 3 (IOPL 3): DB after it, B0, CS.RPL 3",
	   exp_user_io_bp);

/* ---- 149 MOV DR at CPL 3 with DR7.GD -------------------------------------------------------
 * MOV to/from a debug register at CPL > 0 is #GP(0) (SDM vol.2 MOV DR, Protected Mode
 * Exceptions, listed before the GD #DB), even with DR7.GD set: no #DB.  GD is then still
 * armed: the kernel's next MOV DR takes the BD fault, which clears GD (18.2.4). */
static void call_movdr(void *a) { dq_movdr(); }

static void exp_user_movdr_gp(void)
{
	dbg_begin(0);
	dbg_catch(13, dq_movdr_1);
	write_dr7(DR7_INIT | DR7_GD);
	run_user(call_movdr, 0);
	uint64_t dr7 = read_dr7();      /* takes the GD fault if GD is still set */
	write_dr7(DR7_INIT);
	const struct dbg_expect x[] = { { 13, dq_movdr, DBG_ANY, 3 } };
	int n = dbg_log.n;
	dbg_log.n = n > 1 ? 1 : n;
	dbg_check_seq("MOV from DR7 at CPL 3 with GD set", x, 1);
	if (dbg_nrec() >= 1)
		check_eq("GP error code", dbg_log.ev[0].error, 0);
	dbg_log.n = n;
	check(n == 2 && dbg_log.ev[1].vector == 1 && dbg_log.ev[1].dr6 == dr6_with(DR6_BD) &&
	      dbg_log.ev[1].cs == read_cs(),
	      "GD still armed: the kernel's MOV DR faults next: %d events, vector %lu dr6 %#lx "
	      "(expected 2, 1 DB %#lx at CPL 0)", n, n >= 2 ? (unsigned long)dbg_log.ev[1].vector : 0UL,
	      n >= 2 ? (unsigned long)dbg_log.ev[1].dr6 : 0UL, (unsigned long)dr6_with(DR6_BD));
	check_eq("DR7 read after the BD fault: GD clear", dr7 & DR7_GD, 0);
}
EXPERIMENT(149, "user-movdr-gp", "", "none",
	   "MOV DR at CPL 3 with DR7.GD: GP(0), not DB; GD stays armed for the next MOV DR",
	   exp_user_movdr_gp);
