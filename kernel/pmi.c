/* The performance-monitor interrupt handler shared by BTS, PMU and PEBS.
 *
 * One LVT entry, one vector, four kinds of cause (book 15.4.9: counter overflow
 * PMI, PEBS assist, PEBS buffer full, BTS buffer full), and several may be
 * present in one entry: the handler tests each independently (lib/pmi_cause.c).
 *
 * The sequence follows SDM vol.3 17.4.9.5 "Writing the DS Interrupt Service
 * Routine" and the perfmon chapter:
 *  1. stop BTS (DEBUGCTL.TR/BTS), counters (IA32_PERF_GLOBAL_CTRL) and only then
 *     PEBS (IA32_PEBS_ENABLE): a counter must be stopped before its PEBS enable
 *     is cleared, and nothing may write the DS area while the ISR reads it;
 *  2. read IA32_PERF_GLOBAL_STATUS and the DS pointers, classify;
 *  3. call the clients' hooks; drain: rewind each index that reached its
 *     threshold to base ("the ISR must reset the buffer index to the beginning");
 *  4. clear the status bits that were set (IA32_PERF_GLOBAL_OVF_CTRL, called
 *     IA32_PERF_GLOBAL_STATUS_RESET from version 4), which also lifts a
 *     streamlined freeze (CTR_Frz / LBR_Frz); read the status again and go
 *     back to 2 while an overflow bit is set, so an overflow that arrived
 *     during the handler is not lost (with LVT perfmon masked, nothing else
 *     would report it);
 *  5. re-enable PEBS, then the counters;
 *  6. unmask LVT perfmon (the processor masked it on delivery, SDM 11.5.1) as
 *     late as possible, EOI, and re-enable BTS last so that the fewest handler
 *     branches land in the trace.
 * AMD PerfMonV2 (APM vol.2 13.2.2): PerfCntrGlobalCtl (C000_0301h) is cleared
 * for the handler's duration and restored at the end, like GLOBAL_CTRL;
 * PerfCntrGlobalStatus / _StatusClr (C000_0300h / C000_0302h) play the part of
 * GLOBAL_STATUS / GLOBAL_OVF_CTRL.
 * Raw RDMSR/WRMSR (no calls) until BTS is off, on MSRs probed once with the #GP-
 * safe accessors in pmi_register(). */
#include "pmi.h"
#include "pmu_state.h"
#include "ds_area.h"
#include "apic.h"
#include "cpu.h"
#include "cpuid.h"
#include "experiment.h"
#include "mem.h"
#include "msr.h"
#include "x86.h"

static struct pmi_client *clients[PMI_MAX_CLIENTS];
static uint32_t n_pmi, n_spurious;
static uint64_t pebs_seen;

/* Which MSRs this processor has (probed when the first client registers). */
static struct {
	bool probed;
	bool debugctl, global, pebs, amd_global;
} hw;

static void probe(void)
{
	uint64_t v;
	if (hw.probed)
		return;
	hw.probed = true;
	hw.debugctl = rdmsr_safe(IA32_DEBUGCTL, &v);
	hw.global = cpu.vendor == VENDOR_INTEL && cpu.perfmon_version >= 2 &&
		    rdmsr_safe(IA32_PERF_GLOBAL_CTRL, &v) && rdmsr_safe(IA32_PERF_GLOBAL_STATUS, &v);
	hw.pebs = cpu.vendor == VENDOR_INTEL && (cpu.leaf1_edx & CPUID_1_EDX_DS) &&
		  !(cpu.misc_enable & MISC_ENABLE_PEBS_UNAVAIL) && rdmsr_safe(IA32_PEBS_ENABLE, &v);
	hw.amd_global = false;
	if (cpu.vendor == VENDOR_AMD && cpu.max_ext_leaf >= 0x80000022 &&
	    (cpuid(0x80000022, 0).eax & CPUID_80000022_EAX_PERFMON_V2))
		hw.amd_global = rdmsr_safe(MSR_AMD_PERF_CNTR_GLOBAL_STATUS, &v);
}

bool pmi_require(void)
{
	if (apic_present())
		return true;
	exp_skip("%s", apic_absent_reason());
	return false;
}

bool pmi_register(struct pmi_client *c)
{
	if (!apic_present())
		return false;
	probe();
	for (int i = 0; i < PMI_MAX_CLIENTS; i++) {
		if (!clients[i]) {
			c->n_pmi = c->n_counter = c->n_bts = c->n_pebs = c->n_pebs_full = c->n_other = 0;
			c->gp_ovf = c->fixed_ovf = 0;
			c->causes = 0;
			clients[i] = c;
			return true;
		}
	}
	return false;
}

void pmi_unregister(struct pmi_client *c)
{
	for (int i = 0; i < PMI_MAX_CLIENTS; i++)
		if (clients[i] == c)
			clients[i] = 0;
}

void pmi_reset(void)
{
	for (int i = 0; i < PMI_MAX_CLIENTS; i++)
		clients[i] = 0;
	n_pmi = n_spurious = 0;
	pebs_seen = 0;
	ds_forget();
}

uint32_t pmi_count(void)
{
	return n_pmi;
}

uint32_t pmi_spurious(void)
{
	return n_spurious;
}

void pmi_pebs_seen_set(uint64_t index)
{
	pebs_seen = index;
}

/* AMD before PerfMonV2 has no overflow status: a counter preset to -N has its
 * top bit (47) set until it wraps, so an armed counter whose top bit is clear
 * has overflowed (APM vol.2 13.2.1). */
static uint64_t amd_synth_status(uint64_t armed)
{
	uint64_t st = 0;
	bool core = cpu.ext1_ecx & CPUID_80000001_ECX_PERFCTR_CORE;
	for (unsigned n = 0; n < 6; n++) {
		uint64_t v;
		if (!(armed & (1ull << n)) || (!core && n >= 4))
			continue;
		uint32_t msr = core ? MSR_F15H_PERF_CTR0 + 2 * n : MSR_K7_PERFCTR0 + n;
		if (rdmsr_safe(msr, &v) && !(v & (1ull << 47)))
			st |= 1ull << n;
	}
	return st;
}

/* The overflow status as this processor reports it. */
static uint64_t read_status(uint64_t armed_gp)
{
	if (hw.global)
		return rdmsr(IA32_PERF_GLOBAL_STATUS);
	if (hw.amd_global)
		return rdmsr(MSR_AMD_PERF_CNTR_GLOBAL_STATUS);
	if (cpu.vendor == VENDOR_AMD)
		return amd_synth_status(armed_gp);
	return 0;
}

#define PMI_MAX_PASSES 4

void pmi_handler(struct trap_frame *tf)
{
	struct pmi_event ev;
	uint64_t debugctl = 0;

	/* 1. stop BTS first: every branch from here on would be recorded */
	if (hw.debugctl) {
		debugctl = rdmsr(IA32_DEBUGCTL);
		if (debugctl & (DEBUGCTL_TR | DEBUGCTL_BTS))
			wrmsr(IA32_DEBUGCTL, debugctl & ~(DEBUGCTL_TR | DEBUGCTL_BTS));
	}
	uint64_t gctl = 0, pen = 0, amd_gctl = 0;
	if (hw.global) {
		gctl = rdmsr(IA32_PERF_GLOBAL_CTRL);
		wrmsr(IA32_PERF_GLOBAL_CTRL, 0);
	}
	if (hw.amd_global) {
		amd_gctl = rdmsr(MSR_AMD_PERF_CNTR_GLOBAL_CTL);
		wrmsr(MSR_AMD_PERF_CNTR_GLOBAL_CTL, 0);
	}
	if (hw.pebs) {
		pen = rdmsr(IA32_PEBS_ENABLE);
		if (pen)
			wrmsr(IA32_PEBS_ENABLE, 0);
	}

	memset(&ev, 0, sizeof ev);
	ev.tf = tf;
	ev.debugctl = debugctl;
	ev.global_ctrl = gctl;
	ev.pebs_enable = pen;
	ev.seq = ++n_pmi;

	uint64_t armed_gp = 0, armed_fixed = 0;
	bool want_bts = false, want_pebs = false, want_topa = false;
	bool keep_bts = false, keep_pebs = false;
	for (int i = 0; i < PMI_MAX_CLIENTS; i++) {
		struct pmi_client *c = clients[i];
		if (!c)
			continue;
		armed_gp |= c->gp_armed;
		armed_fixed |= c->fixed_armed;
		want_bts |= c->bts;
		want_pebs |= c->pebs;
		want_topa |= c->topa;
		keep_bts |= c->keep_bts_index;
		keep_pebs |= c->keep_pebs_index;
	}
	struct ds_area *d = ds_active();
	uint64_t status = read_status(armed_gp);

	for (int pass = 0; pass < PMI_MAX_PASSES; pass++) {
		/* 2. what is pending */
		struct pmi_input *in = &ev.in;
		memset(in, 0, sizeof *in);
		in->status = status;
		in->n_gp = cpu.vendor == VENDOR_AMD ? 6 : cpu.n_gp;
		in->n_fixed = cpu.vendor == VENDOR_AMD ? 0 : cpu.n_fixed;
		in->gp_armed = armed_gp;
		in->fixed_armed = armed_fixed;
		in->topa_armed = want_topa;
		if (d && want_bts && d->bts_records) {
			in->bts_armed = true;
			in->bts_index = ds_read(d, DS_BTS_INDEX);
			in->bts_thresh = ds_read(d, DS_BTS_THRESH);
		}
		if (d && want_pebs && d->pebs_records) {
			in->pebs_armed = true;
			in->pebs_index = ds_read(d, DS_PEBS_INDEX);
			in->pebs_thresh = ds_read(d, DS_PEBS_THRESH);
			in->pebs_seen = pebs_seen;
		}
		pmi_classify(in, &ev.c);
		uint32_t cs = ev.c.causes;
		/* a later pass with nothing new is not a spurious PMI */
		if (pass > 0 && (cs & PMI_SPURIOUS))
			break;
		if (cs & PMI_SPURIOUS)
			n_spurious++;

		/* 3. every client hears about every cause it armed */
		for (int i = 0; i < PMI_MAX_CLIENTS; i++) {
			struct pmi_client *c = clients[i];
			if (!c)
				continue;
			if (pass == 0)
				c->n_pmi++;
			c->causes |= cs;
			c->gp_ovf |= ev.c.gp_ovf;
			c->fixed_ovf |= ev.c.fixed_ovf;
			if (c->on_pmi)
				c->on_pmi(c, &ev);
			if ((ev.c.gp_ovf & c->gp_armed) || (ev.c.fixed_ovf & c->fixed_armed)) {
				c->n_counter++;
				if (c->on_counter)
					c->on_counter(c, &ev);
			}
			if ((cs & PMI_PEBS_RECORDS) && c->pebs) {
				c->n_pebs++;
				if (c->on_pebs)
					c->on_pebs(c, &ev, in->pebs_seen, in->pebs_index);
			}
			if ((cs & PMI_BTS_THRESH) && c->bts) {
				c->n_bts++;
				if (c->on_bts)
					c->on_bts(c, &ev, ds_read(d, DS_BTS_BASE), in->bts_index);
			}
			if ((cs & PMI_PEBS_OVF) && c->pebs) {
				c->n_pebs_full++;
				if (c->on_pebs_full)
					c->on_pebs_full(c, &ev);
			}
			if (cs & (PMI_TOPA | PMI_UNCORE | PMI_UNKNOWN | PMI_SPURIOUS)) {
				c->n_other++;
				if (c->on_other)
					c->on_other(c, &ev);
			}
		}
		/* drain: rewind what reached its threshold */
		if ((cs & PMI_BTS_THRESH) && !keep_bts)
			ds_rewind(d, false);
		if (in->pebs_armed) {
			pebs_seen = in->pebs_index;
			if ((cs & PMI_PEBS_OVF) && !keep_pebs) {
				ds_rewind(d, true);
				pebs_seen = ds_read(d, DS_PEBS_BASE);
			}
		}

		/* 4. clear what was set, then look again (SDM: status bits set while
		 * the handler ran would otherwise wait for a PMI that never comes) */
		uint64_t m = 0;
		if (hw.global && ev.c.clear) {
			m = ev.c.clear & pmu_status_clearable();
			if (m && !wrmsr_safe(IA32_PERF_GLOBAL_OVF_CTRL, m)) {
				m &= 0xffffffffull | (0xffffull << 32) | GLOBAL_STATUS_OVF_BUF;
				wrmsr_safe(IA32_PERF_GLOBAL_OVF_CTRL, m);
			}
		} else if (hw.amd_global && ev.c.clear) {
			m = ev.c.clear;
			wrmsr_safe(MSR_AMD_PERF_CNTR_GLOBAL_STATUS_CLR, m);
		}
		if (!hw.global && !hw.amd_global)
			break;          /* legacy AMD: the hooks re-armed what overflowed */
		status = read_status(armed_gp);
		/* only what a clear can remove counts as "still pending" */
		if (!(status & ~PMI_STATUS_INFO_MASK & (hw.global ? pmu_status_clearable() : ~0ull)))
			break;
	}

	/* 5. PEBS before the counters that feed it */
	if (pen)
		wrmsr(IA32_PEBS_ENABLE, pen);
	if (hw.global) {
		/* A legacy (v2/v3) Freeze_PerfMon_On_PMI cleared the enables in
		 * GLOBAL_CTRL on delivery: give back what the clients armed. */
		if (cpu.perfmon_version < 4 && (debugctl & DEBUGCTL_FREEZE_PERFMON_ON_PMI))
			gctl |= armed_gp | (armed_fixed << 32);
		wrmsr(IA32_PERF_GLOBAL_CTRL, gctl);
	}
	if (hw.amd_global)
		wrmsr(MSR_AMD_PERF_CNTR_GLOBAL_CTL, amd_gctl);

	/* 6. late unmask, EOI, then tracing back on */
	apic_lvt_pmi_unmask();
	apic_eoi();
	if (debugctl & (DEBUGCTL_TR | DEBUGCTL_BTS))
		wrmsr(IA32_DEBUGCTL, debugctl);
}
