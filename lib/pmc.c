/* Counter preset and overflow arithmetic: see lib/pmc.h. */
#include "pmc.h"

uint64_t pmu_mask(unsigned width)
{
	if (width == 0)
		return 0;
	return width >= 64 ? ~0ull : (1ull << width) - 1;
}

uint64_t pmu_preset(uint64_t n, unsigned width)
{
	return (0 - n) & pmu_mask(width);
}

uint64_t pmu_legacy_write(uint64_t v, unsigned width)
{
	uint64_t lo = v & 0xffffffffull;
	if (lo & 0x80000000ull)
		lo |= 0xffffffff00000000ull;
	return lo & pmu_mask(width);
}

bool pmu_fw_write_ok(uint64_t v, unsigned width)
{
	return (v & ~pmu_mask(width)) == 0;
}

bool pmu_preset_writable(uint64_t n, unsigned width, bool fw)
{
	if (n == 0 || width == 0)
		return false;
	if (width < 64 && n > (1ull << width))
		return false;
	uint64_t want = pmu_preset(n, width);
	if (fw)
		return true;
	return pmu_legacy_write(want, width) == want;
}

uint64_t pmu_advance(uint64_t v, uint64_t k, unsigned width, uint64_t *wraps)
{
	uint64_t m = pmu_mask(width);
	v &= m;
	if (width >= 64) {
		uint64_t r = v + k;
		*wraps = r < v;
		return r;
	}
	/* v < 2^w and k < 2^64: split k to avoid overflowing the sum */
	uint64_t span = 1ull << width;
	uint64_t w = k / span, rem = k % span;
	uint64_t r = v + rem;               /* < 2^(w+1) <= 2^64 for w <= 63 */
	if (r >= span) {
		r -= span;
		w++;
	}
	*wraps = w;
	return r;
}

bool pmu_overflowed(uint64_t before, uint64_t after, uint64_t k, unsigned width)
{
	uint64_t wraps;
	uint64_t r = pmu_advance(before, k, width, &wraps);
	return r == (after & pmu_mask(width)) && wraps > 0;
}

uint64_t pmu_delta(uint64_t before, uint64_t after, unsigned width)
{
	return (after - before) & pmu_mask(width);
}

uint64_t pmu_until_overflow(uint64_t v, unsigned width)
{
	/* 2^w - v; for v == 0 that is the full period 2^w (wraps to 0 at w == 64) */
	return (0 - v) & pmu_mask(width) ? (0 - v) & pmu_mask(width) : pmu_mask(width) + 1;
}
