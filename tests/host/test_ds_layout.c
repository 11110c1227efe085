/* Host tests of lib/ds_layout.c: DS management-area layout and buffer validation. */
#include <string.h>
#include "tl_test.h"
#include "ds_layout.h"
#include "le.h"

TEST(ds_offsets_64)
{
	CHECK_EQ(ds_field_offset(DS_FMT64, DS_BTS_BASE), 0x00);
	CHECK_EQ(ds_field_offset(DS_FMT64, DS_BTS_INDEX), 0x08);
	CHECK_EQ(ds_field_offset(DS_FMT64, DS_BTS_MAX), 0x10);
	CHECK_EQ(ds_field_offset(DS_FMT64, DS_BTS_THRESH), 0x18);
	CHECK_EQ(ds_field_offset(DS_FMT64, DS_PEBS_BASE), 0x20);
	CHECK_EQ(ds_field_offset(DS_FMT64, DS_PEBS_INDEX), 0x28);
	CHECK_EQ(ds_field_offset(DS_FMT64, DS_PEBS_MAX), 0x30);
	CHECK_EQ(ds_field_offset(DS_FMT64, DS_PEBS_THRESH), 0x38);
	CHECK_EQ(ds_gp_reset_offset(DS_FMT64, 4, 0), 0x40);
	CHECK_EQ(ds_gp_reset_offset(DS_FMT64, 4, 3), 0x58);
	CHECK_EQ(ds_gp_reset_offset(DS_FMT64, 4, 7), 0x78);
	CHECK_EQ(ds_gp_reset_offset(DS_FMT64, 4, 8), 0);
	CHECK_EQ(ds_fixed_reset_offset(DS_FMT64, 4, 0), 0x80);
	CHECK_EQ(ds_fixed_reset_offset(DS_FMT64, 4, 3), 0x98);
	CHECK_EQ(ds_fixed_reset_offset(DS_FMT64, 4, 16), 0);
	CHECK_EQ(ds_mgmt_size(DS_FMT64, 4), 0x100);
	CHECK_EQ(ds_bts_record_size(DS_FMT64), 24);
}

TEST(ds_offsets_32)
{
	static const unsigned want[DS_NFIELDS] = { 0, 4, 8, 0xc, 0x10, 0x14, 0x18, 0x1c };
	for (int f = 0; f < DS_NFIELDS; f++)
		CHECK_EQ(ds_field_offset(DS_FMT32, (enum ds_field)f), want[f]);
	CHECK_EQ(ds_gp_reset_offset(DS_FMT32, 0, 0), 0x20);
	CHECK_EQ(ds_gp_reset_offset(DS_FMT32, 0, 1), 0);
	CHECK_EQ(ds_fixed_reset_offset(DS_FMT32, 5, 0), 0);
	CHECK_EQ(ds_bts_record_size(DS_FMT32), 12);
	CHECK_EQ(ds_mgmt_size(DS_FMT32, 0), 0x28);
}

TEST(ds_get_put_roundtrip)
{
	uint8_t a[DS_MGMT_SIZE_64_MAX];
	memset(a, 0xcc, sizeof a);
	ds_put(a, DS_FMT64, DS_BTS_INDEX, 0x1122334455667788ull);
	CHECK_EQ(a[8], 0x88);
	CHECK_EQ(a[15], 0x11);
	CHECK_EQ(a[7], 0xcc);
	CHECK_EQ(a[16], 0xcc);
	CHECK_EQ(ds_get(a, DS_FMT64, DS_BTS_INDEX), 0x1122334455667788ull);
	ds_put(a, DS_FMT32, DS_PEBS_THRESH, 0x1122334455667788ull);
	CHECK_EQ(ds_get(a, DS_FMT32, DS_PEBS_THRESH), 0x55667788);
	CHECK_EQ(a[0x20], 0xcc);        /* only 4 bytes written */
	ds_put_gp_reset(a, DS_FMT64, 4, 2, 0xfffffffffff0ull);
	CHECK_EQ(ds_get_gp_reset(a, DS_FMT64, 4, 2), 0xfffffffffff0ull);
	ds_put_gp_reset(a, DS_FMT64, 4, 9, 1);   /* no such slot: no write */
	ds_put_fixed_reset(a, DS_FMT64, 4, 1, 0xabcdef);
	CHECK_EQ(a[0x88], 0xef);
	ds_put_fixed_reset(a, DS_FMT64, 5, 1, 0x123456);
	CHECK_EQ(a[0x148], 0x56);
	CHECK_EQ(ds_get_fixed_reset(a, DS_FMT64, 5, 1), 0x123456);
	struct ds_buf b = { 0x1000, 0x1018, 0x10f0, 0x1108 }, c;
	ds_put_buf(a, DS_FMT64, true, &b);
	ds_get_buf(a, DS_FMT64, true, &c);
	CHECK(memcmp(&b, &c, sizeof b) == 0);
	CHECK_EQ(ds_get(a, DS_FMT64, DS_PEBS_MAX), 0x10f0);
}

/* Book ex14-9: 10 records of 24 bytes, circular, threshold at record 11. */
TEST(ds_layout_book_circular)
{
	struct ds_buf b;
	CHECK_EQ(ds_buf_layout(DS_FMT64, 0x400100, 24, 10, 11, DS_USE_CIRCULAR, &b), DS_OK);
	CHECK_EQ(b.base, 0x400100);
	CHECK_EQ(b.index, 0x400100);
	CHECK_EQ(b.max, 0x400100 + 0xf0);
	CHECK_EQ(b.thresh, 0x400100 + 0x108);
	CHECK_EQ(ds_buf_capacity(&b, 24), 10);
	CHECK_EQ(ds_buf_used(&b, 24), 0);
	/* 32-bit records: 12 bytes */
	CHECK_EQ(ds_buf_layout(DS_FMT32, 0x400100, 12, 10, 10, DS_USE_INTERRUPT, &b), DS_OK);
	CHECK_EQ(b.max, 0x400100 + 120);
	CHECK_EQ(b.thresh, b.max);
}

TEST(ds_layout_errors)
{
	struct ds_buf b;
	CHECK_EQ(ds_buf_layout(DS_FMT64, 0x1000, 24, 0, 0, DS_USE_INTERRUPT, &b), DS_ERR_NO_RECORDS);
	CHECK_EQ(ds_buf_layout(DS_FMT64, 0x1000, 0, 4, 4, DS_USE_INTERRUPT, &b), DS_ERR_REC_SIZE);
	CHECK_EQ(ds_buf_layout(DS_FMT64, 0x1002, 24, 4, 4, DS_USE_INTERRUPT, &b), DS_ERR_BASE_MISALIGNED);
	CHECK_EQ(ds_buf_layout(DS_FMT64, 0x1000, 24, 4, 5, DS_USE_INTERRUPT, &b), DS_ERR_THRESH_ABOVE_MAX);
	CHECK_EQ(ds_buf_layout(DS_FMT64, 0x1000, 24, 4, 4, DS_USE_CIRCULAR, &b), DS_ERR_THRESH_IN_BUFFER);
	CHECK_EQ(ds_buf_layout(DS_FMT64, 0x1000, 24, 4, 2, DS_USE_CIRCULAR, &b), DS_ERR_THRESH_IN_BUFFER);
	CHECK_EQ(ds_buf_layout(DS_FMT64, 0x1000, 24, 4, 0, DS_USE_INTERRUPT, &b), DS_ERR_THRESH_AT_BASE);
	CHECK_EQ(ds_buf_layout(DS_FMT64, 0x1000, 24, 4, 2, DS_USE_INTERRUPT, &b), DS_OK);  /* below max */
	CHECK_EQ(ds_buf_layout(DS_FMT32, 0xfffff000ull, 12, 1000, 1000, DS_USE_INTERRUPT, &b), DS_ERR_WRAPS);
	CHECK_EQ(ds_buf_layout(DS_FMT32, 0x100000000ull, 12, 1, 1, DS_USE_INTERRUPT, &b), DS_ERR_WRAPS);
	CHECK_EQ(ds_buf_layout(DS_FMT64, ~0ull - 100, 24, 10, 10, DS_USE_INTERRUPT, &b), DS_ERR_WRAPS);
	CHECK_EQ(ds_buf_layout(DS_FMT64, 0x0000800000000000ull, 24, 1, 1, DS_USE_INTERRUPT, &b),
		 DS_ERR_NONCANONICAL);
	CHECK_EQ(ds_buf_layout(DS_FMT64, 0xffff800000000000ull, 24, 1, 1, DS_USE_INTERRUPT, &b), DS_OK);
}

TEST(ds_check_pointer_errors)
{
	struct ds_buf ok = { 0x2000, 0x2000, 0x2000 + 240, 0x2000 + 240 }, b;
	CHECK_EQ(ds_buf_check(DS_FMT64, &ok, 24, DS_USE_INTERRUPT), DS_OK);
	b = ok; b.thresh = ok.base + 100;
	CHECK_EQ(ds_buf_check(DS_FMT64, &b, 24, DS_USE_INTERRUPT), DS_ERR_THRESH_NOT_MULTIPLE);
	b = ok; b.max = ok.base + 250;
	CHECK_EQ(ds_buf_check(DS_FMT64, &b, 24, DS_USE_INTERRUPT), DS_ERR_MAX_NOT_MULTIPLE);
	b = ok; b.index = ok.base + 25;
	CHECK_EQ(ds_buf_check(DS_FMT64, &b, 24, DS_USE_INTERRUPT), DS_ERR_INDEX_NOT_MULTIPLE);
	b = ok; b.index = ok.base - 24;
	CHECK_EQ(ds_buf_check(DS_FMT64, &b, 24, DS_USE_INTERRUPT), DS_ERR_INDEX_RANGE);
	b = ok; b.index = ok.max + 24;
	CHECK_EQ(ds_buf_check(DS_FMT64, &b, 24, DS_USE_INTERRUPT), DS_ERR_INDEX_RANGE);
	b = ok; b.index = ok.max;        /* full buffer, not yet drained: legal */
	CHECK_EQ(ds_buf_check(DS_FMT64, &b, 24, DS_USE_INTERRUPT), DS_OK);
	b = ok; b.max = ok.base;
	CHECK_EQ(ds_buf_check(DS_FMT64, &b, 24, DS_USE_INTERRUPT), DS_ERR_NO_RECORDS);
	b = ok; b.thresh = ok.max + 24;
	CHECK_EQ(ds_buf_check(DS_FMT64, &b, 24, DS_USE_INTERRUPT), DS_ERR_THRESH_ABOVE_MAX);
	CHECK_EQ(ds_buf_check(DS_FMT64, &b, 24, DS_USE_CIRCULAR), DS_OK);
	b = ok; b.thresh = 0x100000000ull;
	CHECK_EQ(ds_buf_check(DS_FMT32, &b, 12, DS_USE_CIRCULAR), DS_ERR_ADDR_WIDTH);
	CHECK_EQ(ds_buf_check(DS_FMT64, &ok, 0, DS_USE_INTERRUPT), DS_ERR_REC_SIZE);
	/* every error code has a distinct message */
	for (int e = 0; e >= -17; e--)
		CHECK(strcmp(ds_strerror(e), "unknown DS error") != 0);
	CHECK(strcmp(ds_strerror(-99), "unknown DS error") == 0);
	CHECK(strcmp(ds_field_name(DS_PEBS_INDEX), "PEBS index") == 0);
}

TEST(ds_area_check_overlap)
{
	struct ds_buf bts, pebs;
	CHECK_EQ(ds_buf_layout(DS_FMT64, 0x10100, 24, 10, 11, DS_USE_CIRCULAR, &bts), DS_OK);
	CHECK_EQ(ds_buf_layout(DS_FMT64, 0x10400, 200, 4, 4, DS_USE_INTERRUPT, &pebs), DS_OK);
	CHECK_EQ(ds_area_check(DS_FMT64, 4, 0x10000, &bts, 24, &pebs, 200), DS_OK);
	CHECK_EQ(ds_area_check(DS_FMT64, 4, 0x10080, &bts, 24, &pebs, 200), DS_ERR_OVERLAP);
	CHECK_EQ(ds_area_check(DS_FMT64, 4, 0x10002, &bts, 24, &pebs, 200), DS_ERR_AREA_MISALIGNED);
	CHECK_EQ(ds_buf_layout(DS_FMT64, 0x10100 + 48, 200, 4, 4, DS_USE_INTERRUPT, &pebs), DS_OK);
	CHECK_EQ(ds_area_check(DS_FMT64, 4, 0x10000, &bts, 24, &pebs, 200), DS_ERR_OVERLAP);
	CHECK_EQ(ds_area_check(DS_FMT64, 4, 0x10000, &bts, 24, NULL, 0), DS_OK);
	CHECK_EQ(ds_area_check(DS_FMT32, 0, 0xfffffff0ull, NULL, 0, NULL, 0), DS_ERR_ADDR_WIDTH);
}

TEST(ds_placement)
{
	/* one page, away from code */
	CHECK_EQ(ds_placement_check(0x20000, 0x1000, 0x100000, 0x180000, false), DS_OK);
	/* shares the last code page */
	CHECK_EQ(ds_placement_check(0x17f800, 0x100, 0x100000, 0x17f900, false), DS_ERR_CODE_PAGE);
	/* code ends exactly at the page boundary: fine */
	CHECK_EQ(ds_placement_check(0x180000, 0x100, 0x100000, 0x180000, false), DS_OK);
	/* crossing a page is fine only with contiguous, non-paged pages */
	CHECK_EQ(ds_placement_check(0x20f00, 0x200, 0, 0, false), DS_ERR_CROSSES_PAGE);
	CHECK_EQ(ds_placement_check(0x20f00, 0x200, 0, 0, true), DS_OK);
	CHECK_EQ(ds_placement_check(~0ull - 10, 100, 0, 0, true), DS_ERR_WRAPS);
	CHECK_EQ(ds_placement_check(0x1000, 0, 0x1000, 0x2000, false), DS_OK);
}

/* The reset slots per PEBS_FMT (SDM extended-PEBS DS area; PEBS_FMT 5 moves
 * the fixed slots past 32 general ones), and every slot inside the area size. */
TEST(ds_reset_slots_per_pebs_fmt)
{
	static const struct { unsigned fmt, ngp, fixed0, size; } rows[] = {
		{ 0, 8, 0, 0x80 }, { 1, 8, 0, 0x80 }, { 2, 8, 0, 0x80 }, { 3, 8, 0, 0x80 },
		{ 4, 8, 0x80, 0x100 }, { 5, 32, 0x140, 0x1c0 }, { 6, 32, 0x140, 0x1c0 },
	};
	for (unsigned i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		unsigned f = rows[i].fmt, sz = ds_mgmt_size(DS_FMT64, f);
		CHECK_EQ(sz, rows[i].size);
		CHECK(sz <= DS_MGMT_SIZE_64_MAX);
		for (unsigned n = 0; n < 40; n++) {
			unsigned o = ds_gp_reset_offset(DS_FMT64, f, n);
			CHECK_EQ(o, n < rows[i].ngp ? 0x40 + 8 * n : 0);
			if (o)
				CHECK(o + 8 <= sz);
		}
		for (unsigned n = 0; n < 20; n++) {
			unsigned o = ds_fixed_reset_offset(DS_FMT64, f, n);
			CHECK_EQ(o, rows[i].fixed0 && n < 16 ? rows[i].fixed0 + 8 * n : 0);
			if (o) {
				CHECK(o + 8 <= sz);
				/* never on a general slot */
				CHECK(o >= 0x40 + 8 * rows[i].ngp);
			}
		}
	}
}

/* BTS and PEBS buffers on their own pages, a guard after the BTS maximum. */
TEST(ds_plan_guard)
{
	struct ds_plan pl;
	CHECK_EQ(ds_plan_layout(DS_FMT64, 3, 42 * 24, 200, 32 * 24, &pl), DS_OK);
	CHECK_EQ(pl.bts_off, 0x1000);
	CHECK(pl.pebs_off >= pl.bts_off + 42 * 24 + 32 * 24);
	CHECK_EQ(pl.pebs_off % 4096, 0);
	CHECK(pl.total >= pl.pebs_off + 200);
	CHECK_EQ(pl.total % 4096, 0);
	CHECK_EQ(ds_plan_layout(DS_FMT64, 5, 0, 4 * 200, 0, &pl), DS_OK);
	CHECK_EQ(pl.bts_off, 0);
	CHECK_EQ(pl.pebs_off, 0x1000);
	CHECK_EQ(ds_plan_layout(DS_FMT64, 5, 4096, 0, 0, &pl), DS_OK);
	CHECK_EQ(pl.pebs_off, 0);
	CHECK_EQ(pl.total, 0x2000);
	/* a BTS buffer of exactly one page plus a guard: PEBS two pages on */
	CHECK_EQ(ds_plan_layout(DS_FMT64, 4, 4096, 100, 1, &pl), DS_OK);
	CHECK_EQ(pl.pebs_off, 0x3000);
	CHECK_EQ(ds_plan_layout(DS_FMT64, 4, 1ull << 41, 100, 1, &pl), DS_ERR_WRAPS);
}

/* The whole save area from the format, record counts, thresholds and a base. */
TEST(ds_layout_whole_area)
{
	/* ex14-9 style: a circular BTS buffer and a PEBS buffer interrupting when full */
	struct ds_spec s = { .fmt = DS_FMT64, .pebs_fmt = 4, .bts_records = 42, .bts_thresh_rec = 43,
			     .bts_guard_records = 32, .pebs_records = 4, .pebs_thresh_rec = 4,
			     .pebs_rec_size = 200 };
	uint64_t bytes, align;
	CHECK_EQ(ds_layout_size(&s, &bytes, &align), DS_OK);
	CHECK_EQ(align, 4096);
	CHECK_EQ(bytes, 0x3000);                /* mgmt page, BTS + guard page, PEBS page */
	struct ds_layout l;
	CHECK_EQ(ds_layout(&s, 0x200000, &l), DS_OK);
	CHECK_EQ(l.total, bytes);
	CHECK_EQ(l.mgmt_size, 0x100);
	CHECK_EQ(l.bts_rec, 24);
	CHECK_EQ(l.bts_use, DS_USE_CIRCULAR);
	CHECK_EQ(l.bts.base, 0x201000);
	CHECK_EQ(l.bts.index, 0x201000);
	CHECK_EQ(l.bts.max, 0x201000 + 42 * 24);
	CHECK_EQ(l.bts.thresh, 0x201000 + 43 * 24);
	CHECK_EQ(l.pebs.base, 0x202000);
	CHECK(l.pebs.base >= l.bts.max + 32 * 24);
	CHECK_EQ(l.pebs.max, 0x202000 + 800);
	CHECK_EQ(l.pebs.thresh, l.pebs.max);
	uint8_t mgmt[DS_MGMT_SIZE_64_MAX];
	memset(mgmt, 0, sizeof mgmt);
	ds_layout_write(mgmt, &l);
	CHECK_EQ(ds_get(mgmt, DS_FMT64, DS_BTS_THRESH), l.bts.thresh);
	CHECK_EQ(ds_get(mgmt, DS_FMT64, DS_PEBS_BASE), 0x202000);
	CHECK_EQ(ds_get(mgmt, DS_FMT64, DS_PEBS_THRESH), 0x202000 + 800);
	CHECK_EQ(ds_get_gp_reset(mgmt, DS_FMT64, 4, 0), 0);
	/* an interrupting BTS buffer, no PEBS: the PEBS pointers stay zero */
	s = (struct ds_spec){ .fmt = DS_FMT64, .pebs_fmt = 5, .bts_records = 200, .bts_thresh_rec = 168,
			      .bts_guard_records = 32 };
	CHECK_EQ(ds_layout(&s, 0x400000, &l), DS_OK);
	CHECK_EQ(l.mgmt_size, 0x1c0);
	CHECK_EQ(l.bts_use, DS_USE_INTERRUPT);
	CHECK_EQ(l.bts.thresh, 0x401000 + 168 * 24);
	CHECK_EQ(l.pebs.base, 0);
	CHECK_EQ(l.total, 0x3000);              /* 4800 bytes of BTS: two pages */
	/* PEBS only */
	s = (struct ds_spec){ .fmt = DS_FMT64, .pebs_records = 10, .pebs_thresh_rec = 1, .pebs_rec_size = 176 };
	CHECK_EQ(ds_layout(&s, 0x400000, &l), DS_OK);
	CHECK_EQ(l.bts.base, 0);
	CHECK_EQ(l.pebs.base, 0x401000);
	CHECK_EQ(l.pebs.thresh, 0x401000 + 176);
	/* errors, each the SDM rule it breaks */
	CHECK_EQ(ds_layout(&s, 0x400800, &l), DS_ERR_AREA_MISALIGNED);
	CHECK_EQ(ds_layout(&s, 0x0000800000000000ull, &l), DS_ERR_NONCANONICAL);
	s.pebs_thresh_rec = 11;
	CHECK_EQ(ds_layout(&s, 0x400000, &l), DS_ERR_THRESH_ABOVE_MAX);
	s.pebs_thresh_rec = 0;
	CHECK_EQ(ds_layout(&s, 0x400000, &l), DS_ERR_THRESH_AT_BASE);
	s.pebs_thresh_rec = 1;
	s.pebs_rec_size = 0;
	CHECK_EQ(ds_layout(&s, 0x400000, &l), DS_ERR_REC_SIZE);
	s = (struct ds_spec){ .fmt = DS_FMT32, .bts_records = 10, .bts_thresh_rec = 11 };
	CHECK_EQ(ds_layout(&s, 0xfffff000ull, &l), DS_ERR_WRAPS);
	CHECK_EQ(ds_layout(&s, 0x100000, &l), DS_OK);
	CHECK_EQ(l.bts_rec, 12);
	CHECK_EQ(l.mgmt_size, 0x28);
	CHECK_EQ(ds_layout_size(&s, &bytes, &align), DS_OK);
	CHECK_EQ(bytes, 0x2000);
}

/* SDM 17.4.9.1: which layout the processor reads, by DTES64 and IA-32e mode. */
TEST(ds_format_by_mode)
{
	CHECK_EQ(ds_format_for(false, false), DS_FMT32);   /* 32-bit protected mode, no DTES64 */
	CHECK_EQ(ds_format_for(false, true), DS_FMT64);    /* IA-32e mode */
	CHECK_EQ(ds_format_for(true, false), DS_FMT64);    /* DTES64: 64-bit layout in protected mode too */
	CHECK_EQ(ds_format_for(true, true), DS_FMT64);
}

/* The 64-bit layout used from protected mode (DTES64=1): the fields are 8 bytes
 * wide and hold 32-bit linear addresses with the upper half zero; the same
 * buffer in the 32-bit layout puts the same pointers at half the offsets. */
TEST(ds_layouts_from_protected_mode)
{
	uint8_t a64[DS_MGMT_SIZE_64_MAX], a32[DS_MGMT_SIZE_32];
	struct ds_buf b, r;
	memset(a64, 0xee, sizeof a64);
	memset(a32, 0xee, sizeof a32);
	CHECK_EQ(ds_buf_layout(DS_FMT32, 0x00401000, 12, 10, 11, DS_USE_CIRCULAR, &b), DS_OK);
	ds_put_buf(a32, DS_FMT32, false, &b);
	ds_put_buf(a64, DS_FMT64, false, &b);
	CHECK_EQ(le_get(a32 + 0x04, 4), 0x00401000);            /* BTS index */
	CHECK_EQ(le_get(a32 + 0x08, 4), 0x00401000 + 120);      /* absolute maximum */
	CHECK_EQ(le_get(a64 + 0x08, 8), 0x00401000);
	CHECK_EQ(le_get(a64 + 0x10, 8), 0x00401000 + 120);
	CHECK_EQ(a32[0x10], 0xee);                              /* PEBS side untouched */
	ds_get_buf(a64, DS_FMT64, false, &r);
	CHECK_EQ(r.thresh, 0x00401000 + 132);
	CHECK_EQ(ds_buf_check(DS_FMT64, &r, 12, DS_USE_CIRCULAR), DS_OK);
	/* a 32-bit buffer above 4 GiB cannot exist; in the 64-bit layout it can */
	b.base = 0x100000000ull;
	CHECK_EQ(ds_buf_check(DS_FMT32, &b, 12, DS_USE_CIRCULAR), DS_ERR_ADDR_WIDTH);
}
