/* Interrupt/exception frames, per-vector handlers and #GP-safe MSR access. */
#ifndef KERNEL_TRAP_H
#define KERNEL_TRAP_H
#include <stdbool.h>
#include <stdint.h>
#include "msr_safe.h"       /* rdmsr_safe(), wrmsr_safe() */

/* Pushed by the entry points in kernel/entry.S; the CPU's frame starts at rip. */
struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error;
	uint64_t rip, cs, rflags, rsp, ss;
};

/* A handler may change the frame (rip, rflags: TF/RF) and returns to it. */
typedef void (*trap_handler_t)(struct trap_frame *tf);

/* Experiment-owned handler for a vector (e.g. #DB, #BP).  The runner restores the
 * defaults after every experiment, so an experiment never has to clean up. */
void trap_set_handler(int vector, trap_handler_t h);
void trap_reset_handlers(void);
/* The handler a vector has when no experiment set one, registered at boot by the
 * code that owns it (the PMI handler, the runner's watchdog on the APIC timer,
 * the ring-3 return): trap.c calls down into no one. */
void trap_set_default(int vector, trap_handler_t h);
/* What becomes of an exception nobody handles (the runner's recovery).  Without
 * one: the register dump, and the CPU halts. */
void trap_set_unexpected(trap_handler_t h);
void idt_load(void);
/* The IST slot of a vector's gate (0: no stack switch at CPL 0).  An experiment that
 * changes it puts it back itself (the IDT is shared by all CPUs). */
void trap_set_ist(int vector, int ist);
/* Print the full register dump and a short stack trace. */
void trap_dump(const struct trap_frame *tf);
const char *trap_name(int vector);


#endif
