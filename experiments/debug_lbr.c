/* 113 lbr: last-branch records of three known jumps.
 *
 * The workload (assembly below) turns recording on with one WRMSR, takes three
 * JMPs b1->t1, b2->t2, b3->t3, and turns recording off with a second WRMSR, so the
 * three newest records must be exactly those jumps, newest first.
 *
 * Intel, model-specific LBR (SDM vol.3 18.4.8, 18.5-18.13 per microarchitecture):
 * IA32_DEBUGCTL.LBR[0] enables a stack of N FROM/TO MSR pairs whose newest entry is
 * MSR_LASTBRANCH_TOS; N and the MSR bases depend on the model (table below), the
 * record format on IA32_PERF_CAPABILITIES[5:0] (0: 32-bit offsets; 1: 64-bit LIP;
 * 2: 64-bit EIP; 3 and up: EIP with flag bits such as MISPRED in bits 63:61).
 * Intel, architectural LBR (SDM vol.3 ch.18.1 "Architectural Last Branch Records";
 * CPUID.(EAX=07H,ECX=0):EDX[19], leaf 1CH): IA32_LBR_CTL enables, IA32_LBR_DEPTH
 * sets the depth (a write clears the records) and IA32_LBR_0 is the newest.
 * AMD (APM vol.2 13.1.1.4): DebugCtl.LBR[0] enables LastBranchFromIP/ToIP
 * (MSRs 1DBH/1DCH), a single record of the last branch. */
#include <stdbool.h>
#include "cpu.h"
#include "cpuid.h"
#include "debug_common.h"
#include "experiment.h"
#include "fmt.h"
#include "mem.h"
#include "msr.h"
#include "x86.h"

__asm__(
	".pushsection .text\n"
	".global dbg_lbr_run, dbg_lbr_b1, dbg_lbr_t1, dbg_lbr_b2, dbg_lbr_t2, dbg_lbr_b3, dbg_lbr_t3\n"
	/* dbg_lbr_run(msr, on, off) */
	"dbg_lbr_run:\n"
	"	mov %edi, %ecx\n"
	"	mov %rdx, %r8\n"
	"	mov %esi, %eax\n"
	"	mov %rsi, %rdx\n"
	"	shr $32, %rdx\n"
	"	wrmsr\n"
	"dbg_lbr_b1: jmp dbg_lbr_t1\n"
	"	ud2\n"
	"dbg_lbr_t1:\n"
	"dbg_lbr_b2: jmp dbg_lbr_t2\n"
	"	ud2\n"
	"dbg_lbr_t2:\n"
	"dbg_lbr_b3: jmp dbg_lbr_t3\n"
	"	ud2\n"
	"dbg_lbr_t3:\n"
	"	mov %r8d, %eax\n"
	"	mov %r8, %rdx\n"
	"	shr $32, %rdx\n"
	"	wrmsr\n"
	"	ret\n"
	".popsection\n");

extern void dbg_lbr_run(uint32_t msr, uint64_t on, uint64_t off);
extern const char dbg_lbr_b1[], dbg_lbr_t1[], dbg_lbr_b2[], dbg_lbr_t2[], dbg_lbr_b3[], dbg_lbr_t3[];

static void run_workload(uint32_t msr, uint64_t on, uint64_t off)
{
	uint64_t flags = read_rflags();

	cli();          /* an interrupt would be a record too */
	dbg_lbr_run(msr, on, off);
	write_rflags(flags);
}

/* Address bits of a FROM/TO value: 64-bit formats keep flags in bits 63:61
 * (and cycle counts in TO[63:48] from format 6), so sign-extend bit 47. */
static uint64_t lbr_addr(uint64_t v, unsigned fmt)
{
	if (fmt == 0)
		return v & 0xffffffffULL;
	v &= (1ULL << 48) - 1;
	return (v & (1ULL << 47)) ? v | ~((1ULL << 48) - 1) : v;
}

static uint64_t expect_addr(const char *p, unsigned fmt)
{
	return fmt == 0 ? (uint64_t)p & 0xffffffffULL : (uint64_t)p;
}

/* Checks record k (0 = newest) against jump 3-k. */
static void check_record(int k, uint64_t from, uint64_t to, unsigned fmt)
{
	static const char *const b[3] = { dbg_lbr_b3, dbg_lbr_b2, dbg_lbr_b1 };
	static const char *const t[3] = { dbg_lbr_t3, dbg_lbr_t2, dbg_lbr_t1 };
	char what[48];

	vdiag("record %d: FROM=0x%llx TO=0x%llx (format %u)", k, (unsigned long long)from,
	      (unsigned long long)to, fmt);
	tl_snprintf(what, sizeof what, "record %d (jump %d) FROM", k, 3 - k);
	check_eq(what, lbr_addr(from, fmt), expect_addr(b[k], fmt));
	tl_snprintf(what, sizeof what, "record %d (jump %d) TO", k, 3 - k);
	check_eq(what, lbr_addr(to, fmt), expect_addr(t[k], fmt));
}

struct lbr_model { uint8_t model, depth; uint16_t from, to; };

/* Family 6 models with a model-specific LBR stack (SDM vol.3 ch.18 per-family
 * sections; vol.4 MSR tables).  Depth and FROM/TO bases. */
static const struct lbr_model lbr_models[] = {
	{ 0x0f, 4, 0x40, 0x60 }, { 0x17, 4, 0x40, 0x60 }, { 0x1d, 4, 0x40, 0x60 },
	{ 0x1c, 8, 0x40, 0x60 }, { 0x26, 8, 0x40, 0x60 }, { 0x27, 8, 0x40, 0x60 },
	{ 0x35, 8, 0x40, 0x60 }, { 0x36, 8, 0x40, 0x60 },
	{ 0x37, 8, 0x40, 0x60 }, { 0x4a, 8, 0x40, 0x60 }, { 0x4c, 8, 0x40, 0x60 },
	{ 0x4d, 8, 0x40, 0x60 }, { 0x5a, 8, 0x40, 0x60 }, { 0x5d, 8, 0x40, 0x60 },
	{ 0x1a, 16, 0x680, 0x6c0 }, { 0x1e, 16, 0x680, 0x6c0 }, { 0x1f, 16, 0x680, 0x6c0 },
	{ 0x2e, 16, 0x680, 0x6c0 }, { 0x25, 16, 0x680, 0x6c0 }, { 0x2c, 16, 0x680, 0x6c0 },
	{ 0x2f, 16, 0x680, 0x6c0 }, { 0x2a, 16, 0x680, 0x6c0 }, { 0x2d, 16, 0x680, 0x6c0 },
	{ 0x3a, 16, 0x680, 0x6c0 }, { 0x3e, 16, 0x680, 0x6c0 }, { 0x3c, 16, 0x680, 0x6c0 },
	{ 0x3f, 16, 0x680, 0x6c0 }, { 0x45, 16, 0x680, 0x6c0 }, { 0x46, 16, 0x680, 0x6c0 },
	{ 0x3d, 16, 0x680, 0x6c0 }, { 0x47, 16, 0x680, 0x6c0 }, { 0x4f, 16, 0x680, 0x6c0 },
	{ 0x56, 16, 0x680, 0x6c0 },
	{ 0x5c, 32, 0x680, 0x6c0 }, { 0x5f, 32, 0x680, 0x6c0 }, { 0x7a, 32, 0x680, 0x6c0 },
	{ 0x4e, 32, 0x680, 0x6c0 }, { 0x5e, 32, 0x680, 0x6c0 }, { 0x55, 32, 0x680, 0x6c0 },
	{ 0x8e, 32, 0x680, 0x6c0 }, { 0x9e, 32, 0x680, 0x6c0 }, { 0x66, 32, 0x680, 0x6c0 },
	{ 0x6a, 32, 0x680, 0x6c0 }, { 0x6c, 32, 0x680, 0x6c0 }, { 0x7d, 32, 0x680, 0x6c0 },
	{ 0x7e, 32, 0x680, 0x6c0 }, { 0x8c, 32, 0x680, 0x6c0 }, { 0x8d, 32, 0x680, 0x6c0 },
	{ 0xa5, 32, 0x680, 0x6c0 }, { 0xa6, 32, 0x680, 0x6c0 }, { 0xa7, 32, 0x680, 0x6c0 },
};

/* What the experiment found and must give back. */
static struct {
	uint64_t debugctl, lbr_select, lbr_ctl, lbr_depth;
	bool has_select, has_ctl, has_depth;
} sv;

/* The facility is claimed (AMD: architectural, APM 13.1.1.4; Intel: a model in the
 * table above), so DEBUGCTL.LBR must take a 1: a WRMSR that faults or a bit that
 * reads back 0 is a deviation, a FAIL with the reason (as 112 does for BTF), not a
 * SKIP.  DEBUGCTL's other bits are kept.  Shared with 155 (last-exception record). */
bool dbg_lbr_sticks(void)
{
	uint64_t old = 0, v = 0;

	rdmsr_safe(IA32_DEBUGCTL, &old);
	if (!wrmsr_safe(IA32_DEBUGCTL, old | DEBUGCTL_LBR)) {
		check(false, "WRMSR IA32_DEBUGCTL.LBR[0]=1: GP (expected accepted, the CPU claims LBR)");
		return false;
	}
	rdmsr_safe(IA32_DEBUGCTL, &v);
	wrmsr_safe(IA32_DEBUGCTL, old & ~DEBUGCTL_LBR);
	return check_eq("IA32_DEBUGCTL.LBR[0] reads back after WRMSR (the CPU claims LBR)",
			v & DEBUGCTL_LBR, DEBUGCTL_LBR);
}

/* Whether the CPU claims a last-branch facility: AMD (architectural, APM 13.1.1.4),
 * Intel with architectural LBR or a family-6 model in the table above.  Else false
 * and why (a SKIP reason).  Shared with 155. */
bool dbg_lbr_claimed(const char **why)
{
	if (cpu.vendor == VENDOR_AMD)
		return true;
	if (cpu.vendor != VENDOR_INTEL) {
		*why = "vendor not Intel or AMD: no known LBR interface";
		return false;
	}
	if (cpu.max_leaf >= 0x1c && (cpu.leaf7_edx & CPUID_7_EDX_ARCH_LBR))
		return true;
	for (unsigned i = 0; i < sizeof lbr_models / sizeof lbr_models[0]; i++)
		if (cpu.family == 6 && lbr_models[i].model == cpu.model)
			return true;
	*why = "Intel family/model without a known LBR stack in tracelab's table";
	return false;
}

/* Architectural LBR (SDM vol.3 "Architectural Last Branch Records"): only the
 * IA32_LBR_CTL bits CPUID.1CH enumerates may be set: OS/USR with CPL filtering
 * (EBX[0]), the branch-type bits 22:16 with branch filtering (EBX[1]); without
 * them every branch at every CPL is recorded and the bits are reserved. */
static void lbr_arch(void)
{
	struct cpuid_regs c = cpuid(0x1c, 0);
	unsigned mask = CPUID_1C_EAX_DEPTH_MASK(c.eax), depth = 0;

	for (int i = 0; i < 8; i++)
		if (mask & (1u << i))
			depth = 8 * (i + 1);
	if (!depth) {
		exp_skip("CPUID.1CH:EAX[7:0]=0 (no supported LBR depth)");
		return;
	}
	diag("architectural LBR, depth %u (CPUID.1CH: EAX=%#x EBX=%#x: CPL filtering %u, branch filtering %u)",
	     depth, c.eax, c.ebx, !!(c.ebx & CPUID_1C_EBX_CPL_FILTER), !!(c.ebx & CPUID_1C_EBX_BRANCH_FILTER));
	if (!sv.has_ctl || !sv.has_depth) {
		exp_skip("RDMSR IA32_LBR_CTL (0x14ce) / IA32_LBR_DEPTH (0x14cf) GP");
		return;
	}
	if (!wrmsr_safe(IA32_LBR_CTL, 0) || !wrmsr_safe(IA32_LBR_DEPTH, depth)) {  /* also clears the records */
		exp_skip("WRMSR IA32_LBR_CTL=0 / IA32_LBR_DEPTH=%u GP", depth);
		return;
	}
	uint64_t on = LBR_CTL_LBREN;
	if (c.ebx & CPUID_1C_EBX_CPL_FILTER)
		on |= LBR_CTL_OS;
	if (c.ebx & CPUID_1C_EBX_BRANCH_FILTER)
		on |= LBR_CTL_COND | LBR_CTL_NEAR_REL_JMP | LBR_CTL_NEAR_IND_JMP | LBR_CTL_NEAR_REL_CALL |
		      LBR_CTL_NEAR_IND_CALL | LBR_CTL_NEAR_RET | LBR_CTL_OTHER_BRANCH;
	/* the enabling WRMSR is the workload's own: probe it first */
	if (!wrmsr_safe(IA32_LBR_CTL, on) || !wrmsr_safe(IA32_LBR_CTL, 0)) {
		exp_skip("WRMSR IA32_LBR_CTL=0x%llx GP", (unsigned long long)on);
		return;
	}
	wrmsr_safe(IA32_LBR_DEPTH, depth);
	vdiag("IA32_LBR_CTL=0x%llx IA32_LBR_DEPTH=%u", (unsigned long long)on, depth);
	run_workload(IA32_LBR_CTL, on, 0);
	for (int k = 0; k < 3; k++) {
		uint64_t f = 0, t = 0;
		rdmsr_safe(IA32_LBR_0_FROM_IP + k, &f);
		rdmsr_safe(IA32_LBR_0_TO_IP + k, &t);
		check_record(k, f, t, 1);
	}
}

static void lbr_intel_legacy(void)
{
	const struct lbr_model *m = 0;

	for (unsigned i = 0; i < sizeof lbr_models / sizeof lbr_models[0]; i++)
		if (cpu.family == 6 && lbr_models[i].model == cpu.model)
			m = &lbr_models[i];
	if (!m) {
		exp_skip("family %#x model %#x: LBR stack layout not in tracelab's table",
			 cpu.family, cpu.model);
		return;
	}
	if (!cpu.has_perf_caps) {
		exp_skip("CPUID.01H:ECX.PDCM[15]=0: IA32_PERF_CAPABILITIES (LBR format) absent");
		return;
	}
	if (!dbg_lbr_sticks())
		return;
	/* MSR_LBR_SELECT (Nehalem and later) suppresses the branch types and CPLs
	 * whose bits are set: firmware may have left a filter (SDM "Filtering of
	 * Last Branch Records"); 0 records everything */
	if (sv.has_select)
		wrmsr_safe(MSR_LBR_SELECT, 0);
	unsigned fmt = cpu.perf_caps & PERF_CAP_LBR_FMT_MASK;
	diag("model-specific LBR: depth %u, FROM %#x TO %#x, format %u, LBR_SELECT was 0x%llx", m->depth,
	     m->from, m->to, fmt, (unsigned long long)sv.lbr_select);

	uint64_t on = (sv.debugctl & ~DEBUGCTL_BTF) | DEBUGCTL_LBR, off = sv.debugctl & ~DEBUGCTL_LBR;
	run_workload(IA32_DEBUGCTL, on, off);
	uint64_t tos = 0;
	rdmsr_safe(MSR_LASTBRANCH_TOS, &tos);
	for (int k = 0; k < 3; k++) {
		unsigned idx = (unsigned)(tos - k) & (m->depth - 1u);
		uint64_t f = 0, t = 0;
		rdmsr_safe(m->from + idx, &f);
		/* format 0 (SDM "LBR Stack" 32-bit format): FROM in bits 31:0 and TO
		 * in bits 63:32 of the one FROM MSR */
		if (fmt == 0)
			t = f >> 32;
		else
			rdmsr_safe(m->to + idx, &t);
		check_record(k, f, t, fmt);
	}
}

static void lbr_amd(void)
{
	if (cpu.max_ext_leaf >= 0x80000022 && (cpuid(0x80000022, 0).eax & CPUID_80000022_EAX_LBR_V2))
		diag("LbrExtV2 present; this experiment checks the legacy LastBranch MSRs only");
	if (!dbg_lbr_sticks())
		return;
	run_workload(IA32_DEBUGCTL, (sv.debugctl & ~DEBUGCTL_BTF) | DEBUGCTL_LBR, sv.debugctl & ~DEBUGCTL_LBR);
	uint64_t f = 0, t = 0;
	rdmsr_safe(MSR_AMD_LASTBRANCH_FROM_IP, &f);
	rdmsr_safe(MSR_AMD_LASTBRANCH_TO_IP, &t);
	check_record(0, f, t, 1);
}

static void exp_lbr(void)
{
	memset(&sv, 0, sizeof sv);
	rdmsr_safe(IA32_DEBUGCTL, &sv.debugctl);
	sv.has_select = cpu.vendor == VENDOR_INTEL && rdmsr_safe(MSR_LBR_SELECT, &sv.lbr_select);
	sv.has_ctl = cpu.vendor == VENDOR_INTEL && rdmsr_safe(IA32_LBR_CTL, &sv.lbr_ctl);
	sv.has_depth = cpu.vendor == VENDOR_INTEL && rdmsr_safe(IA32_LBR_DEPTH, &sv.lbr_depth);
	if (cpu.vendor == VENDOR_INTEL) {
		if (cpu.max_leaf >= 0x1c && (cpu.leaf7_edx & CPUID_7_EDX_ARCH_LBR))
			lbr_arch();
		else
			lbr_intel_legacy();
	} else if (cpu.vendor == VENDOR_AMD) {
		lbr_amd();
	} else {
		exp_skip("vendor \"%s\": no known LBR interface", cpu.vendor_str);
	}
	/* as found: LBR off first, then the configuration, DEBUGCTL last */
	if (sv.has_ctl)
		wrmsr_safe(IA32_LBR_CTL, 0);
	if (sv.has_depth)
		wrmsr_safe(IA32_LBR_DEPTH, sv.lbr_depth);
	if (sv.has_select)
		wrmsr_safe(MSR_LBR_SELECT, sv.lbr_select);
	if (sv.has_ctl)
		wrmsr_safe(IA32_LBR_CTL, sv.lbr_ctl);
	wrmsr_safe(IA32_DEBUGCTL, sv.debugctl);
}
EXPERIMENT(113, "lbr", "", "LBR (Intel model-specific or architectural, AMD DebugCtl.LBR)",
	   "three known JMPs land in the last-branch records, newest first, exact FROM/TO", exp_lbr);
