/* Host tests of lib/bts_record.c: record decoding and oldest-first reconstruction. */
#include <string.h>
#include "tl_test.h"
#include "bts_record.h"

TEST(bts_decode_64)
{
	uint8_t r[24] = {
		0x41, 0x91, 0, 0, 0, 0, 0, 0,                   /* from 0x9141 */
		0x9c, 0x97, 0, 0, 0xf8, 0xff, 0xff, 0xff,       /* to 0xfffffff80000979c */
		0x10, 0, 0, 0, 0, 0, 0, 0,                      /* predicted */
	};
	struct bts_record b;
	CHECK_EQ(bts_decode(r, sizeof r, DS_FMT64, &b), BTS_OK);
	CHECK_EQ(b.from, 0x9141);
	CHECK_EQ(b.to, 0xfffffff80000979cull);
	CHECK_EQ(b.flags, 0x10);
	CHECK(b.predicted);
	r[16] = 0x0f;
	CHECK_EQ(bts_decode(r, sizeof r, DS_FMT64, &b), BTS_OK);
	CHECK(!b.predicted);
	CHECK_EQ(bts_decode(r, 23, DS_FMT64, &b), BTS_ERR_SHORT);
}

TEST(bts_decode_32)
{
	uint8_t r[12] = { 0x83, 0xe8, 0, 0, 0x00, 0x10, 0x40, 0, 0x10, 0, 0, 0 };
	struct bts_record b;
	CHECK_EQ(bts_decode(r, sizeof r, DS_FMT32, &b), BTS_OK);
	CHECK_EQ(b.from, 0xe883);
	CHECK_EQ(b.to, 0x401000);
	CHECK(b.predicted);
	CHECK_EQ(bts_decode(r, 11, DS_FMT32, &b), BTS_ERR_SHORT);
	/* encode round trip */
	struct bts_record w = { 0x12345678, 0x9abcdef0, 0, true }, x;
	uint8_t e[12];
	bts_encode(e, DS_FMT32, &w);
	CHECK_EQ(bts_decode(e, 12, DS_FMT32, &x), BTS_OK);
	CHECK_EQ(x.from, w.from);
	CHECK_EQ(x.to, w.to);
	CHECK_EQ(x.flags, BTS_FLAG_PREDICTED);
}

/* Simulate the processor writing n branches into a circular buffer. */
static uint64_t simulate(uint8_t *mem, uint64_t base, unsigned cap, enum ds_format fmt, unsigned n)
{
	unsigned rs = ds_bts_record_size(fmt);
	uint64_t index = base, max = base + (uint64_t)cap * rs;
	for (unsigned i = 0; i < n; i++) {
		struct bts_record r = { 0x1000 + i, 0x2000 + i, 0, i & 1 };
		bts_encode(mem + (index - base), fmt, &r);
		index += rs;
		if (index >= max)
			index = base;
	}
	return index;
}

/* Book ex14-9: 11 branches into a 10-record buffer: index at record 1, the
 * oldest surviving record is branch 1, the newest (in slot 0) branch 10. */
TEST(bts_book_ex14_9)
{
	uint8_t mem[240];
	uint64_t base = 0x400100;
	memset(mem, 0, sizeof mem);
	uint64_t index = simulate(mem, base, 10, DS_FMT64, 11);
	CHECK_EQ(index, base + 24);
	bool wrapped;
	CHECK_EQ(bts_circular_index(10, 11, &wrapped), 1);
	CHECK(wrapped);
	struct bts_record out[16];
	long n = bts_ordered(mem, base, index, base + 240, true, DS_FMT64, out, 16);
	CHECK_EQ(n, 10);
	for (int i = 0; i < 10; i++) {
		CHECK_EQ(out[i].from, 0x1000 + 1 + i);
		CHECK_EQ(out[i].to, 0x2000 + 1 + i);
	}
}

TEST(bts_ordered_every_count)
{
	for (int f = 0; f < 2; f++) {
		enum ds_format fmt = (enum ds_format)f;
		unsigned rs = ds_bts_record_size(fmt);
		for (unsigned cap = 1; cap <= 7; cap++) {
			for (unsigned n = 0; n <= 3 * cap + 1; n++) {
				uint8_t mem[7 * 24];
				memset(mem, 0, sizeof mem);
				uint64_t base = 0x8000;
				uint64_t index = simulate(mem, base, cap, fmt, n);
				bool wrapped;
				uint64_t slot = bts_circular_index(cap, n, &wrapped);
				CHECK_EQ(index, base + slot * rs);
				struct bts_record out[8];
				long got = bts_ordered(mem, base, index, base + cap * rs, wrapped, fmt, out, 8);
				unsigned want = n < cap ? n : cap;
				CHECK_EQ(got, want);
				for (unsigned i = 0; i < want; i++)
					CHECK_EQ(out[i].from, 0x1000 + (n - want) + i);
			}
		}
	}
}

TEST(bts_ordered_errors_and_cap)
{
	uint8_t mem[240] = { 0 };
	struct bts_record out[4];
	CHECK_EQ(bts_ordered(mem, 0x1000, 0x0fe8, 0x10f0, false, DS_FMT64, out, 4), BTS_ERR_RANGE);
	CHECK_EQ(bts_ordered(mem, 0x1000, 0x1108, 0x10f0, false, DS_FMT64, out, 4), BTS_ERR_RANGE);
	CHECK_EQ(bts_ordered(mem, 0x1000, 0x1001, 0x10f0, false, DS_FMT64, out, 4), BTS_ERR_ALIGN);
	CHECK_EQ(bts_ordered(mem, 0x1000, 0x1000, 0x10f1, false, DS_FMT64, out, 4), BTS_ERR_ALIGN);
	CHECK_EQ(bts_ordered(mem, 0x1000, 0x1000, 0x1000, true, DS_FMT64, out, 4), BTS_ERR_EMPTY_WRAP);
	CHECK_EQ(bts_ordered(mem, 0x1000, 0x1000, 0x1000, false, DS_FMT64, out, 4), 0);
	/* more records than the output holds: count reported, only cap written */
	uint64_t index = simulate(mem, 0x1000, 10, DS_FMT64, 13);
	CHECK_EQ(bts_ordered(mem, 0x1000, index, 0x10f0, true, DS_FMT64, out, 4), 10);
	CHECK_EQ(out[0].from, 0x1003);
	CHECK_EQ(out[3].from, 0x1006);
	/* index parked at max (hardware that resets before the next write) */
	memset(mem, 0, sizeof mem);
	simulate(mem, 0x1000, 10, DS_FMT64, 10);
	CHECK_EQ(bts_ordered(mem, 0x1000, 0x10f0, 0x10f0, false, DS_FMT64, out, 4), 10);
	CHECK_EQ(out[0].from, 0x1000);
}

TEST(bts_margin_arithmetic)
{
	/* threshold several records short of the maximum (SDM 17.4.9.4) */
	CHECK_EQ(bts_interrupt_capacity(10, BTS_PMI_MARGIN_RECORDS), 10 + BTS_PMI_MARGIN_RECORDS);
	CHECK_EQ(bts_interrupt_capacity(10, 0), 0);     /* threshold == maximum: refused */
	CHECK_EQ(bts_interrupt_capacity(0, 32), 0);
	CHECK_EQ(bts_interrupt_capacity(UINT32_MAX, 1), 0);
	const uint64_t b = 0x10000, t = b + 10 * 24, m = b + 42 * 24;
	CHECK_EQ(bts_pmi_index_check(b, b + 9 * 24, t, m, 24), BTS_IDX_BELOW);
	CHECK_EQ(bts_pmi_index_check(b, t, t, m, 24), BTS_IDX_OK);
	CHECK_EQ(bts_pmi_index_check(b, t + 5 * 24, t, m, 24), BTS_IDX_OK);
	CHECK_EQ(bts_pmi_index_check(b, m - 24, t, m, 24), BTS_IDX_OK);
	CHECK_EQ(bts_pmi_index_check(b, m, t, m, 24), BTS_IDX_FULL);
	CHECK_EQ(bts_pmi_index_check(b, m + 24, t, m, 24), BTS_IDX_BEYOND);
	CHECK_EQ(bts_pmi_index_check(b, t + 1, t, m, 24), BTS_IDX_BEYOND);
	CHECK_EQ(bts_pmi_index_check(b, b - 24, t, m, 24), BTS_IDX_BEYOND);
	CHECK_EQ(bts_pmi_index_check(b, t, t, m, 0), BTS_IDX_BEYOND);
	uint64_t lo, hi;
	/* 25 records, threshold 8, capacity 40: one to three interrupts */
	bts_interrupt_bounds(25, 8, 40, &lo, &hi);
	CHECK_EQ(lo, 1);
	CHECK_EQ(hi, 3);
	bts_interrupt_bounds(7, 8, 40, &lo, &hi);       /* below the threshold: none */
	CHECK_EQ(lo, 0);
	CHECK_EQ(hi, 0);
	bts_interrupt_bounds(8, 8, 40, &lo, &hi);
	CHECK_EQ(lo, 1);
	CHECK_EQ(hi, 1);
	bts_interrupt_bounds(200, 10, 42, &lo, &hi);
	CHECK_EQ(lo, 5);                /* 191 must be drained, 42 at most each */
	CHECK_EQ(hi, 20);
	bts_interrupt_bounds(5, 0, 40, &lo, &hi);
	CHECK_EQ(hi, 0);
}

TEST(bts_circular_edges)
{
	bool w;
	CHECK_EQ(bts_circular_index(0, 5, &w), 0);
	CHECK(!w);
	CHECK_EQ(bts_circular_index(10, 10, &w), 0);
	CHECK(w);
}

/* Book ex14-9 as written, in 32-bit protected mode with DTES64=0: 12-byte records,
 * 11 branches into a 10-record circular buffer; the index is one record past
 * base and the oldest surviving record is the second branch. */
TEST(bts_book_ex14_9_32bit_layout)
{
	uint8_t mem[120];
	uint64_t base = 0x00402000;
	memset(mem, 0, sizeof mem);
	uint64_t index = simulate(mem, base, 10, DS_FMT32, 11);
	CHECK_EQ(index, base + 12);
	struct bts_record out[16];
	long n = bts_ordered(mem, base, index, base + 120, true, DS_FMT32, out, 16);
	CHECK_EQ(n, 10);
	for (int i = 0; i < 10; i++) {
		CHECK_EQ(out[i].from, 0x1000 + 1 + i);
		CHECK_EQ(out[i].to, 0x2000 + 1 + i);
		CHECK_EQ(out[i].predicted, ((1 + i) & 1) != 0);
	}
	/* the same bytes read with the 64-bit layout are not 10 records */
	CHECK_EQ(bts_ordered(mem, base, index, base + 120, true, DS_FMT64, out, 16), BTS_ERR_ALIGN);
}
