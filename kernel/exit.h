/* Ending the run (kernel/exit.c). */
#ifndef KERNEL_EXIT_H
#define KERNEL_EXIT_H
#include <stdbool.h>

/* The hardware report and the final screen, then QEMU's isa-debug-exit,
 * Bochs's shutdown port, or halt. */
void kernel_exit(bool all_passed) __attribute__((noreturn));

#endif
