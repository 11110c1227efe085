/* Constants shared by the boot assembly and C. */
#ifndef INC_BOOT_H
#define INC_BOOT_H

#define KERNEL_PHYS         0x100000    /* linked and loaded at 1 MiB, identity-mapped */
#define TRAMP_BASE          0x8000      /* 16-bit trampoline; SIPI vector 0x08 */
#define TRAMP_SEG           (TRAMP_BASE >> 4)
#define TRAMP_SIZE          0x2000      /* code+data, then the real-mode stack at the top */
#define TRAMP_SIPI_VECTOR   (TRAMP_BASE >> 12)
#define BOOT_STACK_SIZE     0x4000
#define MBI_COPY_SIZE       0x10000     /* multiboot2 information is copied to the kernel */

/* Mode-journey log: one record per step, written by the boot assembly. */
#define JSTEP_LOADER        0   /* 32-bit protected mode as GRUB/QEMU left it */
#define JSTEP_REAL          1   /* real mode in the trampoline */
#define JSTEP_PROT          2   /* protected mode with our GDT and IDT */
#define JSTEP_LONG          3   /* long mode, 64-bit code segment */
#define JSTEPS              4
#define JREC_SIZE           32  /* u32: mode, cs, cr0, cr4, efer, bp_hits, bp_ip, bp_expect */
#define JREC_MODE           0
#define JREC_CS             4
#define JREC_CR0            8
#define JREC_CR4            12
#define JREC_EFER           16
#define JREC_BP_HITS        20
#define JREC_BP_IP          24
#define JREC_BP_EXPECT      28

/* multiboot */
#define MB1_MAGIC           0x1badb002
#define MB1_LOADER_MAGIC    0x2badb002
#define MB2_MAGIC           0xe85250d6
#define MB2_LOADER_MAGIC    0x36d76289

#endif
