/* 64-bit interrupt entry points, context save/resume for the runner, ring-3 entry. */
#include "apicdef.h"
#include "seg.h"
#include "vectors.h"

	.text
	.macro vector_entry v
	.balign 16
	.if VEC_HAS_ERR(\v)
	pushq $\v
	.else
	pushq $0
	pushq $\v
	.endif
	jmp trap_common
	.endm

	.altmacro
	.balign 16
	.globl trap_entries
trap_entries:
	.set vec, 0
	.rept 256
	vector_entry %vec
	.set vec, vec + 1
	.endr
	.noaltmacro

/* trap_entries + 16 * v is vector v's entry (each entry is padded to 16 bytes). */
trap_common:
	/* the entry left the vector at (%rsp) and the error code above it: exactly the
	 * vector/error fields of struct trap_frame once the registers are pushed */
	pushq %rax
	pushq %rbx
	pushq %rcx
	pushq %rdx
	pushq %rsi
	pushq %rdi
	pushq %rbp
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	cld
	movq %rsp, %rdi
	movq %rsp, %rbx
	andq $-16, %rsp
	call trap_dispatch
	movq %rbx, %rsp
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rbp
	popq %rdi
	popq %rsi
	popq %rdx
	popq %rcx
	popq %rbx
	popq %rax
	addq $16, %rsp
	iretq

/* int ctx_save(struct kctx *c): like setjmp; returns 0, or 1 when resumed. */
	.globl ctx_save
ctx_save:
	movq (%rsp), %rax
	movq %rax, 0(%rdi)              /* rip */
	leaq 8(%rsp), %rax
	movq %rax, 8(%rdi)              /* rsp after return */
	movq %rbp, 16(%rdi)
	movq %rbx, 24(%rdi)
	movq %r12, 32(%rdi)
	movq %r13, 40(%rdi)
	movq %r14, 48(%rdi)
	movq %r15, 56(%rdi)
	xorl %eax, %eax
	ret

/* void ctx_resume(struct kctx *c): never returns; ctx_save returns 1.  Goes
 * through an IRETQ to itself so that NMI blocking ends even when we leave an
 * NMI handler this way (SDM vol.3 7.7: blocked until the next IRET). */
	.globl ctx_resume
ctx_resume:
	movq 8(%rdi), %rsp
	movq 16(%rdi), %rbp
	movq 24(%rdi), %rbx
	movq 32(%rdi), %r12
	movq 40(%rdi), %r13
	movq 48(%rdi), %r14
	movq 56(%rdi), %r15
	movq 0(%rdi), %rcx
	movq %rsp, %rax
	pushq $SEL_KDATA                /* ss */
	pushq %rax                      /* rsp */
	pushq $2                        /* rflags: IF=0, the runner decides */
	pushq $SEL_KCODE64
	pushq %rcx                      /* rip */
	movl $1, %eax
	iretq

/* void user_enter(uint64_t rip, uint64_t rsp, void (*fn)(void *), void *arg, uint64_t rflags)
 * IRETQ to CPL 3 at user_thunk with fn/arg in rbx/r12 and the given RFLAGS. */
	.globl user_enter
user_enter:
	movq %rdx, %rbx
	movq %rcx, %r12
	pushq $(SEL_UDATA | 3)
	pushq %rsi
	pushq %r8
	pushq $(SEL_UCODE64 | 3)
	pushq %rdi
	iretq

	.globl user_thunk
user_thunk:
	movq %r12, %rdi
	call *%rbx
	int $VEC_USER_RETURN
	ud2
