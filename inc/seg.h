/* Segment selectors of tracelab's GDTs, shared by the trampoline (asm) and C.
 * One layout serves the boot-time GDT in the trampoline and each CPU's kernel GDT. */
#ifndef INC_SEG_H
#define INC_SEG_H

#define SEL_NULL        0x00
#define SEL_CODE16      0x08    /* 16-bit protected-mode code, base = trampoline */
#define SEL_DATA16      0x10    /* 16-bit data, limit 64 KiB */
#define SEL_CODE32      0x18    /* flat 32-bit code */
#define SEL_DATA32      0x20    /* flat data */
#define SEL_KCODE64     0x28    /* 64-bit ring-0 code */
#define SEL_KDATA       0x30    /* ring-0 data (long mode) */
#define SEL_UDATA       0x38    /* ring-3 data; order fits SYSRET too */
#define SEL_UCODE64     0x40    /* ring-3 64-bit code */
#define SEL_TSS         0x48    /* 16-byte system descriptor */
#define GDT_ENTRIES     11

#define RPL3            3

/* The descriptors themselves (SDM vol.3 3.4.5): one definition for the
 * trampoline's GDT, the direct-to-long-mode GDT and each CPU's kernel GDT. */
#define DESC_CODE16     0x00009a008000ffff      /* base TRAMP_BASE, 16-bit, 64 KiB */
#define DESC_DATA16     0x000092000000ffff
#define DESC_CODE32     0x00cf9a000000ffff      /* flat, 4 GiB */
#define DESC_DATA32     0x00cf92000000ffff
#define DESC_KCODE64    0x00af9a000000ffff      /* L=1, DPL 0 */
#define DESC_KDATA      0x00cf92000000ffff
#define DESC_UDATA      0x00cff2000000ffff      /* DPL 3 */
#define DESC_UCODE64    0x00affa000000ffff      /* L=1, DPL 3 */


/* 32-bit protected mode (kernel/pm32.c): system-descriptor types (SDM vol.3
 * Table 3-2) and the 32-bit TSS (SDM vol.3 7.2.1, Figure 7-2). */
#define DESC_TYPE_TASK_GATE     0x5
#define DESC_TYPE_TSS32         0x9     /* available; 0xb when busy */
#define DESC_TYPE_TSS32_BUSY    0xb
#define DESC_TYPE_INTGATE32     0xe
#define DESC_TSS_BUSY_BIT       0x2     /* in the type field */

#define TSS32_LINK      0x00    /* previous task link (selector) */
#define TSS32_ESP0      0x04
#define TSS32_SS0       0x08
#define TSS32_CR3       0x1c
#define TSS32_EIP       0x20
#define TSS32_EFLAGS    0x24
#define TSS32_EAX       0x28
#define TSS32_ESP       0x38
#define TSS32_ES        0x48
#define TSS32_CS        0x4c
#define TSS32_SS        0x50
#define TSS32_DS        0x54
#define TSS32_FS        0x58
#define TSS32_GS        0x5c
#define TSS32_LDT       0x60
#define TSS32_TRAP      0x64    /* bit 0: T, debug trap on a switch to this task (SDM 7.2.1) */
#define TSS32_IOMAP     0x66
#define TSS32_SIZE      0x68

#endif
