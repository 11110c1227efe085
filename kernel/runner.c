/* The experiment runner: selection from the command line, a known machine state
 * before each experiment, KTAP output, and recovery from anything an experiment
 * does wrong — an unexpected exception or a hang (watchdog) fails that
 * experiment with a dump, a leaked debug/PMU/trace setting fails it too, and the
 * run goes on with the next one. */
#include "apic.h"
#include "console.h"
#include "cpu.h"
#include "dbfuzz.h"
#include "cr.h"
#include "dr.h"
#include "ds_area.h"
#include "exit.h"
#include "experiment.h"
#include "fmt.h"
#include "kmem.h"
#include "msr.h"
#include "percpu.h"
#include "pmi.h"
#include "pm32.h"
#include "results.h"
#include "ctx.h"
#include "runner.h"
#include "smp.h"
#include "str.h"
#include "x86.h"

extern const struct experiment __experiments_start[], __experiments_end[];

#define MAX_EXP 256
static const struct experiment *reg[MAX_EXP];
static int nreg;

static struct {
	const struct experiment *e;
	bool active;
	bool timed_out;
	struct kctx ctx;
	uint32_t watchdog_ms;
	uint32_t cpu;            /* the CPU running e: only its traps resume rs.ctx */
	unsigned mode;           /* CMD_MODE_*: the CPU mode e runs in */
} rs;

unsigned exp_mode(void) { return rs.mode; }

/* ---- machine state: what every experiment must leave as it found it ------ */

/* How a tracked MSR is stopped before the rest is restored. */
enum msr_stop {
	STOP_NONE,              /* a value: restored in table order */
	STOP_ZERO,              /* an enable: written 0 first, restored late */
	STOP_CLEAR,             /* an enable register: `bits` cleared first */
};

struct msr_slot {
	uint32_t msr;
	const char *name;
	bool leak_checked;      /* false: a counter or status that may change */
	enum msr_stop stop;
	uint64_t bits;          /* STOP_CLEAR: the enable bits */
	uint32_t fw_alias;      /* a PMC: its full-width alias (IA32_A_PMCn), 0 if none */
};

#define DEBUGCTL_STOP (DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_BTINT | DEBUGCTL_LBR | DEBUGCTL_BTF)
#define V(m, n)         { (m), (n), true, STOP_NONE, 0, 0 }
#define CTR(m, n)       { (m), (n), false, STOP_NONE, 0, 0 }
#define PMC(i)          { IA32_PMC0 + (i), "IA32_PMC" #i, false, STOP_NONE, 0, IA32_A_PMC0 + (i) }
#define EVTSEL(m, n)    { (m), (n), true, STOP_CLEAR, EVTSEL_EN, 0 }
#define EN(m, n)        { (m), (n), true, STOP_ZERO, 0, 0 }

/* In restore order; the stop pass walks it backwards.  So the enables come last
 * in the table, the outermost (tracing, DEBUGCTL) at the very end: the stop pass
 * turns off DEBUGCTL.TR/BTS/BTINT/LBR, RTIT_CTL, IA32_LBR_CTL, then the counters
 * (GLOBAL_CTRL before PEBS_ENABLE: a PEBS counter must stop before its PEBS
 * enable is cleared, SDM vol.3 20.x "PEBS" / Linux's order), then the event
 * selects; only then are DS_AREA, the RTIT configuration (writable only with
 * TraceEn=0, 32.2.8.1), the counters and the LBR configuration written back, and
 * the enables last, DEBUGCTL at the very end (17.4.9: DS area first, then
 * TR/BTS). */
static const struct msr_slot tracked[] = {
	/* values */
	V(IA32_DS_AREA, "IA32_DS_AREA"),
	V(MSR_PEBS_LD_LAT, "MSR_PEBS_LD_LAT"),
	V(MSR_PEBS_DATA_CFG, "MSR_PEBS_DATA_CFG"),
	V(MSR_PEBS_FRONTEND, "MSR_PEBS_FRONTEND"),
	PMC(0), PMC(1), PMC(2), PMC(3), PMC(4), PMC(5), PMC(6), PMC(7),
	CTR(IA32_FIXED_CTR0, "IA32_FIXED_CTR0"),
	CTR(IA32_FIXED_CTR1, "IA32_FIXED_CTR1"),
	CTR(IA32_FIXED_CTR2, "IA32_FIXED_CTR2"),
	CTR(IA32_FIXED_CTR0 + 3, "IA32_FIXED_CTR3"),
	CTR(MSR_K7_PERFCTR0 + 0, "AMD PerfCtr0"),
	CTR(MSR_K7_PERFCTR0 + 1, "AMD PerfCtr1"),
	CTR(MSR_K7_PERFCTR0 + 2, "AMD PerfCtr2"),
	CTR(MSR_K7_PERFCTR0 + 3, "AMD PerfCtr3"),
	CTR(MSR_F15H_PERF_CTR0 + 0, "AMD PerfCtr0 (ext)"),
	CTR(MSR_F15H_PERF_CTR0 + 2, "AMD PerfCtr1 (ext)"),
	CTR(MSR_F15H_PERF_CTR0 + 4, "AMD PerfCtr2 (ext)"),
	CTR(MSR_F15H_PERF_CTR0 + 6, "AMD PerfCtr3 (ext)"),
	CTR(MSR_F15H_PERF_CTR0 + 8, "AMD PerfCtr4 (ext)"),
	CTR(MSR_F15H_PERF_CTR0 + 10, "AMD PerfCtr5 (ext)"),
	CTR(IA32_RTIT_STATUS, "IA32_RTIT_STATUS"),
	V(IA32_RTIT_OUTPUT_BASE, "IA32_RTIT_OUTPUT_BASE"),
	CTR(IA32_RTIT_OUTPUT_MASK_PTRS, "IA32_RTIT_OUTPUT_MASK_PTRS"),
	V(IA32_RTIT_CR3_MATCH, "IA32_RTIT_CR3_MATCH"),
	V(IA32_RTIT_ADDR0_A, "IA32_RTIT_ADDR0_A"), V(IA32_RTIT_ADDR0_B, "IA32_RTIT_ADDR0_B"),
	V(IA32_RTIT_ADDR0_A + 2, "IA32_RTIT_ADDR1_A"), V(IA32_RTIT_ADDR0_B + 2, "IA32_RTIT_ADDR1_B"),
	V(IA32_RTIT_ADDR0_A + 4, "IA32_RTIT_ADDR2_A"), V(IA32_RTIT_ADDR0_B + 4, "IA32_RTIT_ADDR2_B"),
	V(IA32_RTIT_ADDR0_A + 6, "IA32_RTIT_ADDR3_A"), V(IA32_RTIT_ADDR0_B + 6, "IA32_RTIT_ADDR3_B"),
	V(MSR_LBR_SELECT, "MSR_LBR_SELECT"),
	V(IA32_LBR_DEPTH, "IA32_LBR_DEPTH"),        /* a write clears the records */
	/* event selects (each one an enable: EN[22]) */
	EVTSEL(IA32_PERFEVTSEL0 + 0, "IA32_PERFEVTSEL0"),
	EVTSEL(IA32_PERFEVTSEL0 + 1, "IA32_PERFEVTSEL1"),
	EVTSEL(IA32_PERFEVTSEL0 + 2, "IA32_PERFEVTSEL2"),
	EVTSEL(IA32_PERFEVTSEL0 + 3, "IA32_PERFEVTSEL3"),
	EVTSEL(IA32_PERFEVTSEL0 + 4, "IA32_PERFEVTSEL4"),
	EVTSEL(IA32_PERFEVTSEL0 + 5, "IA32_PERFEVTSEL5"),
	EVTSEL(IA32_PERFEVTSEL0 + 6, "IA32_PERFEVTSEL6"),
	EVTSEL(IA32_PERFEVTSEL0 + 7, "IA32_PERFEVTSEL7"),
	EVTSEL(MSR_K7_EVNTSEL0 + 0, "AMD PerfEvtSel0"),
	EVTSEL(MSR_K7_EVNTSEL0 + 1, "AMD PerfEvtSel1"),
	EVTSEL(MSR_K7_EVNTSEL0 + 2, "AMD PerfEvtSel2"),
	EVTSEL(MSR_K7_EVNTSEL0 + 3, "AMD PerfEvtSel3"),
	EVTSEL(MSR_F15H_PERF_CTL0 + 0, "AMD PerfEvtSel0 (ext)"),
	EVTSEL(MSR_F15H_PERF_CTL0 + 2, "AMD PerfEvtSel1 (ext)"),
	EVTSEL(MSR_F15H_PERF_CTL0 + 4, "AMD PerfEvtSel2 (ext)"),
	EVTSEL(MSR_F15H_PERF_CTL0 + 6, "AMD PerfEvtSel3 (ext)"),
	EVTSEL(MSR_F15H_PERF_CTL0 + 8, "AMD PerfEvtSel4 (ext)"),
	EVTSEL(MSR_F15H_PERF_CTL0 + 10, "AMD PerfEvtSel5 (ext)"),
	EN(IA32_FIXED_CTR_CTRL, "IA32_FIXED_CTR_CTRL"),
	/* enables: PEBS after its counters are configured, the global enable
	 * after PEBS; then LBR, IBS, PT; DEBUGCTL last */
	EN(IA32_PEBS_ENABLE, "IA32_PEBS_ENABLE"),
	EN(IA32_PERF_GLOBAL_CTRL, "IA32_PERF_GLOBAL_CTRL"),
	EN(MSR_AMD_PERF_CNTR_GLOBAL_CTL, "AMD PerfCntrGlobalCtl"),
	EN(MSR_AMD_IBS_FETCH_CTL, "IBS_FETCH_CTL"),
	EN(MSR_AMD_IBS_OP_CTL, "IBS_OP_CTL"),
	EN(IA32_LBR_CTL, "IA32_LBR_CTL"),
	EN(IA32_RTIT_CTL, "IA32_RTIT_CTL"),
	{ IA32_DEBUGCTL, "IA32_DEBUGCTL", true, STOP_CLEAR, DEBUGCTL_STOP, 0 },
};
#define NTRACKED (sizeof tracked / sizeof tracked[0])

/* Local APIC registers the runner and the PMI path use: LVT perfmon (masked by
 * the processor on every PMI, unmasked by the handler), the watchdog's timer,
 * error, LINT0/1, and where they exist thermal, CMCI (APIC version MaxLVT) and
 * AMD's extended LVTs (IBS is routed through one, APM vol.2 13.3.2 / 16.4.5). */
#define MAX_EXT_LVT 4
static const struct { uint32_t reg; const char *name; unsigned min_maxlvt; } lvts[] = {
	{ APIC_LVT_PERFMON, "LVT perfmon", 0 }, { APIC_LVT_TIMER, "LVT timer", 0 },
	{ APIC_LVT_ERROR, "LVT error", 0 }, { APIC_LVT_LINT0, "LVT LINT0", 0 },
	{ APIC_LVT_LINT1, "LVT LINT1", 0 }, { APIC_LVT_THERMAL, "LVT thermal", 5 },
	{ APIC_LVT_CMCI, "LVT CMCI", 6 },
};
#define NLVT (sizeof lvts / sizeof lvts[0])

struct machine_state {
	uint64_t dr[8];
	uint64_t cr4;
	uint64_t msr[NTRACKED];
	uint64_t global_status;
	uint32_t lvt[NLVT], ext_lvt[MAX_EXT_LVT];
	int isr;                /* highest in-service vector, -1 if none */
};

static bool msr_present[NTRACKED];
static uint32_t n_msr_present;
static bool lvt_present[NLVT];
static unsigned n_lvt_present, n_ext_lvt;
static bool have_global_status;

static void probe_msrs(void)
{
	uint64_t v;
	for (unsigned i = 0; i < NTRACKED; i++) {
		msr_present[i] = rdmsr_safe(tracked[i].msr, &v);
		n_msr_present += msr_present[i];
	}
	have_global_status = cpu.vendor == VENDOR_INTEL && cpu.perfmon_version >= 2 &&
			     rdmsr_safe(IA32_PERF_GLOBAL_STATUS, &v);
	uint32_t ver = apic_read(APIC_VERSION), x;
	for (unsigned i = 0; i < NLVT; i++)
		lvt_present[i] = APIC_VERSION_MAXLVT(ver) >= lvts[i].min_maxlvt &&
				 apic_read_safe(lvts[i].reg, &x);
	for (unsigned i = 0; i < NLVT; i++)
		n_lvt_present += lvt_present[i];
	if (cpu.vendor == VENDOR_AMD && (ver & APIC_VERSION_AMD_EAS) &&
	    apic_read_safe(APIC_AMD_EXT_FEATURE, &x)) {
		n_ext_lvt = (x >> 16) & 0xff;
		if (n_ext_lvt > MAX_EXT_LVT)
			n_ext_lvt = MAX_EXT_LVT;
		for (unsigned i = 0; i < n_ext_lvt; i++)
			if (!apic_read_safe(APIC_AMD_EXT_LVT0 + 0x10 * i, &x))
				n_ext_lvt = i;
	}
}

static void snapshot(struct machine_state *s)
{
	for (int i = 0; i < 8; i++)
		s->dr[i] = (i == 4 || i == 5) ? 0 : read_dr(i);
	s->cr4 = read_cr4();
	for (unsigned i = 0; i < NTRACKED; i++)
		if (msr_present[i] && !rdmsr_safe(tracked[i].msr, &s->msr[i]))
			s->msr[i] = 0;
	s->global_status = 0;
	if (have_global_status)
		rdmsr_safe(IA32_PERF_GLOBAL_STATUS, &s->global_status);
	for (unsigned i = 0; i < NLVT; i++)
		if (!lvt_present[i] || !apic_read_safe(lvts[i].reg, &s->lvt[i]))
			s->lvt[i] = 0;
	for (unsigned i = 0; i < n_ext_lvt; i++)
		if (!apic_read_safe(APIC_AMD_EXT_LVT0 + 0x10 * i, &s->ext_lvt[i]))
			s->ext_lvt[i] = 0;
	s->isr = apic_isr_highest();
}

/* Two passes over the tracked MSRs (see the table): stop every tracing and
 * counting enable, outermost first, then write everything back in table order,
 * enables last and DEBUGCTL at the very end.  Writing DS_AREA while
 * DEBUGCTL.TR|BTS is still set would make every branch between the two WRMSRs
 * store a record through whatever DS area the CPU has at that moment. */
static void restore(const struct machine_state *s, const struct machine_state *now)
{
	for (unsigned i = NTRACKED; i-- > 0;) {
		const struct msr_slot *t = &tracked[i];
		if (!msr_present[i] || t->stop == STOP_NONE)
			continue;
		wrmsr_safe(t->msr, t->stop == STOP_ZERO ? 0 : now->msr[i] & ~t->bits);
	}
	write_dr7(DR7_INIT);
	for (int i = 0; i < 4; i++)
		write_dr(i, s->dr[i]);
	write_dr6(s->dr[6]);
	write_cr4(s->cr4);
	/* Without PERF_CAPABILITIES.FW_WRITE a WRMSR to IA32_PMCn takes bits 31:0
	 * and sign-extends bit 31 (SDM vol.3 20.2.6 "Full-Width Writes to
	 * Performance Counter Registers"): the full-width alias restores all bits. */
	bool fw = cpu.has_perf_caps && (cpu.perf_caps & PERF_CAP_FW_WRITE);
	for (unsigned i = 0; i < NTRACKED; i++) {
		const struct msr_slot *t = &tracked[i];
		if (!msr_present[i])
			continue;
		if (t->fw_alias && fw && wrmsr_safe(t->fw_alias, s->msr[i]))
			continue;
		wrmsr_safe(t->msr, s->msr[i]);
	}
	/* overflow and buffer status bits the experiment left set */
	uint64_t st;
	if (have_global_status && rdmsr_safe(IA32_PERF_GLOBAL_STATUS, &st) && (st & ~s->global_status))
		wrmsr_safe(IA32_PERF_GLOBAL_OVF_CTRL, st & ~s->global_status);
	for (unsigned i = 0; i < NLVT; i++)
		if (lvt_present[i] && lvts[i].reg != APIC_LVT_TIMER)
			apic_write(lvts[i].reg, s->lvt[i]);
	for (unsigned i = 0; i < n_ext_lvt; i++)
		apic_write(APIC_AMD_EXT_LVT0 + 0x10 * i, s->ext_lvt[i]);
	/* an interrupt still in service blocks its priority class (SDM 11.8.3.1) */
	for (int n = 0; n < 256 && apic_isr_highest() > s->isr; n++)
		apic_eoi();
	write_dr7(s->dr[7]);
}

/* Compares and reports as one check; returns the number of leaks. */
static int verify(const struct machine_state *b, const struct machine_state *a)
{
	int leaks = 0;
	static const int drs[] = { 0, 1, 2, 3, 7 };
	for (unsigned i = 0; i < 5; i++) {
		int n = drs[i];
		if (a->dr[n] != b->dr[n]) {
			diag("leaked: DR%d=0x%llx (found 0x%llx)", n,
				(unsigned long long)a->dr[n], (unsigned long long)b->dr[n]);
			leaks++;
		}
	}
	if (a->cr4 != b->cr4) {
		diag("leaked: CR4=0x%llx (found 0x%llx)", (unsigned long long)a->cr4,
			(unsigned long long)b->cr4);
		leaks++;
	}
	for (unsigned i = 0; i < NTRACKED; i++) {
		if (msr_present[i] && tracked[i].leak_checked && a->msr[i] != b->msr[i]) {
			diag("leaked: %s=0x%llx (found 0x%llx)", tracked[i].name,
				(unsigned long long)a->msr[i], (unsigned long long)b->msr[i]);
			leaks++;
		}
	}
	for (unsigned i = 0; i < NLVT; i++) {
		if (lvt_present[i] && a->lvt[i] != b->lvt[i]) {
			diag("leaked: APIC %s=0x%x (found 0x%x)", lvts[i].name, a->lvt[i],
				b->lvt[i]);
			leaks++;
		}
	}
	for (unsigned i = 0; i < n_ext_lvt; i++) {
		if (a->ext_lvt[i] != b->ext_lvt[i]) {
			diag("leaked: APIC extended LVT%u=0x%x (found 0x%x)", i, a->ext_lvt[i],
				b->ext_lvt[i]);
			leaks++;
		}
	}
	if (a->isr != b->isr) {
		diag("leaked: APIC ISR: vector %d in service (found %d)", a->isr, b->isr);
		leaks++;
	}
	/* A skipped experiment that left everything as found reports no check at
	 * all: a passing one would make a KTAP reader count it as passed. */
	if (exp_verdict() == V_SKIP && leaks == 0)
		vdiag("state left as found (DR0-3, DR7, CR4, %u MSRs, %u APIC LVTs)", n_msr_present,
		      n_lvt_present + n_ext_lvt);
	else
		check(leaks == 0, "state left as found (DR0-3, DR7, CR4, %u MSRs, %u APIC LVTs): %d changed (expected 0)",
		      n_msr_present, n_lvt_present + n_ext_lvt, leaks);
	return leaks;
}

/* ---- trap-context entry points ------------------------------------------- */

/* An early end flushes the held block with the checks still to come: the
 * exception or watchdog check and the state check (2). */
void runner_unexpected(struct trap_frame *tf)
{
	bool resumable = rs.active && rs.cpu == this_cpu()->index;
	results_flush(resumable ? 2 : 0);
	kprintf("# unexpected exception or interrupt:\n");
	trap_dump(tf);
	if (resumable) {
		kprintf("    # experiment %llu aborted by %s\n", (unsigned long long)rs.e->num,
			trap_name((int)tf->vector));
		ctx_resume(&rs.ctx);
	}
	kprintf("# tracelab: unexpected exception outside any experiment\n");
	kernel_exit(false);
}

void runner_watchdog(struct trap_frame *tf)
{
	apic_eoi();
	if (!rs.active || rs.cpu != this_cpu()->index)
		return;
	uint64_t elapsed = apic_watchdog_elapsed_ms();  /* before the held block goes out */
	results_flush(2);
	kprintf("    # watchdog: experiment %llu still running after %u ms (%llu ms by the TSC)\n",
		(unsigned long long)rs.e->num, rs.watchdog_ms, (unsigned long long)elapsed);
	trap_dump(tf);
	rs.timed_out = true;
	ctx_resume(&rs.ctx);
}

/* ---- selection ----------------------------------------------------------- */

static void sort_registry(void)
{
	for (const struct experiment *e = __experiments_start; e < __experiments_end && nreg < MAX_EXP; e++) {
		int i = nreg++;
		while (i > 0 && (reg[i - 1]->num > e->num ||
				 (reg[i - 1]->num == e->num && (reg[i - 1]->flags & EXP_PM32) >
				  (e->flags & EXP_PM32)))) {
			reg[i] = reg[i - 1];
			i--;
		}
		reg[i] = e;
	}
}

/* The modes an experiment runs in under cl (lib/cmdline.c). */
static unsigned modes_of(const struct cmdline *cl, const struct experiment *e)
{
	return cmdline_modes_for(cl, e->flags & EXP_PM32);
}

static bool selectable(const struct cmdline *cl, const struct experiment *e)
{
	return cmdline_selects_experiment(cl, (uint32_t)e->num, e->family, e->flags & EXP_SELFTEST);
}

/* Every item must name something that runs: a typo, or self-tests without
 * selftest=1, run nothing (lib/cmdline.c). */
static bool validate(const struct cmdline *cl, char *err, size_t n)
{
	static struct cmd_exp list[MAX_EXP];
	for (int i = 0; i < nreg; i++)
		list[i] = (struct cmd_exp){ (uint32_t)reg[i]->num, reg[i]->family,
					    reg[i]->flags & EXP_SELFTEST, reg[i]->flags & EXP_PM32 };
	return cmdline_validate(cl, list, nreg, err, n);
}

static void list_registry(void)
{
	kprintf("# experiments:\n");
	for (int i = 0; i < nreg; i++)
		kprintf("#   %3llu %-22s %-9s %s%s\n", (unsigned long long)reg[i]->num, reg[i]->name,
			reg[i]->family, (reg[i]->flags & EXP_PM32) ? "(pm32) " : "", reg[i]->summary);
}

/* ---- running ------------------------------------------------------------- */

/* suffix: " pm32" for a protected-mode run (the mode is part of the name), then
 * " cpu=N", " rep=R" */
static void run_one(const struct experiment *e, unsigned mode, const char *suffix)
{
	struct machine_state before, after;
	/* A known start: no stale DR6 status, no TF, default handlers, an empty
	 * arena.  Breakpoint, PMU and trace enables are whatever the previous
	 * experiment was checked to leave: the boot state (runner_main). */
	write_dr6(DR6_INIT);
	write_rflags(read_rflags() & ~(uint64_t)(RFLAGS_TF | RFLAGS_AC));
	snapshot(&before);
	rs = (__typeof__(rs)){ .e = e, .watchdog_ms = rs.watchdog_ms, .cpu = this_cpu()->index,
			       .mode = mode };
	char label[64];
	tl_snprintf(label, sizeof label, "%llu %s%s", (unsigned long long)e->num, e->name, suffix);
	trap_reset_handlers();
	arena_reset();
	pm32_new_experiment();
	results_open((uint32_t)e->num, e->name, label);
	if (e->book && e->book[0])
		vdiag("reproduces book experiment %s; needs %s", e->book, e->needs);
	uint64_t t0 = rdtsc();
	if (ctx_save(&rs.ctx) == 0) {
		rs.active = true;
		apic_watchdog_arm(rs.watchdog_ms);
		sti();
		e->run();
		cli();
	} else {
		/* resumed from trap context: an exception or the watchdog */
		cli();
		check(false, "%s: experiment ran to completion", rs.timed_out ? "watchdog" : "exception");
	}
	rs.active = false;
	apic_watchdog_arm(0);
	uint64_t t1 = rdtsc();
	write_rflags(read_rflags() & ~(uint64_t)(RFLAGS_TF | RFLAGS_AC));
	trap_reset_handlers();
	pmi_reset();
	snapshot(&after);
	verify(&before, &after);
	restore(&before, &after);
	vdiag("%llu TSC cycles", (unsigned long long)(t1 - t0));
	results_close();
	sti();
}

/* cpu=N / cpu=all: the experiment runs through run_one on that CPU while the
 * boot CPU waits.  A CPU that does not come back (the watchdog covers only the
 * experiment itself, not a wedged CPU) fails the experiment and is parked. */
struct remote_run { const struct experiment *e; unsigned mode; const char *suffix; };

static void run_one_remote(void *arg)
{
	struct remote_run *r = arg;
	run_one(r->e, r->mode, r->suffix);
}

static void run_on(int cpu, const struct experiment *e, unsigned mode, const char *suffix)
{
	struct remote_run r = { e, mode, suffix };
	char label[64], why[64];
	tl_snprintf(label, sizeof label, "%llu %s%s", (unsigned long long)e->num, e->name, suffix);
	if (!smp_cpu_online(cpu)) {
		tl_snprintf(why, sizeof why, "cpu%d went offline earlier in this run", cpu);
		results_unrun((uint32_t)e->num, e->name, label, V_SKIP, why);
		return;
	}
	if (smp_call(cpu, run_one_remote, &r, 2 * rs.watchdog_ms + 5000))
		return;
	rs.active = false;
	tl_snprintf(why, sizeof why, "cpu%d did not return", cpu);
	results_unrun((uint32_t)e->num, e->name, label, V_TIMEOUT, why);
}

void runner_main(const struct cmdline *cl)
{
	char err[160];
	sort_registry();
	probe_msrs();
	/* The boot state every experiment starts from and must return to: no
	 * breakpoint armed (DR7 at its reset value 0x400, SDM vol.3 18.2.4). */
	write_dr7(DR7_INIT);
	for (int i = 0; i < 4; i++)
		write_dr(i, 0);
	results_set_verbosity(cl->verbose);
	ds_set_diag(cl->verbose >= 1 ? diag : 0);
	rs.watchdog_ms = cl->watchdog_ms;
	trap_set_default(VEC_TIMER, runner_watchdog);
	/* A refusal is KTAP too: the reason as diagnostics, which a KTAP reader
	 * shows for a run of 0 tests, then the empty plan. */
	if (!validate(cl, err, sizeof err)) {
		kprintf("KTAP version 1\n# tracelab: command line error: %s\n# %s\n", err, cmdline_usage);
		list_registry();
		kprintf("1..0\n# tracelab: command line rejected, nothing run\n");
		kernel_exit(false);
	}
	bool online[MAX_CPUS];
	for (int c = 0; c < MAX_CPUS; c++)
		online[c] = smp_cpu_online(c);
	if (!cmdline_check_cpu(cl, online, MAX_CPUS, err, sizeof err)) {
		kprintf("KTAP version 1\n# tracelab: command line error: %s\n", err);
		kprintf("1..0\n# tracelab: command line rejected, nothing run\n");
		kernel_exit(false);
	}
	if (cl->verbose >= 1)
		list_registry();
	if (cl->fuzz_debug) {
		/* One test: the fuzz run (kernel/dbfuzz.c), on the CPU cpu= names. */
		char suffix[64];
		if (cl->fuzz_index >= 0)
			tl_snprintf(suffix, sizeof suffix, " seed=%llu index=%lld drop=0x%x",
				    (unsigned long long)cl->fuzz_seed, (long long)cl->fuzz_index, cl->fuzz_drop);
		else
			tl_snprintf(suffix, sizeof suffix, " seed=%llu count=%u",
				    (unsigned long long)cl->fuzz_seed, cl->fuzz_count);
		dbfuzz_cmdline = cl;
		results_plan(1);
		run_on(cl->cpu == CMD_CPU_ALL ? 0 : cl->cpu, &dbfuzz_experiment, CMD_MODE_LONG, suffix);
		results_finish();
		const struct results_totals *t = results_totals();
		kernel_exit(t->n[V_FAIL] + t->n[V_TIMEOUT] == 0);
	}
	bool on[MAX_CPUS];
	for (int c = 0; c < MAX_CPUS; c++)
		on[c] = smp_cpu_online(c) && (cl->cpu == CMD_CPU_ALL || c == cl->cpu);
	int planned = 0, ncpu = cl->cpu == CMD_CPU_ALL ? (int)ncpus_online : 1;
	for (int i = 0; i < nreg; i++)
		for (unsigned m = 1; m <= CMD_MODES_ALL; m <<= 1)
			planned += selectable(cl, reg[i]) * !!(modes_of(cl, reg[i]) & m) *
				   (int)cl->reps * ncpu;
	results_plan(planned);
	for (int i = 0; i < nreg; i++) {
		if (!selectable(cl, reg[i]))
			continue;
		for (unsigned mode = 1; mode <= CMD_MODES_ALL; mode <<= 1) {
			if (!(modes_of(cl, reg[i]) & mode))
				continue;
			for (int c = 0; c < MAX_CPUS; c++) {
				if (!on[c])
					continue;
				for (uint32_t r = 1; r <= cl->reps; r++) {
					/* the mode is part of the name: "104 dr-exec pm32" */
					char suffix[48] = "";
					int n = 0;
					if (mode != CMD_MODE_LONG)
						n = tl_snprintf(suffix, sizeof suffix, " %s", cmdline_mode_name(mode));
					if (cl->cpu != 0)
						n += tl_snprintf(suffix + n, sizeof suffix - (size_t)n, " cpu=%d", c);
					if (cl->reps > 1)
						tl_snprintf(suffix + n, sizeof suffix - (size_t)n, " rep=%u", r);
					run_on(c, reg[i], mode, suffix);
					if (cl->pause_ms)
						delay_us(cl->pause_ms * 1000);
				}
			}
		}
	}
	results_finish();
	const struct results_totals *t = results_totals();
	kernel_exit(t->n[V_FAIL] + t->n[V_TIMEOUT] == 0);
}
