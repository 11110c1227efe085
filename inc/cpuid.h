/* CPUID leaves and feature bits used by tracelab (SDM vol.2A CPUID, APM vol.3 E). */
#ifndef INC_CPUID_H
#define INC_CPUID_H

/* leaf 01H */
#define CPUID_1_ECX_DTES64      (1u << 2)
#define CPUID_1_ECX_MONITOR     (1u << 3)
#define CPUID_1_ECX_DSCPL       (1u << 4)
#define CPUID_1_ECX_VMX         (1u << 5)
#define CPUID_1_ECX_PDCM        (1u << 15)
#define CPUID_1_ECX_X2APIC      (1u << 21)
#define CPUID_1_ECX_TSC_DEADLINE (1u << 24)
#define CPUID_1_ECX_HYPERVISOR  (1u << 31)
#define CPUID_1_EDX_TSC         (1u << 4)
#define CPUID_1_EDX_MSR         (1u << 5)
#define CPUID_1_EDX_PAE         (1u << 6)
#define CPUID_1_EDX_APIC        (1u << 9)
#define CPUID_1_EDX_DS          (1u << 21)
/* leaf 07H subleaf 0 */
#define CPUID_7_EBX_RTM         (1u << 11)
#define CPUID_7_EBX_INTEL_PT    (1u << 25)
#define CPUID_7_ECX_BUS_LOCK_DETECT (1u << 24)
#define CPUID_7_EDX_CORE_CAPABILITIES (1u << 30)
#define CPUID_7_EDX_ARCH_LBR    (1u << 19)
/* leaf 0AH: architectural performance monitoring */
#define CPUID_A_EAX_VERSION(a)  ((a) & 0xff)
#define CPUID_A_EAX_NGP(a)      (((a) >> 8) & 0xff)
#define CPUID_A_EAX_GPWIDTH(a)  (((a) >> 16) & 0xff)
#define CPUID_A_EAX_EBXLEN(a)   (((a) >> 24) & 0xff)
#define CPUID_A_EDX_NFIXED(d)   ((d) & 0x1f)
#define CPUID_A_EDX_FIXWIDTH(d) (((d) >> 5) & 0xff)
#define CPUID_A_EBX_NO_INST_RETIRED  (1u << 1)   /* set = event NOT available */
/* leaf 14H: Intel PT */
#define CPUID_14_0_EBX_CR3FILTER    (1u << 0)
#define CPUID_14_0_EBX_PSB_CYC      (1u << 1)
#define CPUID_14_0_EBX_IPFILTER     (1u << 2)
#define CPUID_14_0_EBX_MTC          (1u << 3)
#define CPUID_14_0_EBX_PTWRITE      (1u << 4)
#define CPUID_14_0_EBX_POWER_EVT    (1u << 5)
#define CPUID_14_0_ECX_TOPA         (1u << 0)
#define CPUID_14_0_ECX_TOPA_MULTI   (1u << 1)
#define CPUID_14_0_ECX_SINGLE_RANGE (1u << 2)
#define CPUID_14_0_ECX_TRACE_TRANSPORT (1u << 3)
#define CPUID_14_0_ECX_LIP          (1u << 31)
/* leaf 1CH: architectural LBR */
#define CPUID_1C_EAX_DEPTH_MASK(a)  ((a) & 0xff)    /* bit n set: depth 8*(n+1) supported */
#define CPUID_1C_EBX_CPL_FILTER     (1u << 0)       /* LBR_CTL.OS/USR honoured */
#define CPUID_1C_EBX_BRANCH_FILTER  (1u << 1)       /* LBR_CTL[22:16] honoured */
/* extended leaves */
#define CPUID_80000001_EDX_LM       (1u << 29)
#define CPUID_80000001_EDX_RDTSCP   (1u << 27)
#define CPUID_80000001_ECX_PERFCTR_CORE (1u << 23)
#define CPUID_80000001_ECX_IBS      (1u << 10)
#define CPUID_80000007_EDX_INVTSC   (1u << 8)
#define CPUID_80000022_EAX_PERFMON_V2 (1u << 0)
#define CPUID_80000022_EAX_LBR_V2   (1u << 1)

#endif
