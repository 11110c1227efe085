/* The debug family in 32-bit protected mode (kernel/pm32.h), paging off or on.
 *
 * The same numbers as in long mode where the rule is the same (101 int3, 102
 * int1-icebp, 103 single-step, 104 dr-exec, 109 dr7-gd); the scenarios are
 * 32-bit code in experiments/pm32_scenarios.S, the events are recorded in
 * protected mode and checked here, in long mode, against the SDM.
 *
 * Protected mode only (IA-32e mode has no hardware task switches, SDM vol.3
 * 7.7): 190-193, the task-switch rules of the debug chapter:
 *  - 17.3.1.5 / 7.2.1: the T flag (TSS offset 64H, bit 0) of the new task raises
 *    a #DB after the switch, "after program control has passed to the new task,
 *    and prior to the execution of the first instruction of that task"; DR6.BT
 *    reports it.  The same for JMP and CALL, through a TSS descriptor or a task
 *    gate (7.3: the four ways a JMP/CALL switches tasks).
 *  - 17.2.4: L0-L3 "are automatically cleared on every task switch"; G0-G3 are
 *    not.  (LE: the SDM says P6 and later do not support it; reported only.)
 *  - 17.3.1.4: "If the TF flag was set in a TSS at the time of a task switch, the
 *    exception occurs after the first instruction is executed in the new task."
 *  - 6.12.2 / 7.3: #DB and #BP through a task gate: the handler is a task, the
 *    interrupted task's state is in the TSS its previous-task link names, NT=1,
 *    and its IRET returns there.  17.3.1.1: the handler sets RF in the EFLAGS
 *    image of that TSS to resume past an instruction breakpoint.  194: ICEBP
 *    into the same handler task (apart: QEMU has no ICEBP). */
#include "cmdline.h"
#include "cpu.h"
#include "cr.h"
#include "dr.h"
#include "experiment.h"
#include "fmt.h"
#include "pm32.h"
#include "seg.h"
#include "vectors.h"
#include "x86.h"

extern char pm32_s_int3[], pm32_int3_cc_next[], pm32_int3_cd_next[];
extern char pm32_s_icebp[], pm32_icebp[], pm32_icebp_next[];
extern char pm32_s_ss_popf[], pm32_ss_a2[], pm32_ss_a3[], pm32_ss_a4[], pm32_ss_a5[],
	pm32_ss_a6[], pm32_ss_a7[];
extern char pm32_s_ss_iret[], pm32_ss_b2[], pm32_ss_b3[], pm32_ss_b4[], pm32_ss_b5[];
extern char pm32_s_exec[], pm32_s_exec_twice[], pm32_exec_target[];
extern char pm32_s_gd_read[], pm32_gd_read_mov[], pm32_s_gd_write[], pm32_gd_write_mov[];
extern char pm32_s_ts_jmp[], pm32_s_ts_call[], pm32_ts_a_jmp[], pm32_ts_a_call[];
extern char pm32_ts_a_step[], pm32_ts_s1[], pm32_ts_s2[], pm32_ts_s3[], pm32_ts_s4[],
	pm32_ts_s5[], pm32_ts_s6[];
extern char pm32_s_ts_step_out[], pm32_ts_o_jmp[], pm32_ts_o2[], pm32_ts_o3[], pm32_ts_o4[];
extern char pm32_s_tg_icebp[], pm32_tg_icebp[], pm32_tg_icebp_next[];
extern char pm32_s_tg_step[], pm32_tg_t2[], pm32_tg_t3[], pm32_tg_t4[], pm32_tg_t5[];
extern char pm32_s_tg_int3[], pm32_tg_cc_next[], pm32_tg_cd_next[];

#define A32(sym)        ((uint32_t)(uintptr_t)(sym))
#define DR6_INIT32      ((uint32_t)DR6_INIT)

static struct pm32 pm;

static const char *vname(uint32_t v)
{
	return v == VEC_DB ? "DB" : v == VEC_BP ? "BP" : v == VEC_UD ? "UD" : "other";
}

/* One check per field of event i: delivered, vector, EIP, DR6. */
static bool ev_check(const char *what, int i, uint32_t vector, uint32_t eip, uint32_t dr6)
{
	const struct pm32_cb *cb = pm.cb;
	char buf[96];

	if (!check((uint32_t)i < cb->nevents && i < PM32_MAX_EVENTS, "%s: event %d delivered (%u seen)",
		   what, i + 1, cb->nevents))
		return false;
	const struct pm32_event *e = &cb->ev[i];
	bool ok = check(e->vector == vector, "%s: vector %u %s (expected %u %s)", what, e->vector,
			vname(e->vector), vector, vname(vector));
	tl_snprintf(buf, sizeof buf, "%s: saved EIP", what);
	ok &= check_eq(buf, e->eip, eip);
	tl_snprintf(buf, sizeof buf, "%s: DR6", what);
	ok &= check_eq(buf, e->dr6, dr6);
	return ok;
}

static void count_check(const char *what, uint32_t expected)
{
	check_eqd(what, pm.cb->nevents, expected);
}

static void dr_clear(void)
{
	write_dr7(DR7_INIT);
	for (int i = 0; i < 4; i++)
		write_dr(i, 0);
	write_dr6(DR6_INIT);
}

/* ---- 101 int3 ------------------------------------------------------------- */

static void exp_pm32_int3(void)
{
	pm32_prepare(&pm, A32(pm32_s_int3), 0, 0);
	if (!pm32_run(&pm, "INT3 and INT 3"))
		return;
	count_check("BP deliveries", 2);
	ev_check("0xCC int3", 0, VEC_BP, A32(pm32_int3_cc_next), DR6_INIT32);
	ev_check("0xCD 0x03 int 3", 1, VEC_BP, A32(pm32_int3_cd_next), DR6_INIT32);
	check_eqd("instructions after each breakpoint ran", pm.cb->result, 2);
	if (pm.cb->nevents >= 1) {
		check_eq("saved CS is the protected-mode code segment", pm.cb->ev[0].cs, PM32_SEL_CS);
		check_eq("TF clear inside the BP handler", pm.cb->ev[0].eflags_live & RFLAGS_TF, 0);
	}
}
EXPERIMENT_PM32(101, "int3", "", "none",
	   "INT3 (0xCC) and INT 3 (0xCD 03) in 32-bit protected mode: BP trap, EIP after, DR6 untouched",
	   exp_pm32_int3, 0);

/* ---- 102 int1-icebp ------------------------------------------------------- */

static void exp_pm32_icebp(void)
{
	pm32_prepare(&pm, A32(pm32_s_icebp), 0, 0);
	pm.cb->action[VEC_UD] = PM32_ACT_RECORD_SKIP1;  /* an emulator without 0xF1: UD, skipped */
	if (!pm32_run(&pm, "ICEBP"))
		return;
	uint32_t ud = 0;
	for (uint32_t i = 0; i < pm.cb->nevents && i < PM32_MAX_EVENTS; i++)
		ud += pm.cb->ev[i].vector == VEC_UD;
	check_eqd("UD instead of DB (0xF1 not decoded)", ud, 0);
	count_check("DB deliveries", 1);
	ev_check("INT1/ICEBP 0xF1", 0, VEC_DB, A32(pm32_icebp_next), DR6_INIT32);
	check_eqd("instruction after ICEBP ran", pm.cb->result, 1);
	if (pm.cb->nevents >= 1)
		check_eq("saved EFLAGS.RF (trap, not fault)", pm.cb->ev[0].eflags & RFLAGS_RF, 0);
}
EXPERIMENT_PM32(102, "int1-icebp", "", "none",
	   "INT1/ICEBP (0xF1) in 32-bit protected mode: trap-class DB, EIP after, no DR6 condition bit",
	   exp_pm32_icebp, 0);

/* ---- 103 single-step ------------------------------------------------------ */

static void steps(const char *part, int first, const char *const *eips, int n)
{
	char what[64];
	for (int i = 0; i < n; i++) {
		tl_snprintf(what, sizeof what, "%s step %d", part, i + 1);
		ev_check(what, first + i, VEC_DB, A32(eips[i]), DR6_INIT32 | (uint32_t)DR6_BS);
	}
}

static void exp_pm32_step(void)
{
	static const char *const a[] = { pm32_ss_a2, pm32_ss_a3, pm32_ss_a4, pm32_ss_a5, pm32_ss_a6, pm32_ss_a7 };
	pm32_prepare(&pm, A32(pm32_s_ss_popf), 0, 0);
	if (pm32_run(&pm, "POPF sets TF")) {
		count_check("POPF: DB count (none after the POPF that set TF)", 6);
		steps("POPF", 0, a, 6);
		if (pm.cb->nevents >= 1) {
			check_eq("POPF: saved EFLAGS.TF=1 in the trap frame", pm.cb->ev[0].eflags & RFLAGS_TF,
				 RFLAGS_TF);
			check_eq("POPF: TF clear while the DB handler runs",
				 pm.cb->ev[0].eflags_live & RFLAGS_TF, 0);
		}
	}
	static const char *const b[] = { pm32_ss_b2, pm32_ss_b3, pm32_ss_b4, pm32_ss_b5 };
	pm32_prepare(&pm, A32(pm32_s_ss_iret), 0, 0);
	if (pm32_run(&pm, "IRET sets TF")) {
		count_check("IRET: DB count (none after the IRET that set TF)", 4);
		steps("IRET", 0, b, 4);
	}
}
EXPERIMENT_PM32(103, "single-step", "", "none",
	   "EFLAGS.TF in 32-bit protected mode: exact DB count and EIPs across POPF and IRET, DR6.BS",
	   exp_pm32_step, 0);

/* ---- 104 dr-exec ---------------------------------------------------------- */

static void arm_exec(int n)
{
	uint64_t dr7 = DR7_INIT | DR7_RW_EXEC << DR7_RW_SHIFT(n) | DR7_LEN_1 << DR7_LEN_SHIFT(n);
	dr7 |= (n & 1) ? DR7_G(n) : DR7_L(n);
	write_dr(n, A32(pm32_exec_target));
	write_dr7(dr7);
}

static void exp_pm32_exec(void)
{
	char what[64];

	for (int n = 0; n < 4; n++) {
		pm32_prepare(&pm, A32(pm32_s_exec), 0, 0);
		arm_exec(n);
		bool ran = pm32_run(&pm, "instruction breakpoint");
		dr_clear();
		if (!ran)
			return;
		tl_snprintf(what, sizeof what, "DR%d (%s) DB count", n, (n & 1) ? "G" : "L");
		count_check(what, 1);
		tl_snprintf(what, sizeof what, "DR%d fault before the instruction", n);
		ev_check(what, 0, VEC_DB, A32(pm32_exec_target), DR6_INIT32 | (uint32_t)DR6_BN(n));
		if (pm.cb->nevents >= 1) {
			tl_snprintf(what, sizeof what, "DR%d saved EFLAGS.RF", n);
			check_eq(what, pm.cb->ev[0].eflags & RFLAGS_RF, 0);
		}
		tl_snprintf(what, sizeof what, "DR%d resumed with RF: instruction ran once", n);
		check_eqd(what, pm.cb->result, 1);
	}

	/* Without RF the same fault comes back; the second time the handler sets RF. */
	pm32_prepare(&pm, A32(pm32_s_exec), 0, 0);
	pm.cb->rf_from = 1;
	arm_exec(0);
	bool ran = pm32_run(&pm, "no RF");
	dr_clear();
	if (ran) {
		count_check("no RF: DB count (fault repeats once)", 2);
		ev_check("no RF: first fault", 0, VEC_DB, A32(pm32_exec_target), DR6_INIT32 | (uint32_t)DR6_B0);
		ev_check("no RF: repeated fault", 1, VEC_DB, A32(pm32_exec_target), DR6_INIT32 | (uint32_t)DR6_B0);
		check_eqd("no RF: instruction ran once", pm.cb->result, 1);
	}

	/* RF covers one instruction: the next pass faults again. */
	pm32_prepare(&pm, A32(pm32_s_exec_twice), 0, 0);
	arm_exec(0);
	ran = pm32_run(&pm, "two passes");
	dr_clear();
	if (ran) {
		count_check("RF cleared after the instruction: two passes, two faults", 2);
		check_eqd("two passes: instruction ran twice", pm.cb->result, 2);
	}
}
EXPERIMENT_PM32(104, "dr-exec", "", "none",
	   "DR0-DR3 instruction breakpoints in 32-bit protected mode: fault before, DR6.Bn, RF resume",
	   exp_pm32_exec, 0);

/* ---- 109 dr7-gd ----------------------------------------------------------- */

static void exp_pm32_gd(void)
{
	write_dr0(0x1234000);
	pm32_prepare(&pm, A32(pm32_s_gd_read), 0, 0);
	bool ran = pm32_run(&pm, "MOV from DR0 with GD");
	uint32_t result = pm.cb->result;
	dr_clear();
	if (ran) {
		count_check("MOV from DR0 with GD: DB count", 1);
		ev_check("MOV from DR0: fault before the MOV", 0, VEC_DB, A32(pm32_gd_read_mov),
			 DR6_INIT32 | (uint32_t)DR6_BD);
		if (pm.cb->nevents >= 1)
			check_eq("MOV from DR0: DR7.GD clear in the handler", pm.cb->ev[0].dr7 & DR7_GD, 0);
		check_eq("MOV from DR0: executed after the handler", result, 0x1234000);
	}

	pm32_prepare(&pm, A32(pm32_s_gd_write), 0, 0);
	pm.cb->arg = 0x5678000;
	ran = pm32_run(&pm, "MOV to DR1 with GD");
	uint64_t dr1 = read_dr1(), dr7 = read_dr7();
	dr_clear();
	if (ran) {
		count_check("MOV to DR1 with GD: DB count", 1);
		ev_check("MOV to DR1: fault before the MOV", 0, VEC_DB, A32(pm32_gd_write_mov),
			 DR6_INIT32 | (uint32_t)DR6_BD);
		check_eq("MOV to DR1: executed after the handler", dr1, 0x5678000);
		check_eq("DR7.GD stays clear after the DB", dr7 & DR7_GD, 0);
	}
}
EXPERIMENT_PM32(109, "dr7-gd", "", "none",
	   "DR7.GD in 32-bit protected mode: MOV DRn faults first with DR6.BD, GD cleared on entry",
	   exp_pm32_gd, 0);

/* ---- 190 task-switch-trap -------------------------------------------------- */

/* Armed but never hit: write watches on bytes nobody writes.  L0, G1, L2, G3
 * plus LE and GE, so that what the switch clears shows in one DR7 value. */
static volatile uint8_t watched[4] __attribute__((aligned(8)));
#define TS_DR7  (DR7_INIT | DR7_L(0) | DR7_G(1) | DR7_L(2) | DR7_G(3) | DR7_LE | DR7_GE |   \
		 DR7_RW_WRITE << DR7_RW_SHIFT(0) | DR7_RW_WRITE << DR7_RW_SHIFT(1) |            \
		 DR7_RW_WRITE << DR7_RW_SHIFT(2) | DR7_RW_WRITE << DR7_RW_SHIFT(3))
#define DR7_L_ALL       (DR7_L(0) | DR7_L(1) | DR7_L(2) | DR7_L(3))

static void arm_watches(void)
{
	for (int i = 0; i < 4; i++)
		write_dr(i, (uint64_t)(uintptr_t)&watched[i]);
	write_dr7(TS_DR7);
}

struct ts_way { const char *name; bool call; uint32_t sel; };
static const struct ts_way ways[] = {
	{ "JMP to TSS", false, PM32_SEL_TSS_A },
	{ "CALL to TSS", true, PM32_SEL_TSS_A },
	{ "JMP to task gate", false, PM32_SEL_GATE_A },
	{ "CALL to task gate", true, PM32_SEL_GATE_A },
};

/* One switch to task A (T as given) and back; true if it ran to the end. */
static bool ts_switch(const struct ts_way *w, bool t, const char *what)
{
	pm32_prepare(&pm, A32(w->call ? pm32_s_ts_call : pm32_s_ts_jmp),
		     A32(w->call ? pm32_ts_a_call : pm32_ts_a_jmp), 0);
	pm32_tss_set(&pm, PM32_TASK_A, TSS32_TRAP, t);
	pm.cb->mark[8] = 0;
	pm.cb->mark[9] = w->sel;
	arm_watches();
	bool ran = pm32_run(&pm, what);
	dr_clear();
	return ran;
}

static void exp_ts_trap(void)
{
	char what[96];
	uint32_t entry;

	for (unsigned k = 0; k < sizeof ways / sizeof ways[0]; k++) {
		const struct ts_way *w = &ways[k];
		entry = A32(w->call ? pm32_ts_a_call : pm32_ts_a_jmp);
		tl_snprintf(what, sizeof what, "%s, T=1", w->name);
		if (!ts_switch(w, true, what))
			return;
		const struct pm32_cb *cb = pm.cb;
		tl_snprintf(what, sizeof what, "%s, T=1: DB count", w->name);
		count_check(what, 1);
		tl_snprintf(what, sizeof what, "%s, T=1: DB before the new task's first instruction", w->name);
		ev_check(what, 0, VEC_DB, entry, DR6_INIT32 | (uint32_t)DR6_BT);
		if (cb->nevents >= 1) {
			tl_snprintf(what, sizeof what, "%s, T=1: the DB handler ran in the new task (TR)", w->name);
			check_eq(what, cb->ev[0].tr, PM32_SEL_TSS_A);
		}
		tl_snprintf(what, sizeof what, "%s: new task ran once and came back", w->name);
		check(cb->mark[1] == 1 && cb->mark[3] == 1, "%s: %u time(s), back %u time(s) (expected 1, 1)",
		      what, cb->mark[1], cb->mark[3]);
		tl_snprintf(what, sizeof what, "%s: DR7.L0-L3 in the new task", w->name);
		check_eq(what, cb->mark[0] & DR7_L_ALL, 0);
		tl_snprintf(what, sizeof what, "%s: DR7.G0-G3, R/W, LEN in the new task", w->name);
		check_eq(what, cb->mark[0] & ~(uint32_t)(DR7_L_ALL | DR7_LE),
			 TS_DR7 & ~(uint64_t)(DR7_L_ALL | DR7_LE));
		if (w->call) {
			tl_snprintf(what, sizeof what, "%s: EFLAGS.NT in the called task", w->name);
			check_eq(what, cb->mark[2] & RFLAGS_NT, RFLAGS_NT);
		}
		if (k == 0)
			diag("DR7.LE after the switch: %u (SDM 17.2.4: LE/GE not supported since P6)",
			     (cb->mark[0] & (uint32_t)DR7_LE) ? 1 : 0);

		tl_snprintf(what, sizeof what, "%s, T=0", w->name);
		if (!ts_switch(w, false, what))
			return;
		tl_snprintf(what, sizeof what, "%s, T=0: DB count", w->name);
		count_check(what, 0);
		tl_snprintf(what, sizeof what, "%s, T=0: DR7.L0-L3 cleared all the same", w->name);
		check_eq(what, pm.cb->mark[0] & DR7_L_ALL, 0);
	}
}
EXPERIMENT_PM32(190, "task-switch-trap", "", "32-bit protected mode",
	   "TSS T flag: DB with DR6.BT before the new task's first instruction (JMP/CALL, TSS/task gate); L0-L3 cleared",
	   exp_ts_trap, 0);

/* ---- 191 task-switch-step ------------------------------------------------- */

static void exp_ts_step(void)
{
	static const char *const in_a[] = { pm32_ts_s2, pm32_ts_s3, pm32_ts_s4, pm32_ts_s5, pm32_ts_s6 };
	char what[80];

	/* TF=1 in the new task's TSS, T=0: five traps, the first after its first instruction. */
	pm32_prepare(&pm, A32(pm32_s_ts_jmp), A32(pm32_ts_a_step), 0);
	pm32_tss_set(&pm, PM32_TASK_A, TSS32_EFLAGS, RFLAGS_FIXED1 | RFLAGS_IF | RFLAGS_TF);
	pm.cb->mark[9] = PM32_SEL_TSS_A;
	if (pm32_run(&pm, "TF=1 in the new TSS")) {
		count_check("TF=1 in the new TSS: DB count", 5);
		steps("TF=1 in the new TSS", 0, in_a, 5);
	}

	/* T=1 and TF=1: the BT trap before the first instruction, then the steps. */
	pm32_prepare(&pm, A32(pm32_s_ts_jmp), A32(pm32_ts_a_step), 0);
	pm32_tss_set(&pm, PM32_TASK_A, TSS32_EFLAGS, RFLAGS_FIXED1 | RFLAGS_IF | RFLAGS_TF);
	pm32_tss_set(&pm, PM32_TASK_A, TSS32_TRAP, 1);
	pm.cb->mark[9] = PM32_SEL_TSS_A;
	if (pm32_run(&pm, "T=1 and TF=1")) {
		count_check("T=1 and TF=1: DB count", 6);
		ev_check("T=1 and TF=1: task-switch trap", 0, VEC_DB, A32(pm32_ts_s1),
			 DR6_INIT32 | (uint32_t)DR6_BT);
		steps("T=1 and TF=1", 1, in_a, 5);
	}

	/* TF=1 in the task that executes the JMP; A's TSS has TF=0.  The SDM does not
	 * say where the trap of the JMP itself goes (reported); the first task comes
	 * back with TF=1 from its own TSS: traps after each instruction from there. */
	static const char *const back[] = { pm32_ts_o2, pm32_ts_o3, pm32_ts_o4 };
	pm32_prepare(&pm, A32(pm32_s_ts_step_out), A32(pm32_ts_a_jmp), 0);
	pm.cb->mark[9] = PM32_SEL_TSS_A;
	if (pm32_run(&pm, "TF=1 in the task that switches")) {
		const struct pm32_cb *cb = pm.cb;
		int first_back = -1;
		for (uint32_t i = 0; i < cb->nevents && i < PM32_MAX_EVENTS; i++) {
			if (cb->ev[i].eip == A32(pm32_ts_o2) && first_back < 0)
				first_back = (int)i;
			if (first_back < 0)
				diag("TF=1 in the task that switches: before the return, event %u: vector %u "
				     "EIP 0x%x DR6 0x%x TR 0x%x", i + 1, cb->ev[i].vector, cb->ev[i].eip,
				     cb->ev[i].dr6, cb->ev[i].tr);
		}
		check(first_back >= 0, "TF=1 in the task that switches: first task stepped after its return "
		      "(first event at 0x%x: %s)", A32(pm32_ts_o2), first_back >= 0 ? "found" : "missing");
		if (first_back >= 0) {
			check_eqd("TF=1 in the task that switches: DB count after the return",
				  cb->nevents - (uint32_t)first_back, 3);
			for (int i = 0; i < 3; i++) {
				tl_snprintf(what, sizeof what, "back in the first task, step %d", i + 1);
				ev_check(what, first_back + i, VEC_DB, A32(back[i]), DR6_INIT32 | (uint32_t)DR6_BS);
			}
		}
	}
}
EXPERIMENT_PM32(191, "task-switch-step", "", "32-bit protected mode",
	   "single-step across task switches: TF from the new TSS traps after its first instruction, with T=1 first BT",
	   exp_ts_step, 0);

/* ---- 192 task-gate-db ------------------------------------------------------ */

/* The DB handler task's view: link to the first task, NT=1, TR = its own TSS. */
static void handler_task_checks(const char *what, int i, uint32_t tss_sel)
{
	char buf[96];
	if ((uint32_t)i >= pm.cb->nevents || i >= PM32_MAX_EVENTS)
		return;
	const struct pm32_event *e = &pm.cb->ev[i];
	tl_snprintf(buf, sizeof buf, "%s: handler runs as its own task (TR)", what);
	check_eq(buf, e->tr, tss_sel);
	tl_snprintf(buf, sizeof buf, "%s: its previous-task link is the interrupted task", what);
	check_eq(buf, e->link, PM32_SEL_TSS_MAIN);
	tl_snprintf(buf, sizeof buf, "%s: EFLAGS.NT=1 in the handler task", what);
	check_eq(buf, e->eflags_live & RFLAGS_NT, RFLAGS_NT);
}

static void exp_tg_db(void)
{
	char what[80];

	/* TF: each trap switches to the handler task and back (TF in the TSS image). */
	static const char *const t[] = { pm32_tg_t2, pm32_tg_t3, pm32_tg_t4, pm32_tg_t5 };
	pm32_prepare(&pm, A32(pm32_s_tg_step), 0, 0);
	pm32_task_gate_idt(&pm, VEC_DB, PM32_TASK_DB);
	if (pm32_run(&pm, "single-step through a task gate")) {
		count_check("single-step through a task gate: DB count", 4);
		steps("task gate", 0, t, 4);
		handler_task_checks("single-step", 0, PM32_SEL_TSS_DB);
		if (pm.cb->nevents >= 1)
			check_eq("single-step: TF=1 in the interrupted task's EFLAGS image",
				 pm.cb->ev[0].eflags & RFLAGS_TF, RFLAGS_TF);
	}

	/* Instruction breakpoint, global (G0): the handler task sets RF in the
	 * interrupted task's EFLAGS image; the instruction then runs once.  L1 on an
	 * address never executed shows that the switch to the handler cleared it. */
	for (int local = 0; local <= 1; local++) {
		pm32_prepare(&pm, A32(pm32_s_exec), 0, 0);
		pm32_task_gate_idt(&pm, VEC_DB, PM32_TASK_DB);
		write_dr0(A32(pm32_exec_target));
		write_dr1(A32(pm32_s_tg_icebp));
		write_dr7(DR7_INIT | (local ? DR7_L(0) : DR7_G(0)) | DR7_L(1));
		bool ran = pm32_run(&pm, local ? "L0 breakpoint through a task gate" :
					 "G0 breakpoint through a task gate");
		dr_clear();
		if (!ran)
			continue;
		const char *n = local ? "L0 breakpoint" : "G0 breakpoint";
		tl_snprintf(what, sizeof what, "%s through a task gate: DB count", n);
		count_check(what, 1);
		tl_snprintf(what, sizeof what, "%s through a task gate", n);
		ev_check(what, 0, VEC_DB, A32(pm32_exec_target), DR6_INIT32 | (uint32_t)DR6_B0);
		handler_task_checks(n, 0, PM32_SEL_TSS_DB);
		if (pm.cb->nevents >= 1) {
			tl_snprintf(what, sizeof what, "%s: DR7 in the handler task (L0-L3 cleared by the switch)", n);
			check_eq(what, pm.cb->ev[0].dr7, DR7_INIT | (local ? 0 : DR7_G(0)));
		}
		tl_snprintf(what, sizeof what, "%s: the instruction ran once", n);
		check_eqd(what, pm.cb->result, 1);
	}
}
EXPERIMENT_PM32(192, "task-gate-db", "", "32-bit protected mode",
	   "DB through an IDT task gate: single-step, DR0 breakpoints; back link, NT, RF in the TSS image",
	   exp_tg_db, 0);

/* ---- 194 task-gate-icebp ---------------------------------------------------- */

static void exp_tg_icebp(void)
{
	/* ICEBP: a trap; the interrupted EIP (in the first task's TSS) is the next instruction. */
	pm32_prepare(&pm, A32(pm32_s_tg_icebp), 0, 0);
	pm32_task_gate_idt(&pm, VEC_DB, PM32_TASK_DB);
	pm.cb->action[VEC_UD] = PM32_ACT_RECORD_SKIP1;
	if (!pm32_run(&pm, "ICEBP through a task gate"))
		return;
	uint32_t ud = 0;
	for (uint32_t i = 0; i < pm.cb->nevents && i < PM32_MAX_EVENTS; i++)
		ud += pm.cb->ev[i].vector == VEC_UD;
	check_eqd("ICEBP: UD instead of DB (0xF1 not decoded)", ud, 0);
	count_check("ICEBP through a task gate: DB count", 1);
	ev_check("ICEBP through a task gate", 0, VEC_DB, A32(pm32_tg_icebp_next), DR6_INIT32);
	handler_task_checks("ICEBP", 0, PM32_SEL_TSS_DB);
	check_eqd("ICEBP: the interrupted task went on", pm.cb->result, 1);
}
EXPERIMENT_PM32(194, "task-gate-icebp", "", "32-bit protected mode",
	   "ICEBP (0xF1) with the DB handler behind an IDT task gate: a trap, EIP after it in the TSS image",
	   exp_tg_icebp, 0);

/* ---- 193 task-gate-bp ------------------------------------------------------ */

static void exp_tg_bp(void)
{
	pm32_prepare(&pm, A32(pm32_s_tg_int3), 0, 0);
	pm32_task_gate_idt(&pm, VEC_BP, PM32_TASK_BP);
	if (!pm32_run(&pm, "INT3 through a task gate"))
		return;
	count_check("BP through a task gate: deliveries", 2);
	ev_check("0xCC int3 through a task gate", 0, VEC_BP, A32(pm32_tg_cc_next), DR6_INIT32);
	ev_check("0xCD 0x03 through a task gate (handler task entered again)", 1, VEC_BP,
		 A32(pm32_tg_cd_next), DR6_INIT32);
	handler_task_checks("int3", 0, PM32_SEL_TSS_BP);
	handler_task_checks("int 3", 1, PM32_SEL_TSS_BP);
	check_eqd("instructions after each breakpoint ran", pm.cb->result, 2);
}
EXPERIMENT_PM32(193, "task-gate-bp", "", "32-bit protected mode",
	   "BP through an IDT task gate: the handler is a task, back link, NT=1, IRET returns to the interrupted task",
	   exp_tg_bp, 0);

/* ---- 105-108 data and I/O breakpoints --------------------------------------- */

enum acc { ACC_WR8, ACC_WR16, ACC_WR32, ACC_RD8, ACC_RD16, ACC_RD32, ACC_INC8, ACC_OUTB,
	   ACC_INB, ACC_INW, ACC_OUTB80, ACC_INB80 };
extern char pm32_s_access[];

static uint8_t dbuf[64] __attribute__((aligned(64)));
#define WATCH   (dbuf + 16)

/* The accesses of one arming run in one trip to protected mode (a trip costs
 * more than an access on an emulator): probe() queues one, flush() runs them and
 * checks each.  expect_bits = DR6 Bn of the trap the access must raise (0: none). */
extern char pm32_s_batch[];
struct pm32_probe { uint32_t acc, addr, value, after, ev_before, ev_after; };
_Static_assert(sizeof(struct pm32_probe) == 24, "pm32_s_batch reads 24-byte probes");
#define MAX_PROBES 16
static struct pm32_probe probes[MAX_PROBES];
static struct { char what[80]; uint64_t bits; } probe_want[MAX_PROBES];
static int nprobes;

static void probe(const char *what, enum acc a, uint32_t addr, uint32_t v, uint64_t expect_bits)
{
	if (nprobes == MAX_PROBES) {
		exp_fail("more than %d probes in one batch", MAX_PROBES);
		return;
	}
	probes[nprobes] = (struct pm32_probe){ .acc = a, .addr = addr, .value = v };
	tl_snprintf(probe_want[nprobes].what, sizeof probe_want[nprobes].what, "%s", what);
	probe_want[nprobes++].bits = expect_bits;
}

static void flush(const char *what)
{
	int n = nprobes;
	nprobes = 0;
	pm32_prepare(&pm, A32(pm32_s_batch), 0, 0);
	pm.cb->arg = A32(probes);
	pm.cb->mark[0] = (uint32_t)n;
	if (!pm32_run(&pm, what))
		return;
	for (int i = 0; i < n; i++) {
		const struct pm32_probe *p = &probes[i];
		const char *w = probe_want[i].what;
		uint64_t bits = probe_want[i].bits;
		uint32_t got = p->ev_after - p->ev_before;
		const struct pm32_event *e = &pm.cb->ev[p->ev_before < PM32_MAX_EVENTS ? p->ev_before : 0];
		if (!bits) {
			check(got == 0, "%s: %u DB (expected none)%s", w, got, got ? ", first one below" : "");
			if (got)
				diag("vector %u EIP 0x%x DR6 0x%x DR7 0x%x", e->vector, e->eip, e->dr6, e->dr7);
			continue;
		}
		check(got == 1 && e->vector == VEC_DB && e->eip == p->after &&
		      e->dr6 == (DR6_INIT32 | (uint32_t)bits),
		      "%s: %u DB, EIP 0x%x DR6 0x%x (expected 1, 0x%x 0x%x)", w, got, got ? e->eip : 0,
		      got ? e->dr6 : 0, p->after, DR6_INIT32 | (uint32_t)bits);
	}
}

static void arm(int n, uint64_t addr, uint64_t rw, int len)
{
	write_dr(n, addr);
	write_dr7(DR7_INIT | DR7_L(n) | rw << DR7_RW_SHIFT(n) |
		  (len == 8 ? DR7_LEN_8 : len == 4 ? DR7_LEN_4 : len == 2 ? DR7_LEN_2 : DR7_LEN_1)
			  << DR7_LEN_SHIFT(n));
}

/* SDM 17.2.6: on Intel 64 processors "breakpoint conditions for 8-byte memory
 * read/writes are supported in all modes".  AMD documents LEN=10b (8 bytes) for
 * long mode only: in legacy mode it is not programmed. */
static bool len8_defined(void)
{
	return cpu.vendor == VENDOR_INTEL;
}

static void exp_pm32_data_write(void)
{
	static const int lens[4] = { 1, 2, 4, 8 };
	char what[80];
	uint32_t w = A32(WATCH);

	for (int n = 0; n < 4; n++) {
		int len = lens[n];
		uint64_t bn = DR6_BN(n);
		if (len == 8 && !len8_defined()) {
			diag("LEN=10b (8 bytes) outside long mode is undefined on AMD (APM 13.1.1.5): not programmed");
			continue;
		}
		arm(n, w, DR7_RW_WRITE, len);
		/* the word at -1 first: the byte writes after it leave each watched byte
		 * holding its own value, read back below */
		tl_snprintf(what, sizeof what, "DR%d len %d: word write at -1 (crosses start)", n, len);
		probe(what, ACC_WR16, w - 1, 0x1111, bn);
		for (int off = -1; off <= len; off++) {
			bool in = off >= 0 && off < len;
			tl_snprintf(what, sizeof what, "DR%d len %d: byte write at +%d", n, len, off);
			probe(what, ACC_WR8, w + (uint32_t)off, 0x40 + (uint32_t)off, in ? bn : 0);
		}
		tl_snprintf(what, sizeof what, "DR%d len %d: dword write at -4 (just before)", n, len);
		probe(what, ACC_WR32, w - 4, 0x5555, 0);
		tl_snprintf(what, sizeof what, "DR%d len %d: dword write at +%d (just after)", n, len, len);
		probe(what, ACC_WR32, w + (uint32_t)len, 0x4444, 0);
		tl_snprintf(what, sizeof what, "DR%d len %d: byte read inside", n, len);
		probe(what, ACC_RD8, w, 0, 0);
		tl_snprintf(what, sizeof what, "DR%d len %d: dword read covering it", n, len);
		probe(what, ACC_RD32, w, 0, 0);
		flush("write breakpoint probes");
		dr_clear();
		for (int off = 0; off < len; off++) {
			tl_snprintf(what, sizeof what, "DR%d len %d: byte at +%d written (trap after the write)",
				    n, len, off);
			check_eq(what, WATCH[off], 0x40 + (uint32_t)off);
		}
	}
}
EXPERIMENT_PM32(105, "dr-data-write", "", "none",
	   "R/W=01 in 32-bit protected mode, len 1/2/4 (8 on Intel): overlapping writes trap after, reads don't",
	   exp_pm32_data_write, 0);

static void exp_pm32_data_rw(void)
{
	uint32_t w = A32(WATCH);

	WATCH[1] = 0x10;
	arm(1, w, DR7_RW_RDWR, 4);
	probe("len 4: byte read at +0", ACC_RD8, w, 0, DR6_B1);
	probe("len 4: byte read at +3", ACC_RD8, w + 3, 0, DR6_B1);
	probe("len 4: byte read at +4 (just after)", ACC_RD8, w + 4, 0, 0);
	probe("len 4: byte read at -1 (just before)", ACC_RD8, w - 1, 0, 0);
	probe("len 4: word read at -1 (crosses start)", ACC_RD16, w - 1, 0, DR6_B1);
	probe("len 4: dword read at +4 (just after)", ACC_RD32, w + 4, 0, 0);
	probe("len 4: byte write at +2", ACC_WR8, w + 2, 0x77, DR6_B1);
	probe("len 4: incb at +1 (read+write, one DB)", ACC_INC8, w + 1, 0, DR6_B1);
	flush("read/write breakpoint probes");
	dr_clear();
	check_eq("incb: the byte was incremented once", WATCH[1], 0x11);
	if (len8_defined()) {
		arm(3, w, DR7_RW_RDWR, 8);
		probe("len 8: dword read at +4", ACC_RD32, w + 4, 0, DR6_B3);
		probe("len 8: byte read at +8 (just after)", ACC_RD8, w + 8, 0, 0);
		flush("len 8 probes");
		dr_clear();
	} else {
		diag("LEN=10b (8 bytes) outside long mode is undefined on AMD (APM 13.1.1.5): not programmed");
	}
}
EXPERIMENT_PM32(106, "dr-data-rw", "", "none",
	   "R/W=11 in 32-bit protected mode: reads and writes that overlap trap once, after the instruction",
	   exp_pm32_data_rw, 0);

static void exp_pm32_two_hits(void)
{
	uint32_t w = A32(WATCH);

	write_dr0(w);
	write_dr1(w + 4);
	write_dr7(DR7_INIT | DR7_L(0) | DR7_RW_WRITE << DR7_RW_SHIFT(0) | DR7_LEN_4 << DR7_LEN_SHIFT(0) |
		  DR7_L(1) | DR7_RW_RDWR << DR7_RW_SHIFT(1) | DR7_LEN_4 << DR7_LEN_SHIFT(1));
	probe("dword write over the end of DR0 and the start of DR1: B0|B1", ACC_WR32, w + 2, 0x99,
	      DR6_B0 | DR6_B1);
	probe("byte write in DR1 range only: B1", ACC_WR8, w + 5, 0x98, DR6_B1);
	probe("dword read over both: DR1 only (DR0 is write-only)", ACC_RD32, w + 2, 0, DR6_B1);
	flush("DR0 and DR1 probes");
	dr_clear();
	write_dr2(w);
	write_dr3(w);
	write_dr7(DR7_INIT | DR7_L(2) | DR7_RW_RDWR << DR7_RW_SHIFT(2) | DR7_L(3) | DR7_RW_RDWR << DR7_RW_SHIFT(3));
	probe("byte read, DR2 and DR3 on the same byte: B2|B3", ACC_RD8, w, 0, DR6_B2 | DR6_B3);
	flush("DR2 and DR3 probe");
	dr_clear();
}
EXPERIMENT_PM32(107, "dr-two-hits", "", "none",
	   "one instruction meeting two data breakpoints in 32-bit protected mode: one DB reporting both Bn",
	   exp_pm32_two_hits, 0);

static void exp_pm32_io(void)
{
	uint64_t cr4 = read_cr4();

	write_cr4(cr4 | CR4_DE);
	arm(0, 0x80, DR7_RW_IO, 1);
	probe("DR0 port 0x80 len 1: OUT 0x80", ACC_OUTB80, 0, 0x5a, DR6_B0);
	probe("DR0 port 0x80 len 1: IN 0x80", ACC_INB80, 0, 0, DR6_B0);
	probe("DR0 port 0x80 len 1: IN word DX=0x80", ACC_INW, 0x80, 0, DR6_B0);
	probe("DR0 port 0x80 len 1: OUT DX=0x81 (just after)", ACC_OUTB, 0x81, 0, 0);
	probe("DR0 port 0x80 len 1: IN DX=0x7f (just before)", ACC_INB, 0x7f, 0, 0);
	flush("DR0 I/O probes");
	dr_clear();
	arm(2, 0x80, DR7_RW_IO, 2);
	probe("DR2 port 0x80 len 2: IN DX=0x81", ACC_INB, 0x81, 0, DR6_B2);
	probe("DR2 port 0x80 len 2: OUT DX=0x81", ACC_OUTB, 0x81, 0, DR6_B2);
	flush("DR2 I/O probes");
	dr_clear();
	write_cr4(cr4);
}
EXPERIMENT_PM32(108, "dr-io", "", "CR4.DE",
	   "CR4.DE=1, R/W=10 in 32-bit protected mode: IN/OUT on a watched port trap after, DR6.Bn",
	   exp_pm32_io, 0);

/* ---- 110 movss-shadow --------------------------------------------------------- */

extern char pm32_s_sh_tf[], pm32_sh_a2[], pm32_sh_a4[], pm32_sh_a5[], pm32_sh_a6[], pm32_sh_a7[],
	pm32_sh_a8[], pm32_sh_a9[];
extern char pm32_s_sh_data[], pm32_sh_b2[], pm32_sh_b3[], pm32_s_sh_exec[], pm32_sh_c2[];
static volatile uint16_t ss_word __attribute__((aligned(8)));

static void exp_pm32_movss(void)
{
	/* TF: no trap after MOV SS nor after POP SS; the next comes after the
	 * instruction that follows (SDM 6.8.3, 17.3.1.4). */
	static const char *const a[] = { pm32_sh_a2, pm32_sh_a4, pm32_sh_a5, pm32_sh_a6, pm32_sh_a7,
					  pm32_sh_a8, pm32_sh_a9 };
	pm32_prepare(&pm, A32(pm32_s_sh_tf), 0, 0);
	if (pm32_run(&pm, "TF across MOV SS and POP SS")) {
		count_check("TF: DB count (none after MOV SS, none after POP SS)", 7);
		steps("TF", 0, a, 7);
	}

	/* Data breakpoint on MOV SS's memory operand: delivered after the next instruction. */
	ss_word = PM32_SEL_DS;
	pm32_prepare(&pm, A32(pm32_s_sh_data), 0, 0);
	pm.cb->arg = A32(&ss_word);
	write_dr0(A32(&ss_word));
	write_dr7(DR7_INIT | DR7_L(0) | DR7_RW_RDWR << DR7_RW_SHIFT(0) | DR7_LEN_2 << DR7_LEN_SHIFT(0));
	bool ran = pm32_run(&pm, "data breakpoint on MOV SS");
	dr_clear();
	if (ran) {
		count_check("data: DB count", 1);
		ev_check("data: DB deferred past the next instruction", 0, VEC_DB, A32(pm32_sh_b3),
			 DR6_INIT32 | (uint32_t)DR6_B0);
	}

	/* Instruction breakpoint right after MOV SS: Intel suppresses it (as if RF=1,
	 * SDM 6.8.3); AMD CPUs take it (HARDWARE-NOTES, "vendor differences"). */
	pm32_prepare(&pm, A32(pm32_s_sh_exec), 0, 0);
	write_dr1(A32(pm32_sh_c2));
	write_dr7(DR7_INIT | DR7_L(1));
	ran = pm32_run(&pm, "instruction breakpoint after MOV SS");
	dr_clear();
	if (ran) {
		bool intel = cpu.vendor == VENDOR_INTEL;
		count_check(intel ? "exec: DB count after MOV SS (Intel: suppressed)" :
				    "exec: DB count after MOV SS (AMD: taken)", intel ? 0 : 1);
		if (!intel)
			ev_check("exec: DB at the instruction after MOV SS", 0, VEC_DB, A32(pm32_sh_c2),
				 DR6_INIT32 | (uint32_t)DR6_B1);
		check_eqd("exec: the instruction ran once", pm.cb->result, 1);
	}
}
EXPERIMENT_PM32(110, "movss-shadow", "", "none",
	   "MOV SS and POP SS in 32-bit protected mode: TF and data DB deferred, exec bp per vendor",
	   exp_pm32_movss, 0);

/* ---- 111 dr6-discipline -------------------------------------------------------- */

static void exp_pm32_dr6(void)
{
	/* The processor never clears BS: a handler that keeps DR6 sees it again at
	 * the breakpoint (SDM 17.2.3).  POPF steps six instructions, then DR0 fires. */
	for (int keep = 1; keep >= 0; keep--) {
		pm32_prepare(&pm, A32(pm32_s_ss_popf), 0, 0);
		pm.cb->keep_dr6 = (uint32_t)keep;
		if (!pm32_run(&pm, "six steps"))
			return;
		uint32_t steps_seen = pm.cb->nevents;
		/* the breakpoint in a second run: DR6 carries over (nothing between writes it) */
		pm32_prepare(&pm, A32(pm32_s_exec), 0, 0);
		pm.cb->keep_dr6 = (uint32_t)keep;
		arm_exec(0);
		bool ran = pm32_run(&pm, "breakpoint after the steps");
		dr_clear();
		if (!ran)
			return;
		check_eqd(keep ? "DR6 kept: steps" : "DR6 cleared: steps", steps_seen, 6);
		ev_check(keep ? "DR6 kept: breakpoint shows the stale BS too" :
				"DR6 cleared: breakpoint shows B0 alone", 0, VEC_DB, A32(pm32_exec_target),
			 DR6_INIT32 | (uint32_t)DR6_B0 | (keep ? (uint32_t)DR6_BS : 0));
	}
}
EXPERIMENT_PM32(111, "dr6-discipline", "", "none",
	   "DR6 in 32-bit protected mode: BS sticky unless the handler clears DR6",
	   exp_pm32_dr6, 0);
