/* Performance-counter arithmetic at any counter width (Intel SDM vol.3,
 * "Architectural Performance Monitoring", "Full-Width Writes to Performance
 * Counter Registers"; AMD APM vol.2 13.2).
 *
 * A counter of width w (CPUID.0AH:EAX[23:16] for general, EDX[12:5] for fixed
 * counters; 48 on AMD) counts modulo 2^w and overflows - sets its
 * IA32_PERF_GLOBAL_STATUS bit and, with INT/PMI set, raises a PMI - when it
 * wraps from 2^w - 1 to 0.  To get the PMI after exactly N events software
 * presets the counter to 2^w - N ("-N masked to the width").
 *
 * Writing the counter:
 *  - WRMSR to IA32_PMCx (legacy) writes bits 31:0 from EAX and sign-extends bit
 *    31 into bits w-1:32; EDX is ignored.  So only presets whose bits w-1:31 are
 *    all equal can be written: N <= 2^31 (or N > 2^w - 2^31).
 *  - with IA32_PERF_CAPABILITIES.FW_WRITE[13], WRMSR to IA32_A_PMCx writes all w
 *    bits; setting a bit at or above w raises #GP.
 *  - fixed counters and AMD PerfCtr take the full width directly. */
#ifndef LIB_PMC_H
#define LIB_PMC_H
#include <stdbool.h>
#include <stdint.h>

/* 2^w - 1 (w in 1..64; 0 gives 0) */
uint64_t pmu_mask(unsigned width);
/* Counter value that overflows after exactly n increments (n >= 1, n <= 2^w). */
uint64_t pmu_preset(uint64_t n, unsigned width);
/* What a legacy IA32_PMCx write of `v` leaves in a counter of this width. */
uint64_t pmu_legacy_write(uint64_t v, unsigned width);
/* Would a full-width write of v succeed (no bit at or above width)? */
bool pmu_fw_write_ok(uint64_t v, unsigned width);
/* Can the preset for n events be written?  With fw=false only through the
 * legacy alias (bits w-1:31 of the preset all equal); with fw=true any n in
 * 1..2^w. */
bool pmu_preset_writable(uint64_t n, unsigned width, bool fw);
/* Counter after k increments from v, and how many times it wrapped (each wrap
 * is one overflow; a PMI is raised for the first). */
uint64_t pmu_advance(uint64_t v, uint64_t k, unsigned width, uint64_t *wraps);
/* Did counting from `before` to `after` (fewer than 2^w increments) wrap? */
bool pmu_overflowed(uint64_t before, uint64_t after, uint64_t k, unsigned width);
/* Events counted between two readings (modular). */
uint64_t pmu_delta(uint64_t before, uint64_t after, unsigned width);
/* Increments left before the next overflow from v. */
uint64_t pmu_until_overflow(uint64_t v, unsigned width);

#endif
