/* What the 2xx BTS and 3xx PMU/PEBS experiments share: feature gates with the
 * exact SKIP reasons, counter programming in the SDM's order, and the workloads
 * whose instruction and branch counts are known. */
#ifndef EXPERIMENTS_PMU_COMMON_H
#define EXPERIMENTS_PMU_COMMON_H
#include <stdbool.h>
#include <stdint.h>
#include "ds_area.h"
#include "pmi.h"
#include "pmu_state.h"
#include "pebs_model.h"

/* Intel architectural perfmon of at least this version with a working PMC0:
 * false after exp_skip() with the reason.  need_inst_retired also requires the
 * instructions-retired event (CPUID.0AH:EBX[1] = 0). */
bool pmu_gate_intel(unsigned min_version, bool need_inst_retired);
/* Write general counter n: IA32_A_PMCn with full-width writes, else IA32_PMCn
 * (32 bits, sign-extended by the processor). */
bool pmc_write(unsigned n, uint64_t v);
uint64_t pmc_read(unsigned n);
bool pmu_full_width(void);
/* Stop everything (GLOBAL_CTRL = 0, event selects / fixed control off, PEBS off
 * after the counters) and clear the overflow status: a clean start. */
void pmu_quiesce(void);

/* retired-instruction event codes */
#define EVT_INST_RETIRED_ANY_P  0xc0    /* Intel arch event, umask 0 */
#define AMD_EVT_RETIRED_INSTR   0xc0

/* pmu_loop(iters): 2 * iters + 2 instructions (the loop and its ret) */
void pmu_loop(uint64_t iters);

/* PEBS set-up on PMC0..: the DS area, layout and (adaptive) data configuration.
 * false after exp_skip()/exp_fail(). */
struct pebs_setup {
	struct ds_area ds;
	enum pebs_layout layout;
	uint64_t data_cfg;              /* adaptive only */
	uint32_t rec_size;
	bool adaptive;
	struct pebs_format fmt;         /* how records read (timed, split latency) */
	struct pebs_plan plan;          /* counters by the model's PEBS constraints */
};
bool pebs_prepare(struct pebs_setup *p, uint64_t data_cfg, uint32_t bts_records,
		  uint32_t bts_thresh, uint32_t pebs_records, uint32_t pebs_thresh);
/* IA32_PERFEVTSELx bit 34: write adaptive (PEBS_DATA_CFG) records */
#define EVTSEL_ADAPTIVE         (1ull << 34)
/* The CPU as lib/pebs_model.c sees it (family/model/stepping, microcode, hybrid
 * core type from CPUID.1AH:EAX[31:24]). */
void pebs_cpu_fill(struct pebs_cpu *c);
/* Nehalem errata AAK100/AAP53/BD53: before counters are (re)programmed, the
 * three "magic" events must count once on PMC0-3 (the sequence Intel gives in
 * the specification updates); only where the model row asks for it. */
void pmu_nhm_reset(const struct pebs_plan *p);

#endif
