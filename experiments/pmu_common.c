/* Shared helpers of the BTS / PMU / PEBS experiments: see pmu_common.h. */
#include "pmu_common.h"
#include "cpu.h"
#include "cpuid.h"
#include "experiment.h"
#include "mem.h"
#include "msr.h"
#include "pmc.h"
#include "pmi.h"
#include "x86.h"

__asm__(
	".pushsection .text\n"
	".global pmu_loop\n"
	"pmu_loop:\n"
	"	mov %rdi, %rcx\n"
	"1:	dec %rcx\n"
	"	jnz 1b\n"
	"	ret\n"
	".popsection\n");

bool pmu_full_width(void)
{
	return cpu.has_perf_caps && (cpu.perf_caps & PERF_CAP_FW_WRITE);
}

bool pmc_write(unsigned n, uint64_t v)
{
	if (pmu_full_width())
		return wrmsr_safe(IA32_A_PMC0 + n, v & pmu_mask(cpu.gp_width));
	return wrmsr_safe(IA32_PMC0 + n, v & 0xffffffffull);
}

uint64_t pmc_read(unsigned n)
{
	uint64_t v = 0;
	rdmsr_safe(IA32_PMC0 + n, &v);
	return v;
}

void pmu_quiesce(void)
{
	if (cpu.perfmon_version >= 2)
		wrmsr_safe(IA32_PERF_GLOBAL_CTRL, 0);
	for (unsigned i = 0; i < cpu.n_gp && i < 8; i++)
		wrmsr_safe(IA32_PERFEVTSEL0 + i, 0);
	if (cpu.perfmon_version >= 2)
		wrmsr_safe(IA32_FIXED_CTR_CTRL, 0);
	/* counters are stopped: now PEBS may go */
	if (cpu.leaf1_edx & CPUID_1_EDX_DS)
		wrmsr_safe(IA32_PEBS_ENABLE, 0);
	uint64_t st;
	if (cpu.perfmon_version >= 2 && rdmsr_safe(IA32_PERF_GLOBAL_STATUS, &st) && st) {
		uint64_t m = ((1ull << cpu.n_gp) - 1) | (((1ull << cpu.n_fixed) - 1) << 32) |
			     GLOBAL_STATUS_OVF_BUF | GLOBAL_STATUS_COND_CHGD;
		if (cpu.perfmon_version >= 4)
			m |= GLOBAL_STATUS_LBR_FRZ | GLOBAL_STATUS_CTR_FRZ;
		wrmsr_safe(IA32_PERF_GLOBAL_OVF_CTRL, st & m);
	}
}

bool pmu_gate_intel(unsigned min_version, bool need_inst_retired)
{
	if (cpu.max_leaf < 0xa) {
		exp_skip("CPUID.00H:EAX.MAX_LEAF=%#x < 0AH (no architectural perfmon leaf)", cpu.max_leaf);
		return false;
	}
	if (cpu.perfmon_version == 0) {
		exp_skip("CPUID.0AH:EAX.VERSION=0");
		return false;
	}
	if (cpu.perfmon_version < min_version) {
		exp_skip("CPUID.0AH:EAX.VERSION=%u (needs >= %u)", cpu.perfmon_version, min_version);
		return false;
	}
	if (cpu.n_gp == 0) {
		exp_skip("CPUID.0AH:EAX[15:8] (general counters)=0");
		return false;
	}
	if (need_inst_retired && (cpu.perf_ebx & CPUID_A_EBX_NO_INST_RETIRED)) {
		exp_skip("CPUID.0AH:EBX[1]=1 (instructions-retired event unavailable)");
		return false;
	}
	if (cpu.has_misc_enable && !(cpu.misc_enable & MISC_ENABLE_PERF_MON)) {
		exp_skip("IA32_MISC_ENABLE.PERF_MON_AVAILABLE[7]=0");
		return false;
	}
	/* An emulator may advertise the leaf without the MSRs, or return 0 on every
	 * read: a value written to the (stopped) counter must come back. */
	uint64_t sel, v;
	if (!rdmsr_safe(IA32_PERFEVTSEL0, &sel)) {
		exp_skip("RDMSR IA32_PERFEVTSEL0 (0x186) GP");
		return false;
	}
	if (sel & EVTSEL_EN)
		wrmsr_safe(IA32_PERFEVTSEL0, sel & ~EVTSEL_EN);
	const uint64_t probe = 0x12345;
	if (!wrmsr_safe(IA32_PMC0, probe)) {
		exp_skip("WRMSR IA32_PMC0 (0xc1) GP");
		return false;
	}
	bool ok = rdmsr_safe(IA32_PMC0, &v);
	if (!ok || v != probe) {
		exp_skip("IA32_PMC0 write 0x%llx read back 0x%llx", (unsigned long long)probe,
			 (unsigned long long)(ok ? v : 0));
		return false;
	}
	if (cpu.perfmon_version >= 2 && !rdmsr_safe(IA32_PERF_GLOBAL_STATUS, &v)) {
		exp_skip("RDMSR IA32_PERF_GLOBAL_STATUS (0x38e) GP");
		return false;
	}
	if (cpu.perfmon_version >= 2 && (!rdmsr_safe(IA32_PERF_GLOBAL_CTRL, &v) ||
					 !wrmsr_safe(IA32_PERF_GLOBAL_CTRL, v))) {
		exp_skip("IA32_PERF_GLOBAL_CTRL (0x38f) GP");
		return false;
	}
	return true;
}

bool pebs_prepare(struct pebs_setup *p, uint64_t data_cfg, uint32_t bts_records,
		  uint32_t bts_thresh, uint32_t pebs_records, uint32_t pebs_thresh)
{
	const char *why = ds_pebs_unavailable();
	if (why) {
		exp_skip("%s", why);
		return false;
	}
	/* PEBS needs IA32_PERF_GLOBAL_CTRL/STATUS (version 2) for the set-up here */
	if (!pmu_gate_intel(2, true))
		return false;
	if ((why = ds_pebs_layout(&p->layout))) {
		exp_skip("%s", why);
		return false;
	}
	/* Errata (family/model/stepping/microcode), then which counters the
	 * model lets take the PEBS events (lib/pebs_model.c). */
	struct pebs_cpu pc;
	char reason[160];
	pebs_cpu_fill(&pc);
	if ((why = pebs_plan_for(&pc, &p->plan, reason, sizeof reason))) {
		exp_skip("%s", why);
		return false;
	}
	/* the PEBS experiments take their records, threshold and buffer-full
	 * interrupts in the PMI handler */
	if (!pmi_require())
		return false;
	p->adaptive = p->layout == PEBS_L_ADAPTIVE;
	p->data_cfg = 0;
	if (p->adaptive) {
		/* groups beyond the basic one need PEBS_BASELINE and PEBS_DATA_CFG */
		if (data_cfg && !(cpu.perf_caps & PERF_CAP_PEBS_BASELINE)) {
			exp_skip("IA32_PERF_CAPABILITIES.PEBS_BASELINE[14]=0 (adaptive groups 0x%llx needed)",
				 (unsigned long long)data_cfg);
			return false;
		}
		p->data_cfg = data_cfg;
	}
	if (!pebs_buffer_fits(&p->plan, p->layout, p->data_cfg, pebs_records, &p->rec_size)) {
		exp_fail("PEBS buffer of %u records x %u bytes exceeds %u bytes (%s)", pebs_records,
			 p->rec_size, p->plan.max_buffer, p->plan.u->name);
		return false;
	}
	int e = ds_create(&p->ds, bts_records, bts_thresh, pebs_records, pebs_thresh, p->rec_size);
	if (e) {
		exp_fail("DS layout: %s", ds_strerror(e));
		return false;
	}
	p->ds.pebs_layout = p->layout;
	p->ds.pebs_cfg = p->adaptive ? p->data_cfg : 0;
	p->ds.pebs_timed = cpu.has_perf_caps && (cpu.perf_caps & PERF_CAP_TIMED_PEBS);
	p->ds.pebs_split_latency = p->plan.u->split_latency;
	p->fmt = (struct pebs_format){ p->layout, p->adaptive ? p->data_cfg : 0, p->ds.pebs_timed,
				       p->plan.u->split_latency };
	if (p->adaptive && (cpu.perf_caps & PERF_CAP_PEBS_BASELINE) &&
	    !wrmsr_safe(MSR_PEBS_DATA_CFG, p->data_cfg)) {
		exp_skip("WRMSR MSR_PEBS_DATA_CFG (0x3f2) GP");
		return false;
	}
	if ((why = ds_install(&p->ds))) {
		exp_fail("%s", why);
		return false;
	}
	diag("PEBS record layout: %s, %u bytes%s%s", pebs_layout_name(p->layout), p->rec_size,
	     (cpu.perf_caps & PERF_CAP_PEBS_TRAP) ? ", trap-like" : ", fault-like",
	     p->ds.pebs_timed ? ", timed" : "");
	diag("PEBS constraints: %s (%s): instructions retired event 0x%04x on PMC%d%s, load latency %s",
	     p->plan.u->name, p->plan.u->source, p->plan.u->inst_event, p->plan.inst_pmc,
	     p->plan.u->inst_pdir ? " (PDIR)" : "", p->plan.ll_pmc >= 0 ? "yes" : "none");
	vdiag("IA32_PERF_CAPABILITIES=0x%llx IA32_DS_AREA=0x%llx", (unsigned long long)cpu.perf_caps,
	      (unsigned long long)(uintptr_t)p->ds.mgmt);
	return true;
}

void pebs_cpu_fill(struct pebs_cpu *c)
{
	memset(c, 0, sizeof *c);
	c->family = cpu.family;
	c->model = cpu.model;
	c->stepping = cpu.stepping;
	c->have_microcode = cpu_microcode(&c->microcode);
	/* CPUID.07H:EDX.HYBRID[15]: the core type is in CPUID.1AH:EAX[31:24] */
	if ((cpu.leaf7_edx & (1u << 15)) && cpu.max_leaf >= 0x1a)
		c->core_type = (uint8_t)(cpuid(0x1a, 0).eax >> 24);
	c->perfmon_version = cpu.perfmon_version;
	c->n_gp = cpu.n_gp;
}

void pmu_nhm_reset(const struct pebs_plan *p)
{
	static const uint64_t magic[4] = { 0x4300b5, 0x4300d2, 0x4300b1, 0x4300b1 };
	if (!(p->u->quirks & PEBS_Q_NHM_RESET) || cpu.n_gp < 4)
		return;
	/* 1: PEBS and global enables off; 2: the magic events with their
	 * counters cleared; 3: enable PMC0-3 once; 4: off; 5: clear them */
	wrmsr_safe(IA32_PEBS_ENABLE, 0);
	wrmsr_safe(IA32_PERF_GLOBAL_CTRL, 0);
	for (unsigned i = 0; i < 4; i++) {
		wrmsr_safe(IA32_PERFEVTSEL0 + i, magic[i]);
		wrmsr_safe(IA32_PMC0 + i, 0);
	}
	wrmsr_safe(IA32_PERF_GLOBAL_CTRL, 0xf);
	wrmsr_safe(IA32_PERF_GLOBAL_CTRL, 0);
	for (unsigned i = 0; i < 4; i++) {
		wrmsr_safe(IA32_PERFEVTSEL0 + i, 0);
		wrmsr_safe(IA32_PMC0 + i, 0);
	}
}
