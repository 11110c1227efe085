/* The Debug Store, hardware side (kernel/ds_area.c): the save area in memory,
 * IA32_DS_AREA, and readable dumps.  The whole layout (offsets, sizes, alignment,
 * pointers, thresholds) is computed by lib/ds_layout.c: the kernel allocates,
 * installs and reads. */
#ifndef KERNEL_DS_AREA_H
#define KERNEL_DS_AREA_H
#include <stdbool.h>
#include <stdint.h>
#include "ds_layout.h"
#include "pebs_record.h"

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
	bool pebs_timed, pebs_split_latency;    /* record reading (lib/pebs_record.h) */
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
/* Allocate (exp_alloc: zeroed, contiguous, identity-mapped, page aligned) what
 * ds_layout() lays out (each buffer on its own pages, BTS_PMI_MARGIN_RECORDS of
 * guard after the BTS maximum) and write its pointers.  Thresholds
 * are in records from base (records + 1 = circular; an interrupting BTS buffer
 * keeps its threshold BTS_PMI_MARGIN_RECORDS short of the maximum, lib/bts_record.h).
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
/* Dumps of the management area, the BTS records (oldest first) and the PEBS
 * records, as diagnostic lines through the hook registered with ds_set_diag()
 * (the runner's diag() at verbose>=1; none: no dumps). */
void ds_set_diag(void (*diag)(const char *fmt, ...) __attribute__((format(printf, 1, 2))));
/* Told the PEBS base of every area ds_install() installs (the PMI handler's
 * "records seen so far"), registered at boot. */
void ds_set_install_hook(void (*fn)(uint64_t pebs_base));
void ds_dump(const struct ds_area *d);
void ds_dump_bts(const struct ds_area *d, bool wrapped);
void ds_dump_pebs(const struct ds_area *d);

#endif
