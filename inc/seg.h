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

#endif
