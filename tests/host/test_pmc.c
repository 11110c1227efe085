/* Host tests of lib/pmc.c: counter presets and overflow at widths 32..64. */
#include "tl_test.h"
#include "pmc.h"

TEST(pmu_mask_and_preset)
{
	CHECK_EQ(pmu_mask(0), 0);
	CHECK_EQ(pmu_mask(32), 0xffffffffull);
	CHECK_EQ(pmu_mask(48), 0xffffffffffffull);
	CHECK_EQ(pmu_mask(64), ~0ull);
	/* book ex14-10: 0xffffffff - 7 written through IA32_PMC0 on a 48-bit counter */
	CHECK_EQ(pmu_legacy_write(0xfffffff8ull, 48), 0xfffffffffff8ull);
	CHECK_EQ(pmu_preset(8, 48), 0xfffffffffff8ull);
	CHECK_EQ(pmu_legacy_write(0x7fffffffull, 48), 0x7fffffffull);
	CHECK_EQ(pmu_legacy_write(0xdeadbeef12345678ull, 48), 0x12345678ull);   /* EDX ignored */
	CHECK_EQ(pmu_preset(1, 64), ~0ull);
	CHECK_EQ(pmu_preset(1ull << 32, 32), 0);   /* a full period */
}

/* Every width from 32 to 64: preset for N, the write path, and the overflow
 * after exactly N increments (not N-1). */
TEST(pmu_every_width)
{
	static const uint64_t ns[] = { 1, 2, 7, 1000, 0x7fffffff, 0x80000000ull, 0x80000001ull,
				       0xffffffffull, 0x100000000ull, 0x123456789abull };
	for (unsigned w = 32; w <= 64; w++) {
		uint64_t m = pmu_mask(w);
		for (unsigned i = 0; i < sizeof ns / sizeof ns[0]; i++) {
			uint64_t n = ns[i];
			if (w < 64 && n > (1ull << w))
				continue;
			uint64_t p = pmu_preset(n, w);
			CHECK_EQ(p & ~m, 0);
			CHECK_EQ((p + n) & m, 0);
			uint64_t wraps;
			/* N-1 events: no overflow yet, one left */
			uint64_t v = pmu_advance(p, n - 1, w, &wraps);
			CHECK_EQ(wraps, 0);
			CHECK_EQ(v, m);
			CHECK_EQ(pmu_until_overflow(v, w), 1);
			/* N events: exactly one overflow, counter at 0 */
			v = pmu_advance(p, n, w, &wraps);
			CHECK_EQ(wraps, 1);
			CHECK_EQ(v, 0);
			CHECK(pmu_overflowed(p, v, n, w));
			CHECK(!pmu_overflowed(p, m, n - 1, w));
			CHECK_EQ(pmu_delta(p, v, w), n & m);
			if (n & m)
				CHECK_EQ(pmu_until_overflow(p, w), n);
			/* the legacy alias can only write it if bits w-1:31 agree */
			uint64_t hi = p >> 31, hmask = m >> 31;
			bool legacy_ok = hi == 0 || hi == hmask;
			if (w >= 40)
				CHECK_EQ(legacy_ok, n <= 0x80000000ull || n > m - 0x7fffffffull);
			CHECK_EQ(pmu_preset_writable(n, w, false), legacy_ok);
			CHECK(pmu_preset_writable(n, w, true));
			if (legacy_ok)
				CHECK_EQ(pmu_legacy_write(p, w), p);
			CHECK(pmu_fw_write_ok(p, w));
		}
		/* a bit above the width is a #GP on IA32_A_PMCx */
		if (w < 64) {
			CHECK(!pmu_fw_write_ok(1ull << w, w));
			CHECK(pmu_fw_write_ok(m, w));
			CHECK(!pmu_preset_writable((1ull << w) + 1, w, true));
		}
		/* writing all ones through the legacy alias fills the whole width */
		CHECK_EQ(pmu_legacy_write(0xffffffffull, w), m);
		CHECK_EQ(pmu_legacy_write(0x80000000ull, w), (0xffffffff80000000ull) & m);
		/* many periods at once */
		uint64_t wraps;
		if (w <= 40) {
			uint64_t v = pmu_advance(5, 3 * (m + 1) + 2, w, &wraps);
			CHECK_EQ(wraps, 3);
			CHECK_EQ(v, 7);
		}
		CHECK_EQ(pmu_advance(m, 0, w, &wraps), m);
		CHECK_EQ(wraps, 0);
	}
	CHECK(!pmu_preset_writable(0, 48, true));
	CHECK(!pmu_preset_writable(1, 0, true));
	uint64_t wraps;
	CHECK_EQ(pmu_advance(~0ull, 2, 64, &wraps), 1);
	CHECK_EQ(wraps, 1);
	CHECK_EQ(pmu_until_overflow(0, 48), 1ull << 48);
}
