/* The exception recorder shared by the 1xx debug experiments (see debug_common.h). */
#include <stddef.h>
#include "debug_common.h"
#include "experiment.h"
#include "fmt.h"
#include "msr.h"
#include "cr.h"
#include "apic.h"
#include "x86.h"

struct dbg_log dbg_log;
static dbg_hook_t dbg_hook;
/* Per caught vector: where a fault resumes (0: the saved RIP). */
static uint64_t dbg_resume_at[256];

static void dbg_record(struct trap_frame *tf)
{
	struct dbg_event e = {
		.vector = tf->vector, .error = tf->error, .rip = tf->rip, .cs = tf->cs,
		.rflags = tf->rflags, .rcx = tf->rcx, .rsi = tf->rsi,
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
	if (tf->vector == 1 || tf->vector == 3)
		dbg_hook(tf, &dbg_log.ev[n], n);
}

/* Any other caught vector: record, then resume where the experiment said. */
static void dbg_record_other(struct trap_frame *tf)
{
	uint64_t v = tf->vector & 0xff;

	dbg_record(tf);
	if (v >= 32)
		apic_eoi();
	if (dbg_resume_at[v])
		tf->rip = dbg_resume_at[v];
}

void dbg_catch(int vector, const void *resume)
{
	dbg_resume_at[vector & 0xff] = (uint64_t)(uintptr_t)resume;
	trap_set_handler(vector, dbg_record_other);
}

void dbg_log_dump(const char *what)
{
	for (int i = 0; i < dbg_nrec(); i++) {
		const struct dbg_event *e = &dbg_log.ev[i];
		diag("%s ev %d: vec %lu err %#lx rip %#lx cpl %u dr6 %#lx rflags %#lx", what, i,
		     (unsigned long)e->vector, (unsigned long)e->error, (unsigned long)e->rip,
		     dbg_cpl(e), (unsigned long)e->dr6, (unsigned long)e->rflags);
	}
}

void dbg_begin(dbg_hook_t hook)
{
	dbg_log.n = 0;
	dbg_log.keep_dr6 = false;
	dbg_log.read_debugctl = false;
	dbg_hook = hook ? hook : dbg_resume;
	for (int v = 0; v < 256; v++)
		dbg_resume_at[v] = 0;
	write_dr6(DR6_INIT);
	/* #DB without IST while recording: a #DB delivered at the first instruction of
	 * the #DB handler (a MOV SS shadow followed by INT 1, an emulator's stray trap)
	 * would otherwise be pushed onto the same IST slot and overwrite the outer
	 * frame, looping for ever; on the current stack it nests and is logged.  The
	 * runner puts the IST back after the experiment. */
	trap_set_ist(1, 0);
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

/* KTAP descriptions carry no '#': "DB", "BP", "GP"... */
static const char *vector_name(int v)
{
	const char *n = trap_name(v);
	return n[0] == '#' ? n + 1 : n;
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

bool dbg_check_fault(const char *what, int i, int vector, uint64_t rip, uint64_t error)
{
	char buf[96];

	if (!check(i < dbg_log.n && i < DBG_MAX_EVENTS, "%s: event %d delivered (%d seen)",
		   what, i + 1, dbg_log.n))
		return false;
	const struct dbg_event *e = &dbg_log.ev[i];
	bool ok = check((int)e->vector == vector, "%s: vector %lu %s (expected %d %s)", what,
			(unsigned long)e->vector, vector_name((int)e->vector), vector, vector_name(vector));
	tl_snprintf(buf, sizeof buf, "%s: saved RIP", what);
	ok &= check_eq(buf, e->rip, rip);
	tl_snprintf(buf, sizeof buf, "%s: error code", what);
	ok &= check_eq(buf, e->error, error);
	return ok;
}

bool dbg_check_cpl(const char *what, int i, unsigned cpl)
{
	if (i >= dbg_nrec())
		return check(false, "%s: event %d delivered (%d seen)", what, i + 1, dbg_log.n);
	return check(dbg_cpl(&dbg_log.ev[i]) == cpl, "%s: from CPL %u (expected %u)", what,
		     dbg_cpl(&dbg_log.ev[i]), cpl);
}

static bool event_matches(const struct dbg_event *e, const struct dbg_expect *x)
{
	return (int)e->vector == x->vector && e->rip == (uint64_t)(uintptr_t)x->rip &&
	       (x->dr6 == DBG_ANY || e->dr6 == x->dr6) && (x->cpl < 0 || dbg_cpl(e) == (unsigned)x->cpl);
}

/* One check line for the whole sequence (the console is the slow part of a run
 * under an emulator): the count and the first event that differs, observed and
 * expected; at verbose=1 every event is listed as a diagnostic as well. */
bool dbg_check_seq(const char *what, const struct dbg_expect *x, int n)
{
	int bad = -1;

	for (int i = 0; i < n && bad < 0; i++)
		if (i >= dbg_nrec() || !event_matches(&dbg_log.ev[i], &x[i]))
			bad = i;
	bool ok = dbg_log.n == n && bad < 0;
	char msg[240];
	if (bad >= 0 && bad < dbg_nrec()) {
		const struct dbg_event *e = &dbg_log.ev[bad];
		tl_snprintf(msg, sizeof msg, "event %d: vector %lu %s rip %#lx dr6 %#lx cpl %u "
			    "(expected %d %s %#lx %#lx cpl %d)", bad,
			    (unsigned long)e->vector, vector_name((int)e->vector), (unsigned long)e->rip,
			    (unsigned long)e->dr6, dbg_cpl(e), x[bad].vector, vector_name(x[bad].vector),
			    (unsigned long)x[bad].rip,
			    (unsigned long)(x[bad].dr6 == DBG_ANY ? e->dr6 : x[bad].dr6),
			    x[bad].cpl < 0 ? (int)dbg_cpl(e) : x[bad].cpl);
	} else {
		tl_snprintf(msg, sizeof msg, "%s", bad >= 0 ? "the list ends early" :
			    "each vector, RIP, DR6, CPL as expected");
	}
	check(ok, "%s: %d events (expected %d), %s", what, dbg_log.n, n, msg);
	if (exp_verbosity() >= 1) {
		for (int i = 0; i < dbg_nrec() || i < n; i++) {
			char obs[80] = "none", exp[64] = "none";
			if (i < dbg_nrec())
				tl_snprintf(obs, sizeof obs, "%lu %s %#lx %#lx cpl %u",
					    (unsigned long)dbg_log.ev[i].vector,
					    vector_name((int)dbg_log.ev[i].vector),
					    (unsigned long)dbg_log.ev[i].rip, (unsigned long)dbg_log.ev[i].dr6,
					    dbg_cpl(&dbg_log.ev[i]));
			if (i < n)
				tl_snprintf(exp, sizeof exp, "%d %s %#lx", x[i].vector, vector_name(x[i].vector),
					    (unsigned long)x[i].rip);
			diag("%s ev %d: %s (expected %s)", what, i, obs, exp);
		}
	}
	return ok;
}
