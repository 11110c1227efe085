/* lib/pt_range.c: single-range output MSR values and the SDM's single-range
 * error conditions (vol.3 32.2.7.1), IA32_RTIT_CTL fields, STATUS decoding. */
#include <string.h>
#include "msr.h"
#include "pt_range.h"
#include "tl_test.h"

TEST(ptrange_smallest_and_largest)
{
	uint64_t b = 0, m = 0;
	CHECK_EQ(ptrange_setup(0x100000, 128, 0, 46, &b, &m), PTRANGE_OK);
	CHECK_EQ(b, 0x100000);
	CHECK_EQ(m, 0x7f);                      /* MaskOrTableOffset 0, bits 6:0 ones */
	CHECK_EQ(ptrange_setup(0x100080, 128, 127, 46, &b, &m), PTRANGE_OK);
	CHECK_EQ(m, (127ULL << 32) | 0x7f);
	CHECK_EQ(ptrange_setup(0x200000, 4096, 0x10, 46, &b, &m), PTRANGE_OK);
	CHECK_EQ(m, (0x10ULL << 32) | 0xfff);
	CHECK_EQ(ptrange_setup(0x100000000ULL, 1ULL << 32, 0, 46, &b, &m), PTRANGE_OK);
	CHECK_EQ(m, 0xffffffffULL);
	CHECK_EQ(ptrange_setup(0, 1ULL << 33, 0, 46, &b, &m), PTRANGE_ERR_SIZE_TOO_BIG);
	CHECK_EQ(ptrange_setup(0, 64, 0, 46, &b, &m), PTRANGE_ERR_SIZE_TOO_SMALL);
	CHECK_EQ(ptrange_setup(0, 0, 0, 46, &b, &m), PTRANGE_ERR_SIZE_NOT_POW2);
	CHECK_EQ(ptrange_setup(0, 384, 0, 46, &b, &m), PTRANGE_ERR_SIZE_NOT_POW2);
	/* outputs untouched on error */
	b = m = 0x55;
	CHECK_EQ(ptrange_setup(0x1000, 8192, 0, 46, &b, &m), PTRANGE_ERR_BASE_MISALIGNED);
	CHECK_EQ(b, 0x55);
	CHECK_EQ(m, 0x55);
}

TEST(ptrange_offset_boundaries)
{
	uint64_t b, m;
	CHECK_EQ(ptrange_setup(0x10000, 4096, 4095, 46, &b, &m), PTRANGE_OK);
	CHECK_EQ(ptrange_setup(0x10000, 4096, 4096, 46, &b, &m), PTRANGE_ERR_OFFSET_BEYOND_MASK);
	/* the check on raw MSR values: offset == mask ok, mask+1 is an error */
	CHECK_EQ(ptrange_check(0x10000, (0xfffULL << 32) | 0xfff, 46), PTRANGE_OK);
	CHECK_EQ(ptrange_check(0x10000, (0x1000ULL << 32) | 0xfff, 46),
		 PTRANGE_ERR_OFFSET_BEYOND_MASK);
	/* mask bits 6:0 read as ones: a written 0 there still means 128 bytes */
	CHECK_EQ(ptrange_check(0x10000, 0x7fULL << 32, 46), PTRANGE_OK);
	CHECK_EQ(ptrange_check(0x10000, 0x80ULL << 32, 46), PTRANGE_ERR_OFFSET_BEYOND_MASK);
}

TEST(ptrange_mask_noncontiguous)
{
	CHECK_EQ(ptrange_check(0x10000, 0xf7f, 46), PTRANGE_ERR_MASK_NONCONTIG);    /* bit 7 clear */
	CHECK_EQ(ptrange_check(0x10000, 0x1ff | 0x800, 46), PTRANGE_ERR_MASK_NONCONTIG);
	CHECK_EQ(ptrange_check(0, 0x80000fffULL, 46), PTRANGE_ERR_MASK_NONCONTIG);
	CHECK_EQ(ptrange_check(0, 0xffffffffULL, 46), PTRANGE_OK);
	CHECK_EQ(ptrange_check(0x10000, 0xffff, 46), PTRANGE_OK);
	/* bits 63:32 are the offset, not the mask */
	CHECK_EQ(ptrange_check(0x10000, (0x1ULL << 48) | 0xffff, 46), PTRANGE_ERR_OFFSET_BEYOND_MASK);
}

TEST(ptrange_base_conditions)
{
	CHECK_EQ(ptrange_check(0x10080, 0xfff, 46), PTRANGE_ERR_BASE_MISALIGNED);
	CHECK_EQ(ptrange_check(0x10800, 0xfff, 46), PTRANGE_ERR_BASE_MISALIGNED);
	CHECK_EQ(ptrange_check(0x10001, 0xfff, 46), PTRANGE_ERR_BASE_RESERVED);
	CHECK_EQ(ptrange_check(1ULL << 46, 0xfff, 46), PTRANGE_ERR_BASE_MAXPHYADDR);
	CHECK_EQ(ptrange_check((1ULL << 46) - 0x1000, 0xfff, 46), PTRANGE_OK);
	CHECK_EQ(ptrange_check(1ULL << 39, 0xfff, 39), PTRANGE_ERR_BASE_MAXPHYADDR);
	CHECK_EQ(ptrange_check(1ULL << 63, 0xfff, 52), PTRANGE_ERR_BASE_MAXPHYADDR);
	CHECK_EQ(ptrange_check(1ULL << 63, 0xfff, 64), PTRANGE_OK);
	for (int e = 0; e <= PTRANGE_NERR; e++)
		CHECK(ptrange_err_name((enum ptrange_err)e) != NULL);
	CHECK(!strcmp(ptrange_err_name(PTRANGE_ERR_MASK_NONCONTIG), "mask-non-contiguous"));
}

TEST(ptrange_store_address_and_wrap)
{
	/* (base & ~mask) + (offset & mask) */
	CHECK_EQ(ptrange_store_addr(0x20000, (0x123ULL << 32) | 0xfff), 0x20123);
	CHECK_EQ(ptrange_store_addr(0x20000, (0x7fULL << 32) | 0x7f), 0x2007f);
	CHECK_EQ(ptrange_store_addr(0x20800, (0x10ULL << 32) | 0xfff), 0x20010);
	uint8_t buf[8] = { 0, 1, 2, 3, 4, 5, 6, 7 }, out[8];
	CHECK_EQ(ptrange_linearize(buf, 8, 3, true, out), 8);
	CHECK_EQ(out[0], 3);
	CHECK_EQ(out[4], 7);
	CHECK_EQ(out[5], 0);
	CHECK_EQ(out[7], 2);
	CHECK_EQ(ptrange_linearize(buf, 8, 3, false, out), 3);
	CHECK_EQ(out[2], 2);
	CHECK_EQ(ptrange_linearize(buf, 8, 0, true, out), 8);
	CHECK_EQ(out[0], 0);
	CHECK_EQ(ptrange_linearize(buf, 8, 9, false, out), 8);
}

TEST(ptctl_build_and_parse)
{
	struct ptctl c = { .trace_en = true, .os = true, .branch_en = true, .dis_retc = true,
			   .mtc_freq = 3, .cyc_thresh = 5, .psb_freq = 2,
			   .addr_cfg = { RTIT_ADDR_CFG_FILTER, 0, RTIT_ADDR_CFG_STOP, 0 } };
	uint64_t v = ptctl_build(&c);
	CHECK_EQ(v, RTIT_CTL_TRACEEN | RTIT_CTL_OS | RTIT_CTL_BRANCHEN | RTIT_CTL_DISRETC |
		 (3ULL << RTIT_CTL_MTCFREQ_SHIFT) | (5ULL << RTIT_CTL_CYCTHRESH_SHIFT) |
		 (2ULL << RTIT_CTL_PSBFREQ_SHIFT) | (1ULL << 32) | (2ULL << 40));
	CHECK_EQ(v, 0x000002010228e805ULL);
	struct ptctl d;
	ptctl_parse(v, &d);
	CHECK(!memcmp(&c, &d, sizeof c));
	struct ptctl all;
	memset(&all, 0, sizeof all);
	all.trace_en = all.cyc_en = all.os = all.user = all.pwr_evt_en = all.fup_on_ptw = true;
	all.fabric_en = all.cr3_filter = all.topa = all.mtc_en = all.tsc_en = true;
	all.dis_retc = all.ptw_en = all.branch_en = true;
	CHECK_EQ(ptctl_build(&all), 0x3fff);
}

TEST(ptctl_check_against_caps)
{
	struct ptcaps caps;
	/* leaf 14H.0: EBX = CR3 filter, IP filter; ECX = ToPA, single range;
	 * 14H.1: 2 ranges, MTC periods 0,3; CYC thresholds 0-2; PSB freqs 0,1 */
	ptcaps_parse(&caps, 1, 0x5, 0x5, (0x9u << 16) | 2, (0x3u << 16) | 0x7);
	CHECK(caps.cr3_filter && caps.ip_filter && !caps.mtc && caps.single_range);
	CHECK_EQ(caps.nranges, 2);
	uint64_t base = RTIT_CTL_TRACEEN | RTIT_CTL_OS | RTIT_CTL_BRANCHEN;
	CHECK(ptctl_check(base, &caps) == NULL);
	CHECK(ptctl_check(base | RTIT_CTL_CR3FILTER, &caps) == NULL);
	CHECK(!strcmp(ptctl_check(base | RTIT_CTL_MTCEN, &caps), "MTCEn"));
	CHECK(!strcmp(ptctl_check(base | RTIT_CTL_CYCEN, &caps), "CYCEn"));
	CHECK(!strcmp(ptctl_check(base | BIT(18), &caps), "reserved bits"));
	CHECK(!strcmp(ptctl_check(base | BIT(50), &caps), "reserved bits"));
	CHECK(ptctl_check(base | (1ULL << RTIT_CTL_ADDR_CFG_SHIFT(1)), &caps) == NULL);
	CHECK(!strcmp(ptctl_check(base | (1ULL << RTIT_CTL_ADDR_CFG_SHIFT(2)), &caps), "ADDR2_CFG"));
	CHECK(!strcmp(ptctl_check(base | (3ULL << RTIT_CTL_ADDR_CFG_SHIFT(0)), &caps), "ADDR0_CFG"));
	CHECK(!strcmp(ptctl_check(base | (2ULL << RTIT_CTL_PSBFREQ_SHIFT), &caps), "PSBFreq"));
	CHECK(ptctl_check(base | (1ULL << RTIT_CTL_PSBFREQ_SHIFT), &caps) == NULL);
	CHECK(!strcmp(ptctl_check(base | RTIT_CTL_FABRICEN, &caps), "FabricEn"));
	ptcaps_parse(&caps, 0, 0, 0x1, 0xffffffff, 0xffffffff);  /* ToPA only; subleaf 1 ignored */
	CHECK_EQ(caps.nranges, 0);
	CHECK(!strcmp(ptctl_check(base, &caps), "single-range output"));
	CHECK(ptctl_check(base | RTIT_CTL_TOPA, &caps) == NULL);
}

TEST(ptstatus_fields)
{
	struct ptstatus s;
	ptstatus_parse(RTIT_STATUS_STOPPED | RTIT_STATUS_CONTEXTEN | (0x1abcdULL << 32) | BIT(60), &s);
	CHECK(s.stopped && s.context_en && !s.error && !s.trigger_en && !s.filter_en);
	CHECK_EQ(s.packet_byte_cnt, 0x1abcd);
	ptstatus_parse(RTIT_STATUS_ERROR | RTIT_STATUS_TRIGGEREN | RTIT_STATUS_FILTEREN | BIT(6) | BIT(7), &s);
	CHECK(s.error && s.trigger_en && s.filter_en && s.pend_psb && s.pend_topa_pmi);
	CHECK_EQ(s.packet_byte_cnt, 0);
}

TEST(ptrange_alignment_is_natural_and_a_page_at_least)
{
	CHECK_EQ(ptrange_alignment(128), 4096);
	CHECK_EQ(ptrange_alignment(4096), 4096);
	CHECK_EQ(ptrange_alignment(65536), 65536);
	uint64_t base_msr, mask_msr;
	CHECK_EQ(ptrange_setup(ptrange_alignment(8192), 8192, 0, 39, &base_msr, &mask_msr), PTRANGE_OK);
}
