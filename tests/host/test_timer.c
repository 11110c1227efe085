/* lib/timer.c: a watchdog longer than the APIC timer's 32-bit count (issue 13.8). */
#include "timer.h"
#include "tl_test.h"

TEST(timer_chain)
{
	/* 100 s at QEMU's 1 GHz / 16 = 62500 ticks per ms: 6.25e9 ticks, two armings */
	uint64_t left = 100000ULL * 62500;
	uint64_t sum = 0;
	int armings = 0;
	uint32_t c;
	while ((c = timer_chain_next(&left)) != 0) {
		sum += c;
		armings++;
		CHECK(armings < 10);
	}
	CHECK_EQ(sum, 100000ULL * 62500);
	CHECK_EQ(armings, 2);
	CHECK_EQ(left, 0);
	/* what fits is one arming */
	left = 3000 * 62500;
	CHECK_EQ(timer_chain_next(&left), 3000 * 62500);
	CHECK_EQ(timer_chain_next(&left), 0);
	/* exactly 2^32 - 1, and one more */
	left = 0xffffffffULL;
	CHECK_EQ(timer_chain_next(&left), 0xffffffffU);
	CHECK_EQ(left, 0);
	left = 0x100000000ULL;
	CHECK_EQ(timer_chain_next(&left), 0xffffffffU);
	CHECK_EQ(timer_chain_next(&left), 1);
	CHECK_EQ(timer_chain_next(&left), 0);
	/* 600 s (the largest watchdog=) at 62500 ticks/ms: 9 armings */
	left = 600000ULL * 62500;
	armings = 0;
	while (timer_chain_next(&left))
		armings++;
	CHECK_EQ(armings, 9);
}
