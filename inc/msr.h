/* Model-specific registers and their bit fields, named as in the Intel SDM vol.4
 * and the AMD APM vol.2.  One definition each; every other file includes this. */
#ifndef INC_MSR_H
#define INC_MSR_H

#ifdef __ASSEMBLER__
#define BIT(n)  (1 << (n))
#else
#define BIT(n)  (1ULL << (n))
#endif

/* --- architectural / common ------------------------------------------------ */
#define IA32_TSC                    0x010
#define IA32_APIC_BASE              0x01b
#define   APIC_BASE_BSP             BIT(8)
#define   APIC_BASE_EXTD            BIT(10)     /* x2APIC mode */
#define   APIC_BASE_EN              BIT(11)
#define   APIC_BASE_ADDR_MASK       0x000ffffffffff000ULL
#define IA32_FEATURE_CONTROL        0x03a
#define IA32_TSC_ADJUST             0x03b
#define MSR_TEST_CTRL               0x33        /* SDM vol.4: split-lock #AC enable */
#define   TEST_CTRL_SPLIT_LOCK_DETECT BIT(29)
#define IA32_CORE_CAPABILITIES      0xcf
#define   CORE_CAP_SPLIT_LOCK_DETECT BIT(5)
#define IA32_MISC_ENABLE            0x1a0
#define   MISC_ENABLE_PERF_MON      BIT(7)      /* performance monitoring available */
#define   MISC_ENABLE_BTS_UNAVAIL   BIT(11)
#define   MISC_ENABLE_PEBS_UNAVAIL  BIT(12)
#define IA32_PERF_CAPABILITIES      0x345
#define   PERF_CAP_LBR_FMT_MASK     0x3fULL     /* [5:0] */
#define   PERF_CAP_PEBS_TRAP        BIT(6)
#define   PERF_CAP_PEBS_ARCH_REG    BIT(7)
#define   PERF_CAP_PEBS_FMT_SHIFT   8           /* [11:8] */
#define   PERF_CAP_PEBS_FMT_MASK    0xfULL
#define   PERF_CAP_FREEZE_SMM       BIT(12)
#define   PERF_CAP_FW_WRITE         BIT(13)     /* full-width writes to IA32_A_PMCx */
#define   PERF_CAP_PEBS_BASELINE    BIT(14)     /* adaptive PEBS */
#define   PERF_CAP_TIMED_PEBS       BIT(17)     /* retire latency in the PEBS basic group */
#define IA32_BIOS_SIGN_ID           0x08b       /* microcode revision in [63:32] after CPUID(1) */
#define IA32_TSC_AUX                0xc0000103
#define IA32_TSC_DEADLINE           0x6e0

/* --- debug ------------------------------------------------------------------ */
#define IA32_DEBUGCTL               0x1d9
#define   DEBUGCTL_LBR              BIT(0)
#define   DEBUGCTL_BTF              BIT(1)
#define   DEBUGCTL_BUS_LOCK_DETECT  BIT(2)
#define   DEBUGCTL_TR               BIT(6)
#define   DEBUGCTL_BTS              BIT(7)
#define   DEBUGCTL_BTINT            BIT(8)
#define   DEBUGCTL_BTS_OFF_OS       BIT(9)
#define   DEBUGCTL_BTS_OFF_USR      BIT(10)
#define   DEBUGCTL_FREEZE_LBRS_ON_PMI BIT(11)
#define   DEBUGCTL_FREEZE_PERFMON_ON_PMI BIT(12)
#define   DEBUGCTL_ENABLE_UNCORE_PMI BIT(13)
#define   DEBUGCTL_FREEZE_WHILE_SMM BIT(14)
#define   DEBUGCTL_RTM_DEBUG        BIT(15)
#define MSR_LBR_SELECT              0x1c8
#define MSR_LASTBRANCH_TOS          0x1c9
#define MSR_LER_FROM_LIP            0x1dd
#define MSR_LER_TO_LIP              0x1de
/* LBR stack MSR bases differ by microarchitecture (SDM vol.3 17.4.8 / 18.x) */
#define MSR_LASTBRANCH_0_FROM_IP_CORE2  0x040   /* Core 2 .. Skylake client: 0x680 below */
#define MSR_LASTBRANCH_0_TO_IP_CORE2    0x060
#define MSR_LASTBRANCH_0_FROM_IP        0x680
#define MSR_LASTBRANCH_0_TO_IP          0x6c0
#define MSR_LBR_INFO_0                  0xdc0
/* Architectural LBR (CPUID.(EAX=07H,ECX=0):EDX[19], leaf 1CH) */
#define IA32_LBR_CTL                0x14ce
#define   LBR_CTL_LBREN             BIT(0)
#define   LBR_CTL_OS                BIT(1)
#define   LBR_CTL_USR               BIT(2)
#define   LBR_CTL_COND              BIT(16)
#define   LBR_CTL_NEAR_REL_JMP      BIT(17)
#define   LBR_CTL_NEAR_IND_JMP      BIT(18)
#define   LBR_CTL_NEAR_REL_CALL     BIT(19)
#define   LBR_CTL_NEAR_IND_CALL     BIT(20)
#define   LBR_CTL_NEAR_RET          BIT(21)
#define   LBR_CTL_OTHER_BRANCH      BIT(22)
#define IA32_LBR_DEPTH              0x14cf
#define IA32_LBR_0_FROM_IP          0x1500
#define IA32_LBR_0_TO_IP            0x1600
#define IA32_LBR_0_INFO             0x1200
/* AMD (APM vol.2 13.1.1.x): single last-branch / last-exception record */
#define MSR_AMD_LASTBRANCH_FROM_IP  0x1db
#define MSR_AMD_LASTBRANCH_TO_IP    0x1dc
#define MSR_AMD_LASTINT_FROM_IP     0x1dd
#define MSR_AMD_LASTINT_TO_IP       0x1de
/* AMD LbrExtV2 (CPUID 8000_0022H EAX[1]) */
#define MSR_AMD_DBG_EXTN_CFG        0xc000010f
#define MSR_AMD_LBR_V2_SELECT       0xc000010e
#define MSR_AMD_LBR_V2_FROM_0       0xc0010300  /* FROM_n = base + 2n, TO_n = base + 2n + 1 */

/* --- Debug Store (SDM vol.3 18.6.3 / 17.4.9) -------------------------------- */
#define IA32_DS_AREA                0x600
#define IA32_PEBS_ENABLE            0x3f1
#define   PEBS_ENABLE_LD_LAT_SHIFT  32          /* PEBS_EN_PMCn for load latency */
#define MSR_PEBS_LD_LAT             0x3f6
#define MSR_PEBS_FRONTEND           0x3f7
#define MSR_PEBS_DATA_CFG           0x3f2

/* --- architectural performance monitoring (SDM vol.3 20.2) ------------------ */
#define IA32_PMC0                   0x0c1       /* IA32_PMCn = IA32_PMC0 + n */
#define IA32_A_PMC0                 0x4c1       /* full-width alias */
#define IA32_PERFEVTSEL0            0x186
#define   EVTSEL_EVENT_MASK         0xffULL
#define   EVTSEL_UMASK_SHIFT        8
#define   EVTSEL_USR                BIT(16)
#define   EVTSEL_OS                 BIT(17)
#define   EVTSEL_EDGE               BIT(18)
#define   EVTSEL_PC                 BIT(19)
#define   EVTSEL_INT                BIT(20)
#define   EVTSEL_ANY                BIT(21)
#define   EVTSEL_EN                 BIT(22)
#define   EVTSEL_INV                BIT(23)
#define   EVTSEL_CMASK_SHIFT        24
#define IA32_FIXED_CTR0             0x309       /* INST_RETIRED.ANY */
#define IA32_FIXED_CTR1             0x30a       /* CPU_CLK_UNHALTED.CORE */
#define IA32_FIXED_CTR2             0x30b       /* CPU_CLK_UNHALTED.REF */
#define IA32_FIXED_CTR_CTRL         0x38d       /* 4 bits per counter: OS, USR, ANY, PMI */
#define   FIXED_CTRL_OS             0x1ULL
#define   FIXED_CTRL_USR            0x2ULL
#define   FIXED_CTRL_ANY            0x4ULL
#define   FIXED_CTRL_PMI            0x8ULL
#define IA32_PERF_GLOBAL_STATUS     0x38e
#define   GLOBAL_STATUS_FIXED_SHIFT 32
#define   GLOBAL_STATUS_TRACE_TOPA_PMI BIT(55)
#define   GLOBAL_STATUS_LBR_FRZ     BIT(58)
#define   GLOBAL_STATUS_CTR_FRZ     BIT(59)
#define   GLOBAL_STATUS_ASCI        BIT(60)
#define   GLOBAL_STATUS_UNCORE_OVF  BIT(61)
#define   GLOBAL_STATUS_OVF_BUF     BIT(62)     /* DS buffer (BTS/PEBS) overflow */
#define   GLOBAL_STATUS_COND_CHGD   BIT(63)
#define IA32_PERF_GLOBAL_CTRL       0x38f
#define IA32_PERF_GLOBAL_OVF_CTRL   0x390       /* v2/v3; v4 names it GLOBAL_STATUS_RESET */
#define IA32_PERF_GLOBAL_STATUS_RESET 0x390
#define IA32_PERF_GLOBAL_STATUS_SET 0x391
#define IA32_PERF_GLOBAL_INUSE      0x392

/* --- AMD core performance counters (APM vol.2 13.2) ------------------------- */
#define MSR_K7_EVNTSEL0             0xc0010000  /* legacy: 4 counters */
#define MSR_K7_PERFCTR0             0xc0010004
#define MSR_F15H_PERF_CTL0          0xc0010200  /* PerfCtrExtCore: CTLn = base + 2n */
#define MSR_F15H_PERF_CTR0          0xc0010201  /*                 CTRn = base + 2n */
#define MSR_AMD_PERF_CNTR_GLOBAL_STATUS      0xc0000300
#define MSR_AMD_PERF_CNTR_GLOBAL_CTL         0xc0000301
#define MSR_AMD_PERF_CNTR_GLOBAL_STATUS_CLR  0xc0000302
/* AMD IBS (APM vol.2 13.3) */
#define MSR_AMD_IBS_FETCH_CTL       0xc0011030
#define MSR_AMD_IBS_FETCH_LINADDR   0xc0011031
#define MSR_AMD_IBS_FETCH_PHYSADDR  0xc0011032
#define MSR_AMD_IBS_OP_CTL          0xc0011033
#define MSR_AMD_IBS_OP_RIP          0xc0011034
#define MSR_AMD_IBS_OP_DATA         0xc0011035
#define MSR_AMD_IBS_OP_DATA2        0xc0011036
#define MSR_AMD_IBS_OP_DATA3        0xc0011037
#define MSR_AMD_IBS_DC_LINADDR      0xc0011038
#define MSR_AMD_IBS_DC_PHYSADDR     0xc0011039
#define MSR_AMD_IBS_CTL             0xc001103a  /* APM 13.3.1: read-only, set by firmware */
#define   IBS_CTL_LVT_OFFSET_MASK   0xfULL      /* extended LVT entry used by IBS */
#define   IBS_CTL_LVT_OFFSET_VALID  BIT(8)

/* --- Intel Processor Trace (SDM vol.3 32.2.8) ------------------------------- */
#define IA32_RTIT_OUTPUT_BASE       0x560
#define IA32_RTIT_OUTPUT_MASK_PTRS  0x561
#define IA32_RTIT_CTL               0x570
#define   RTIT_CTL_TRACEEN          BIT(0)
#define   RTIT_CTL_CYCEN            BIT(1)
#define   RTIT_CTL_OS               BIT(2)
#define   RTIT_CTL_USER             BIT(3)
#define   RTIT_CTL_PWREVTEN         BIT(4)
#define   RTIT_CTL_FUPONPTW         BIT(5)
#define   RTIT_CTL_FABRICEN         BIT(6)
#define   RTIT_CTL_CR3FILTER        BIT(7)
#define   RTIT_CTL_TOPA             BIT(8)
#define   RTIT_CTL_MTCEN            BIT(9)
#define   RTIT_CTL_TSCEN            BIT(10)
#define   RTIT_CTL_DISRETC          BIT(11)
#define   RTIT_CTL_PTWEN            BIT(12)
#define   RTIT_CTL_BRANCHEN         BIT(13)
#define   RTIT_CTL_MTCFREQ_SHIFT    14
#define   RTIT_CTL_CYCTHRESH_SHIFT  19
#define   RTIT_CTL_PSBFREQ_SHIFT    24
#define   RTIT_CTL_ADDR_CFG_SHIFT(n) (32 + 4 * (n))
#define   RTIT_ADDR_CFG_OFF         0
#define   RTIT_ADDR_CFG_FILTER      1
#define   RTIT_ADDR_CFG_STOP        2
#define IA32_RTIT_STATUS            0x571
#define   RTIT_STATUS_FILTEREN      BIT(0)
#define   RTIT_STATUS_CONTEXTEN     BIT(1)
#define   RTIT_STATUS_TRIGGEREN     BIT(2)
#define   RTIT_STATUS_ERROR         BIT(4)
#define   RTIT_STATUS_STOPPED       BIT(5)
#define   RTIT_STATUS_PACKETBYTECNT_SHIFT 32
#define IA32_RTIT_CR3_MATCH         0x572
#define IA32_RTIT_ADDR0_A           0x580       /* ADDRn_A = 0x580 + 2n, ADDRn_B = 0x581 + 2n */
#define IA32_RTIT_ADDR0_B           0x581

/* --- long mode -------------------------------------------------------------- */
#define IA32_EFER                   0xc0000080
#define   EFER_SCE                  BIT(0)
#define   EFER_LME                  BIT(8)
#define   EFER_LMA                  BIT(10)
#define   EFER_NXE                  BIT(11)
#define IA32_STAR                   0xc0000081  /* SYSCALL/SYSRET selectors */
#define IA32_LSTAR                  0xc0000082  /* 64-bit SYSCALL target */
#define IA32_FMASK                  0xc0000084  /* RFLAGS bits SYSCALL clears */
#define IA32_FS_BASE                0xc0000100
#define IA32_GS_BASE                0xc0000101
#define IA32_KERNEL_GS_BASE         0xc0000102

#endif
