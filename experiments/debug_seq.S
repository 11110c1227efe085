/* Shared instruction sequences of the debug experiments (119-163).
 *
 * Each sequence is a function (SysV ABI; rdi, rsi, rdx are its arguments) whose
 * instruction boundaries carry global labels, so that the C side can name the exact
 * RIP the SDM/APM predicts for every #DB, #BP or fault.  Unless a comment says
 * "CPL 0", a sequence runs at CPL 0 and CPL 3 alike (the CPL-3 experiments call the
 * same code through run_user()); "IOPL 3" marks the ones that need IOPL 3 there.
 *
 * TF_ON sets RFLAGS.TF with POPF: no single-step trap after that POPF (SDM vol.3
 * 18.3.1.4), so stepping starts after the instruction that follows it.  TF_OFF p
 * clears it again with three traced instructions whose trap RIPs are p_off1, p_off2
 * and p_off3 (the POPF that clears TF still traps: TF was set when it began). */
#include "apicdef.h"

	.macro TF_ON
	pushfq
	orq $0x100, (%rsp)
	popfq
	.endm

	.macro TF_OFF p
	.global \p\()_off1, \p\()_off2, \p\()_off3
	pushfq
\p\()_off1:
	andq $-0x101, (%rsp)
\p\()_off2:
	popfq
\p\()_off3:
	.endm

	/* The MOV SS shadow: eax must hold the current SS (MOV SS loads it again). */
	.macro MOVSS_SHADOW
	mov %eax, %ss
	.endm

	.text

/* 119/150 STI while stepping: the STI shadow blocks maskable interrupts only, not
 * the single-step trap after STI.  IOPL 3 at CPL 3. */
	.global dq_sti, dq_sti_1, dq_sti_2
dq_sti:
	cli
	TF_ON
	sti
dq_sti_1:
	nop
dq_sti_2:
	TF_OFF dq_sti
	ret

/* 120 STI;HLT while stepping, woken by a timer interrupt.  CPL 0; the caller has
 * interrupts off and the timer armed. */
	.global dq_hlt, dq_hlt_at, dq_hlt_next, dq_hlt_2
dq_hlt:
	TF_ON
	sti
dq_hlt_at:
	hlt
dq_hlt_next:
	nop
dq_hlt_2:
	TF_OFF dq_hlt
	ret

/* 121/151 stepping over instructions emulators implement in helpers: CPUID, RDTSC,
 * IN, OUT.  IOPL 3 at CPL 3. */
	.global dq_emul, dq_emul_1, dq_emul_2, dq_emul_3, dq_emul_4, dq_emul_5, dq_emul_6
dq_emul:
	push %rbx
	TF_ON
	nop
dq_emul_1:
	xor %eax, %eax
dq_emul_2:
	cpuid
dq_emul_3:
	rdtsc
dq_emul_4:
	inb $0x80, %al
dq_emul_5:
	outb %al, $0x80
dq_emul_6:
	TF_OFF dq_emul
	pop %rbx
	ret

/* 123/152 stepping over far transfers: JMP m16:32 and RETF (64-bit), to the same
 * code segment.  rdi = the current CS selector. */
	.global dq_far, dq_far_0, dq_far_1, dq_far_2, dq_far_3, dq_far_4, dq_far_5
dq_far:
	sub $16, %rsp
	lea dq_far_1(%rip), %rax
	mov %eax, (%rsp)                /* m16:32: offset, then selector */
	mov %di, 4(%rsp)
	TF_ON
	nop
dq_far_0:
	ljmp *(%rsp)
	ud2
dq_far_1:
	push %rdi
dq_far_2:
	lea dq_far_5(%rip), %rax
dq_far_3:
	push %rax
dq_far_4:
	lretq
	ud2
dq_far_5:
	TF_OFF dq_far
	add $16, %rsp
	ret

/* 124 stepping over SYSCALL and SYSRET.  Called at CPL 3; LSTAR = dq_sysc_entry,
 * IA32_FMASK leaves TF alone, so the kernel side is stepped too. */
	.global dq_sysc, dq_sysc_1, dq_sysc_2, dq_sysc_3, dq_sysc_entry, dq_sysc_k1
dq_sysc:
	TF_ON
	nop
dq_sysc_1:
	syscall
dq_sysc_2:
	nop
dq_sysc_3:
	TF_OFF dq_sysc
	ret
dq_sysc_entry:                          /* CPL 0, on the user stack, TF still set */
	nop
dq_sysc_k1:
	sysretq

/* 125/153 stepping onto an instruction that faults: DIV by zero (#DE); the handler
 * resumes at dq_fault_2. */
	.global dq_fault, dq_fault_1, dq_fault_2, dq_fault_3
dq_fault:
	xor %ecx, %ecx
	xor %edx, %edx
	mov $1, %eax
	TF_ON
	nop
dq_fault_1:
	divl %ecx
dq_fault_2:
	nop
dq_fault_3:
	TF_OFF dq_fault
	ret

/* 126/154 stepping a REP MOVSB of 3 bytes: rdi = destination, rsi = source. */
	.global dq_rep, dq_rep_1, dq_rep_2
dq_rep:
	mov $3, %ecx
	TF_ON
	nop
dq_rep_1:
	rep movsb
dq_rep_2:
	TF_OFF dq_rep
	ret

/* 127/154 the same REP MOVSB without TF (a data breakpoint in the middle). */
	.global dq_repd, dq_repd_1, dq_repd_2
dq_repd:
	mov $3, %ecx
dq_repd_1:
	rep movsb
dq_repd_2:
	ret

/* 128/162 TF set by a POPF that sits in a MOV SS shadow. */
	.global dq_pm, dq_pm_1, dq_pm_2
dq_pm:
	mov %ss, %eax
	pushfq
	orq $0x100, (%rsp)
	MOVSS_SHADOW
	popfq                           /* sets TF, inside the shadow */
dq_pm_1:
	nop
dq_pm_2:
	TF_OFF dq_pm
	ret

/* 129 TF, MOV SS, then two ICEBPs. */
	.global dq_mi, dq_mi_0, dq_mi_1, dq_mi_2, dq_mi_3
dq_mi:
	mov %ss, %eax
	TF_ON
	MOVSS_SHADOW
dq_mi_0:
	.byte 0xf1                      /* ICEBP in the shadow */
dq_mi_1:
	.byte 0xf1                      /* ICEBP out of it */
dq_mi_2:
	nop
dq_mi_3:
	TF_OFF dq_mi
	ret

/* 130 TF, DR7.GD, MOV SS, then a MOV from DR0 in the shadow.  CPL 0; rdi = the DR7
 * value with GD, written just before stepping starts. */
	.global dq_mg, dq_mg_1, dq_mg_2, dq_mg_3
dq_mg:
	mov %ss, %eax
	mov %rdi, %db7
	TF_ON
	MOVSS_SHADOW
dq_mg_1:
	mov %db0, %rdx
dq_mg_2:
	nop
dq_mg_3:
	TF_OFF dq_mg
	ret

/* 131 TF, MOV SS, then INT3 in the shadow. */
	.global dq_mb, dq_mb_0, dq_mb_1, dq_mb_2, dq_mb_end
dq_mb:
	mov %ss, %eax
	TF_ON
	MOVSS_SHADOW
dq_mb_0:
	int3
dq_mb_1:
	nop
dq_mb_2:
	TF_OFF dq_mb
	ret
dq_mb_end:

/* 132-134 a data breakpoint on MOV SS's operand (rdi = a word holding SS), then a
 * software exception in the shadow: INT3, INT 1 (CD 01), ICEBP (F1). */
	.global dq_md3, dq_md3_0, dq_md3_1, dq_md1, dq_md1_0, dq_md1_1, dq_mdi, dq_mdi_0, dq_mdi_1
dq_md3:
	mov (%rdi), %ss
dq_md3_0:
	int3
dq_md3_1:
	ret
dq_md1:
	mov (%rdi), %ss
dq_md1_0:
	.byte 0xcd, 0x01
dq_md1_1:
	ret
dq_mdi:
	mov (%rdi), %ss
dq_mdi_0:
	.byte 0xf1
dq_mdi_1:
	ret

/* 136 TF and a data write on the same instruction: rdi = the watched byte. */
	.global dq_tfst, dq_tfst_1, dq_tfst_2
dq_tfst:
	TF_ON
	nop
dq_tfst_1:
	movb $0x5a, (%rdi)
dq_tfst_2:
	TF_OFF dq_tfst
	ret

/* 137 an instruction breakpoint on a DIV that faults (#DE). */
	.global dq_xf, dq_xf_1, dq_xf_2
dq_xf:
	xor %ecx, %ecx
	xor %edx, %edx
	mov $1, %eax
dq_xf_1:
	divl %ecx
dq_xf_2:
	ret

/* 160 an instruction breakpoint on INT3. */
	.global dq_xb, dq_xb_1, dq_xb_2
dq_xb:
dq_xb_1:
	int3
dq_xb_2:
	ret

/* 138 single-step landing on an instruction breakpoint (at dq_sb_1). */
	.global dq_sb, dq_sb_1, dq_sb_2
dq_sb:
	xor %eax, %eax
	TF_ON
	nop
dq_sb_1:
	inc %eax
dq_sb_2:
	TF_OFF dq_sb
	ret

/* 139 a MOV from DR0 to break on (instruction breakpoint) or to step onto, with
 * DR7.GD set.  CPL 0; rdi = the DR7 value, written first; returns DR0. */
	.global dq_gx, dq_gx_1, dq_gx_2, dq_gs, dq_gs_1, dq_gs_2, dq_gs_3
dq_gx:
	mov %rdi, %db7
dq_gx_1:
	mov %db0, %rax
dq_gx_2:
	ret
dq_gs:
	mov %rdi, %db7
	TF_ON
	nop
dq_gs_1:
	mov %db0, %rax
dq_gs_2:
	nop
dq_gs_3:
	TF_OFF dq_gs
	ret

/* 144/145 INT 1 spelled CD 01: a software interrupt, DPL-checked. */
	.global dq_int1, dq_int1_1
dq_int1:
	.byte 0xcd, 0x01
dq_int1_1:
	ret

/* 148 an OUT to port 80H at CPL 3 (IOPL 3). */
	.global dq_out80, dq_out80_1
dq_out80:
	outb %al, $0x80
dq_out80_1:
	ret

/* 149 a MOV from DR7 (CPL 3: #GP(0), resumed at dq_movdr_1). */
	.global dq_movdr, dq_movdr_1
dq_movdr:
	mov %db7, %rax
dq_movdr_1:
	ret

/* 157 a prefixed instruction: 66 90 (XCHG AX, AX) starting at dq_pfx_0. */
	.global dq_pfx, dq_pfx_0, dq_pfx_1, dq_pfx_2
dq_pfx:
dq_pfx_0:
	.byte 0x66
dq_pfx_1:
	.byte 0x90
dq_pfx_2:
	ret

/* 158 IRETQ with RF=1 to a store (rdi = the byte it writes). */
	.global dq_rf, dq_rf_1, dq_rf_2
dq_rf:
	mov %rsp, %rdx
	mov %ss, %eax
	push %rax
	push %rdx
	pushfq
	orq $0x10000, (%rsp)
	mov %cs, %eax
	push %rax
	lea dq_rf_1(%rip), %rax
	push %rax
	iretq
dq_rf_1:
	movb $0x5a, (%rdi)
dq_rf_2:
	ret

/* 161 a CALL whose return-address push hits a write watch on its stack slot.
 * CPL 0; rdi = the DR7 value arming DR0, which the sequence points at the slot. */
	.global dq_push, dq_push_ret, dq_push_callee
dq_push:
	lea -8(%rsp), %rax
	mov %rax, %db0
	mov %rdi, %db7
	call dq_push_callee
dq_push_ret:
	mov $0x400, %eax
	mov %rax, %db7
	ret
dq_push_callee:
	nop
	ret

/* 141 a store inside an RTM transaction: rdi = the byte.  Returns 0 if the
 * transaction committed, 1 if it aborted to dq_rtm_fb (the fallback address). */
	.global dq_rtm, dq_rtm_fb
dq_rtm:
	xbegin dq_rtm_fb
	movb $1, (%rdi)
	xend
	xor %eax, %eax
	ret
dq_rtm_fb:
	mov $1, %eax
	ret

/* 142/143 a LOCKed increment of the dword at rdi (split across a cache line by the
 * caller). */
	.global dq_lock, dq_lock_0, dq_lock_1
dq_lock:
dq_lock_0:
	lock incl (%rdi)
dq_lock_1:
	ret
