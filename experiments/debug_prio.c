/* 135-139, 157-161: which debug condition wins, what DR6 then says, and what RF
 * and GD do when several conditions meet.  Sequences in debug_seq.S.
 *
 * SDM vol.3 6.9, Table 6-2 (priority among simultaneous exceptions and interrupts):
 * traps on the previous instruction (single-step, data breakpoints) rank above a
 * code-breakpoint fault, which ranks above the faults of fetching, decoding and
 * executing the next instruction (GD, #DE, #BP...).  18.2.3: one #DB reports all
 * debug conditions met at that point in DR6. */
#include "cpu.h"
#include "cr.h"
#include "debug_common.h"
#include "debug_seq.h"
#include "experiment.h"
#include "x86.h"

#define BS(l)   { 1, (l), dr6_with(DR6_BS), 0 }

static uint8_t watch[16] __attribute__((aligned(16)));

/* ---- 135 stale DR6 bits ---------------------------------------------------------
 * SDM 18.2.3: "certain debug exceptions may clear bits 0-3; the remaining contents
 * of DR6 are never cleared by the processor".  Preset BS|B1, then a DR2 write hit:
 * BS stays, B2 is set.  Intel hardware rewrites B0-B3 with the breakpoints matched
 * by this #DB (B1 cleared; kvm-unit-tests checks exactly this); the APM does not
 * say the processor clears B0-B3, so on AMD B1 is reported, not judged. */
static void exp_dr6_stale(void)
{
	dbg_begin(0);
	dbg_log.keep_dr6 = true;
	write_dr2((uint64_t)(uintptr_t)watch);
	write_dr7(dr7_bp(2, DR7_RW_WRITE, DR7_LEN_1));
	write_dr6(DR6_INIT | DR6_BS | DR6_B1);
	*(volatile uint8_t *)watch = 1;
	dbg_end();
	if (!dbg_check_count("DR2 write hit with BS|B1 preset: DB count", 1))
		return;
	uint64_t d = dbg_log.ev[0].dr6;
	check_eq("DR6.BS preset by software: never cleared by the processor", d & DR6_BS, DR6_BS);
	check_eq("DR6.B2 set for the DR2 hit", d & DR6_B2, DR6_B2);
	check_eq("DR6.B0, B3 clear", d & (DR6_B0 | DR6_B3), 0);
	if (cpu.vendor == VENDOR_INTEL)
		check_eq("DR6.B1 (preset, not hit) rewritten to 0 (Intel)", d & DR6_B1, 0);
	else
		diag("DR6.B1 (preset, not hit) after the DB: %lu (APM: not stated)",
		     (unsigned long)((d & DR6_B1) >> 1));
}
EXPERIMENT(135, "dr6-stale", "", "none",
	   "DR6 preset BS and B1, then a DR2 hit: BS kept, B2 set, B1 as the vendor documents",
	   exp_dr6_stale);

/* ---- 136 TF and a data breakpoint on the same instruction --------------------------
 * Both are traps of the same instruction: one #DB after it, DR6 = BS|B0. */
static void exp_dr6_tf_data(void)
{
	const struct dbg_expect x[] = { BS(dq_tfst_1), { 1, dq_tfst_2, dr6_with(DR6_BS | DR6_B0), 0 },
					BS(dq_tfst_off1), BS(dq_tfst_off2), BS(dq_tfst_off3) };
	dbg_begin(0);
	write_dr0((uint64_t)(uintptr_t)watch);
	write_dr7(dr7_bp(0, DR7_RW_WRITE, DR7_LEN_1));
	dq_tfst(watch);
	dbg_end();
	dbg_check_seq("TF and a data write on one instruction", x, 5);
}
EXPERIMENT(136, "dr6-tf-data", "", "none",
	   "TF and a data breakpoint met by one instruction: a single DB after it with BS and B0",
	   exp_dr6_tf_data);

/* ---- 137 instruction breakpoint on an instruction that faults --------------------
 * The code-breakpoint fault comes first (Table 6-2), saved RIP = the DIV, RF=0 in
 * the image; the handler resumes with RF=1, the DIV executes and raises #DE (saved
 * RIP = the DIV) whose image has RF=1 (18.3.1.1: set for faults other than an
 * instruction breakpoint), so the breakpoint does not fire again on the restart. */
static void exp_dr6_exec_fault(void)
{
	const struct dbg_expect x[] = { { 1, dq_xf_1, dr6_with(DR6_B0), 0 }, { 0, dq_xf_1, DBG_ANY, 0 } };
	dbg_begin(0);
	dbg_catch(0, dq_xf_2);
	write_dr0((uint64_t)(uintptr_t)dq_xf_1);
	write_dr7(dr7_bp(0, DR7_RW_EXEC, DR7_LEN_1));
	dq_xf();
	dbg_end();
	dbg_check_seq("instruction breakpoint on a DIV by zero", x, 2);
	if (dbg_nrec() >= 2) {
		check_eq("DB frame RF (instruction breakpoint: 0)", dbg_log.ev[0].rflags & RFLAGS_RF, 0);
		check_eq("DE frame RF (a fault: 1)", dbg_log.ev[1].rflags & RFLAGS_RF, RFLAGS_RF);
	}
}
EXPERIMENT(137, "dr6-exec-fault", "", "none",
	   "instruction breakpoint on a faulting DIV: DB B0 first, then DE with RF=1 in its frame",
	   exp_dr6_exec_fault);

/* ---- 138 single-step landing on an instruction breakpoint ---------------------------
 * At the boundary before the breakpointed INC both the trap of the previous
 * instruction (BS) and the code breakpoint (B0) are pending.  Both conditions must
 * be reported, at that RIP, and the INC must run exactly once (the handler resumes
 * with RF=1).  Whether they arrive as one #DB with BS|B0 or as two, the SDM does not
 * fix; the count is reported. */
static void exp_dr6_step_bp(void)
{
	dbg_begin(0);
	write_dr0((uint64_t)(uintptr_t)dq_sb_1);
	write_dr7(dr7_bp(0, DR7_RW_EXEC, DR7_LEN_1));
	uint64_t ran = dq_sb();
	dbg_end();
	uint64_t seen = 0;
	int at = 0;
	for (int i = 0; i < dbg_nrec(); i++)
		if (dbg_log.ev[i].rip == (uint64_t)(uintptr_t)dq_sb_1) {
			seen |= dbg_log.ev[i].dr6;
			at++;
		}
	check(at >= 1 && (seen & (DR6_BS | DR6_B0)) == (DR6_BS | DR6_B0),
	      "DR6 at the breakpoint: %d DB, union %#lx (expected 1 or 2 DB, BS and B0 set)",
	      at, (unsigned long)seen);
	diag("DB count at the breakpoint: %d", at);
	check_eqd("the breakpointed INC ran once", ran, 1);
	check_eqd("DB after the INC and the three TF-off instructions", (uint64_t)(dbg_log.n - at), 4);
}
EXPERIMENT(138, "dr6-step-on-bp", "", "none",
	   "single-step landing on an instruction breakpoint: BS and B0 both reported, the INC runs once",
	   exp_dr6_step_bp);

/* ---- 139 GD against other #DB causes -------------------------------------------------
 * SDM 18.2.4: the processor clears DR7.GD when it delivers any #DB.  So with GD set,
 * (a) an instruction breakpoint on a MOV DR comes first (a code breakpoint outranks
 * the GD fault of executing it) and its delivery clears GD: the MOV then runs with
 * no BD #DB at all; (b) the single-step trap of the instruction before the MOV DR
 * clears GD in the same way. */
static void exp_gd_priority(void)
{
	const struct dbg_expect a[] = { { 1, dq_gx_1, dr6_with(DR6_B1), 0 } };
	dbg_begin(0);
	write_dr0(0x1234000);
	write_dr1((uint64_t)(uintptr_t)dq_gx_1);
	uint64_t v = dq_gx(dr7_bp(1, DR7_RW_EXEC, DR7_LEN_1) | DR7_GD);
	uint64_t dr7 = read_dr7();
	dbg_end();
	dbg_check_seq("GD and an instruction breakpoint on MOV from DR0", a, 1);
	if (dbg_nrec() >= 1)
		check_eq("GD clear in the handler of the B1 DB", dbg_log.ev[0].dr7 & DR7_GD, 0);
	check_eq("DR7.GD clear afterwards", dr7 & DR7_GD, 0);
	check_eq("the MOV ran: DR0 read", v, 0x1234000);

	const struct dbg_expect b[] = { BS(dq_gs_1), BS(dq_gs_2), BS(dq_gs_3), BS(dq_gs_off1),
					BS(dq_gs_off2), BS(dq_gs_off3) };
	dbg_begin(0);
	write_dr0(0x5678000);
	v = dq_gs(DR7_INIT | DR7_GD);
	dr7 = read_dr7();
	dbg_end();
	dbg_check_seq("GD and TF stepping onto MOV from DR0", b, 6);
	if (dbg_nrec() >= 1)
		check_eq("GD clear in the handler of the first BS DB", dbg_log.ev[0].dr7 & DR7_GD, 0);
	check_eq("the MOV ran: DR0 read", v, 0x5678000);
}
EXPERIMENT(139, "gd-vs-other-db", "", "none",
	   "DR7.GD with a breakpoint or TF on the MOV DR: the other DB comes first and clears GD",
	   exp_gd_priority);

/* ---- 157 instruction breakpoint on a prefixed instruction ---------------------------
 * SDM 18.2.5/18.3.1.1: an instruction breakpoint matches the address of the
 * instruction's first byte, its first prefix: a breakpoint on the opcode byte after
 * a 66H prefix never fires, one on the prefix does. */
static void exp_exec_prefix(void)
{
	dbg_begin(0);
	write_dr0((uint64_t)(uintptr_t)dq_pfx_1);
	write_dr7(dr7_bp(0, DR7_RW_EXEC, DR7_LEN_1));
	dq_pfx();
	write_dr0((uint64_t)(uintptr_t)dq_pfx_0);
	dq_pfx();
	dbg_end();
	const struct dbg_expect x[] = { { 1, dq_pfx_0, dr6_with(DR6_B0), 0 } };
	dbg_check_seq("breakpoint on the opcode after 66H, then on the 66H", x, 1);
}
EXPERIMENT(157, "exec-bp-prefix", "", "none",
	   "instruction breakpoint after a prefix never fires; on the prefix it does",
	   exp_exec_prefix);

/* ---- 158 RF suppresses instruction breakpoints only ------------------------------------
 * SDM 18.3.1.1, 17.x RF: RF=1 suppresses instruction breakpoints for one
 * instruction and nothing else.  IRETQ with RF=1 to a store that is both an
 * instruction breakpoint (DR0) and hits a write watch (DR1): no B0 fault, one #DB
 * after the store with B1 alone. */
static void exp_rf_only_exec(void)
{
	dbg_begin(0);
	write_dr0((uint64_t)(uintptr_t)dq_rf_1);
	write_dr1((uint64_t)(uintptr_t)(watch + 4));
	write_dr7(dr7_bp(0, DR7_RW_EXEC, DR7_LEN_1) | dr7_bp(1, DR7_RW_WRITE, DR7_LEN_1));
	dq_rf(watch + 4);
	dbg_end();
	const struct dbg_expect x[] = { { 1, dq_rf_2, dr6_with(DR6_B1), 0 } };
	dbg_check_seq("IRET with RF=1 to a breakpointed store on a watched byte", x, 1);
}
EXPERIMENT(158, "rf-only-exec", "", "none",
	   "RF=1 suppresses the instruction breakpoint, not the data breakpoint of the same store",
	   exp_rf_only_exec);

/* ---- 160 instruction breakpoint on INT3 ---------------------------------------------------
 * The code breakpoint is a fault before INT3 executes (Table 6-2), #DB B0 at the
 * INT3; resumed with RF=1, INT3 then delivers BP with the saved RIP after it. */
static void exp_exec_int3(void)
{
	const struct dbg_expect x[] = { { 1, dq_xb_1, dr6_with(DR6_B0), 0 }, { 3, dq_xb_2, DBG_ANY, 0 } };
	dbg_begin(0);
	write_dr0((uint64_t)(uintptr_t)dq_xb_1);
	write_dr7(dr7_bp(0, DR7_RW_EXEC, DR7_LEN_1));
	dq_xb();
	dbg_end();
	dbg_check_seq("instruction breakpoint on INT3", x, 2);
}
EXPERIMENT(160, "exec-bp-int3", "", "none",
	   "instruction breakpoint on INT3: DB B0 before it, then BP after it",
	   exp_exec_int3);

/* ---- 161 a data breakpoint hit by an implicit stack write ------------------------------------
 * Data breakpoints watch every data access, implicit ones included (SDM 18.2.4):
 * the return address CALL pushes onto a watched slot gives a trap after the CALL,
 * saved RIP = the callee's first instruction, DR6.B0; RET reading the slot does not
 * trip a write watch. */
static void exp_data_push(void)
{
	const struct dbg_expect x[] = { { 1, dq_push_callee, dr6_with(DR6_B0), 0 } };
	dbg_begin(0);
	dq_push(dr7_bp(0, DR7_RW_WRITE, DR7_LEN_8));
	dbg_end();
	dbg_check_seq("write watch on the slot CALL pushes to", x, 1);
}
EXPERIMENT(161, "data-bp-stack-push", "", "none",
	   "write watch on the stack slot of a CALL: DB after the CALL, at the callee, B0",
	   exp_data_push);
