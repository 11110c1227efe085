/* The experiment runner (kernel/runner.c). */
#ifndef KERNEL_RUNNER_H
#define KERNEL_RUNNER_H
#include "cmdline.h"
#include "trap.h"

void runner_main(const struct cmdline *cl);
/* From trap context: an exception nobody expected, or the watchdog fired. */
void runner_unexpected(struct trap_frame *tf) __attribute__((noreturn));
void runner_watchdog(struct trap_frame *tf);
void user_return(struct trap_frame *tf);
void idt_load(void);
void kernel_exit(bool all_passed) __attribute__((noreturn));

struct kctx { uint64_t rip, rsp, rbp, rbx, r12, r13, r14, r15; };
int ctx_save(struct kctx *c) __attribute__((returns_twice));
void ctx_resume(struct kctx *c) __attribute__((noreturn));

#endif
