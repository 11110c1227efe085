/* 32-bit protected-mode scenarios of the debug family (experiments/pm32_debug.c
 * checks what they record).  Each scenario is called by kernel/pm32_entry.S in
 * the first task with a flat 32-bit CS; it returns its result in %eax.  Every
 * label is an instruction boundary an event is expected at.  Values a task
 * observes go to the control block's mark[] (pm32_cb_ptr). */
#include "cr.h"
#include "seg.h"
#include "pm32.h"

#define MARK(n)  (PM32_CB_MARK + 4 * (n))(%ebx)

	.text
	.code32

/* ---- 101 int3 / 102 int1-icebp ------------------------------------------- */
	.globl pm32_s_int3, pm32_int3_cc_next, pm32_int3_cd_next
pm32_s_int3:
	xorl %eax, %eax
	int3
pm32_int3_cc_next:
	incl %eax
	.byte 0xcd, 0x03                        /* INT 3, the two-byte form */
pm32_int3_cd_next:
	incl %eax
	ret

	.globl pm32_s_icebp, pm32_icebp, pm32_icebp_next
pm32_s_icebp:
	xorl %eax, %eax
pm32_icebp:
	.byte 0xf1
pm32_icebp_next:
	incl %eax
	ret

/* ---- 103 single-step ------------------------------------------------------ */
	.globl pm32_s_ss_popf, pm32_ss_a2, pm32_ss_a3, pm32_ss_a4, pm32_ss_a5, pm32_ss_a6, pm32_ss_a7
pm32_s_ss_popf:
	pushfl
	orl $RFLAGS_TF, (%esp)
	popfl                                   /* sets TF: no trap after it */
	nop
pm32_ss_a2:
	movl $1, %eax
pm32_ss_a3:
	addl $2, %eax
pm32_ss_a4:
	pushfl
pm32_ss_a5:
	andl $~RFLAGS_TF, (%esp)
pm32_ss_a6:
	popfl                                   /* clears TF: still traps */
pm32_ss_a7:
	ret

	.globl pm32_s_ss_iret, pm32_ss_b2, pm32_ss_b3, pm32_ss_b4, pm32_ss_b5
pm32_s_ss_iret:
	pushfl
	orl $RFLAGS_TF, (%esp)
	pushl %cs
	pushl $pm32_ss_b1
	iret                                    /* sets TF: no trap after it */
pm32_ss_b1:
	nop
pm32_ss_b2:
	pushfl
pm32_ss_b3:
	andl $~RFLAGS_TF, (%esp)
pm32_ss_b4:
	popfl
pm32_ss_b5:
	ret

/* ---- 104 dr-exec ----------------------------------------------------------- */
	.globl pm32_s_exec, pm32_s_exec_twice, pm32_exec_target
pm32_s_exec:
	xorl %eax, %eax
	call pm32_exec_inc
	ret
pm32_s_exec_twice:
	xorl %eax, %eax
	call pm32_exec_inc
	call pm32_exec_inc
	ret
pm32_exec_inc:
pm32_exec_target:
	incl %eax                               /* the breakpointed instruction */
	ret

/* ---- 109 dr7-gd: GD armed here, so that no DR access lies between ---------- */
	.globl pm32_s_gd_read, pm32_gd_read_mov, pm32_s_gd_write, pm32_gd_write_mov
pm32_s_gd_read:
	movl $(0x400 | 0x2000), %eax            /* DR7_INIT | GD */
	movl %eax, %dr7
pm32_gd_read_mov:
	movl %dr0, %eax
	ret
pm32_s_gd_write:
	movl pm32_cb_ptr, %ebx
	movl PM32_CB_ARG(%ebx), %ecx
	movl $(0x400 | 0x2000), %eax
	movl %eax, %dr7
pm32_gd_write_mov:
	movl %ecx, %dr1
	ret

/* ---- 190 task-switch-trap, 191 task-switch-step --------------------------- */
/* The first task switches to the far pointer in mark[8] (offset) / mark[9]
 * (selector: a TSS or a task gate) by JMP or CALL; the other task comes back. */
	.globl pm32_s_ts_jmp, pm32_s_ts_call
pm32_s_ts_jmp:
	movl pm32_cb_ptr, %ebx
	ljmp *MARK(8)
	movl pm32_cb_ptr, %ebx
	incl MARK(3)                            /* back in the first task */
	movl MARK(1), %eax
	ret
pm32_s_ts_call:
	movl pm32_cb_ptr, %ebx
	lcall *MARK(8)
	movl pm32_cb_ptr, %ebx
	incl MARK(3)
	movl MARK(1), %eax
	ret

/* Task A for JMP: DR7 as it finds it, then a JMP back to the first task. */
	.globl pm32_ts_a_jmp
pm32_ts_a_jmp:
	movl %dr7, %eax
	movl pm32_cb_ptr, %ebx
	movl %eax, MARK(0)
	incl MARK(1)
	pushfl
	popl MARK(2)
	ljmp $PM32_SEL_TSS_MAIN, $0
	ud2

/* Task A for CALL: the same, back with IRET (NT=1: to the previous task). */
	.globl pm32_ts_a_call
pm32_ts_a_call:
	movl %dr7, %eax
	movl pm32_cb_ptr, %ebx
	movl %eax, MARK(0)
	incl MARK(1)
	pushfl
	popl MARK(2)
	iret
	ud2

/* Task A entered with EFLAGS.TF=1 from its TSS (191): the first trap comes after
 * its first instruction (SDM 17.3.1.4). */
	.globl pm32_ts_a_step, pm32_ts_s1, pm32_ts_s2, pm32_ts_s3, pm32_ts_s4, pm32_ts_s5, pm32_ts_s6
pm32_ts_a_step:
pm32_ts_s1:
	nop
pm32_ts_s2:
	nop
pm32_ts_s3:
	pushfl
pm32_ts_s4:
	andl $~RFLAGS_TF, (%esp)
pm32_ts_s5:
	popfl
pm32_ts_s6:
	movl pm32_cb_ptr, %ebx
	incl MARK(1)
	ljmp $PM32_SEL_TSS_MAIN, $0
	ud2

/* The first task steps into a JMP to task A (TF=0 in A's TSS), and comes back
 * with TF=1 from its own TSS: the first trap after the return comes after the
 * first instruction (SDM 17.3.1.4), then one per instruction until POPF. */
	.globl pm32_s_ts_step_out, pm32_ts_o_jmp, pm32_ts_o2, pm32_ts_o3, pm32_ts_o4
pm32_s_ts_step_out:
	movl pm32_cb_ptr, %ebx
	pushfl
	orl $RFLAGS_TF, (%esp)
	popfl
pm32_ts_o_jmp:
	ljmp *MARK(8)
pm32_ts_o1:
	pushfl
pm32_ts_o2:
	andl $~RFLAGS_TF, (%esp)
pm32_ts_o3:
	popfl
pm32_ts_o4:
	movl MARK(1), %eax
	ret

/* ---- 192 task-gate-db, 193 task-gate-bp ----------------------------------- */
	.globl pm32_s_tg_icebp, pm32_tg_icebp, pm32_tg_icebp_next
pm32_s_tg_icebp:
	xorl %eax, %eax
pm32_tg_icebp:
	.byte 0xf1
pm32_tg_icebp_next:
	incl %eax
	ret

	.globl pm32_s_tg_step, pm32_tg_t2, pm32_tg_t3, pm32_tg_t4, pm32_tg_t5
pm32_s_tg_step:
	pushfl
	orl $RFLAGS_TF, (%esp)
	popfl
	nop
pm32_tg_t2:
	pushfl
pm32_tg_t3:
	andl $~RFLAGS_TF, (%esp)
pm32_tg_t4:
	popfl
pm32_tg_t5:
	ret

	.globl pm32_s_tg_int3, pm32_tg_cc_next, pm32_tg_cd_next
pm32_s_tg_int3:
	xorl %eax, %eax
	int3
pm32_tg_cc_next:
	incl %eax
	.byte 0xcd, 0x03
pm32_tg_cd_next:
	incl %eax
	ret

/* ---- 105-108 data and I/O breakpoints: one access per run ------------------ */
/* cb->arg = address (or port), mark[0] = value, mark[1] = which access; the
 * scenario returns the address right after the access instruction, where a
 * trap-class #DB must be reported. */
	.globl pm32_s_access
pm32_s_access:
	movl pm32_cb_ptr, %ebx
	movl PM32_CB_ARG(%ebx), %ecx
	movl MARK(1), %edx
	movl MARK(0), %eax
	jmp *pm32_acc_table(, %edx, 4)

	.macro acc name, insn:vararg
pm32_acc_\name:
	movl %ecx, %edx                         /* the port, for IN/OUT with DX */
	\insn
1:	movl $1b, %eax
	ret
	.endm
	acc wr8, movb %al, (%ecx)
	acc wr16, movw %ax, (%ecx)
	acc wr32, movl %eax, (%ecx)
	acc rd8, movzbl (%ecx), %edx
	acc rd16, movzwl (%ecx), %edx
	acc rd32, movl (%ecx), %edx
	acc inc8, incb (%ecx)
	acc outb, outb %al, %dx
	acc inb, inb %dx, %al
	acc inw, inw %dx, %ax
	acc outb80, outb %al, $0x80
	acc inb80, inb $0x80, %al

	.section .rodata
	.balign 4
pm32_acc_table:
	.long pm32_acc_wr8, pm32_acc_wr16, pm32_acc_wr32, pm32_acc_rd8, pm32_acc_rd16
	.long pm32_acc_rd32, pm32_acc_inc8, pm32_acc_outb, pm32_acc_inb, pm32_acc_inw
	.long pm32_acc_outb80, pm32_acc_inb80
	.text

/* ---- 110 movss-shadow: MOV SS and POP SS (POP SS exists outside 64-bit mode) */
	.globl pm32_s_sh_tf, pm32_sh_a2, pm32_sh_a4, pm32_sh_a5, pm32_sh_a6, pm32_sh_a7, pm32_sh_a8
pm32_s_sh_tf:
	movl %ss, %eax
	pushfl
	orl $RFLAGS_TF, (%esp)
	popfl
	nop
pm32_sh_a2:
	movl %eax, %ss                          /* no trap after this one */
	nop
pm32_sh_a4:
	pushl %ss
pm32_sh_a5:
	popl %ss                                /* nor after this one */
	nop
pm32_sh_a6:
	pushfl
pm32_sh_a7:
	andl $~RFLAGS_TF, (%esp)
pm32_sh_a8:
	popfl
pm32_sh_a9:
	ret
	.globl pm32_sh_a9

/* cb->arg = address of a word holding SS: its read hits a data breakpoint */
	.globl pm32_s_sh_data, pm32_sh_b2, pm32_sh_b3
pm32_s_sh_data:
	movl pm32_cb_ptr, %ebx
	movl PM32_CB_ARG(%ebx), %ecx
	movw (%ecx), %ss                        /* DB deferred past the next instruction */
pm32_sh_b2:
	nop
pm32_sh_b3:
	ret

	.globl pm32_s_sh_exec, pm32_sh_c2
pm32_s_sh_exec:
	xorl %edx, %edx
	movl %ss, %eax
	movl %eax, %ss
pm32_sh_c2:
	incl %edx                               /* instruction breakpoint here */
	movl %edx, %eax
	ret

/* ---- 905/906: the runner's recovery from protected mode ------------------- */
	.globl pm32_s_fault_in_task, pm32_fault_task, pm32_fault_ud
pm32_s_fault_in_task:
	ljmp $PM32_SEL_TSS_A, $0                /* task A faults; nobody comes back here */
	ud2
pm32_fault_task:
	nop
pm32_fault_ud:
	ud2

	.globl pm32_s_hang
pm32_s_hang:
1:	pause
	jmp 1b

/* ---- 201 bts-circular in protected mode (book ex14-9, the mode it was written
 * for): DEBUGCTL = arg (TR|BTS), eleven JMPs, DEBUGCTL = mark[0]. ----------- */
	.macro bts_jmp k, n
	.globl pm32_bts_j\k
pm32_bts_j\k:
	jmp pm32_bts_j\n
	.endm
	.globl pm32_s_bts11
pm32_s_bts11:
	movl pm32_cb_ptr, %ebx
	movl PM32_CB_ARG(%ebx), %eax
	xorl %edx, %edx
	movl $0x1d9, %ecx                       /* IA32_DEBUGCTL */
	wrmsr
	bts_jmp 0, 1
	bts_jmp 1, 2
	bts_jmp 2, 3
	bts_jmp 3, 4
	bts_jmp 4, 5
	bts_jmp 5, 6
	bts_jmp 6, 7
	bts_jmp 7, 8
	bts_jmp 8, 9
	bts_jmp 9, 10
	bts_jmp 10, 11
	.globl pm32_bts_j11
pm32_bts_j11:
	movl pm32_cb_ptr, %ebx
	movl MARK(0), %eax
	xorl %edx, %edx
	movl $0x1d9, %ecx
	wrmsr
	ret

/* ---- 912: a double fault (UD whose gate and NP's gate are not present) ----- */
	.globl pm32_s_double_fault, pm32_df_ud
pm32_s_double_fault:
	nop
pm32_df_ud:
	ud2
	ret

/* ---- a batch of accesses in one trip (105-108): cb->arg = the probe array,
 * mark[0] = how many.  Per probe (24 bytes): access, address, value, then
 * written here: the address after the access, the event count before and after. */
	.globl pm32_s_batch
pm32_s_batch:
	movl pm32_cb_ptr, %ebx
	movl PM32_CB_ARG(%ebx), %esi
	movl MARK(0), %edi
1:	testl %edi, %edi
	jz 2f
	movl pm32_cb_ptr, %ebx
	movl PM32_CB_NEVENTS(%ebx), %eax
	movl %eax, 16(%esi)
	movl 0(%esi), %edx
	movl 4(%esi), %ecx
	movl 8(%esi), %eax
	pushl %esi
	pushl %edi
	call *pm32_acc_table(, %edx, 4)
	popl %edi
	popl %esi
	movl %eax, 12(%esi)
	movl pm32_cb_ptr, %ebx
	movl PM32_CB_NEVENTS(%ebx), %eax
	movl %eax, 20(%esi)
	addl $24, %esi
	decl %edi
	jmp 1b
2:	ret
