/* The 16-bit trampoline: copied to TRAMP_BASE (below 1 MiB) and entered in real
 * mode, at tramp_start, by the boot CPU (coming down from the loader's protected
 * mode through tramp_down16) and by every application processor (STARTUP IPI
 * with vector TRAMP_SIPI_VECTOR: CS=TRAMP_SEG, IP=0; SDM vol.3 9.4.4.1).
 *
 * It climbs real -> protected -> long mode, logging each step (mode, CS, CR0,
 * CR4, EFER) in jlog, and proves each mode by an INT3 round trip through that
 * mode's own interrupt table: the IVT in real mode, a 32-bit IDT in protected
 * mode.  Then it jumps to `target` on the stack `stack`, both set by whoever
 * started this CPU.  Everything is addressed at its run address:
 * R(x) is the offset from TRAMP_BASE (real mode), T(x) the linear address. */
#include "boot.h"
#include "cr.h"
#include "msr.h"
#include "seg.h"
#include "longmode.h"

#define R(x)        ((x) - tramp_start)
#define T(x)        (TRAMP_BASE + (x) - tramp_start)
#define J(step, f)  (jlog + (step) * JREC_SIZE + (f))

	.section .trampoline, "ax"
	.code16
	.globl tramp_start
tramp_start:
	cli
	cld
	ljmp $TRAMP_SEG, $R(rm_entry)           /* normalise CS:IP */

rm_entry:
	movw %cs, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	movw $TRAMP_SIZE, %sp

	movl $JSTEP_REAL, R(J(JSTEP_REAL, JREC_MODE))
	xorl %eax, %eax
	movw %cs, %ax
	movl %eax, R(J(JSTEP_REAL, JREC_CS))
	movl %cr0, %eax
	movl %eax, R(J(JSTEP_REAL, JREC_CR0))
	movl %cr4, %eax
	movl %eax, R(J(JSTEP_REAL, JREC_CR4))
	movl $IA32_EFER, %ecx
	rdmsr
	movl %eax, R(J(JSTEP_REAL, JREC_EFER))

	/* INT3 through the real-mode IVT: vector 3 at linear 12 (SDM vol.3 21.1.4).
	 * IDTR still holds whatever protected mode left; real mode wants base 0. */
	xorw %ax, %ax
	movw %ax, %fs
	movl %fs:12, %eax
	movl %eax, R(saved_ivt3)
	movw $R(rm_bp), %fs:12
	movw $TRAMP_SEG, %fs:14
	lidt R(rm_idtr)
	movl $R(rm_after_int3), R(J(JSTEP_REAL, JREC_BP_EXPECT))
	int3
rm_after_int3:
	movl R(saved_ivt3), %eax
	movl %eax, %fs:12

	/* Up to protected mode with our GDT.  INIT left CD and NW set on an AP
	 * (SDM vol.3 Table 10-1): caches on, from here. */
	lgdtl R(gdtr)
	movl %cr0, %eax
	andl $~(CR0_CD | CR0_NW), %eax
	orl $CR0_PE, %eax
	movl %eax, %cr0
	ljmpl $SEL_CODE32, $T(pm_entry)

rm_bp:
	pushw %bp
	movw %sp, %bp
	movzwl 2(%bp), %eax                      /* IP pushed by INT3: the next instruction */
	movl %eax, R(J(JSTEP_REAL, JREC_BP_IP))
	incl R(J(JSTEP_REAL, JREC_BP_HITS))
	popw %bp
	iret

/* The boot CPU arrives here from 32-bit protected mode with CS = SEL_CODE16
 * (base TRAMP_BASE): 16-bit segments with real-mode limits first, then PE=0
 * (SDM vol.3 10.9.2, "Switching Back to Real-Address Mode"). */
	.globl tramp_down16
tramp_down16:
	movw $SEL_DATA16, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %fs
	movw %ax, %gs
	movw %ax, %ss
	movl %cr0, %eax
	andl $~(CR0_PE | CR0_PG), %eax
	movl %eax, %cr0
	ljmp $TRAMP_SEG, $R(tramp_start)

	.code32
pm_entry:
	movw $SEL_DATA32, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %fs
	movw %ax, %gs
	movw %ax, %ss
	movl $(TRAMP_BASE + TRAMP_SIZE), %esp

	movl $JSTEP_PROT, T(J(JSTEP_PROT, JREC_MODE))
	xorl %eax, %eax
	movw %cs, %ax
	movl %eax, T(J(JSTEP_PROT, JREC_CS))
	movl %cr0, %eax
	movl %eax, T(J(JSTEP_PROT, JREC_CR0))
	movl %cr4, %eax
	movl %eax, T(J(JSTEP_PROT, JREC_CR4))
	movl $IA32_EFER, %ecx
	rdmsr
	movl %eax, T(J(JSTEP_PROT, JREC_EFER))

	lidt T(pm_idtr)
	movl $T(pm_after_int3), T(J(JSTEP_PROT, JREC_BP_EXPECT))
	int3
pm_after_int3:
	enter_long_mode T(cr3), T(lm_entry)

pm_bp:
	pushl %eax
	movl 4(%esp), %eax                       /* EIP pushed by INT3 */
	movl %eax, T(J(JSTEP_PROT, JREC_BP_IP))
	incl T(J(JSTEP_PROT, JREC_BP_HITS))
	popl %eax
	iret

	.code64
lm_entry:
	movw $SEL_KDATA, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	movw %ax, %fs
	movw %ax, %gs
	movl $JSTEP_LONG, T(J(JSTEP_LONG, JREC_MODE))
	xorl %eax, %eax
	movw %cs, %ax
	movl %eax, T(J(JSTEP_LONG, JREC_CS))
	movq %cr0, %rax
	movl %eax, T(J(JSTEP_LONG, JREC_CR0))
	movq %cr4, %rax
	movl %eax, T(J(JSTEP_LONG, JREC_CR4))
	movl $IA32_EFER, %ecx
	rdmsr
	movl %eax, T(J(JSTEP_LONG, JREC_EFER))
	movq T(stack), %rsp
	movq T(target), %rax
	xorl %ebp, %ebp
	jmp *%rax

	.balign 8
gdt:
	.quad 0
	.quad DESC_CODE16
	.quad DESC_DATA16
	.quad DESC_CODE32
	.quad DESC_DATA32
	.quad DESC_KCODE64
	.quad DESC_KDATA
gdt_end:
gdtr:
	.short gdt_end - gdt - 1
	.long T(gdt)
	.balign 8
rm_idtr:
	.short 0x3ff
	.long 0
	.balign 8
pm_idt:                                          /* vectors 0..3; only #BP is expected */
	.quad 0, 0, 0
	.short T(pm_bp), SEL_CODE32, 0x8e00, 0
pm_idt_end:
pm_idtr:
	.short pm_idt_end - pm_idt - 1
	.long T(pm_idt)
saved_ivt3:     .long 0
cr3:            .long 0
	.balign 8
stack:          .quad 0
target:         .quad 0
jlog:           .skip JSTEPS * JREC_SIZE
tramp_end:

/* Offsets for C and for boot/entry32.S (absolute symbols). */
	.globl TROFF_jlog, TROFF_cr3, TROFF_stack, TROFF_target, TROFF_gdtr, TROFF_down16, TROFF_end
	.set TROFF_jlog, jlog - tramp_start
	.set TROFF_cr3, cr3 - tramp_start
	.set TROFF_stack, stack - tramp_start
	.set TROFF_target, target - tramp_start
	.set TROFF_gdtr, gdtr - tramp_start
	.set TROFF_down16, tramp_down16 - tramp_start
	.set TROFF_end, tramp_end - tramp_start
