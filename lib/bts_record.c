/* BTS record decoding and circular-buffer reconstruction: see lib/bts_record.h. */
#include "bts_record.h"
#include "le.h"

int bts_decode(const void *p, size_t len, enum ds_format fmt, struct bts_record *r)
{
	unsigned w = ds_field_size(fmt);
	const uint8_t *b = p;

	if (len < 3u * w)
		return BTS_ERR_SHORT;
	r->from = le_get(b, w);
	r->to = le_get(b + w, w);
	r->flags = le_get(b + 2 * w, w);
	r->predicted = (r->flags & BTS_FLAG_PREDICTED) != 0;
	return BTS_OK;
}

void bts_encode(void *p, enum ds_format fmt, const struct bts_record *r)
{
	unsigned w = ds_field_size(fmt);
	uint8_t *b = p;

	le_put(b, w, r->from);
	le_put(b + w, w, r->to);
	le_put(b + 2 * w, w, r->flags | (r->predicted ? BTS_FLAG_PREDICTED : 0));
}

long bts_ordered(const void *mem, uint64_t base, uint64_t index, uint64_t max, bool wrapped,
		 enum ds_format fmt, struct bts_record *out, size_t cap)
{
	uint64_t rs = ds_bts_record_size(fmt);
	const uint8_t *m = mem;

	if (max < base || index < base || index > max)
		return BTS_ERR_RANGE;
	if ((max - base) % rs || (index - base) % rs)
		return BTS_ERR_ALIGN;
	uint64_t nrec = (max - base) / rs, at = (index - base) / rs;
	if (at == nrec)         /* index parked at max: the next write goes to base */
		at = 0;
	if (wrapped && nrec == 0)
		return BTS_ERR_EMPTY_WRAP;
	/* Not wrapped: records 0 .. at-1 (or all of them if the index sits at max).
	 * Wrapped: at .. nrec-1, then 0 .. at-1. */
	uint64_t total = wrapped ? nrec : ((index - base) / rs);
	uint64_t first = wrapped ? at : 0;
	for (uint64_t i = 0; i < total && i < cap; i++) {
		uint64_t slot = (first + i) % nrec;
		bts_decode(m + slot * rs, (size_t)rs, fmt, &out[i]);
	}
	return (long)total;
}

uint64_t bts_circular_index(uint64_t capacity, uint64_t n, bool *wrapped)
{
	if (capacity == 0) {
		*wrapped = false;
		return 0;
	}
	*wrapped = n >= capacity;
	return n % capacity;
}

uint32_t bts_interrupt_capacity(uint32_t thresh_rec, uint32_t margin_rec)
{
	if (!thresh_rec || !margin_rec || thresh_rec > UINT32_MAX - margin_rec)
		return 0;
	return thresh_rec + margin_rec;
}

enum bts_pmi_index bts_pmi_index_check(uint64_t base, uint64_t index, uint64_t thresh,
				       uint64_t max, uint32_t rec_size)
{
	if (!rec_size || index < base || index > max || (index - base) % rec_size)
		return BTS_IDX_BEYOND;
	if (index < thresh)
		return BTS_IDX_BELOW;
	return index == max ? BTS_IDX_FULL : BTS_IDX_OK;
}

void bts_interrupt_bounds(uint64_t n, uint32_t thresh_rec, uint32_t capacity,
			  uint64_t *min, uint64_t *max)
{
	if (!thresh_rec || capacity < thresh_rec) {
		*min = *max = 0;
		return;
	}
	/* n = drained + left, left <= thresh - 1, each drain in [thresh, capacity] */
	uint64_t must = n >= thresh_rec ? n - (thresh_rec - 1) : 0;
	*min = (must + capacity - 1) / capacity;
	*max = n / thresh_rec;
}
