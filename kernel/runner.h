/* The experiment runner (kernel/runner.c). */
#ifndef KERNEL_RUNNER_H
#define KERNEL_RUNNER_H
#include "cmdline.h"
#include "trap.h"

void runner_main(const struct cmdline *cl);
/* Registered with kernel/trap.c: an exception nobody expected (main.c registers
 * it at boot), and the APIC timer that is the experiment watchdog. */
void runner_unexpected(struct trap_frame *tf) __attribute__((noreturn));
void runner_watchdog(struct trap_frame *tf);

#endif
