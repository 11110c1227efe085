/* Down from long mode to 32-bit protected mode, a scenario, and back up
 * (see kernel/pm32.h).
 *
 * Down (SDM vol.3 10.8.5.4, "Switching Out of IA-32e Mode Operation"): a far
 * return to a 32-bit code segment (compatibility mode), CR0.PG=0 (this
 * deactivates IA-32e mode, EFER.LMA=0), EFER.LME=0.  Then the protected-mode
 * GDT and IDT, a task register, and paging as the control block asks.
 * Up (10.8.5): CR0.PG=0 again, CR4/CR3/EFER as long mode had them, CR0.PG=1,
 * a far jump to the 64-bit code segment; then the kernel's GDT, IDT, TR (its
 * descriptor's busy bit cleared first), segment bases and stack.
 *
 * Everything here lies below 4 GiB and is identity-mapped (linked at 1 MiB). */
#include "apicdef.h"
#include "cr.h"
#include "msr.h"
#include "seg.h"
#include "vectors.h"
#include "pm32.h"

	.data
	.balign 8
saved_rsp:      .quad 0
saved_cr0:      .quad 0
saved_cr3:      .quad 0
saved_cr4:      .quad 0
saved_efer:     .quad 0
saved_fsbase:   .quad 0
saved_gsbase:   .quad 0
saved_gdtr:     .skip 16
saved_idtr:     .skip 16
saved_tr:       .quad 0
saved_ss:       .quad 0
saved_ds:       .quad 0
saved_es:       .quad 0
saved_fs:       .quad 0
saved_gs:       .quad 0
	.globl pm32_cb_ptr
pm32_cb_ptr:    .long 0

	.text
	.code64
/* void pm32_call(struct pm32_cb *cb) */
	.globl pm32_call
pm32_call:
	pushq %rbx
	pushq %rbp
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	pushfq
	cli
	movl %edi, pm32_cb_ptr(%rip)
	movq %rsp, saved_rsp(%rip)
	movq %cr0, %rax
	movq %rax, saved_cr0(%rip)
	movq %cr3, %rax
	movq %rax, saved_cr3(%rip)
	movq %cr4, %rax
	movq %rax, saved_cr4(%rip)
	movl $IA32_EFER, %ecx
	rdmsr
	movl %eax, saved_efer(%rip)
	movl %edx, saved_efer+4(%rip)
	movl $IA32_FS_BASE, %ecx
	rdmsr
	movl %eax, saved_fsbase(%rip)
	movl %edx, saved_fsbase+4(%rip)
	movl $IA32_GS_BASE, %ecx
	rdmsr
	movl %eax, saved_gsbase(%rip)
	movl %edx, saved_gsbase+4(%rip)
	sgdt saved_gdtr(%rip)
	sidt saved_idtr(%rip)
	str saved_tr(%rip)
	movw %ss, saved_ss(%rip)
	movw %ds, saved_ds(%rip)
	movw %es, saved_es(%rip)
	movw %fs, saved_fs(%rip)
	movw %gs, saved_gs(%rip)
	/* compatibility mode */
	pushq $SEL_CODE32
	leaq down32(%rip), %rax
	pushq %rax
	lretq

	.code32
down32:
	movl $SEL_DATA32, %eax
	movl %eax, %ds
	movl %eax, %es
	movl %eax, %ss
	movl %cr0, %eax
	andl $~CR0_PG, %eax
	movl %eax, %cr0                         /* IA-32e mode off: LMA=0 */
	movl $IA32_EFER, %ecx
	rdmsr
	andl $~EFER_LME, %eax
	wrmsr
	movl pm32_cb_ptr, %ebx
	lgdt PM32_CB_GDTR(%ebx)
	lidt PM32_CB_IDTR(%ebx)
	ljmp $PM32_SEL_CS, $1f
1:	movl $PM32_SEL_DS, %eax
	movl %eax, %ds
	movl %eax, %es
	movl %eax, %fs
	movl %eax, %gs
	movl %eax, %ss
	movl PM32_CB_STACK_TOP(%ebx), %esp
	xorl %eax, %eax
	lldt %ax
	ltr PM32_CB_TR(%ebx)
	/* paging as asked: 32-bit (PSE, PAE=0) or PAE; CR3 below 4 GiB */
	movl PM32_CB_PAGING(%ebx), %edx
	testl %edx, %edx
	jz 3f
	movl %cr4, %eax
	andl $~(CR4_PAE | CR4_PSE), %eax
	cmpl $PM32_PAGING_PAE, %edx
	je 2f
	orl $CR4_PSE, %eax
	jmp 4f
2:	orl $CR4_PAE, %eax
4:	movl %eax, %cr4
	movl PM32_CB_CR3(%ebx), %eax
	movl %eax, %cr3
	movl %cr0, %eax
	orl $CR0_PG, %eax
	movl %eax, %cr0
	jmp 3f
3:	pushl $RFLAGS_FIXED1
	popfl
	cmpl $0, PM32_CB_STI(%ebx)
	je 5f
	sti
5:	call *PM32_CB_SCENARIO(%ebx)
	movl pm32_cb_ptr, %ebx
	movl %eax, PM32_CB_RESULT(%ebx)
	jmp pm32_climb

/* From any task, any stack: the scenario is over (an abort, recorded by the
 * caller).  Back to the first task's segments and stack, then up. */
	.globl pm32_bail
pm32_bail:
	cli
	movl pm32_cb_ptr, %ebx
	lgdt PM32_CB_GDTR(%ebx)
	ljmp $PM32_SEL_CS, $1f
1:	movl $PM32_SEL_DS, %eax
	movl %eax, %ds
	movl %eax, %es
	movl %eax, %ss
	movl PM32_CB_STACK_TOP(%ebx), %esp

pm32_climb:
	cli
	pushl $RFLAGS_FIXED1                    /* NT=0: IRETQ with NT=1 is #GP in IA-32e mode */
	popfl
	movl %cr0, %eax
	andl $~CR0_PG, %eax
	movl %eax, %cr0
	movl saved_cr4, %eax
	movl %eax, %cr4
	movl saved_cr3, %eax
	movl %eax, %cr3
	movl $IA32_EFER, %ecx
	movl saved_efer, %eax
	movl saved_efer+4, %edx
	wrmsr
	movl saved_cr0, %eax                    /* PG=1, and CR0.TS that task switches set is gone */
	movl %eax, %cr0
	ljmp $SEL_KCODE64, $up64

	.code64
up64:
	lgdt saved_gdtr(%rip)
	lidt saved_idtr(%rip)
	movw saved_ss(%rip), %ss
	movw saved_ds(%rip), %ds
	movw saved_es(%rip), %es
	movw saved_fs(%rip), %fs
	movw saved_gs(%rip), %gs
	movl $IA32_FS_BASE, %ecx
	movl saved_fsbase(%rip), %eax
	movl saved_fsbase+4(%rip), %edx
	wrmsr
	movl $IA32_GS_BASE, %ecx
	movl saved_gsbase(%rip), %eax
	movl saved_gsbase+4(%rip), %edx
	wrmsr
	/* LTR faults on a busy TSS descriptor: the kernel's one is busy since its own LTR */
	movzwl saved_tr(%rip), %eax
	andl $~7, %eax
	addq saved_gdtr+2(%rip), %rax
	andb $~(DESC_TSS_BUSY_BIT), 5(%rax)
	ltr saved_tr(%rip)
	movq saved_rsp(%rip), %rsp
	popfq
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbp
	popq %rbx
	ret

/* ---- the protected-mode IDT's entry points ------------------------------ */
	.code32
	.macro pm32_vector v
	.balign 16
	.if VEC_HAS_ERR(\v)
	pushl $\v
	.else
	pushl $0
	pushl $\v
	.endif
	jmp pm32_trap
	.endm

	.altmacro
	.balign 16
	.globl pm32_vectors
pm32_vectors:
	.set vec, 0
	.rept 256
	pm32_vector %vec
	.set vec, vec + 1
	.endr
	.noaltmacro

/* Sets RF in the EFLAGS image at \flags if DR6 (in %eax) reports breakpoint
 * \n as an enabled instruction breakpoint at the EIP in %esi (SDM 18.3.1.1: the
 * handler sets RF so that the instruction runs instead of faulting again). */
	.macro rf_if_exec n, flags
	btl $\n, %eax
	jnc 9f
	movl %dr7, %edx
	testl $(3 << (2 * \n)), %edx
	jz 9f
	shrl $(16 + 4 * \n), %edx
	testl $3, %edx
	jnz 9f
	movl %dr\n, %edx
	cmpl %esi, %edx
	jne 9f
	orl $RFLAGS_RF, \flags
9:
	.endm

/* Frame: pushal (32 bytes), vector, error code, EIP, CS, EFLAGS. */
#define F_VEC    32(%esp)
#define F_ERR    36(%esp)
#define F_EIP    40(%esp)
#define F_CS     44(%esp)
#define F_EFLAGS 48(%esp)

pm32_trap:
	pushal
	cld
	movl pm32_cb_ptr, %ebx
	movl F_VEC, %ecx
	movzbl PM32_CB_ACTION(%ebx, %ecx), %eax
	cmpl $PM32_ACT_IGNORE, %eax
	je 8f
	cmpl $PM32_ACT_ABORT, %eax
	je 7f
	movl PM32_CB_NEVENTS(%ebx), %ebp        /* ebp = index of this event */
	incl PM32_CB_NEVENTS(%ebx)
	cmpl $PM32_MAX_EVENTS, %ebp
	jae 6f
	imull $PM32_EV_SIZE, %ebp, %edi
	leal PM32_CB_EVENTS(%ebx, %edi), %edi
	movl %ecx, PM32_EV_VECTOR(%edi)
	movl F_EIP, %edx
	movl %edx, PM32_EV_EIP(%edi)
	movl F_CS, %edx
	movl %edx, PM32_EV_CS(%edi)
	movl F_EFLAGS, %edx
	movl %edx, PM32_EV_EFLAGS(%edi)
	movl F_ERR, %edx
	movl %edx, PM32_EV_ERR(%edi)
	movl %dr6, %edx
	movl %edx, PM32_EV_DR6(%edi)
	movl %dr7, %edx
	movl %edx, PM32_EV_DR7(%edi)
	pushfl
	popl PM32_EV_EFLAGS_LIVE(%edi)
	xorl %edx, %edx
	str %dx
	movl %edx, PM32_EV_TR(%edi)
	movl $0, PM32_EV_LINK(%edi)
	cmpl $PM32_ACT_RECORD_SKIP1, %eax
	jne 1f
	incl F_EIP
1:	cmpl $1, %ecx
	jne 8f
	cmpl $0, PM32_CB_KEEP_DR6(%ebx)
	jne 2f
	movl $0xffff0ff0, %edx                  /* DR6_INIT: the handler clears DR6 (SDM 18.2.3) */
	movl %edx, %dr6
2:	cmpl PM32_CB_RF_FROM(%ebx), %ebp
	jb 8f
	movl PM32_EV_DR6(%edi), %eax
	movl F_EIP, %esi
	rf_if_exec 0, F_EFLAGS
	rf_if_exec 1, F_EFLAGS
	rf_if_exec 2, F_EFLAGS
	rf_if_exec 3, F_EFLAGS
8:	popal
	addl $8, %esp
	iret

6:	/* runaway (an emulator ignoring RF, say): stop every #DB source */
	movl $0x400, %edx
	movl %edx, %dr7
	andl $~RFLAGS_TF, F_EFLAGS
	orl $RFLAGS_RF, F_EFLAGS
	jmp 8b

7:	/* nobody expected this vector: end the scenario */
	movl %ecx, PM32_CB_ABORT_VEC(%ebx)
	movl F_EIP, %edx
	movl %edx, PM32_CB_ABORT_EIP(%ebx)
	movl F_ERR, %edx
	movl %edx, PM32_CB_ABORT_ERR(%ebx)
	movl F_CS, %edx
	movl %edx, PM32_CB_ABORT_CS(%ebx)
	jmp pm32_bail

/* ---- handler tasks (IDT task gates) ------------------------------------- */

/* %eax = selector -> %eax = base of its descriptor in the protected-mode GDT */
tss_base_of:
	andl $~7, %eax
	addl PM32_CB_GDT_BASE(%ebx), %eax
	movl 4(%eax), %edx
	movl 0(%eax), %ecx
	shrl $16, %ecx                          /* base 15:0 */
	movl %edx, %eax
	andl $0xff000000, %eax                  /* base 31:24 */
	andl $0xff, %edx
	shll $16, %edx                          /* base 23:16 */
	orl %edx, %eax
	orl %ecx, %eax
	ret

/* The handler task for vector \v: it starts at its TSS's EIP with IF=0, records
 * the interrupted task's EIP/CS/EFLAGS from the TSS its link names, clears DR6,
 * sets RF in that EFLAGS image for an instruction breakpoint, and IRETs (NT=1:
 * back to the interrupted task).  The next delivery resumes after the IRET. */
	.macro handler_task name, v
	.globl \name
\name:
	movl pm32_cb_ptr, %ebx
	movl PM32_CB_NEVENTS(%ebx), %ebp
	incl PM32_CB_NEVENTS(%ebx)
	cmpl $PM32_MAX_EVENTS, %ebp
	jae 6f
	imull $PM32_EV_SIZE, %ebp, %edi
	leal PM32_CB_EVENTS(%ebx, %edi), %edi
	movl $\v, PM32_EV_VECTOR(%edi)
	movl $0, PM32_EV_ERR(%edi)
	movl %dr6, %edx
	movl %edx, PM32_EV_DR6(%edi)
	movl %dr7, %edx
	movl %edx, PM32_EV_DR7(%edi)
	pushfl
	popl PM32_EV_EFLAGS_LIVE(%edi)
	xorl %eax, %eax
	str %ax
	movl %eax, PM32_EV_TR(%edi)
	call tss_base_of
	movzwl TSS32_LINK(%eax), %eax
	movl %eax, PM32_EV_LINK(%edi)
	call tss_base_of
	movl %eax, %esi                         /* esi = interrupted task's TSS */
	movl TSS32_EIP(%esi), %edx
	movl %edx, PM32_EV_EIP(%edi)
	movzwl TSS32_CS(%esi), %edx
	movl %edx, PM32_EV_CS(%edi)
	movl TSS32_EFLAGS(%esi), %edx
	movl %edx, PM32_EV_EFLAGS(%edi)
	.if \v == 1
	cmpl $0, PM32_CB_KEEP_DR6(%ebx)
	jne 2f
	movl $0xffff0ff0, %edx
	movl %edx, %dr6
2:	cmpl PM32_CB_RF_FROM(%ebx), %ebp
	jb 8f
	movl %esi, %ecx
	movl PM32_EV_DR6(%edi), %eax
	movl PM32_EV_EIP(%edi), %esi
	rf_if_exec 0, TSS32_EFLAGS(%ecx)
	rf_if_exec 1, TSS32_EFLAGS(%ecx)
	rf_if_exec 2, TSS32_EFLAGS(%ecx)
	rf_if_exec 3, TSS32_EFLAGS(%ecx)
	.endif
	jmp 8f
6:	movl $0x400, %edx
	movl %edx, %dr7
	xorl %eax, %eax
	str %ax
	call tss_base_of
	movzwl TSS32_LINK(%eax), %eax
	call tss_base_of
	andl $~RFLAGS_TF, TSS32_EFLAGS(%eax)
8:	iret
	jmp \name
	.endm

	handler_task pm32_task_db, 1
	handler_task pm32_task_bp, 3

/* The double-fault task (IDT vector 8 is a task gate): its own stack, whatever
 * state the faulting task left.  The interrupted EIP is in that task's TSS. */
	.globl pm32_task_df
pm32_task_df:
	movl pm32_cb_ptr, %ebx
	movl $8, PM32_CB_ABORT_VEC(%ebx)
	popl %edx                               /* the error code (0) the CPU pushed */
	movl %edx, PM32_CB_ABORT_ERR(%ebx)
	xorl %eax, %eax
	str %ax
	call tss_base_of
	movzwl TSS32_LINK(%eax), %eax
	call tss_base_of
	movl TSS32_EIP(%eax), %edx
	movl %edx, PM32_CB_ABORT_EIP(%ebx)
	movzwl TSS32_CS(%eax), %edx
	movl %edx, PM32_CB_ABORT_CS(%ebx)
	jmp pm32_bail
