/* Branch Trace Store records (SDM vol.3 17.4.9 "BTS and DS Save Area", figure
 * "64-bit Branch Trace Record Format").
 *
 *   32-bit format, 12 bytes:  from[4]  to[4]  flags[4]
 *   64-bit format, 24 bytes:  from[8]  to[8]  flags[8]
 *
 * from: linear address of the branch (or of the interrupted instruction);
 * to: the target; flags bit 4: the branch was predicted.
 *
 * In a circular buffer (BTINT=0) the processor writes at index and, on reaching
 * the absolute maximum, resets index to base.  Once it has wrapped, the oldest
 * record is the one at index. */
#ifndef LIB_BTS_RECORD_H
#define LIB_BTS_RECORD_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ds_layout.h"

#define BTS_FLAG_PREDICTED      (1u << 4)

struct bts_record {
	uint64_t from, to, flags;
	bool predicted;
};

enum {
	BTS_OK = 0,
	BTS_ERR_SHORT = -1,     /* fewer bytes than one record */
	BTS_ERR_RANGE = -2,     /* index outside [base, max] */
	BTS_ERR_ALIGN = -3,     /* index or max not base + k * record size */
	BTS_ERR_EMPTY_WRAP = -4 /* "wrapped" claimed for an empty buffer */
};

/* Decode the record at p (len bytes available). */
int bts_decode(const void *p, size_t len, enum ds_format fmt, struct bts_record *r);
/* Encode (the host tests' and fuzzers' model of the hardware). */
void bts_encode(void *p, enum ds_format fmt, const struct bts_record *r);

/* Records of a BTS buffer in the order the processor wrote them, oldest first.
 * `mem` holds the buffer's bytes from `base` to `max`; `index` is the BTS index
 * read from the management area; `wrapped` says whether the processor wrapped
 * at least once (the hardware does not record it: the caller knows it from the
 * number of branches, or from a marker it left in the buffer).  Writes at most
 * `cap` records to out; returns the number of records in the buffer (which may
 * exceed cap), or a negative BTS_ERR_. */
long bts_ordered(const void *mem, uint64_t base, uint64_t index, uint64_t max, bool wrapped,
		 enum ds_format fmt, struct bts_record *out, size_t cap);

/* Model of a circular buffer of `capacity` records after `n` records were
 * written from an empty buffer: the slot of the next write (the index, in
 * records from base) and whether it wrapped.  After exactly k * capacity
 * records (k >= 1) the hardware leaves the index at base; *wrapped is true. */
uint64_t bts_circular_index(uint64_t capacity, uint64_t n, bool *wrapped);
/* BTINT=1 (SDM vol.3 17.4.9.4 "Setting Up the BTS Buffer" / 17.4.9.5): the
 * interrupt threshold must lie SEVERAL RECORDS SHORT of the absolute maximum,
 * because the processor goes on writing records after the index reaches the
 * threshold: the branch that crosses it may be followed by more before the
 * interrupt is taken (skid), the delivery of the interrupt is itself a branch
 * record, and so is every branch of the handler until it clears
 * DEBUGCTL.TR/BTS.  tracelab's handler path (IDT stub, dispatcher, the PMI
 * handler up to its first WRMSR) takes fewer than 16 branches; the margin is
 * twice that.  (Linux keeps 4080 bytes, 170 records.)
 *
 * An interrupting buffer of threshold T records: capacity T + margin.  The
 * handler must find the index in [threshold, absolute maximum]: below the
 * threshold the interrupt was not a BTS one (or came early); at the maximum
 * the margin ran out and records may have been lost. */
#define BTS_PMI_MARGIN_RECORDS  32

/* Capacity (records) of a buffer with its threshold at `thresh_rec` records and
 * `margin_rec` records beyond it; 0 if thresh_rec is 0 or margin_rec is 0
 * (threshold == maximum is what the SDM says not to do). */
uint32_t bts_interrupt_capacity(uint32_t thresh_rec, uint32_t margin_rec);

enum bts_pmi_index {
	BTS_IDX_BELOW = -1,     /* index < threshold: not a BTS threshold interrupt */
	BTS_IDX_OK = 0,         /* threshold <= index < maximum */
	BTS_IDX_FULL = 1,       /* index == maximum: the margin was used up */
	BTS_IDX_BEYOND = 2,     /* index > maximum or off the record grid: corrupt */
};
/* Where the index the handler read lies (pointers as in the DS area). */
enum bts_pmi_index bts_pmi_index_check(uint64_t base, uint64_t index, uint64_t thresh,
				       uint64_t max, uint32_t rec_size);
/* Bounds on the number of threshold interrupts for `n` records in all, each
 * interrupt draining between thresh_rec and capacity records, with fewer than
 * thresh_rec records left at the end (else one more interrupt was due). */
void bts_interrupt_bounds(uint64_t n, uint32_t thresh_rec, uint32_t capacity,
			  uint64_t *min, uint64_t *max);

#endif
