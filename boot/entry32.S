/* 32-bit entry from GRUB (multiboot2) or QEMU (multiboot v1): protected mode,
 * paging off, flat segments, interrupts off (Multiboot specs, "Machine state").
 *
 * From here the boot CPU makes the journey itself: record the loader's state,
 * build the early identity map, copy the trampoline below 1 MiB and drop into
 * real mode through it.  The trampoline brings us back up to long mode and
 * jumps to kernel_main64 (kernel/main.c). */
#include "boot.h"
#include "cr.h"
#include "msr.h"
#include "seg.h"
#include "longmode.h"

/* Trampoline symbols are used at their run address below 1 MiB: the offsets
 * (TROFF_*) are absolute symbols exported by boot/trampoline.S. */
#define TADDR(sym)  (TRAMP_BASE + TROFF_##sym)
#define JLOG(step, field)  (TADDR(jlog) + (step) * JREC_SIZE + (field))

	.section .text32, "ax"
	.code32
	.globl _start
_start:
	cli
	cld
	movl %eax, boot_magic
	movl %ebx, boot_info
	/* The checks (boot/early.S) run on a stack in .data: .bss, where the boot
	 * stack is, may lie past the end of RAM until check_memory says it does not. */
	movl $early_stack_top, %esp
	call check_long_mode
	call check_memory
	movl $boot_stack_top, %esp

	call copy_mbi
	call build_early_paging
	/* The trampoline's pages must be RAM that nobody owns (the memory map says
	 * so), or the journey through real mode is skipped. */
	call tramp_pages_usable
	testl %eax, %eax
	jz direct_long_mode
	call copy_trampoline

	/* Record the loader's machine state (step 0): EFER exists on every CPU with
	 * long mode, which check_long_mode established. */
	movl $JSTEP_LOADER, JLOG(JSTEP_LOADER, JREC_MODE)
	movl %cs, %eax
	movl %eax, JLOG(JSTEP_LOADER, JREC_CS)
	movl %cr0, %eax
	movl %eax, JLOG(JSTEP_LOADER, JREC_CR0)
	movl %cr4, %eax
	movl %eax, JLOG(JSTEP_LOADER, JREC_CR4)
	movl $IA32_EFER, %ecx
	rdmsr
	movl %eax, JLOG(JSTEP_LOADER, JREC_EFER)

	/* Hand the trampoline what it needs to finish the journey for the BSP. */
	movl $early_pml4, TADDR(cr3)
	movl $boot_stack_top, TADDR(stack)
	movl $0, TADDR(stack) + 4
	movl $kernel_main64, TADDR(target)
	movl $0, TADDR(target) + 4

	/* Down: our GDT, a 16-bit code segment based at the trampoline, then PE=0. */
	lgdt TADDR(gdtr)
	ljmp $SEL_CODE16, $TROFF_down16

/* GRUB may have placed the multiboot2 information anywhere, the trampoline page
 * included: keep a copy in the kernel image before anything is overwritten. */
copy_mbi:
	cmpl $MB2_LOADER_MAGIC, boot_magic
	jne 1f
	movl boot_info, %esi
	movl (%esi), %ecx                        /* total_size */
	movl %ecx, boot_info_size
	cmpl $MBI_COPY_SIZE, %ecx
	jbe 2f
	movl $MBI_COPY_SIZE, %ecx                /* C reports the truncation */
2:	movl $boot_info_copy, %edi
	rep movsb
1:	ret

/* Identity-map the first 4 GiB with 2 MiB pages, user-accessible (ring-3
 * experiments run kernel code); the 2 MiB page holding the local APIC is uncached.
 * kernel/paging.c replaces this with a map built from the memory map. */
build_early_paging:
	movl $early_pdpt, %eax
	orl $(PTE_P | PTE_W | PTE_U), %eax
	movl %eax, early_pml4
	xorl %ecx, %ecx
1:	movl %ecx, %eax
	shll $12, %eax
	addl $early_pd, %eax
	orl $(PTE_P | PTE_W | PTE_U), %eax
	movl %eax, early_pdpt(, %ecx, 8)
	incl %ecx
	cmpl $4, %ecx
	jb 1b
	xorl %ecx, %ecx                          /* 2048 PDEs cover 4 GiB */
2:	movl %ecx, %eax
	shll $21, %eax
	orl $(PTE_P | PTE_W | PTE_U | PTE_PS), %eax
	movl %ecx, %edx
	shrl $11, %edx                            /* bits 32+ of the address */
	cmpl $(0xfee00000 >> 21), %ecx
	jne 3f
	orl $(PTE_PCD | PTE_PWT), %eax
3:	movl %eax, early_pd(, %ecx, 8)
	movl %edx, early_pd + 4(, %ecx, 8)
	incl %ecx
	cmpl $2048, %ecx
	jb 2b
	ret

/* eax = 1 if [TRAMP_CHECK_BASE, +TRAMP_SIZE) lies in one usable region of the
 * multiboot2 memory map, or if there is no map to ask (multiboot v1 from QEMU,
 * whose low memory is always free); 0 if the map says otherwise. */
#ifndef TRAMP_CHECK_BASE
#define TRAMP_CHECK_BASE TRAMP_BASE     /* -DTRAMP_CHECK_BASE=... tests the fallback */
#endif
tramp_pages_usable:
	movl $1, %eax
	cmpl $MB2_LOADER_MAGIC, boot_magic
	jne 9f
	pushl %ebx
	pushl %ecx
	pushl %edx
	pushl %esi
	movl boot_info_size, %edx
	cmpl $MBI_COPY_SIZE, %edx
	jbe 1f
	movl $MBI_COPY_SIZE, %edx
1:	addl $boot_info_copy, %edx              /* edx = end of the copy */
	movl $boot_info_copy, %esi
	movl $TRAMP_CHECK_BASE, %ebx
	movl $(TRAMP_CHECK_BASE + TRAMP_SIZE), %ecx
	call mb2_covers                         /* boot/early.S: 1 yes, 0 no, 2 no map */
	popl %esi
	popl %edx
	popl %ecx
	popl %ebx
	cmpl $2, %eax
	jne 9f
	movl $1, %eax                           /* no map to ask: trust it */
9:	ret

/* No usable trampoline page: straight from the loader's protected mode to long
 * mode (SDM vol.3 10.8.5), with a GDT of our own; kernel_main64 reports the
 * journey as skipped and brings up no application processor. */
direct_long_mode:
	movl $1, tramp_skipped
	lgdt direct_gdtr
	enter_long_mode $early_pml4, direct64
	.code64
direct64:
	movw $SEL_KDATA, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	movw %ax, %fs
	movw %ax, %gs
	movq $boot_stack_top, %rsp
	xorl %ebp, %ebp
	jmp kernel_main64
	.code32

copy_trampoline:
	movl $__tramp_image, %esi
	movl $TRAMP_BASE, %edi
	movl $__tramp_image_end, %ecx
	subl %esi, %ecx
	rep movsb
	ret

	.section .rodata
	.balign 8
direct_gdt:                                     /* the selectors of inc/seg.h */
	.quad 0, 0, 0, 0, 0
	.quad DESC_KCODE64
	.quad DESC_KDATA
direct_gdt_end:
direct_gdtr:
	.short direct_gdt_end - direct_gdt - 1
	.long direct_gdt

	.data
	.balign 8
	.globl boot_magic, boot_info, boot_info_size, tramp_skipped
tramp_skipped:  .long 0
boot_magic:     .long 0
boot_info:      .long 0
boot_info_size: .long 0

	.bss
	.balign 4096
	.globl early_pml4, boot_stack_top, boot_info_copy
early_pml4:     .skip 4096
early_pdpt:     .skip 4096
early_pd:       .skip 4096 * 4
boot_stack:     .skip BOOT_STACK_SIZE
boot_stack_top:
	.balign 16
boot_info_copy: .skip MBI_COPY_SIZE
