/* Debug Store save-area layout and pointer arithmetic: see lib/ds_layout.h. */
#include "ds_layout.h"
#include "le.h"

enum ds_format ds_format_for(bool dtes64, bool ia32e)
{
	return dtes64 || ia32e ? DS_FMT64 : DS_FMT32;
}

unsigned ds_field_size(enum ds_format fmt)
{
	return fmt == DS_FMT64 ? 8 : 4;
}

unsigned ds_field_offset(enum ds_format fmt, enum ds_field f)
{
	return (unsigned)f * ds_field_size(fmt);
}

unsigned ds_gp_reset_offset(enum ds_format fmt, unsigned pebs_fmt, unsigned n)
{
	if (fmt == DS_FMT64)
		return n < (pebs_fmt >= 5 ? DS_MAX_GP_RESETS : DS_MAX_GP_RESETS_FMT4) ? 0x40 + 8 * n : 0;
	/* The 32-bit area (SDM figure "DS Save Area", 32-bit) holds one 8-byte
	 * PEBS counter reset value at 0x20. */
	return n == 0 ? 0x20 : 0;
}

/* Fixed-counter PEBS exists from PEBS_FMT 4 (extended PEBS); its reset slots
 * follow the general ones: 8 of them up to PEBS_FMT 4, 32 from PEBS_FMT 5. */
unsigned ds_fixed_reset_offset(enum ds_format fmt, unsigned pebs_fmt, unsigned n)
{
	if (fmt != DS_FMT64 || pebs_fmt < 4 || n >= DS_MAX_FIXED_RESETS)
		return 0;
	return 0x40 + 8 * ((pebs_fmt >= 5 ? DS_MAX_GP_RESETS : DS_MAX_GP_RESETS_FMT4) + n);
}

unsigned ds_mgmt_size(enum ds_format fmt, unsigned pebs_fmt)
{
	if (fmt != DS_FMT64)
		return DS_MGMT_SIZE_32;
	if (pebs_fmt < 4)
		return 0x40 + 8 * DS_MAX_GP_RESETS_FMT4;
	return ds_fixed_reset_offset(fmt, pebs_fmt, DS_MAX_FIXED_RESETS - 1) + 8;
}

unsigned ds_bts_record_size(enum ds_format fmt)
{
	return fmt == DS_FMT64 ? DS_BTS_REC_SIZE_64 : DS_BTS_REC_SIZE_32;
}

const char *ds_field_name(enum ds_field f)
{
	static const char *const names[DS_NFIELDS] = {
		"BTS buffer base", "BTS index", "BTS absolute maximum", "BTS interrupt threshold",
		"PEBS buffer base", "PEBS index", "PEBS absolute maximum", "PEBS interrupt threshold",
	};
	return (unsigned)f < DS_NFIELDS ? names[f] : "?";
}

uint64_t ds_get(const void *area, enum ds_format fmt, enum ds_field f)
{
	return le_get((const uint8_t *)area + ds_field_offset(fmt, f), ds_field_size(fmt));
}

void ds_put(void *area, enum ds_format fmt, enum ds_field f, uint64_t v)
{
	le_put((uint8_t *)area + ds_field_offset(fmt, f), ds_field_size(fmt), v);
}

uint64_t ds_get_gp_reset(const void *area, enum ds_format fmt, unsigned pebs_fmt, unsigned n)
{
	unsigned off = ds_gp_reset_offset(fmt, pebs_fmt, n);
	return off ? le_get((const uint8_t *)area + off, 8) : 0;
}

void ds_put_gp_reset(void *area, enum ds_format fmt, unsigned pebs_fmt, unsigned n, uint64_t v)
{
	unsigned off = ds_gp_reset_offset(fmt, pebs_fmt, n);
	if (off)
		le_put((uint8_t *)area + off, 8, v);
}

uint64_t ds_get_fixed_reset(const void *area, enum ds_format fmt, unsigned pebs_fmt, unsigned n)
{
	unsigned off = ds_fixed_reset_offset(fmt, pebs_fmt, n);
	return off ? le_get((const uint8_t *)area + off, 8) : 0;
}

void ds_put_fixed_reset(void *area, enum ds_format fmt, unsigned pebs_fmt, unsigned n, uint64_t v)
{
	unsigned off = ds_fixed_reset_offset(fmt, pebs_fmt, n);
	if (off)
		le_put((uint8_t *)area + off, 8, v);
}

void ds_get_buf(const void *area, enum ds_format fmt, bool pebs, struct ds_buf *b)
{
	enum ds_field f0 = pebs ? DS_PEBS_BASE : DS_BTS_BASE;
	b->base = ds_get(area, fmt, f0);
	b->index = ds_get(area, fmt, (enum ds_field)(f0 + 1));
	b->max = ds_get(area, fmt, (enum ds_field)(f0 + 2));
	b->thresh = ds_get(area, fmt, (enum ds_field)(f0 + 3));
}

void ds_put_buf(void *area, enum ds_format fmt, bool pebs, const struct ds_buf *b)
{
	enum ds_field f0 = pebs ? DS_PEBS_BASE : DS_BTS_BASE;
	ds_put(area, fmt, f0, b->base);
	ds_put(area, fmt, (enum ds_field)(f0 + 1), b->index);
	ds_put(area, fmt, (enum ds_field)(f0 + 2), b->max);
	ds_put(area, fmt, (enum ds_field)(f0 + 3), b->thresh);
}

const char *ds_strerror(int err)
{
	switch (err) {
	case DS_OK: return "ok";
	case DS_ERR_NO_RECORDS: return "buffer holds no record (max <= base)";
	case DS_ERR_BASE_MISALIGNED: return "buffer base not doubleword aligned";
	case DS_ERR_MAX_NOT_MULTIPLE: return "absolute maximum not base + a multiple of the record size";
	case DS_ERR_THRESH_NOT_MULTIPLE: return "interrupt threshold not base + a multiple of the record size";
	case DS_ERR_THRESH_ABOVE_MAX: return "interrupt threshold above absolute maximum (never reached)";
	case DS_ERR_THRESH_IN_BUFFER: return "circular buffer with threshold <= maximum (raises a DS interrupt)";
	case DS_ERR_THRESH_AT_BASE: return "interrupt threshold at or below base";
	case DS_ERR_INDEX_RANGE: return "index outside [base, maximum]";
	case DS_ERR_INDEX_NOT_MULTIPLE: return "index not base + a multiple of the record size";
	case DS_ERR_ADDR_WIDTH: return "address above 4 GiB in the 32-bit DS format";
	case DS_ERR_NONCANONICAL: return "non-canonical linear address";
	case DS_ERR_WRAPS: return "buffer wraps the linear address space";
	case DS_ERR_OVERLAP: return "buffers overlap each other or the management area";
	case DS_ERR_CODE_PAGE: return "DS area shares a page with code";
	case DS_ERR_CROSSES_PAGE: return "DS area crosses a page boundary without contiguous mapping";
	case DS_ERR_REC_SIZE: return "record size 0";
	case DS_ERR_AREA_MISALIGNED: return "management area not doubleword aligned";
	}
	return "unknown DS error";
}

static bool canonical48(uint64_t a)
{
	uint64_t top = a >> 47;
	return top == 0 || top == 0x1ffff;
}

static int addr_ok(enum ds_format fmt, uint64_t a)
{
	if (fmt == DS_FMT32)
		return a > 0xffffffffULL ? DS_ERR_ADDR_WIDTH : DS_OK;
	return canonical48(a) ? DS_OK : DS_ERR_NONCANONICAL;
}

int ds_buf_check(enum ds_format fmt, const struct ds_buf *b, uint32_t rec_size, enum ds_use use)
{
	int e;

	if (rec_size == 0)
		return DS_ERR_REC_SIZE;
	if ((e = addr_ok(fmt, b->base)) || (e = addr_ok(fmt, b->max)) ||
	    (e = addr_ok(fmt, b->index)) || (e = addr_ok(fmt, b->thresh)))
		return e;
	/* SDM: the buffer base and the management area should be doubleword aligned */
	if (b->base & 3)
		return DS_ERR_BASE_MISALIGNED;
	if (b->max <= b->base)
		return DS_ERR_NO_RECORDS;
	/* SDM: "BTS absolute maximum ... should be a multiple of the BTS record size";
	 * it means the distance from base (the book ex14-9 confirms base + n*size works;
	 * the SDM's "plus 1" wording is not needed). */
	if ((b->max - b->base) % rec_size)
		return DS_ERR_MAX_NOT_MULTIPLE;
	if (b->index < b->base || b->index > b->max)
		return DS_ERR_INDEX_RANGE;
	if ((b->index - b->base) % rec_size)
		return DS_ERR_INDEX_NOT_MULTIPLE;
	if (b->thresh <= b->base)
		return DS_ERR_THRESH_AT_BASE;
	if ((b->thresh - b->base) % rec_size)
		return DS_ERR_THRESH_NOT_MULTIPLE;
	if (use == DS_USE_INTERRUPT && b->thresh > b->max)
		return DS_ERR_THRESH_ABOVE_MAX;
	/* Circular BTS: the index never passes max (it resets to base), so a
	 * threshold beyond max is never reached; one inside the buffer raises a
	 * DS interrupt even with BTINT=0 (book 14.9.5.6). */
	if (use == DS_USE_CIRCULAR && b->thresh <= b->max)
		return DS_ERR_THRESH_IN_BUFFER;
	return DS_OK;
}

int ds_buf_layout(enum ds_format fmt, uint64_t base, uint32_t rec_size, uint32_t records,
		  uint32_t thresh_rec, enum ds_use use, struct ds_buf *out)
{
	uint64_t limit = fmt == DS_FMT32 ? 0xffffffffULL : ~0ULL;

	if (rec_size == 0)
		return DS_ERR_REC_SIZE;
	if (records == 0)
		return DS_ERR_NO_RECORDS;
	/* the threshold record's address must be representable too */
	uint64_t span = (uint64_t)rec_size * (records > thresh_rec ? records : thresh_rec);
	if (base > limit || span > limit - base)
		return DS_ERR_WRAPS;
	out->base = base;
	out->index = base;
	out->max = base + (uint64_t)rec_size * records;
	out->thresh = base + (uint64_t)rec_size * thresh_rec;
	return ds_buf_check(fmt, out, rec_size, use);
}

uint64_t ds_buf_capacity(const struct ds_buf *b, uint32_t rec_size)
{
	return rec_size && b->max > b->base ? (b->max - b->base) / rec_size : 0;
}

uint64_t ds_buf_used(const struct ds_buf *b, uint32_t rec_size)
{
	return rec_size && b->index > b->base ? (b->index - b->base) / rec_size : 0;
}

static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return alen && blen && a < b + blen && b < a + alen;
}

int ds_area_check(enum ds_format fmt, unsigned pebs_fmt, uint64_t area, const struct ds_buf *bts,
		  uint32_t bts_rec, const struct ds_buf *pebs, uint32_t pebs_rec)
{
	uint64_t msz = ds_mgmt_size(fmt, pebs_fmt);
	int e;

	if ((e = addr_ok(fmt, area)) || (e = addr_ok(fmt, area + msz - 1)))
		return e;
	if (area & 3)
		return DS_ERR_AREA_MISALIGNED;
	if (area + msz < area)
		return DS_ERR_WRAPS;
	if (bts) {
		/* the BTS side may be circular or interrupting: only structural checks */
		e = ds_buf_check(fmt, bts, bts_rec, bts->thresh > bts->max ? DS_USE_CIRCULAR
									: DS_USE_INTERRUPT);
		if (e)
			return e;
		if (overlaps(area, msz, bts->base, bts->max - bts->base))
			return DS_ERR_OVERLAP;
	}
	if (pebs) {
		if ((e = ds_buf_check(fmt, pebs, pebs_rec, DS_USE_INTERRUPT)))
			return e;
		if (overlaps(area, msz, pebs->base, pebs->max - pebs->base))
			return DS_ERR_OVERLAP;
		if (bts && overlaps(bts->base, bts->max - bts->base, pebs->base, pebs->max - pebs->base))
			return DS_ERR_OVERLAP;
	}
	return DS_OK;
}

int ds_placement_check(uint64_t lo, uint64_t len, uint64_t code_lo, uint64_t code_hi, bool contiguous)
{
	if (len == 0)
		return DS_OK;
	uint64_t last = lo + len - 1;
	if (last < lo)
		return DS_ERR_WRAPS;
	if (code_hi > code_lo) {
		uint64_t p0 = lo >> 12, p1 = last >> 12;
		uint64_t c0 = code_lo >> 12, c1 = (code_hi - 1) >> 12;
		if (p0 <= c1 && c0 <= p1)
			return DS_ERR_CODE_PAGE;
	}
	/* SDM: the area may be larger than a page, but its pages must be mapped
	 * to contiguous linear addresses (and present, accessed, dirty, non-paged). */
	if ((lo >> 12) != (last >> 12) && !contiguous)
		return DS_ERR_CROSSES_PAGE;
	return DS_OK;
}

static uint64_t page_up(uint64_t v)
{
	return (v + 4095) & ~4095ull;
}

int ds_plan_layout(enum ds_format fmt, unsigned pebs_fmt, uint64_t bts_bytes, uint64_t pebs_bytes,
		   uint64_t guard, struct ds_plan *out)
{
	const uint64_t limit = 1ull << 40;      /* far beyond any sane buffer */
	if (bts_bytes > limit || pebs_bytes > limit || guard > limit)
		return DS_ERR_WRAPS;
	uint64_t at = page_up(ds_mgmt_size(fmt, pebs_fmt));
	out->bts_off = bts_bytes ? at : 0;
	if (bts_bytes)
		at = page_up(at + bts_bytes + guard);
	out->pebs_off = pebs_bytes ? at : 0;
	at += pebs_bytes;
	out->total = page_up(at);
	return DS_OK;
}

int ds_layout_size(const struct ds_spec *s, uint64_t *bytes, uint64_t *align)
{
	struct ds_plan pl;
	uint32_t bts_rec = ds_bts_record_size(s->fmt);
	int e = ds_plan_layout(s->fmt, s->pebs_fmt, (uint64_t)s->bts_records * bts_rec,
			       (uint64_t)s->pebs_records * s->pebs_rec_size,
			       (uint64_t)s->bts_guard_records * bts_rec, &pl);
	if (e)
		return e;
	*bytes = pl.total;
	*align = DS_AREA_ALIGN;
	return DS_OK;
}

int ds_layout(const struct ds_spec *s, uint64_t area, struct ds_layout *out)
{
	struct ds_plan pl;
	int e;

	*out = (struct ds_layout){ .spec = *s, .area = area };
	out->mgmt_size = ds_mgmt_size(s->fmt, s->pebs_fmt);
	out->bts_rec = ds_bts_record_size(s->fmt);
	out->bts_use = s->bts_thresh_rec > s->bts_records ? DS_USE_CIRCULAR : DS_USE_INTERRUPT;
	if (area % DS_AREA_ALIGN)
		return DS_ERR_AREA_MISALIGNED;
	e = ds_plan_layout(s->fmt, s->pebs_fmt, (uint64_t)s->bts_records * out->bts_rec,
			   (uint64_t)s->pebs_records * s->pebs_rec_size,
			   (uint64_t)s->bts_guard_records * out->bts_rec, &pl);
	if (e)
		return e;
	out->total = pl.total;
	if (s->bts_records &&
	    (e = ds_buf_layout(s->fmt, area + pl.bts_off, out->bts_rec, s->bts_records,
			       s->bts_thresh_rec, out->bts_use, &out->bts)))
		return e;
	if (s->pebs_records &&
	    (e = ds_buf_layout(s->fmt, area + pl.pebs_off, s->pebs_rec_size, s->pebs_records,
			       s->pebs_thresh_rec, DS_USE_INTERRUPT, &out->pebs)))
		return e;
	return ds_area_check(s->fmt, s->pebs_fmt, area, s->bts_records ? &out->bts : 0, out->bts_rec,
			     s->pebs_records ? &out->pebs : 0, s->pebs_rec_size);
}

void ds_layout_write(void *mgmt, const struct ds_layout *l)
{
	ds_put_buf(mgmt, l->spec.fmt, false, &l->bts);
	ds_put_buf(mgmt, l->spec.fmt, true, &l->pebs);
}
