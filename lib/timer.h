/* Arithmetic of timers that count down from a register narrower than the wait. */
#ifndef LIB_TIMER_H
#define LIB_TIMER_H
#include <stdint.h>

/* A wait of *left ticks on a 32-bit down-counter (the local APIC timer's initial
 * count, SDM vol.3 11.5.4) is a chain of armings: returns the count for the next
 * one (at most 0xffffffff) and takes it off *left.  0 once nothing is left. */
uint32_t timer_chain_next(uint64_t *left);

#endif
