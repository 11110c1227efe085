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

#endif
