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
	movl $boot_stack_top, %esp

	call check_long_mode
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

/* No CPUID, or no long mode: say so on COM1 and on the VGA text screen, halt. */
check_long_mode:
	pushfl
	pop %eax
	movl %eax, %ecx
	xorl $0x200000, %eax                    /* EFLAGS.ID toggles iff CPUID exists */
	push %eax
	popfl
	pushfl
	pop %eax
	cmpl %eax, %ecx
	je no_long_mode
	movl $0x80000000, %eax
	cpuid
	cmpl $0x80000001, %eax
	jb no_long_mode
	movl $0x80000001, %eax
	cpuid
	testl $(1 << 29), %edx                   /* CPUID.80000001H:EDX.LM[29] */
	jz no_long_mode
	ret

no_long_mode:
	movl $msg_no_lm, %esi
	movl $0xb8000, %edi
1:	lodsb
	testb %al, %al
	jz 3f
	movb $0x4f, %ah
	stosw
	movb %al, %bl
	movw $0x3fd, %dx                         /* bounded wait for THR empty */
	movl $100000, %ecx
2:	inb %dx, %al
	testb $0x20, %al
	loopz 2b
	movw $0x3f8, %dx
	movb %bl, %al
	outb %al, %dx
	jmp 1b
3:	cli
	hlt
	jmp 3b

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
	movl boot_info_size, %edx
	cmpl $MBI_COPY_SIZE, %edx
	jbe 1f
	movl $MBI_COPY_SIZE, %edx
1:	addl $boot_info_copy, %edx              /* edx = end of the copy */
	movl $boot_info_copy + 8, %esi          /* first tag */
2:	leal 8(%esi), %ecx
	cmpl %edx, %ecx
	ja 9f                                   /* ran out: no map, trust it */
	movl 4(%esi), %ecx                      /* tag size */
	cmpl $8, %ecx
	jb 9f
	cmpl $0, (%esi)
	je 9f                                   /* end tag: no map found */
	cmpl $6, (%esi)
	je 3f
	addl $7, %ecx
	andl $~7, %ecx
	addl %ecx, %esi
	jmp 2b
3:	leal (%esi, %ecx), %edi                 /* edi = end of the map tag */
	cmpl %edx, %edi
	jbe 4f
	movl %edx, %edi
4:	movl 8(%esi), %ebx                      /* entry_size */
	cmpl $24, %ebx
	jb 8f
	addl $16, %esi
5:	leal 24(%esi), %ecx
	cmpl %edi, %ecx
	ja 8f
	cmpl $1, 16(%esi)                       /* usable RAM */
	jne 6f
	cmpl $0, 4(%esi)                        /* base below 4 GiB */
	jne 6f
	movl (%esi), %ecx
	cmpl $TRAMP_CHECK_BASE, %ecx
	ja 6f
	cmpl $0, 12(%esi)                       /* length >= 4 GiB covers it */
	jne 9f
	addl 8(%esi), %ecx                      /* region end (no wrap below 4 GiB) */
	jc 9f
	cmpl $(TRAMP_CHECK_BASE + TRAMP_SIZE), %ecx
	jae 9f
6:	addl %ebx, %esi
	jmp 5b
8:	xorl %eax, %eax
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
msg_no_lm:
	.asciz "tracelab: this CPU has no long mode (CPUID.80000001H:EDX.LM[29]=0); halted."

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
