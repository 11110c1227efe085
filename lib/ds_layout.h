/* The Debug Store (DS) save area: layout of the buffer management area and the
 * arithmetic of the BTS and PEBS buffer pointers (Intel SDM vol.3 "Debug Store
 * (DS) Mechanism", 17.4.9 in recent editions, 18.6.3.4 in older ones; PEBS
 * fields in the chapter "Performance Monitoring").
 *
 * Two formats exist.  The 64-bit one is used whenever CPUID.01H:ECX.DTES64[2]=1
 * or the processor is in IA-32e mode; otherwise the 32-bit one.  Every field of
 * the management area is a linear address (or, for the PEBS counter reset
 * values, a counter value):
 *
 *   32-bit  64-bit
 *   0x00    0x00   BTS buffer base
 *   0x04    0x08   BTS index             (next record to be written)
 *   0x08    0x10   BTS absolute maximum  (first byte past the buffer)
 *   0x0c    0x18   BTS interrupt threshold
 *   0x10    0x20   PEBS buffer base
 *   0x14    0x28   PEBS index
 *   0x18    0x30   PEBS absolute maximum
 *   0x1c    0x38   PEBS interrupt threshold
 *   0x20    0x40   PEBS counter reset, IA32_PMC0 (8 bytes each, PMCn at +8n;
 *                  the 32-bit area has the one reset value of the original PEBS)
 *
 * Where the reset values of the fixed counters go depends on the PEBS record
 * format (IA32_PERF_CAPABILITIES.PEBS_FMT[11:8]); the general slots before them
 * are 8 up to PEBS_FMT 4 and 32 from PEBS_FMT 5 (SDM vol.3 "Processor Event
 * Based Sampling (PEBS) Facility", the DS save area figure for extended PEBS):
 *
 *   PEBS_FMT 0-3   no fixed-counter PEBS; area ends after PMC0..7: 0x80
 *   PEBS_FMT 4     FIXED_CTRn at 0x40 + 8 * (8 + n) = 0x80 + 8n, n < 16: 0x100
 *   PEBS_FMT 5+    FIXED_CTRn at 0x40 + 8 * (32 + n) = 0x140 + 8n, n < 16: 0x1c0
 *
 * Pure code: the functions read and write a management area in a byte buffer,
 * so they run on the host as well as in the kernel. */
#ifndef LIB_DS_LAYOUT_H
#define LIB_DS_LAYOUT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ds_format { DS_FMT32 = 0, DS_FMT64 = 1 };

enum ds_field {
	DS_BTS_BASE, DS_BTS_INDEX, DS_BTS_MAX, DS_BTS_THRESH,
	DS_PEBS_BASE, DS_PEBS_INDEX, DS_PEBS_MAX, DS_PEBS_THRESH,
	DS_NFIELDS
};

#define DS_MAX_GP_RESETS_FMT4   8       /* PEBS_FMT <= 4: PMC0..PMC7 at 0x40..0x78 */
#define DS_MAX_GP_RESETS        32      /* PEBS_FMT >= 5: PMC0..PMC31 at 0x40..0x138 */
#define DS_MAX_FIXED_RESETS     16      /* PEBS_FMT >= 4: FIXED_CTR0..15 */
#define DS_MGMT_SIZE_64_MAX     0x1c0   /* the largest (PEBS_FMT 5+) */
#define DS_MGMT_SIZE_32         0x28
#define DS_BTS_REC_SIZE_32      12
#define DS_BTS_REC_SIZE_64      24

/* The format the processor uses (SDM vol.3 17.4.9.1, "64 Bit Format of the DS
 * Save Area"): the 64-bit one when CPUID.01H:ECX.DTES64[2]=1 — in every mode,
 * 32-bit protected mode included, where its fields then hold 32-bit linear
 * addresses zero-extended — or when IA-32e mode is active (IA32_EFER.LMA=1);
 * the 32-bit one only with DTES64=0 outside IA-32e mode. */
enum ds_format ds_format_for(bool dtes64, bool ia32e);

/* Byte offset of a pointer field; size of each pointer field (4 or 8). */
unsigned ds_field_offset(enum ds_format fmt, enum ds_field f);
unsigned ds_field_size(enum ds_format fmt);
/* Offset of the PEBS counter reset for general counter n / fixed counter n
 * with this PEBS_FMT; 0 when that slot does not exist in the format. */
unsigned ds_gp_reset_offset(enum ds_format fmt, unsigned pebs_fmt, unsigned n);
unsigned ds_fixed_reset_offset(enum ds_format fmt, unsigned pebs_fmt, unsigned n);
/* Bytes of the management area, reset slots included, for this PEBS_FMT. */
unsigned ds_mgmt_size(enum ds_format fmt, unsigned pebs_fmt);
unsigned ds_bts_record_size(enum ds_format fmt);
const char *ds_field_name(enum ds_field f);

/* Little-endian field access inside a management area image (no alignment
 * assumption).  The kernel passes the live area; use volatile copies there if
 * the hardware may be writing concurrently. */
uint64_t ds_get(const void *area, enum ds_format fmt, enum ds_field f);
void ds_put(void *area, enum ds_format fmt, enum ds_field f, uint64_t v);
uint64_t ds_get_gp_reset(const void *area, enum ds_format fmt, unsigned pebs_fmt, unsigned n);
void ds_put_gp_reset(void *area, enum ds_format fmt, unsigned pebs_fmt, unsigned n, uint64_t v);
uint64_t ds_get_fixed_reset(const void *area, enum ds_format fmt, unsigned pebs_fmt, unsigned n);
void ds_put_fixed_reset(void *area, enum ds_format fmt, unsigned pebs_fmt, unsigned n, uint64_t v);

/* One buffer (BTS or PEBS) as the four management-area pointers. */
struct ds_buf {
	uint64_t base, index, max, thresh;
};

/* How a buffer is meant to work; decides which threshold is legal. */
enum ds_use {
	DS_USE_CIRCULAR,        /* BTS with BTINT=0: threshold must lie beyond max */
	DS_USE_INTERRUPT,       /* BTINT=1 / PEBS: base < threshold <= max */
};

/* Error codes, all negative; DS_OK is 0. */
enum {
	DS_OK = 0,
	DS_ERR_NO_RECORDS = -1,         /* capacity 0, or max <= base */
	DS_ERR_BASE_MISALIGNED = -2,    /* base not on a doubleword boundary */
	DS_ERR_MAX_NOT_MULTIPLE = -3,   /* (max - base) not a record multiple */
	DS_ERR_THRESH_NOT_MULTIPLE = -4,/* (threshold - base) not a record multiple */
	DS_ERR_THRESH_ABOVE_MAX = -5,   /* interrupt use: threshold never reached */
	DS_ERR_THRESH_IN_BUFFER = -6,   /* circular use: threshold <= max fires a PMI */
	DS_ERR_THRESH_AT_BASE = -7,     /* threshold <= base: interrupt before a record */
	DS_ERR_INDEX_RANGE = -8,        /* index outside [base, max] */
	DS_ERR_INDEX_NOT_MULTIPLE = -9,
	DS_ERR_ADDR_WIDTH = -10,        /* 32-bit format, address >= 4 GiB */
	DS_ERR_NONCANONICAL = -11,      /* 64-bit format, non-canonical address */
	DS_ERR_WRAPS = -12,             /* buffer end wraps the address space */
	DS_ERR_OVERLAP = -13,           /* buffers overlap each other or the mgmt area */
	DS_ERR_CODE_PAGE = -14,         /* shares a 4 KiB page with code (SDM: self-modifying code) */
	DS_ERR_CROSSES_PAGE = -15,      /* spans a 4 KiB boundary (needs contiguous linear pages) */
	DS_ERR_REC_SIZE = -16,          /* record size 0 */
	DS_ERR_AREA_MISALIGNED = -17,   /* management area not doubleword aligned */
};
const char *ds_strerror(int err);

/* Lay out a buffer of `records` records of `rec_size` bytes at `base` with the
 * interrupt threshold at record number `thresh_rec` (0-based offset in records
 * from base: == records means "interrupt when full", records + 1 is the usual
 * circular choice "never").  Index starts at base.  Returns DS_OK or an error
 * from ds_buf_check(). */
int ds_buf_layout(enum ds_format fmt, uint64_t base, uint32_t rec_size, uint32_t records,
		  uint32_t thresh_rec, enum ds_use use, struct ds_buf *out);
/* Validate a buffer's pointers for its use (see the error list). */
int ds_buf_check(enum ds_format fmt, const struct ds_buf *b, uint32_t rec_size, enum ds_use use);
/* Capacity in records and records written so far (index - base) / rec_size. */
uint64_t ds_buf_capacity(const struct ds_buf *b, uint32_t rec_size);
uint64_t ds_buf_used(const struct ds_buf *b, uint32_t rec_size);
/* Address checks for a management area at `area` and its two buffers. */
int ds_area_check(enum ds_format fmt, unsigned pebs_fmt, uint64_t area, const struct ds_buf *bts,
		  uint32_t bts_rec, const struct ds_buf *pebs, uint32_t pebs_rec);

/* Where the management area and the two buffers go in one allocation: the
 * management area (its size by PEBS_FMT) at 0; the BTS buffer on the next page;
 * the PEBS buffer on a page of its own after a guard of at least `guard` bytes
 * past the BTS absolute maximum, so that BTS records written while a DS
 * interrupt is delivered can never land on a PEBS record.  Offsets in bytes
 * from the start of the allocation; 0 for an absent buffer. */
struct ds_plan {
	uint64_t bts_off, pebs_off, total;
};
int ds_plan_layout(enum ds_format fmt, unsigned pebs_fmt, uint64_t bts_bytes, uint64_t pebs_bytes,
		   uint64_t guard, struct ds_plan *out);
/* The SDM's placement rules for a range [lo, lo+len): DS_ERR_CODE_PAGE if a 4 KiB
 * page of it is also a page of [code_lo, code_hi); DS_ERR_CROSSES_PAGE if it spans
 * a page boundary and `contiguous` (linear pages mapped contiguously and
 * non-paged) is false. */
int ds_placement_check(uint64_t lo, uint64_t len, uint64_t code_lo, uint64_t code_hi, bool contiguous);

/* ---- The whole save area, computed in one place ----------------------------
 * What the kernel needs to know to allocate, install and read a DS save area,
 * from what an experiment asks for: the format, the PEBS record format, the record
 * counts, sizes and thresholds.  ds_layout_size() gives the allocation (bytes and
 * alignment); ds_layout() places everything at the allocation's base address and
 * checks it (the SDM's rules, ds_area_check()); ds_layout_write() puts the
 * buffer pointers into the management area image.  The kernel only allocates,
 * writes IA32_DS_AREA and reads. */
struct ds_spec {
	enum ds_format fmt;
	unsigned pebs_fmt;              /* IA32_PERF_CAPABILITIES.PEBS_FMT: the area's size */
	uint32_t bts_records;           /* 0: no BTS buffer */
	uint32_t bts_thresh_rec;        /* in records from base; > bts_records: circular (BTINT=0) */
	uint32_t bts_guard_records;     /* BTS records of guard before the PEBS buffer */
	uint32_t pebs_records;          /* 0: no PEBS buffer */
	uint32_t pebs_thresh_rec;       /* in records from base, <= pebs_records */
	uint32_t pebs_rec_size;         /* bytes per PEBS record (the adaptive size, too) */
};

#define DS_AREA_ALIGN   4096u   /* own pages: never a page shared with code (SDM) */

struct ds_layout {
	struct ds_spec spec;
	uint64_t area;                  /* the management area: the allocation's base */
	uint64_t total;                 /* bytes of the allocation */
	unsigned mgmt_size;             /* ds_mgmt_size(fmt, pebs_fmt) */
	uint32_t bts_rec;               /* ds_bts_record_size(fmt) */
	enum ds_use bts_use;            /* circular or interrupting, from the threshold */
	struct ds_buf bts, pebs;        /* all zero for an absent buffer */
};

/* Bytes and alignment of the allocation the spec needs.  DS_OK or DS_ERR_. */
int ds_layout_size(const struct ds_spec *s, uint64_t *bytes, uint64_t *align);
/* The whole layout at `area` (DS_AREA_ALIGN aligned): DS_OK or the first DS_ERR_. */
int ds_layout(const struct ds_spec *s, uint64_t area, struct ds_layout *out);
/* Write both buffers' pointers into the management area image (at least
 * l->mgmt_size bytes); the counter reset slots are left as they are. */
void ds_layout_write(void *mgmt, const struct ds_layout *l);

/* Read / write a whole buffer's four pointers in a management area image. */
void ds_get_buf(const void *area, enum ds_format fmt, bool pebs, struct ds_buf *b);
void ds_put_buf(void *area, enum ds_format fmt, bool pebs, const struct ds_buf *b);

#endif
