/* The one performance-monitor interrupt handler shared by BTS, PMU and PEBS,
 * the hardware side of the Debug Store, and PMU MSR save/restore.
 *
 * Experiments describe what they armed (struct pmi_client) and the handler,
 * installed on VEC_PMI at boot, does the SDM's sequence (vol.3 17.4.9.5 "Writing
 * the DS Interrupt Service Routine"): disable tracing/PEBS on entry, classify
 * every cause present (lib/pmi.c), call the client's hooks for each, reset
 * indexes, clear status, unmask LVT perfmon, re-enable, EOI.  The runner calls
 * pmi_reset() after every experiment. */
#ifndef KERNEL_PMI_H
#define KERNEL_PMI_H
#include <stdbool.h>
#include <stdint.h>
#include "trap.h"
#include "ds.h"
#include "pebs.h"
#include "pmi_cause.h"

void pmi_handler(struct trap_frame *tf);

/* ---- Debug Store, hardware side (kernel/ds.c) ------------------------------ */

struct ds_area {
	enum ds_format fmt;             /* always DS_FMT64 in IA-32e mode */
	unsigned pebs_fmt;              /* IA32_PERF_CAPABILITIES.PEBS_FMT (0 without the MSR) */
	uint8_t *mgmt;                  /* management area; buffers follow it */
	uint32_t bts_rec;               /* 24 (64-bit format) */
	uint32_t bts_records;           /* 0: no BTS buffer */
	uint32_t pebs_rec;              /* fixed PEBS record size, or the adaptive size */
	uint32_t pebs_records;          /* 0: no PEBS buffer */
	enum pebs_layout pebs_layout;
	uint64_t pebs_cfg;              /* MSR_PEBS_DATA_CFG the layout assumes */
	bool pebs_timed, pebs_split_latency;    /* record reading (inc/pebs.h) */
	uint64_t saved_msr;             /* IA32_DS_AREA before ds_install() */
	bool installed;
};

/* NULL when the facility is usable, else the exact SKIP reason: CPUID first
 * (CPUID.01H:EDX.DS[21]=0), then IA32_MISC_ENABLE (BTS_UNAVAILABLE[11]=1,
 * PEBS_UNAVAILABLE[12]=1), then whether IA32_DS_AREA takes a write. */
const char *ds_bts_unavailable(void);
const char *ds_pebs_unavailable(void);
/* The PEBS record layout by DTES64 / IA-32e and IA32_PERF_CAPABILITIES.PEBS_FMT;
 * NULL or the SKIP reason (IA32_PERF_CAPABILITIES.PEBS_FMT=n unknown). */
const char *ds_pebs_layout(enum pebs_layout *l);
/* Allocate (exp_alloc: zeroed, contiguous, identity-mapped, page aligned) and
 * lay out the management area and buffers (ds_plan_layout(): each buffer on its
 * own pages, BTS_PMI_MARGIN_RECORDS of guard after the BTS maximum).  Thresholds
 * are in records from base (records + 1 = circular; an interrupting BTS buffer
 * keeps its threshold BTS_PMI_MARGIN_RECORDS short of the maximum, inc/bts.h).
 * DS_OK or DS_ERR_. */
int ds_create(struct ds_area *d, uint32_t bts_records, uint32_t bts_thresh_rec,
	      uint32_t pebs_records, uint32_t pebs_thresh_rec, uint32_t pebs_rec_size);
/* Write IA32_DS_AREA (saving the old value) and read it back: NULL or why not. */
const char *ds_install(struct ds_area *d);
void ds_uninstall(struct ds_area *d);
struct ds_area *ds_active(void);
/* Forget the active area (the runner's arena is reset after each experiment,
 * an aborted one included): pmi_reset() calls it. */
void ds_forget(void);
uint64_t ds_read(const struct ds_area *d, enum ds_field f);     /* volatile */
void ds_write(struct ds_area *d, enum ds_field f, uint64_t v);
void ds_buf_get(const struct ds_area *d, bool pebs, struct ds_buf *b);
void ds_set_pebs_reset(struct ds_area *d, unsigned pmc, uint64_t v);
/* verbose >= 1: the IA32_DS_AREA management area and the first and last records
 * of each buffer as raw quadwords, in the format tools/dsdump reads back:
 *   # ds-dump begin NAME area=0x... pebs_fmt=N layout=L cfg=0x... timed=T split=S
 *   # ds: mgmt +OFF Q0 Q1 Q2 Q3
 *   # ds: bts|pebs ADDR Q0 Q1 ...       (one record per line)
 *   # ds-dump end NAME */
void ds_dump_raw(const struct ds_area *d, const char *name);
/* Put the BTS / PEBS index back at base (what the handler does to drain). */
void ds_rewind(struct ds_area *d, bool pebs);
/* diag table of the management area / BTS records (oldest first) at verbosity >= 1 */
void ds_dump(const struct ds_area *d);
void ds_dump_bts(const struct ds_area *d, bool wrapped);
void ds_dump_pebs(const struct ds_area *d);

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

#define PMI_MAX_CLIENTS 4
bool pmi_register(struct pmi_client *c);
void pmi_unregister(struct pmi_client *c);
/* Forget every client and statistic; the runner calls it after each experiment. */
void pmi_reset(void);
/* PMIs taken since pmi_reset(), and how many had no cause. */
uint32_t pmi_count(void);
uint32_t pmi_spurious(void);
/* The handler's notion of "PEBS records already seen" (set by ds_install). */
void pmi_pebs_seen_set(uint64_t index);

/* ---- PMU MSR state: experiments leave it as they found it ------------------ */

struct pmu_msrs {
	uint32_t present;               /* bit per group below that could be read */
	uint64_t debugctl, ds_area, pebs_enable, global_ctrl, global_status;
	uint64_t fixed_ctrl, ld_lat, data_cfg;
	uint64_t evtsel[8], pmc[8], fixed[4];
	uint64_t amd_ctl[6], amd_ctr[6], amd_global_ctl;
	uint64_t ibs_fetch_ctl, ibs_op_ctl;
};
void pmu_msrs_save(struct pmu_msrs *s);
/* Disable first, restore values, enables last (GLOBAL_CTRL, DEBUGCTL). */
void pmu_msrs_restore(const struct pmu_msrs *s);

#endif
