/* #GP-safe MSR access (kernel/msr_safe.c). */
#ifndef KERNEL_MSR_SAFE_H
#define KERNEL_MSR_SAFE_H
#include <stdbool.h>
#include <stdint.h>

/* false (and *v untouched) if the instruction faulted */
bool rdmsr_safe(uint32_t msr, uint64_t *v);
bool wrmsr_safe(uint32_t msr, uint64_t v);

#endif
