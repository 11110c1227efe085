/* The one performance-monitor interrupt handler shared by BTS, PMU and PEBS
 * (kernel/pmi.c); the Debug Store's hardware side is kernel/ds_area.h, the PMU
 * MSR save/restore kernel/pmu_state.h.
 *
 * Experiments describe what they armed (struct pmi_client) and the handler,
 * installed on VEC_PMI at boot, does the SDM's sequence (vol.3 17.4.9.5 "Writing
 * the DS Interrupt Service Routine"): disable tracing/PEBS on entry, classify
 * every cause present (lib/pmi_cause.c), call the client's hooks for each, reset
 * indexes, clear status, unmask LVT perfmon, re-enable, EOI.  The runner calls
 * pmi_reset() after every experiment. */
#ifndef KERNEL_PMI_H
#define KERNEL_PMI_H
#include <stdbool.h>
#include <stdint.h>
#include "trap.h"
#include "pmi_cause.h"

void pmi_handler(struct trap_frame *tf);

/* ---- PMI clients ---------------------------------------------------------- */

struct pmi_event {
	struct trap_frame *tf;
	struct pmi_input in;            /* status and DS pointers as read on entry */
	struct pmi_causes c;
	uint64_t debugctl, pebs_enable, global_ctrl;    /* found on entry */
	uint32_t seq;                   /* 1-based PMI number since pmi_reset() */
};

struct pmi_client;
typedef void (*pmi_hook_t)(struct pmi_client *c, struct pmi_event *e);
typedef void (*pmi_range_hook_t)(struct pmi_client *c, struct pmi_event *e,
				 uint64_t from, uint64_t to);

struct pmi_client {
	const char *name;
	/* what the experiment armed: decides which status bits are expected */
	uint64_t gp_armed;              /* bit n: PMCn (PerfCtrn on AMD) */
	uint64_t fixed_armed;
	bool bts, pebs, topa;
	/* hooks, each optional; all run with tracing and counters stopped */
	pmi_hook_t on_pmi;              /* every PMI, before the others */
	pmi_hook_t on_counter;          /* an armed counter overflowed */
	pmi_range_hook_t on_bts;        /* BTS threshold: records [from, to), before the rewind */
	pmi_range_hook_t on_pebs;       /* new PEBS records [from, to) */
	pmi_hook_t on_pebs_full;        /* OvfDSBuffer / PEBS threshold, before the rewind */
	pmi_hook_t on_other;            /* ToPA, uncore, unknown, spurious */
	bool keep_bts_index;            /* don't rewind BTS on threshold */
	bool keep_pebs_index;           /* don't rewind PEBS on overflow */
	void *priv;
	/* kept by the handler */
	uint32_t n_pmi, n_counter, n_bts, n_pebs, n_pebs_full, n_other;
	uint64_t gp_ovf, fixed_ovf;     /* every overflow bit seen */
	uint32_t causes;                /* every PMI_ cause seen */
};

/* A PMI reaches the handler only through the local APIC's LVT perfmon entry
 * (SDM vol.3 11.5.1, 20.6.3.5.8; AMD APM vol.2 13.2.1/16.4): on a CPU with a
 * PMU but no local APIC (CPUID.01H:EDX.APIC[9]=0 or IA32_APIC_BASE.EN=0) no
 * interrupt-on-overflow, BTINT or PEBS-threshold interrupt can come.  An
 * experiment that counts on one calls pmi_require() after its own feature
 * checks and before arming anything: false means the experiment is marked
 * SKIP with apic_absent_reason(), the reason 502/510 give. */
bool pmi_require(void);

#define PMI_MAX_CLIENTS 4
/* false: no free slot, or no local APIC to deliver the PMI (see pmi_require) */
bool pmi_register(struct pmi_client *c);
void pmi_unregister(struct pmi_client *c);
/* Forget every client and statistic; the runner calls it after each experiment. */
void pmi_reset(void);
/* PMIs taken since pmi_reset(), and how many had no cause. */
uint32_t pmi_count(void);
uint32_t pmi_spurious(void);
/* The handler's notion of "PEBS records already seen": main.c registers it as
 * kernel/ds_area.c's install hook, so ds_install() sets it. */
void pmi_pebs_seen_set(uint64_t index);

#endif
