/* 129-134: the MOV SS shadow meeting other debug events (SDM vol.3 6.8.3: a MOV or
 * POP to SS blocks interrupts and debug exceptions until the next instruction has
 * completed; 18.3.1).  The sequences are in debug_seq.S.
 *
 * The expected lists are the SDM's and what Intel hardware does (kvm-unit-tests
 * x86/debug.c checks the same sequences on hardware): the MOV SS's own single-step
 * trap is absorbed by the shadow, an ICEBP #DB carries no BS, a DR7.GD fault is
 * not blocked by the shadow, and a data breakpoint hit by the MOV SS is held until
 * the instruction in the shadow has been carried out — for INT3 / INT n that means
 * it is delivered at the first instruction of their handler (SDM 6.8.3, the note on
 * MOV SS followed by a software interrupt).  AMD's APM (vol.2 13.1, 8.x) states
 * the same shadow for TF and data breakpoints; tracelab applies one list to both. */
#include "cr.h"
#include "debug_common.h"
#include "debug_seq.h"
#include "experiment.h"
#include "trap.h"
#include "x86.h"

#define BS(l)   { 1, (l), dr6_with(DR6_BS), 0 }

extern char trap_entries[];
static const char *entry_of(int v) { return trap_entries + 16 * v; }

/* ---- 129 TF + MOV SS + ICEBP ---------------------------------------------------- */
static int icebp_ud;
static void ud_skip(struct trap_frame *tf)
{
	icebp_ud++;
	tf->rip++;      /* the 0xF1 byte */
}

static void exp_movss_tf_icebp(void)
{
	const struct dbg_expect x[] = { { 1, dq_mi_1, DR6_INIT, 0 }, { 1, dq_mi_2, DR6_INIT, 0 },
					BS(dq_mi_3), BS(dq_mi_off1), BS(dq_mi_off2), BS(dq_mi_off3) };
	dbg_begin(0);
	icebp_ud = 0;
	trap_set_handler(6, ud_skip);
	dq_mi();
	check_eqd("UD instead of DB for 0xF1", (uint64_t)icebp_ud, 0);
	dbg_check_seq("TF, MOV SS, ICEBP, ICEBP", x, 6);
}
EXPERIMENT(129, "movss-tf-icebp", "", "none",
	   "TF then MOV SS then ICEBP: ICEBP DBs without BS, no trap for MOV SS, stepping resumes",
	   exp_movss_tf_icebp);

/* ---- 130 TF + MOV SS + MOV DR with DR7.GD ----------------------------------------
 * The GD fault (18.3.1.3) is not held by the shadow: #DB BD at the MOV DR, GD
 * cleared on delivery; the MOV then runs and the single-step trap follows it. */
static void exp_movss_tf_gd(void)
{
	const struct dbg_expect x[] = { { 1, dq_mg_1, dr6_with(DR6_BD), 0 }, BS(dq_mg_2), BS(dq_mg_3),
					BS(dq_mg_off1), BS(dq_mg_off2), BS(dq_mg_off3) };
	dbg_begin(0);
	dq_mg(DR7_INIT | DR7_GD);
	uint64_t dr7 = read_dr7();
	write_dr7(DR7_INIT);
	dbg_check_seq("TF, GD, MOV SS, MOV from DR0", x, 6);
	check_eq("DR7.GD clear after the GD fault", dr7 & DR7_GD, 0);
}
EXPERIMENT(130, "movss-tf-gd", "", "none",
	   "TF and DR7.GD then MOV SS then MOV DR: GD fault taken despite the shadow, then BS traps",
	   exp_movss_tf_gd);

/* ---- 131 TF + MOV SS + INT3 --------------------------------------------------------
 * No trap after MOV SS; INT3 delivers BP (TF cleared in the handler); its IRET sets
 * TF, so the next trap follows the NOP after INT3.  Events outside the sequence
 * (a trap at the BP handler's entry) are reported, as in 103. */
static void exp_movss_tf_int3(void)
{
	const struct dbg_expect x[] = { { 3, dq_mb_1, DBG_ANY, 0 }, BS(dq_mb_2), BS(dq_mb_off1),
					BS(dq_mb_off2), BS(dq_mb_off3) };
	dbg_begin(0);
	dq_mb();
	/* keep the events inside the sequence, report the others */
	int k = 0;
	for (int i = 0; i < dbg_nrec(); i++) {
		struct dbg_event e = dbg_log.ev[i];
		if (e.rip > (uint64_t)(uintptr_t)dq_mb && e.rip <= (uint64_t)(uintptr_t)dq_mb_end)
			dbg_log.ev[k++] = e;
		else
			diag("event outside the sequence: vector %lu rip %#lx dr6 %#lx",
			     (unsigned long)e.vector, (unsigned long)e.rip, (unsigned long)e.dr6);
	}
	dbg_log.n = k;
	dbg_check_seq("TF, MOV SS, INT3", x, 5);
}
EXPERIMENT(131, "movss-tf-int3", "", "none",
	   "TF then MOV SS then INT3: BP after INT3, no trap for MOV SS, stepping resumes after IRET",
	   exp_movss_tf_int3);

/* ---- 132-134 data breakpoint on MOV SS, then INT3 / INT 1 / ICEBP ----------------- */
static volatile uint16_t ss_word __attribute__((aligned(8)));

static void arm_ss_watch(void)
{
	uint16_t ss;
	__asm__ volatile("mov %%ss, %0" : "=r"(ss));
	ss_word = ss;
	dbg_begin(0);
	write_dr0((uint64_t)(uintptr_t)&ss_word);
	write_dr7(dr7_bp(0, DR7_RW_RDWR, DR7_LEN_2));
}

/* INT3 in the shadow: the held data #DB is delivered once the INT3 has been carried
 * out, i.e. at the first instruction of the BP handler (saved RIP = its entry,
 * CPL 0), before that handler runs; then the BP itself.  Exactly one of each. */
static void exp_movss_data_int3(void)
{
	const struct dbg_expect x[] = { { 1, entry_of(3), dr6_with(DR6_B0), 0 },
					{ 3, dq_md3_1, DBG_ANY, 0 } };
	arm_ss_watch();
	dq_md3(&ss_word);
	dbg_end();
	dbg_check_seq("data watch on MOV SS then INT3", x, 2);
}
EXPERIMENT(132, "movss-data-int3", "", "none",
	   "data breakpoint on MOV SS then INT3: DB at the BP handler entry, then BP, one each",
	   exp_movss_data_int3);

/* INT 1 (CD 01) in the shadow: vector 1 as a software interrupt, and the held data
 * #DB at its handler's first instruction: the #DB handler runs twice, the inner
 * (data, B0, saved RIP = the vector-1 entry) first.  The inner #DB would land on
 * the same IST stack as the outer one and overwrite its frame; the recorder runs
 * vector 1 without IST (see dbg_begin()), as kvm-unit-tests does. */
static void exp_movss_data_int1(void)
{
	const struct dbg_expect x[] = { { 1, entry_of(1), dr6_with(DR6_B0), 0 },
					{ 1, dq_md1_1, DR6_INIT, 0 } };
	arm_ss_watch();
	dq_md1(&ss_word);
	dbg_end();
	dbg_check_seq("data watch on MOV SS then INT 1", x, 2);
}
EXPERIMENT(133, "movss-data-int1", "", "none",
	   "data breakpoint on MOV SS then INT 1 (CD 01): DB handler twice, data DB at its entry first",
	   exp_movss_data_int1);

/* ICEBP in the shadow: a single #DB (kvm-unit-tests "MOV SS + watchpoint + ICEBP":
 * the handler runs once), saved RIP after ICEBP.  Whether its DR6 shows B0 the SDM
 * does not say: reported. */
static void exp_movss_data_icebp(void)
{
	const struct dbg_expect x[] = { { 1, dq_mdi_1, DBG_ANY, 0 } };
	arm_ss_watch();
	icebp_ud = 0;
	trap_set_handler(6, ud_skip);
	dq_mdi(&ss_word);
	dbg_end();
	check_eqd("UD instead of DB for 0xF1", (uint64_t)icebp_ud, 0);
	dbg_check_seq("data watch on MOV SS then ICEBP", x, 1);
	if (dbg_nrec() >= 1)
		diag("DR6 of that DB: %#lx", (unsigned long)dbg_log.ev[0].dr6);
}
EXPERIMENT(134, "movss-data-icebp", "", "none",
	   "data breakpoint on MOV SS then ICEBP: one DB after ICEBP",
	   exp_movss_data_icebp);

/* ---- 159, 163: the same shadows entered at CPL 3 --------------------------------------
 * 159: TF, MOV SS, ICEBP, ICEBP at CPL 3 (ICEBP needs no DPL-3 gate): the list of 129,
 * every event from CPL 3.
 * 163: a data breakpoint on a CPL-3 MOV SS followed by INT3: the held #DB is delivered
 * once the INT3 has switched to CPL 0, at the first instruction of the BP handler
 * (saved CS of CPL 0, RIP = the handler entry), before the BP of CPL 3 is handled: the
 * case of SDM 6.8.3's note on MOV SS followed by INT n / INT3 (the 2018 "POP SS"
 * advisories), which an OS must survive. */
#include "seg.h"
#include "user.h"

static void call_mi(void *a) { dq_mi(); }

static void exp_user_movss_tf_icebp(void)
{
	const struct dbg_expect x[] = { { 1, dq_mi_1, DR6_INIT, 3 }, { 1, dq_mi_2, DR6_INIT, 3 },
					{ 1, dq_mi_3, dr6_with(DR6_BS), 3 }, { 1, dq_mi_off1, dr6_with(DR6_BS), 3 },
					{ 1, dq_mi_off2, dr6_with(DR6_BS), 3 }, { 1, dq_mi_off3, dr6_with(DR6_BS), 3 } };
	dbg_begin(0);
	icebp_ud = 0;
	trap_set_handler(6, ud_skip);
	run_user(call_mi, 0);
	check_eqd("UD instead of DB for 0xF1", (uint64_t)icebp_ud, 0);
	dbg_check_seq("CPL 3: TF, MOV SS, ICEBP, ICEBP", x, 6);
}
EXPERIMENT(159, "user-movss-tf-icebp", "", "none",
	   "TF then MOV SS then ICEBP at CPL 3: ICEBP DBs without BS, no trap for MOV SS",
	   exp_user_movss_tf_icebp);

static void call_md3(void *a) { dq_md3(&ss_word); }

static void exp_user_movss_data_int3(void)
{
	const struct dbg_expect x[] = { { 1, entry_of(3), dr6_with(DR6_B0), 0 },
					{ 3, dq_md3_1, DBG_ANY, 3 } };
	dbg_begin(0);
	ss_word = SEL_UDATA | RPL3;
	write_dr0((uint64_t)(uintptr_t)&ss_word);
	write_dr7(dr7_bp(0, DR7_RW_RDWR, DR7_LEN_2));
	run_user(call_md3, 0);
	dbg_end();
	dbg_check_seq("CPL 3: data watch on MOV SS then INT3", x, 2);
}
EXPERIMENT(163, "user-movss-data-int3", "", "none",
	   "data breakpoint on a CPL-3 MOV SS then INT3: DB at the CPL-0 BP handler entry, then BP",
	   exp_user_movss_data_int3);
