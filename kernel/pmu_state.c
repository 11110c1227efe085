/* PMU MSR state, saved and restored around an experiment (and the status bits a
 * clear accepts, which the PMI handler uses too): kernel/pmu_state.h. */
#include "pmu_state.h"
#include "cpu.h"
#include "cpuid.h"
#include "mem.h"
#include "msr.h"
#include "msr_safe.h"
#include "x86.h"

/* Status bits that GLOBAL_OVF_CTRL / GLOBAL_STATUS_RESET accepts. */
uint64_t pmu_status_clearable(void)
{
	uint64_t m = (cpu.n_gp >= 32 ? 0xffffffffull : (1ull << cpu.n_gp) - 1) |
		     ((cpu.n_fixed >= 16 ? 0xffffull : (1ull << cpu.n_fixed) - 1) << 32) |
		     GLOBAL_STATUS_OVF_BUF | GLOBAL_STATUS_COND_CHGD | GLOBAL_STATUS_UNCORE_OVF |
		     GLOBAL_STATUS_TRACE_TOPA_PMI;
	if (cpu.perfmon_version >= 4)
		m |= GLOBAL_STATUS_LBR_FRZ | GLOBAL_STATUS_CTR_FRZ | GLOBAL_STATUS_ASCI | BIT(48);
	return m;
}

enum {
	S_DEBUGCTL = 1 << 0, S_DS = 1 << 1, S_PEBS = 1 << 2, S_GLOBAL = 1 << 3,
	S_FIXED = 1 << 4, S_LDLAT = 1 << 5, S_DATACFG = 1 << 6, S_GP = 1 << 7,
	S_AMD = 1 << 8, S_AMDG = 1 << 9, S_IBS = 1 << 10,
};

void pmu_msrs_save(struct pmu_msrs *s)
{
	memset(s, 0, sizeof *s);
	if (rdmsr_safe(IA32_DEBUGCTL, &s->debugctl))
		s->present |= S_DEBUGCTL;
	if (cpu.vendor == VENDOR_INTEL) {
		if ((cpu.leaf1_edx & CPUID_1_EDX_DS) && rdmsr_safe(IA32_DS_AREA, &s->ds_area))
			s->present |= S_DS;
		if ((cpu.leaf1_edx & CPUID_1_EDX_DS) && rdmsr_safe(IA32_PEBS_ENABLE, &s->pebs_enable))
			s->present |= S_PEBS;
		if (cpu.perfmon_version >= 2 && rdmsr_safe(IA32_PERF_GLOBAL_CTRL, &s->global_ctrl) &&
		    rdmsr_safe(IA32_PERF_GLOBAL_STATUS, &s->global_status))
			s->present |= S_GLOBAL;
		if (cpu.perfmon_version >= 2 && rdmsr_safe(IA32_FIXED_CTR_CTRL, &s->fixed_ctrl)) {
			s->present |= S_FIXED;
			for (unsigned i = 0; i < cpu.n_fixed && i < 4; i++)
				rdmsr_safe(IA32_FIXED_CTR0 + i, &s->fixed[i]);
		}
		if (cpu.perfmon_version >= 1) {
			s->present |= S_GP;
			for (unsigned i = 0; i < cpu.n_gp && i < 8; i++) {
				rdmsr_safe(IA32_PERFEVTSEL0 + i, &s->evtsel[i]);
				rdmsr_safe(IA32_PMC0 + i, &s->pmc[i]);
			}
		}
		if ((s->present & S_PEBS) && rdmsr_safe(MSR_PEBS_LD_LAT, &s->ld_lat))
			s->present |= S_LDLAT;
		if ((s->present & S_PEBS) && cpu.has_perf_caps && (cpu.perf_caps & PERF_CAP_PEBS_BASELINE) &&
		    rdmsr_safe(MSR_PEBS_DATA_CFG, &s->data_cfg))
			s->present |= S_DATACFG;
	} else if (cpu.vendor == VENDOR_AMD) {
		bool core = cpu.ext1_ecx & CPUID_80000001_ECX_PERFCTR_CORE;
		bool ok = true;
		for (unsigned i = 0; i < (core ? 6u : 4u); i++) {
			uint32_t ctl = core ? MSR_F15H_PERF_CTL0 + 2 * i : MSR_K7_EVNTSEL0 + i;
			uint32_t ctr = core ? MSR_F15H_PERF_CTR0 + 2 * i : MSR_K7_PERFCTR0 + i;
			ok &= rdmsr_safe(ctl, &s->amd_ctl[i]) && rdmsr_safe(ctr, &s->amd_ctr[i]);
		}
		if (ok)
			s->present |= S_AMD;
		if (rdmsr_safe(MSR_AMD_PERF_CNTR_GLOBAL_CTL, &s->amd_global_ctl))
			s->present |= S_AMDG;
		if ((cpu.ext1_ecx & CPUID_80000001_ECX_IBS) &&
		    rdmsr_safe(MSR_AMD_IBS_FETCH_CTL, &s->ibs_fetch_ctl) &&
		    rdmsr_safe(MSR_AMD_IBS_OP_CTL, &s->ibs_op_ctl))
			s->present |= S_IBS;
	}
}

void pmu_msrs_restore(const struct pmu_msrs *s)
{
	/* disable: tracing, counters, then PEBS */
	if (s->present & S_DEBUGCTL)
		wrmsr_safe(IA32_DEBUGCTL, s->debugctl & ~(DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_LBR));
	if (s->present & S_GLOBAL)
		wrmsr_safe(IA32_PERF_GLOBAL_CTRL, 0);
	if (s->present & S_GP)
		for (unsigned i = 0; i < cpu.n_gp && i < 8; i++)
			wrmsr_safe(IA32_PERFEVTSEL0 + i, s->evtsel[i] & ~EVTSEL_EN);
	if (s->present & S_FIXED)
		wrmsr_safe(IA32_FIXED_CTR_CTRL, 0);
	if (s->present & S_PEBS)
		wrmsr_safe(IA32_PEBS_ENABLE, 0);
	if (s->present & S_AMDG)
		wrmsr_safe(MSR_AMD_PERF_CNTR_GLOBAL_CTL, 0);
	if (s->present & S_IBS) {
		wrmsr_safe(MSR_AMD_IBS_FETCH_CTL, 0);
		wrmsr_safe(MSR_AMD_IBS_OP_CTL, 0);
	}
	/* values */
	if (s->present & S_GP) {
		bool fw = cpu.has_perf_caps && (cpu.perf_caps & PERF_CAP_FW_WRITE);
		for (unsigned i = 0; i < cpu.n_gp && i < 8; i++)
			wrmsr_safe((fw ? IA32_A_PMC0 : IA32_PMC0) + i, fw ? s->pmc[i] : s->pmc[i] & 0xffffffffull);
	}
	if (s->present & S_FIXED)
		for (unsigned i = 0; i < cpu.n_fixed && i < 4; i++)
			wrmsr_safe(IA32_FIXED_CTR0 + i, s->fixed[i]);
	if (s->present & S_LDLAT)
		wrmsr_safe(MSR_PEBS_LD_LAT, s->ld_lat);
	if (s->present & S_DATACFG)
		wrmsr_safe(MSR_PEBS_DATA_CFG, s->data_cfg);
	if (s->present & S_DS)
		wrmsr_safe(IA32_DS_AREA, s->ds_area);
	if (s->present & S_AMD) {
		bool core = cpu.ext1_ecx & CPUID_80000001_ECX_PERFCTR_CORE;
		for (unsigned i = 0; i < (core ? 6u : 4u); i++) {
			wrmsr_safe(core ? MSR_F15H_PERF_CTR0 + 2 * i : MSR_K7_PERFCTR0 + i, s->amd_ctr[i]);
			wrmsr_safe(core ? MSR_F15H_PERF_CTL0 + 2 * i : MSR_K7_EVNTSEL0 + i, s->amd_ctl[i]);
		}
	}
	/* overflow bits the experiment caused */
	uint64_t st;
	if ((s->present & S_GLOBAL) && rdmsr_safe(IA32_PERF_GLOBAL_STATUS, &st) && (st & ~s->global_status))
		wrmsr_safe(IA32_PERF_GLOBAL_OVF_CTRL, (st & ~s->global_status) & pmu_status_clearable());
	/* enables last: event selects, fixed control, PEBS, global, tracing */
	if (s->present & S_GP)
		for (unsigned i = 0; i < cpu.n_gp && i < 8; i++)
			wrmsr_safe(IA32_PERFEVTSEL0 + i, s->evtsel[i]);
	if (s->present & S_FIXED)
		wrmsr_safe(IA32_FIXED_CTR_CTRL, s->fixed_ctrl);
	if (s->present & S_PEBS)
		wrmsr_safe(IA32_PEBS_ENABLE, s->pebs_enable);
	if (s->present & S_GLOBAL)
		wrmsr_safe(IA32_PERF_GLOBAL_CTRL, s->global_ctrl);
	if (s->present & S_AMDG)
		wrmsr_safe(MSR_AMD_PERF_CNTR_GLOBAL_CTL, s->amd_global_ctl);
	if (s->present & S_IBS) {
		wrmsr_safe(MSR_AMD_IBS_FETCH_CTL, s->ibs_fetch_ctl);
		wrmsr_safe(MSR_AMD_IBS_OP_CTL, s->ibs_op_ctl);
	}
	if (s->present & S_DEBUGCTL)
		wrmsr_safe(IA32_DEBUGCTL, s->debugctl);
}
