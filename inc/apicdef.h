/* Local APIC registers (SDM vol.3 chapter 11/12) and tracelab's fixed vectors. */
#ifndef INC_APICDEF_H
#define INC_APICDEF_H

#define APIC_DEFAULT_BASE   0xfee00000ULL
/* xAPIC MMIO offsets; the x2APIC MSR is 0x800 + (offset >> 4) (SDM 11.12.1.2) */
#define APIC_ID         0x020
#define APIC_VERSION    0x030
#define APIC_TPR        0x080
#define APIC_EOI        0x0b0
#define APIC_LDR        0x0d0
#define APIC_DFR        0x0e0
#define APIC_SVR        0x0f0
#define   APIC_SVR_ENABLE   0x100
#define APIC_ISR0       0x100   /* ISR bits 31:0; ISRn = 0x100 + 0x10 * n, n = 0..7 */
#define APIC_ESR        0x280
#define APIC_LVT_CMCI   0x2f0
#define APIC_ICR_LOW    0x300
#define APIC_ICR_HIGH   0x310
#define   ICR_INIT          0x00500
#define   ICR_STARTUP       0x00600
#define   ICR_LEVEL_ASSERT  0x04000
#define   ICR_TRIGGER_LEVEL 0x08000
#define   ICR_BUSY          0x01000     /* delivery status: xAPIC only */
#define   ICR_DEST_SELF     0x40000     /* destination shorthand 01: self */
#define APIC_LVT_TIMER  0x320
#define   LVT_TIMER_ONESHOT  0x00000
#define   LVT_TIMER_PERIODIC 0x20000
#define APIC_LVT_THERMAL 0x330
#define APIC_LVT_PERFMON 0x340
#define APIC_LVT_LINT0  0x350
#define APIC_LVT_LINT1  0x360
#define APIC_LVT_ERROR  0x370
#define   LVT_MASKED        0x10000
#define   LVT_DM_NMI        0x00400
#define   LVT_VECTOR_MASK   0x000ff
#define   APIC_VERSION_MAXLVT(v) (((v) >> 16) & 0xff)   /* LVT entries - 1 */
#define   APIC_VERSION_AMD_EAS   0x80000000u             /* AMD: extended APIC space */
/* AMD extended APIC space (APM vol.2 16.4.5): APIC_EXT_FEATURE[23:16] = number of
 * extended LVT entries, at APIC_EXT_LVT0 + 0x10 * n (IBS uses one of them) */
#define APIC_AMD_EXT_FEATURE 0x400
#define APIC_AMD_EXT_LVT0    0x500
#define APIC_TIMER_ICR  0x380
#define APIC_TIMER_CCR  0x390
#define APIC_TIMER_DCR  0x3e0
#define   APIC_TIMER_DIV_16 0x3
#define APIC_SELF_IPI   0x3f0   /* x2APIC only (SDM 11.12.11): MSR 83FH */
#define APIC_VERSION_VER(v)     ((v) & 0xff)
#define APIC_VERSION_MAXLVT(v)  (((v) >> 16) & 0xff)

/* x2APIC: the register at xAPIC offset `off` is MSR 800H + off/16 (SDM 11.12.1.2,
 * table 11-6).  The ICR is one 64-bit MSR (830H), destination in bits 63:32,
 * no delivery-status bit (SDM 11.12.9); 831H (the xAPIC ICR high half) and 80EH
 * (DFR) do not exist.  The LDR (80DH) is read-only and derived from the x2APIC ID
 * (SDM 11.12.10.2): cluster ID[19:4] in bits 31:16, 1 << ID[3:0] in bits 15:0. */
#define X2APIC_MSR(off)         (0x800u + ((off) >> 4))
#define X2APIC_ICR_DEST_SHIFT   32
#define X2APIC_LDR(id)          ((((id) >> 4) & 0xffffu) << 16 | 1u << ((id) & 0xf))
#define X2APIC_BROADCAST        0xffffffffu

#define PIT_HZ          1193182 /* 8254 input clock */
/* tracelab's interrupt vectors */
#define VEC_PIC_IRQ0    0x20    /* 8259 master, re-based by pic_disable(): PIT watchdog */
#define VEC_PIC_SPURIOUS 0x27   /* 8259 master IRQ7: spurious, no EOI */
#define VEC_USER_RETURN 0x80    /* ring 3 -> kernel: "user function finished" */
#define VEC_FUZZ_RING   0x81    /* fuzz=debug: a DPL-3 gate whose handler returns (CPL 3 -> 0 -> 3) */
#define VEC_PMI         0xf0    /* LVT performance-monitor entry */
#define VEC_TIMER       0xf1    /* LVT timer: experiment watchdog */
#define VEC_APIC_TEST   0xf2    /* IPIs the APIC experiments send (503, 504) */
#define VEC_ERROR       0xfe
#define VEC_SPURIOUS    0xff

#endif
