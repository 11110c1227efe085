/* 114 user-int3, 115 user-single-step, 116 user-data-bp, 118 user-icebp: the same
 * debug events raised at CPL 3.
 *
 * SDM vol.3 6.12.1.1: INT n/INT3 from CPL 3 need an IDT gate with DPL 3 (tracelab's
 * gates for #BP and #OF are DPL 3), INT1/ICEBP is exempt from the DPL check (it is
 * delivered like a hardware exception).  18.3: TF single-step and DR0-DR3
 * breakpoints work at every CPL (DR7's L/G bits have no CPL filter).  The #DB/#BP
 * handler runs at CPL 0; the saved CS has RPL 3 and the saved RIP is the user
 * instruction boundary, exactly as at CPL 0. */
#include "cr.h"
#include "debug_common.h"
#include "experiment.h"
#include "fmt.h"
#include "mem.h"
#include "user.h"
#include "x86.h"

__asm__(
	".pushsection .text\n"
	".global dbg_user_write, dbg_user_write_next\n"
	"dbg_user_write:\n"
	"	movb $0x5a, (%rdi)\n"
	"dbg_user_write_next:\n"
	"	ret\n"
	".global dbg_user_icebp, dbg_user_icebp_at, dbg_user_icebp_next\n"
	"dbg_user_icebp:\n"
	"dbg_user_icebp_at:\n"
	"	.byte 0xf1\n"
	"dbg_user_icebp_next:\n"
	"	ret\n"
	".popsection\n");

/* Sequences shared with the CPL-0 experiments (debug_bp.c, debug_step.c). */
extern void dbg_int3_seq(void), dbg_ss_popf(void);
extern const char dbg_int3_cc_next[], dbg_int3_cd_next[];
extern const char dbg_ss_a2[], dbg_ss_a3[], dbg_ss_a4[], dbg_ss_a5[], dbg_ss_a6[], dbg_ss_a7[];
extern void dbg_user_write(void *), dbg_user_icebp(void *);
extern const char dbg_user_write_next[], dbg_user_icebp_at[], dbg_user_icebp_next[];

static void user_int3(void *arg) { dbg_int3_seq(); }
static void user_popf(void *arg) { dbg_ss_popf(); }

/* Every recorded event came from CPL 3. */
static void check_cpl3(const char *what)
{
	int n = dbg_log.n < DBG_MAX_EVENTS ? dbg_log.n : DBG_MAX_EVENTS, from3 = 0;

	for (int i = 0; i < n; i++)
		from3 += (dbg_log.ev[i].cs & 3) == 3;
	check(n > 0 && from3 == n, "%s: %d of %d events with saved CS.RPL=3 (expected all)",
	      what, from3, n);
}

static void exp_user_int3(void)
{
	dbg_begin(0);
	run_user(user_int3, 0);
	dbg_check_count("BP deliveries from CPL 3", 2);
	dbg_check_event("CPL3 0xCC", 0, 3, (uint64_t)dbg_int3_cc_next, DR6_INIT);
	dbg_check_event("CPL3 0xCD 0x03", 1, 3, (uint64_t)dbg_int3_cd_next, DR6_INIT);
	check_cpl3("CPL3 int3");
}
EXPERIMENT(114, "user-int3", "", "none",
	   "INT3 and INT 3 at CPL 3 (DPL-3 gate): BP, RIP after, CS.RPL=3", exp_user_int3);

static void exp_user_step(void)
{
	static const char *const a[] = { dbg_ss_a2, dbg_ss_a3, dbg_ss_a4, dbg_ss_a5, dbg_ss_a6, dbg_ss_a7 };
	char what[40];

	dbg_begin(0);
	run_user(user_popf, 0);
	dbg_check_count("DB count at CPL 3", 6);
	for (int i = 0; i < 6; i++) {
		tl_snprintf(what, sizeof what, "CPL3 step %d", i + 1);
		dbg_check_event(what, i, 1, (uint64_t)a[i], dr6_with(DR6_BS));
	}
	check_cpl3("CPL3 single-step");
}
EXPERIMENT(115, "user-single-step", "", "none",
	   "TF set by POPF at CPL 3: the same exact DB sequence as at CPL 0", exp_user_step);

static uint8_t user_buf[64] __attribute__((aligned(64)));

static void exp_user_data(void)
{
	/* a fresh buffer: 0x5a left by an earlier run (reps=2) would pass the
	 * "write reached memory" check without any write */
	memset(user_buf, 0, sizeof user_buf);
	dbg_begin(0);
	write_dr0((uint64_t)(user_buf + 8));
	write_dr7(dr7_bp(0, DR7_RW_WRITE, DR7_LEN_1));
	run_user(dbg_user_write, user_buf + 8);
	dbg_end();
	dbg_check_count("DB count for a CPL-3 write", 1);
	dbg_check_event("CPL3 byte write", 0, 1, (uint64_t)dbg_user_write_next, dr6_with(DR6_B0));
	check_cpl3("CPL3 data breakpoint");
	check_eq("the write reached memory", user_buf[8], 0x5a);
}
EXPERIMENT(116, "user-data-bp", "", "none",
	   "DR0 write watch hit from CPL 3: trap after the store, CS.RPL=3", exp_user_data);

static int user_ud;

static void user_ud_skip(struct trap_frame *tf)
{
	if (tf->rip == (uint64_t)dbg_user_icebp_at) {
		user_ud++;
		tf->rip++;
	} else {
		trap_reset_handlers();  /* not ours: the kernel reports it */
	}
}

static void exp_user_icebp(void)
{
	dbg_begin(0);
	user_ud = 0;
	trap_set_handler(6, user_ud_skip);
	run_user(dbg_user_icebp, 0);
	check_eqd("UD instead of DB (0xF1 not decoded)", (uint64_t)user_ud, 0);
	dbg_check_count("DB count for ICEBP at CPL 3", 1);
	dbg_check_event("CPL3 ICEBP", 0, 1, (uint64_t)dbg_user_icebp_next, DR6_INIT);
	check_cpl3("CPL3 ICEBP");
}
EXPERIMENT(118, "user-icebp", "", "none",
	   "INT1/ICEBP at CPL 3 ignores the gate's DPL: DB, RIP after, DR6 untouched",
	   exp_user_icebp);
