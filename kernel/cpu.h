/* What the boot CPU is and has, read once from CPUID and MSRs. */
#ifndef KERNEL_CPU_H
#define KERNEL_CPU_H
#include <stdbool.h>
#include <stdint.h>

enum cpu_vendor { VENDOR_OTHER, VENDOR_INTEL, VENDOR_AMD };

struct cpu_info {
	enum cpu_vendor vendor;
	char vendor_str[13];
	char brand[49];
	uint32_t family, model, stepping;
	uint32_t max_leaf, max_ext_leaf;
	uint32_t leaf1_ecx, leaf1_edx;
	uint32_t leaf7_ebx, leaf7_ecx, leaf7_edx;
	uint32_t ext1_ecx, ext1_edx;
	uint32_t perfmon_version, n_gp, gp_width, n_fixed, fixed_width, perf_ebx;
	bool has_perf_caps;
	uint64_t perf_caps;
	bool has_misc_enable;
	uint64_t misc_enable;
	bool invariant_tsc;
	bool x2apic;
};

extern struct cpu_info cpu;
void cpu_identify(void);
/* Microcode revision: Intel IA32_BIOS_SIGN_ID[63:32] after a CPUID(1) (SDM vol.3
 * 10.11.7.1), AMD PATCH_LEVEL (same MSR) [31:0].  false if unreadable. */
bool cpu_microcode(uint32_t *rev);
void cpu_report(void);

#endif
