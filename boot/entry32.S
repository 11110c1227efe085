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

	.data
	.balign 8
	.globl boot_magic, boot_info, boot_info_size
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
