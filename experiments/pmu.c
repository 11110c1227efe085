/* 301-304, 310: performance counters and the counter-overflow PMI.
 *
 * SDM vol.3 "Architectural Performance Monitoring": CPUID.0AH enumerates the
 * version, the general counters (number, width) and, from version 2, the fixed
 * counters.  A counter with IA32_PERFEVTSELx.INT (or the PMI bit of its
 * IA32_FIXED_CTR_CTRL nibble) raises a PMI through LVT perfmon when it wraps from
 * all ones to zero, and sets its bit in IA32_PERF_GLOBAL_STATUS, which software
 * clears through IA32_PERF_GLOBAL_OVF_CTRL.  Presetting the counter to -N (masked
 * to its width) gives the PMI after N events.  Programming order: disable
 * (GLOBAL_CTRL, then the event select), configure, enable GLOBAL_CTRL last.
 *
 * AMD (APM vol.2 13.2): PerfEvtSel/PerfCtr pairs, 48 bits, 4 legacy counters or 6
 * with PerfCtrExtCore; no overflow status register before PerfMonV2. */
#include "apic.h"
#include "apicdef.h"
#include "cpu.h"
#include "cpuid.h"
#include "experiment.h"
#include "msr.h"
#include "pmi.h"
#include "pmc.h"
#include "pmu_common.h"
#include "x86.h"
#include "mem.h"

/* ---- 301: enumeration and consistency -------------------------------------- */

static void enum_intel(void)
{
	struct cpuid_regs a = cpuid(0xa, 0);
	diag("CPUID.0AH: EAX=0x%08x EBX=0x%08x ECX=0x%08x EDX=0x%08x", a.eax, a.ebx, a.ecx, a.edx);
	diag("version %u, %u general counters x %u bits, EBX vector length %u, %u fixed x %u bits",
	     cpu.perfmon_version, cpu.n_gp, cpu.gp_width, CPUID_A_EAX_EBXLEN(a.eax), cpu.n_fixed,
	     cpu.fixed_width);
	check(cpu.gp_width >= 32 && cpu.gp_width <= 64, "general counter width %u in [32, 64]", cpu.gp_width);
	check(cpu.n_gp >= 1 && cpu.n_gp <= 32, "general counters %u in [1, 32]", cpu.n_gp);
	uint64_t v;
	check(rdmsr_safe(IA32_PERFEVTSEL0 + cpu.n_gp - 1, &v) && rdmsr_safe(IA32_PMC0 + cpu.n_gp - 1, &v),
	      "IA32_PERFEVTSEL%u / IA32_PMC%u (last enumerated) readable", cpu.n_gp - 1, cpu.n_gp - 1);
	/* legacy writes: 32 bits, bit 31 sign-extended to the width */
	pmc_write(0, 0);
	wrmsr_safe(IA32_PMC0, 0xffffffffull);
	check_eq("IA32_PMC0 after legacy write 0xffffffff (sign-extended to the width)", pmc_read(0),
		 pmu_legacy_write(0xffffffffull, cpu.gp_width));
	wrmsr_safe(IA32_PMC0, 0x7fffffffull);
	check_eq("IA32_PMC0 after legacy write 0x7fffffff", pmc_read(0), 0x7fffffffull);
	/* probed here, not through cpu.has_perf_caps: that one is only ever set
	 * when PDCM=1, so comparing it with PDCM could never fail */
	uint64_t caps;
	check_eq("RDMSR IA32_PERF_CAPABILITIES (0x345) succeeds iff CPUID.01H:ECX.PDCM[15]",
		 rdmsr_safe(IA32_PERF_CAPABILITIES, &caps), !!(cpu.leaf1_ecx & CPUID_1_ECX_PDCM));
	if (cpu.has_perf_caps) {
		diag("IA32_PERF_CAPABILITIES=0x%llx: LBR_FMT %llu, PEBS_FMT %llu, PEBS_TRAP %u, FW_WRITE %u, PEBS_BASELINE %u",
		     (unsigned long long)cpu.perf_caps, (unsigned long long)(cpu.perf_caps & PERF_CAP_LBR_FMT_MASK),
		     (unsigned long long)((cpu.perf_caps >> 8) & 0xf), !!(cpu.perf_caps & PERF_CAP_PEBS_TRAP),
		     !!(cpu.perf_caps & PERF_CAP_FW_WRITE), !!(cpu.perf_caps & PERF_CAP_PEBS_BASELINE));
	}
	if (pmu_full_width()) {
		uint64_t top = (1ull << (cpu.gp_width - 1)) | 1;
		check(wrmsr_safe(IA32_A_PMC0, top), "WRMSR IA32_A_PMC0=0x%llx (full width) accepted",
		      (unsigned long long)top);
		check_eq("IA32_PMC0 after full-width write", pmc_read(0), top);
		if (cpu.gp_width < 64)
			check(!wrmsr_safe(IA32_A_PMC0, 1ull << cpu.gp_width),
			      "WRMSR IA32_A_PMC0 with bit %u (above the width) raises GP", cpu.gp_width);
	}
	pmc_write(0, 0);
	/* pmu_gate_intel() already skipped when PERF_MON_AVAILABLE=0: a check here
	 * could not fail */
	if (cpu.has_misc_enable)
		diag("IA32_MISC_ENABLE.PERF_MON_AVAILABLE[7]=%d", !!(cpu.misc_enable & MISC_ENABLE_PERF_MON));
	if (cpu.perfmon_version >= 2) {
		check(cpu.n_fixed >= 1, "version %u: fixed counters %u (>= 1)", cpu.perfmon_version, cpu.n_fixed);
		check(cpu.fixed_width >= 32 && cpu.fixed_width <= 64, "fixed counter width %u in [32, 64]",
		      cpu.fixed_width);
		if (cpu.n_fixed >= 1) {
			uint64_t m = pmu_mask(cpu.fixed_width);
			check(wrmsr_safe(IA32_FIXED_CTR0, m), "WRMSR IA32_FIXED_CTR0=0x%llx (all ones)",
			      (unsigned long long)m);
			v = 0;
			rdmsr_safe(IA32_FIXED_CTR0, &v);
			check_eq("IA32_FIXED_CTR0 holds the full fixed width", v, m);
			wrmsr_safe(IA32_FIXED_CTR0, 0);
		}
		/* every enumerated enable bit of GLOBAL_CTRL is writable (nothing counts:
		 * event selects and fixed control are off) */
		uint64_t en = pmu_mask(cpu.n_gp) | (pmu_mask(cpu.n_fixed) << 32);
		bool w = wrmsr_safe(IA32_PERF_GLOBAL_CTRL, en);
		v = 0;
		rdmsr_safe(IA32_PERF_GLOBAL_CTRL, &v);
		wrmsr_safe(IA32_PERF_GLOBAL_CTRL, 0);
		check(w && v == en, "IA32_PERF_GLOBAL_CTRL takes the enumerated enables 0x%llx (read 0x%llx)",
		      (unsigned long long)en, (unsigned long long)v);
	}
}

static void enum_amd(void)
{
	bool core = cpu.ext1_ecx & CPUID_80000001_ECX_PERFCTR_CORE;
	unsigned n = core ? 6 : 4;
	uint32_t ctr0 = core ? MSR_F15H_PERF_CTR0 : MSR_K7_PERFCTR0;
	diag("AMD core counters: %u (%s), CPUID 8000_0001H:ECX.PerfCtrExtCore[23]=%u", n,
	     core ? "PerfCtrExtCore MSRs 0xc0010200.." : "legacy MSRs 0xc0010000..", core);
	uint64_t v;
	if (!rdmsr_safe(ctr0, &v)) {
		exp_skip("RDMSR 0x%x (AMD PerfCtr0) GP", ctr0);
		return;
	}
	const uint64_t all = pmu_mask(48);
	wrmsr_safe(ctr0, all);
	v = 0;
	rdmsr_safe(ctr0, &v);
	if (v == 0) {
		exp_skip("AMD PerfCtr0 (0x%x) write 0x%llx read back 0", ctr0, (unsigned long long)all);
		return;
	}
	check_eq("AMD PerfCtr0 holds 48 bits", v, all);
	for (unsigned i = 0; i < n; i++) {
		uint32_t ctl = core ? MSR_F15H_PERF_CTL0 + 2 * i : MSR_K7_EVNTSEL0 + i;
		uint32_t ctr = core ? MSR_F15H_PERF_CTR0 + 2 * i : MSR_K7_PERFCTR0 + i;
		check(rdmsr_safe(ctl, &v) && rdmsr_safe(ctr, &v), "PerfEvtSel%u (0x%x) / PerfCtr%u (0x%x) readable",
		      i, ctl, i, ctr);
	}
	wrmsr_safe(ctr0, 0);
	if (cpu.max_ext_leaf >= 0x80000022) {
		struct cpuid_regs r = cpuid(0x80000022, 0);
		diag("CPUID 8000_0022H: EAX=0x%x (PerfMonV2 %u) EBX=0x%x (core counters %u)", r.eax,
		     r.eax & 1, r.ebx, r.ebx & 0xf);
	}
}

static void exp_pmu_enum(void)
{
	struct pmu_msrs saved;
	pmu_msrs_save(&saved);
	if (cpu.perfmon_version >= 1 && cpu.vendor != VENDOR_AMD) {
		if (pmu_gate_intel(1, false))
			enum_intel();
	} else if (cpu.vendor == VENDOR_AMD) {
		enum_amd();
	} else if (cpu.max_leaf < 0xa) {
		exp_skip("CPUID.00H:EAX.MAX_LEAF=%#x < 0AH (no architectural perfmon leaf)", cpu.max_leaf);
	} else {
		exp_skip("CPUID.0AH:EAX.VERSION=0");
	}
	pmu_msrs_restore(&saved);
}
EXPERIMENT(301, "pmu-enum", "", "CPUID.0AH or AMD PerfCtr",
	   "architectural perfmon enumeration (CPUID.0AH, PERF_CAPABILITIES, MISC_ENABLE) checked against the MSRs",
	   exp_pmu_enum);

/* ---- counting a known number of instructions ------------------------------- */

/* N events per PMI and a workload of 10.5 N instructions: exactly 10 PMIs.  The
 * handler re-presets the counter, so the instructions between an overflow and the
 * re-preset (skid, interrupt entry: a few hundred at most) are lost to the next
 * period; half a period of margin absorbs them. */
#define PERIOD          10000ull
#define WORK_INSNS      (10 * PERIOD + PERIOD / 2)
#define EXPECT_PMIS     10

static struct {
	bool fixed;
	uint64_t preset;
	uint32_t unexplained;
	uint64_t status_seen;
} ovf;

static void rearm(struct pmi_client *c, struct pmi_event *e)
{
	ovf.status_seen |= e->in.status;
	if (e->c.unexplained)
		ovf.unexplained++;
	if (ovf.fixed)
		wrmsr_safe(IA32_FIXED_CTR0, ovf.preset);
	else
		pmc_write(0, ovf.preset);
}

static struct pmi_client ovf_client = { .name = "overflow", .on_counter = rearm };

static void overflow_checks(const char *ctr, uint64_t bit)
{
	check_eqd("PMIs for 10.5 periods of instructions", ovf_client.n_counter, EXPECT_PMIS);
	check_eq("overflow bits seen in IA32_PERF_GLOBAL_STATUS", ovf_client.gp_ovf | (ovf_client.fixed_ovf << 32), bit);
	check_eqd("PMIs with unexplained status bits", ovf.unexplained, 0);
	check_eqd("PMIs with other causes", ovf_client.n_other, 0);
	uint64_t st = 0;
	rdmsr_safe(IA32_PERF_GLOBAL_STATUS, &st);
	check_eq("status bit cleared by the handler", st & bit, 0);
	check_eq("LVT perfmon unmasked after the handler", apic_lvt_pmi() & LVT_MASKED, 0);
	diag("%s: %u PMIs, IA32_PERF_GLOBAL_STATUS bits seen 0x%llx", ctr, ovf_client.n_counter,
	     (unsigned long long)ovf.status_seen);
}

static void exp_pmi_gp_counter(void)
{
	struct pmu_msrs saved;
	pmu_msrs_save(&saved);
	if (!pmu_gate_intel(2, true) || !pmi_require())
		goto out;
	pmu_quiesce();
	ovf.fixed = false;
	ovf.preset = pmu_preset(PERIOD, cpu.gp_width);
	ovf.unexplained = 0;
	ovf.status_seen = 0;
	pmc_write(0, ovf.preset);
	check_eq("IA32_PMC0 preset to -N at the counter width", pmc_read(0), ovf.preset);
	ovf_client.gp_armed = 1;
	ovf_client.fixed_armed = 0;
	pmi_register(&ovf_client);
	wrmsr_safe(IA32_PERFEVTSEL0, EVT_INST_RETIRED_ANY_P | EVTSEL_OS | EVTSEL_INT | EVTSEL_EN);
	wrmsr(IA32_PERF_GLOBAL_CTRL, 1);
	pmu_loop((WORK_INSNS - 2) / 2);
	wrmsr(IA32_PERF_GLOBAL_CTRL, 0);
	wrmsr_safe(IA32_PERFEVTSEL0, 0);
	pmi_unregister(&ovf_client);
	overflow_checks("IA32_PMC0", 1);
out:
	pmu_msrs_restore(&saved);
}
EXPERIMENT(302, "pmi-gp-counter", "", "arch perfmon v2",
	   "PMC0 preset to -N counting instructions: one PMI per N, status bit 0 identified and cleared",
	   exp_pmi_gp_counter);

static void exp_pmi_fixed_counter(void)
{
	struct pmu_msrs saved;
	pmu_msrs_save(&saved);
	if (!pmu_gate_intel(2, false))
		goto out;
	if (cpu.n_fixed < 1 || cpu.fixed_width == 0) {
		exp_skip("CPUID.0AH:EDX[4:0] (fixed counters)=%u", cpu.n_fixed);
		goto out;
	}
	pmu_quiesce();
	ovf.fixed = true;
	ovf.preset = pmu_preset(PERIOD, cpu.fixed_width);
	ovf.unexplained = 0;
	ovf.status_seen = 0;
	uint64_t v = 0;
	if (!wrmsr_safe(IA32_FIXED_CTR0, ovf.preset) || !rdmsr_safe(IA32_FIXED_CTR0, &v) || v != ovf.preset) {
		exp_skip("IA32_FIXED_CTR0 write 0x%llx read back 0x%llx", (unsigned long long)ovf.preset,
			 (unsigned long long)v);
		goto out;
	}
	if (!pmi_require())
		goto out;
	ovf_client.gp_armed = 0;
	ovf_client.fixed_armed = 1;
	pmi_register(&ovf_client);
	wrmsr_safe(IA32_FIXED_CTR_CTRL, FIXED_CTRL_OS | FIXED_CTRL_PMI);
	wrmsr(IA32_PERF_GLOBAL_CTRL, 1ull << 32);
	pmu_loop((WORK_INSNS - 2) / 2);
	wrmsr(IA32_PERF_GLOBAL_CTRL, 0);
	wrmsr_safe(IA32_FIXED_CTR_CTRL, 0);
	pmi_unregister(&ovf_client);
	overflow_checks("IA32_FIXED_CTR0", 1ull << 32);
out:
	pmu_msrs_restore(&saved);
}
EXPERIMENT(303, "pmi-fixed-counter", "", "arch perfmon v2, fixed counters",
	   "FIXED_CTR0 (instructions retired) preset to -N: one PMI per N, status bit 32 identified and cleared",
	   exp_pmi_fixed_counter);

/* ---- 304: freeze on PMI ------------------------------------------------------ */

static struct {
	uint64_t gctl, status, debugctl, pmc1;
} frz;

static void on_freeze(struct pmi_client *c, struct pmi_event *e)
{
	frz.gctl = e->global_ctrl;
	frz.status = e->in.status;
	frz.debugctl = e->debugctl;
	frz.pmc1 = pmc_read(1);
}

static struct pmi_client frz_client = { .name = "freeze", .gp_armed = 1, .on_counter = on_freeze };

static void exp_freeze_on_pmi(void)
{
	struct pmu_msrs saved;
	pmu_msrs_save(&saved);
	if (!pmu_gate_intel(2, true))
		goto out;
	if (cpu.n_gp < 2) {
		exp_skip("CPUID.0AH:EAX[15:8] (general counters)=%u (needs 2)", cpu.n_gp);
		goto out;
	}
	/* LBR freeze only with the DEBUGCTL.LBR stack (architectural LBR is IA32_LBR_CTL) */
	bool lbr = !(cpu.leaf7_edx & CPUID_7_EDX_ARCH_LBR) && cpu.has_perf_caps;
	uint64_t dbg = saved.debugctl | DEBUGCTL_FREEZE_PERFMON_ON_PMI;
	if (lbr)
		dbg |= DEBUGCTL_LBR | DEBUGCTL_FREEZE_LBRS_ON_PMI;
	uint64_t v = 0;
	if (!wrmsr_safe(IA32_DEBUGCTL, dbg) || !rdmsr_safe(IA32_DEBUGCTL, &v) ||
	    !(v & DEBUGCTL_FREEZE_PERFMON_ON_PMI)) {
		wrmsr_safe(IA32_DEBUGCTL, saved.debugctl);
		exp_skip("IA32_DEBUGCTL.FREEZE_PERFMON_ON_PMI[12] not writable (read 0x%llx)", (unsigned long long)v);
		goto out;
	}
	wrmsr_safe(IA32_DEBUGCTL, saved.debugctl);
	if (!pmi_require())
		goto out;
	pmu_quiesce();
	memset(&frz, 0, sizeof frz);
	pmc_write(0, pmu_preset(1000, cpu.gp_width));
	pmc_write(1, 0);
	frz_client.gp_armed = 3;
	pmi_register(&frz_client);
	wrmsr_safe(IA32_PERFEVTSEL0, EVT_INST_RETIRED_ANY_P | EVTSEL_OS | EVTSEL_INT | EVTSEL_EN);
	wrmsr_safe(IA32_PERFEVTSEL0 + 1, EVT_INST_RETIRED_ANY_P | EVTSEL_OS | EVTSEL_EN);
	wrmsr_safe(IA32_DEBUGCTL, dbg);
	wrmsr(IA32_PERF_GLOBAL_CTRL, 3);
	pmu_loop(5000);
	wrmsr(IA32_PERF_GLOBAL_CTRL, 0);
	wrmsr_safe(IA32_DEBUGCTL, saved.debugctl);
	uint64_t pmc1_end = pmc_read(1);
	pmi_unregister(&frz_client);

	check_eqd("PMIs (PMC0 overflows once)", frz_client.n_counter, 1);
	if (cpu.perfmon_version >= 4) {
		/* streamlined freeze: the processor sets CTR_Frz / LBR_Frz and leaves
		 * GLOBAL_CTRL alone; clearing the status bit unfreezes */
		check_eq("entry: IA32_PERF_GLOBAL_STATUS.CTR_Frz[59]", !!(frz.status & GLOBAL_STATUS_CTR_FRZ), 1);
		if (lbr)
			check_eq("entry: IA32_PERF_GLOBAL_STATUS.LBR_Frz[58]", !!(frz.status & GLOBAL_STATUS_LBR_FRZ), 1);
		uint64_t st = 0;
		rdmsr_safe(IA32_PERF_GLOBAL_STATUS, &st);
		check_eq("after: CTR_Frz cleared", st & GLOBAL_STATUS_CTR_FRZ, 0);
	} else {
		/* legacy freeze: the processor clears the GLOBAL_CTRL enables (and
		 * DEBUGCTL.LBR) when it delivers the PMI */
		check_eq("entry: IA32_PERF_GLOBAL_CTRL cleared by the processor", frz.gctl & 3, 0);
		if (lbr)
			check_eq("entry: IA32_DEBUGCTL.LBR cleared by the processor", frz.debugctl & DEBUGCTL_LBR, 0);
	}
	check(pmc1_end > frz.pmc1, "PMC1 counted again after the handler: %llu > %llu",
	      (unsigned long long)pmc1_end, (unsigned long long)frz.pmc1);
out:
	pmu_msrs_restore(&saved);
}
EXPERIMENT(304, "freeze-on-pmi", "", "arch perfmon v2, DEBUGCTL freeze bits",
	   "FREEZE_PERFMON_ON_PMI / FREEZE_LBRS_ON_PMI: counters and LBR frozen at the PMI, running again after",
	   exp_freeze_on_pmi);

/* ---- 310: AMD core counter overflow ----------------------------------------- */

static struct {
	uint32_t ctr;
	uint64_t preset;
} amd;

static void amd_rearm(struct pmi_client *c, struct pmi_event *e)
{
	wrmsr_safe(amd.ctr, amd.preset);
}

static struct pmi_client amd_client = { .name = "amd", .gp_armed = 1, .on_counter = amd_rearm };

static void exp_amd_pmi(void)
{
	struct pmu_msrs saved;
	pmu_msrs_save(&saved);
	if (cpu.vendor != VENDOR_AMD) {
		exp_skip("CPUID.0H vendor \"%s\" is not AuthenticAMD", cpu.vendor_str);
		goto out;
	}
	bool core = cpu.ext1_ecx & CPUID_80000001_ECX_PERFCTR_CORE;
	uint32_t ctl = core ? MSR_F15H_PERF_CTL0 : MSR_K7_EVNTSEL0;
	amd.ctr = core ? MSR_F15H_PERF_CTR0 : MSR_K7_PERFCTR0;
	amd.preset = pmu_preset(PERIOD, 48);
	uint64_t v = 0;
	if (!wrmsr_safe(ctl, 0) || !wrmsr_safe(amd.ctr, amd.preset)) {
		exp_skip("WRMSR AMD PerfEvtSel0/PerfCtr0 (0x%x/0x%x) GP", ctl, amd.ctr);
		goto out;
	}
	if (!rdmsr_safe(amd.ctr, &v) || v != amd.preset) {
		exp_skip("AMD PerfCtr0 (0x%x) write 0x%llx read back 0x%llx", amd.ctr,
			 (unsigned long long)amd.preset, (unsigned long long)v);
		goto out;
	}
	if (!pmi_require())
		goto out;
	bool v2 = cpu.max_ext_leaf >= 0x80000022 && (cpuid(0x80000022, 0).eax & CPUID_80000022_EAX_PERFMON_V2);
	pmi_register(&amd_client);
	/* EvtSel: event 0C0h retired instructions, OS, INT, EN (APM 13.2.1) */
	wrmsr_safe(ctl, AMD_EVT_RETIRED_INSTR | EVTSEL_OS | EVTSEL_INT | EVTSEL_EN);
	if (v2)
		wrmsr_safe(MSR_AMD_PERF_CNTR_GLOBAL_CTL, 1);
	pmu_loop((WORK_INSNS - 2) / 2);
	if (v2)
		wrmsr_safe(MSR_AMD_PERF_CNTR_GLOBAL_CTL, 0);
	wrmsr_safe(ctl, 0);
	pmi_unregister(&amd_client);
	check_eqd("PMIs for 10.5 periods of instructions", amd_client.n_counter, EXPECT_PMIS);
	check_eq("overflowed counters seen", amd_client.gp_ovf, 1);
	check_eq("LVT perfmon unmasked after the handler", apic_lvt_pmi() & LVT_MASKED, 0);
	diag("AMD %s counters, PerfMonV2 %u: %u PMIs", core ? "PerfCtrExtCore" : "legacy", v2, amd_client.n_pmi);
out:
	pmu_msrs_restore(&saved);
}
EXPERIMENT(310, "amd-pmi", "", "AMD core performance counters",
	   "AMD PerfCtr0 preset to -N counting retired instructions: one PMI per N through LVT perfmon",
	   exp_amd_pmi);
