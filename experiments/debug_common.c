/* The #DB/#BP recorder shared by the 1xx debug experiments (see debug_common.h). */
#include <stddef.h>
#include "debug_common.h"
#include "experiment.h"
#include "fmt.h"
#include "msr.h"
#include "cr.h"
#include "x86.h"

struct dbg_log dbg_log;
static dbg_hook_t dbg_hook;

static void dbg_record(struct trap_frame *tf)
{
	struct dbg_event e = {
		.vector = tf->vector, .rip = tf->rip, .cs = tf->cs, .rflags = tf->rflags,
		.rflags_live = read_rflags(),
	};
	int n = dbg_log.n++;

	e.dr6 = read_dr6();
	e.dr7 = read_dr7();
	if (dbg_log.read_debugctl)
		rdmsr_safe(IA32_DEBUGCTL, &e.debugctl);
	/* #BP never touches DR6; for #DB the handler owns clearing it, or the
	 * next #DB would report this one's causes too (SDM 18.2.3). */
	if (tf->vector == 1 && !dbg_log.keep_dr6)
		write_dr6(DR6_INIT);

	if (n >= DBG_MAX_EVENTS) {
		/* Runaway: stop every source of #DB and let the experiment finish. */
		write_dr7(DR7_INIT);
		wrmsr_safe(IA32_DEBUGCTL, 0);
		tf->rflags &= ~(uint64_t)RFLAGS_TF;
		tf->rflags |= RFLAGS_RF;
		return;
	}
	dbg_log.ev[n] = e;
	dbg_hook(tf, &dbg_log.ev[n], n);
}

void dbg_begin(dbg_hook_t hook)
{
	dbg_log.n = 0;
	dbg_log.keep_dr6 = false;
	dbg_log.read_debugctl = false;
	dbg_hook = hook ? hook : dbg_resume;
	write_dr6(DR6_INIT);
	trap_set_handler(1, dbg_record);
	trap_set_handler(3, dbg_record);
}

void dbg_end(void)
{
	write_dr7(DR7_INIT);
	for (int i = 0; i < 4; i++)
		write_dr(i, 0);
	write_dr6(DR6_INIT);
}

bool dbg_is_exec_bp(uint64_t dr7, int n, uint64_t rip)
{
	bool enabled = dr7 & (DR7_L(n) | DR7_G(n));
	uint64_t rw = (dr7 >> DR7_RW_SHIFT(n)) & 3;

	return enabled && rw == DR7_RW_EXEC && read_dr(n) == rip;
}

void dbg_resume(struct trap_frame *tf, struct dbg_event *e, int n)
{
	if (e->vector != 1)
		return;
	for (int i = 0; i < 4; i++)
		if ((e->dr6 & DR6_BN(i)) && dbg_is_exec_bp(e->dr7, i, tf->rip))
			tf->rflags |= RFLAGS_RF;
}

uint64_t dr7_len_code(int bytes)
{
	switch (bytes) {
	case 2: return DR7_LEN_2;
	case 4: return DR7_LEN_4;
	case 8: return DR7_LEN_8;
	default: return DR7_LEN_1;
	}
}

uint64_t dr7_bp(int n, uint64_t rw, uint64_t len)
{
	return DR7_INIT | DR7_L(n) | rw << DR7_RW_SHIFT(n) | len << DR7_LEN_SHIFT(n);
}

static const char *vector_name(int v)
{
	return v == 1 ? "DB" : v == 3 ? "BP" : "other";
}

bool dbg_check_event(const char *what, int i, int vector, uint64_t rip, uint64_t dr6)
{
	char buf[96];

	if (!check(i < dbg_log.n && i < DBG_MAX_EVENTS, "%s: event %d delivered (%d seen)",
		   what, i + 1, dbg_log.n))
		return false;

	const struct dbg_event *e = &dbg_log.ev[i];
	bool ok = check((int)e->vector == vector, "%s: vector %lu (%s) (expected %d (%s))", what,
			(unsigned long)e->vector, vector_name((int)e->vector), vector, vector_name(vector));
	tl_snprintf(buf, sizeof buf, "%s: saved RIP", what);
	ok &= check_eq(buf, e->rip, rip);
	tl_snprintf(buf, sizeof buf, "%s: DR6", what);
	ok &= check_eq(buf, e->dr6, dr6);
	return ok;
}

bool dbg_check_count(const char *what, int expected)
{
	return check_eqd(what, (uint64_t)dbg_log.n, (uint64_t)expected);
}
