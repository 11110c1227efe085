/* Saved kernel contexts (kernel/entry.S): a setjmp/longjmp for leaving an
 * experiment from trap context (the runner) or ring 3 (kernel/user.c). */
#ifndef KERNEL_CTX_H
#define KERNEL_CTX_H

#include <stdint.h>

struct kctx { uint64_t rip, rsp, rbp, rbx, r12, r13, r14, r15; };
int ctx_save(struct kctx *c) __attribute__((returns_twice));
void ctx_resume(struct kctx *c) __attribute__((noreturn));

#endif
