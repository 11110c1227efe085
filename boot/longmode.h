/* Shared by boot/entry32.S and boot/trampoline.S (assembly only). */
#ifndef BOOT_LONGMODE_H
#define BOOT_LONGMODE_H
#include "cr.h"
#include "msr.h"
#include "seg.h"

/* From 32-bit protected mode (paging off) to long mode, in the order of SDM
 * vol.3 10.8.5: PAE, CR3, EFER.LME, then PG; the far jump to a 64-bit code
 * segment ends compatibility mode.  `cr3` is any movl source operand. */
	.macro enter_long_mode cr3, target
	movl %cr4, %eax
	orl $CR4_PAE, %eax
	movl %eax, %cr4
	movl \cr3, %eax
	movl %eax, %cr3
	movl $IA32_EFER, %ecx
	rdmsr
	orl $EFER_LME, %eax
	wrmsr
	movl %cr0, %eax
	orl $CR0_PG, %eax
	movl %eax, %cr0
	ljmp $SEL_KCODE64, $\target
	.endm

#endif
