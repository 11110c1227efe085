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
#ifndef INC_BTS_H
#define INC_BTS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ds.h"

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
/* Model of BTINT=1 with threshold == max and a handler that resets index to
 * base on every DS interrupt: how many interrupts `n` records raise, and
 * how many records are left in the buffer afterwards. */
uint64_t bts_full_interrupts(uint64_t capacity, uint64_t n, uint64_t *left);

#endif
