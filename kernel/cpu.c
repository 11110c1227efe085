/* CPU identification and the boot report of the features tracelab cares about. */
#include "console.h"
#include "cpu.h"
#include "cpuid.h"
#include "fmt.h"
#include "msr.h"
#include "str.h"
#include "trap.h"
#include "x86.h"

struct cpu_info cpu;

static void put_regs(char *dst, const uint32_t *regs, int n)
{
	for (int i = 0; i < n; i++)
		for (int b = 0; b < 4; b++)
			dst[i * 4 + b] = (char)(regs[i] >> (8 * b));
}

void cpu_identify(void)
{
	struct cpuid_regs r = cpuid(0, 0);
	cpu.max_leaf = r.eax;
	uint32_t v[3] = { r.ebx, r.edx, r.ecx };
	put_regs(cpu.vendor_str, v, 3);
	cpu.vendor_str[12] = 0;
	if (!tl_strcmp(cpu.vendor_str, "GenuineIntel"))
		cpu.vendor = VENDOR_INTEL;
	else if (!tl_strcmp(cpu.vendor_str, "AuthenticAMD") || !tl_strcmp(cpu.vendor_str, "HygonGenuine"))
		cpu.vendor = VENDOR_AMD;

	r = cpuid(1, 0);
	cpu.leaf1_ecx = r.ecx;
	cpu.leaf1_edx = r.edx;
	uint32_t fam = (r.eax >> 8) & 0xf, model = (r.eax >> 4) & 0xf;
	if (fam == 0xf)
		fam += (r.eax >> 20) & 0xff;
	if (fam == 0x6 || fam >= 0xf)
		model |= ((r.eax >> 16) & 0xf) << 4;
	cpu.family = fam;
	cpu.model = model;
	cpu.stepping = r.eax & 0xf;

	if (cpu.max_leaf >= 7) {
		r = cpuid(7, 0);
		cpu.leaf7_ebx = r.ebx;
		cpu.leaf7_ecx = r.ecx;
		cpu.leaf7_edx = r.edx;
	}
	if (cpu.max_leaf >= 0xa) {
		r = cpuid(0xa, 0);
		cpu.perfmon_version = CPUID_A_EAX_VERSION(r.eax);
		cpu.n_gp = CPUID_A_EAX_NGP(r.eax);
		cpu.gp_width = CPUID_A_EAX_GPWIDTH(r.eax);
		cpu.perf_ebx = r.ebx;
		if (cpu.perfmon_version >= 2) {
			cpu.n_fixed = CPUID_A_EDX_NFIXED(r.edx);
			cpu.fixed_width = CPUID_A_EDX_FIXWIDTH(r.edx);
		}
	}
	cpu.max_ext_leaf = cpuid(0x80000000, 0).eax;
	if (cpu.max_ext_leaf >= 0x80000001) {
		r = cpuid(0x80000001, 0);
		cpu.ext1_ecx = r.ecx;
		cpu.ext1_edx = r.edx;
	}
	if (cpu.max_ext_leaf >= 0x80000004) {
		uint32_t b[12];
		for (int i = 0; i < 3; i++) {
			r = cpuid(0x80000002 + i, 0);
			b[i * 4] = r.eax;
			b[i * 4 + 1] = r.ebx;
			b[i * 4 + 2] = r.ecx;
			b[i * 4 + 3] = r.edx;
		}
		put_regs(cpu.brand, b, 12);
		cpu.brand[48] = 0;
	}
	if (cpu.max_ext_leaf >= 0x80000007)
		cpu.invariant_tsc = cpuid(0x80000007, 0).edx & CPUID_80000007_EDX_INVTSC;
	cpu.x2apic = cpu.leaf1_ecx & CPUID_1_ECX_X2APIC;
	/* PDCM says IA32_PERF_CAPABILITIES exists; the #GP-safe read confirms it. */
	if (cpu.leaf1_ecx & CPUID_1_ECX_PDCM)
		cpu.has_perf_caps = rdmsr_safe(IA32_PERF_CAPABILITIES, &cpu.perf_caps);
	if (cpu.vendor == VENDOR_INTEL)
		cpu.has_misc_enable = rdmsr_safe(IA32_MISC_ENABLE, &cpu.misc_enable);
}

static const char *yn(uint32_t bit)
{
	return bit ? "1" : "0";
}

void cpu_report(void)
{
	const char *b = cpu.brand;
	while (*b == ' ')
		b++;
	kprintf("# cpu: %s family 0x%x model 0x%x stepping %u \"%s\"\n", cpu.vendor_str,
		cpu.family, cpu.model, cpu.stepping, b);
	kprintf("# cpu: max leaf 0x%x, max extended leaf 0x%x, hypervisor bit %s\n",
		cpu.max_leaf, cpu.max_ext_leaf, yn(cpu.leaf1_ecx & CPUID_1_ECX_HYPERVISOR));
	kprintf("# cpu: DS=%s DTES64=%s DS-CPL=%s PDCM=%s x2APIC=%s invariant-TSC=%s RDTSCP=%s\n",
		yn(cpu.leaf1_edx & CPUID_1_EDX_DS), yn(cpu.leaf1_ecx & CPUID_1_ECX_DTES64),
		yn(cpu.leaf1_ecx & CPUID_1_ECX_DSCPL), yn(cpu.leaf1_ecx & CPUID_1_ECX_PDCM),
		yn(cpu.x2apic), yn(cpu.invariant_tsc), yn(cpu.ext1_edx & CPUID_80000001_EDX_RDTSCP));
	kprintf("# cpu: arch perfmon v%u: %u general counters x %u bits, %u fixed x %u bits, events-unavailable 0x%x\n",
		cpu.perfmon_version, cpu.n_gp, cpu.gp_width, cpu.n_fixed, cpu.fixed_width, cpu.perf_ebx);
	if (cpu.has_perf_caps)
		kprintf("# cpu: IA32_PERF_CAPABILITIES=0x%llx: LBR format %llu, PEBS format %llu, PEBS trap %s, full-width writes %s\n",
			(unsigned long long)cpu.perf_caps,
			(unsigned long long)(cpu.perf_caps & PERF_CAP_LBR_FMT_MASK),
			(unsigned long long)((cpu.perf_caps >> PERF_CAP_PEBS_FMT_SHIFT) & PERF_CAP_PEBS_FMT_MASK),
			yn(cpu.perf_caps & PERF_CAP_PEBS_TRAP), yn(cpu.perf_caps & PERF_CAP_FW_WRITE));
	else
		kprintf("# cpu: IA32_PERF_CAPABILITIES: not present (PDCM=%s)\n",
			yn(cpu.leaf1_ecx & CPUID_1_ECX_PDCM));
	if (cpu.has_misc_enable)
		kprintf("# cpu: IA32_MISC_ENABLE=0x%llx: perfmon %s, BTS unavailable %s, PEBS unavailable %s\n",
			(unsigned long long)cpu.misc_enable, yn(cpu.misc_enable & MISC_ENABLE_PERF_MON),
			yn(cpu.misc_enable & MISC_ENABLE_BTS_UNAVAIL),
			yn(cpu.misc_enable & MISC_ENABLE_PEBS_UNAVAIL));
	char pt[160] = "";
	if ((cpu.leaf7_ebx & CPUID_7_EBX_INTEL_PT) && cpu.max_leaf >= 0x14) {
		struct cpuid_regs p = cpuid(0x14, 0);
		tl_snprintf(pt, sizeof pt,
			    " (leaf 14H: EBX=0x%x ECX=0x%x: CR3 filter %s, IP filter %s, single-range %s, ToPA %s)",
			    p.ebx, p.ecx, yn(p.ebx & CPUID_14_0_EBX_CR3FILTER),
			    yn(p.ebx & CPUID_14_0_EBX_IPFILTER), yn(p.ecx & CPUID_14_0_ECX_SINGLE_RANGE),
			    yn(p.ecx & CPUID_14_0_ECX_TOPA));
	}
	kprintf("# cpu: Intel PT=%s arch LBR=%s%s\n", yn(cpu.leaf7_ebx & CPUID_7_EBX_INTEL_PT),
		yn(cpu.leaf7_edx & CPUID_7_EDX_ARCH_LBR), pt);
	if (cpu.vendor == VENDOR_AMD)
		kprintf("# cpu: AMD PerfCtrExtCore=%s IBS=%s\n",
			yn(cpu.ext1_ecx & CPUID_80000001_ECX_PERFCTR_CORE),
			yn(cpu.ext1_ecx & CPUID_80000001_ECX_IBS));
}

bool cpu_microcode(uint32_t *rev)
{
	uint64_t v;
	if (cpu.vendor == VENDOR_INTEL) {
		if (!wrmsr_safe(IA32_BIOS_SIGN_ID, 0))
			return false;
		(void)cpuid(1, 0);
		if (!rdmsr_safe(IA32_BIOS_SIGN_ID, &v))
			return false;
		*rev = (uint32_t)(v >> 32);
		return true;
	}
	if (cpu.vendor == VENDOR_AMD && rdmsr_safe(IA32_BIOS_SIGN_ID, &v)) {
		*rev = (uint32_t)v;
		return true;
	}
	return false;
}
