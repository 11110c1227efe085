/* Host tests of lib/pmi_cause.c: PMI cause classification over every combination. */
#include <string.h>
#include "tl_test.h"
#include "pmi_cause.h"

static void base_input(struct pmi_input *in)
{
	memset(in, 0, sizeof *in);
	in->n_gp = 4;
	in->n_fixed = 3;
	in->gp_armed = 0xf;
	in->fixed_armed = 0x7;
	in->bts_armed = true;
	in->bts_index = 0x1000;
	in->bts_thresh = 0x10f0;
	in->pebs_armed = true;
	in->pebs_index = 0x2000;
	in->pebs_seen = 0x2000;
	in->pebs_thresh = 0x2000 + 10 * 200;
	in->topa_armed = true;
}

/* 13 independent primitives: PMC0-3, FIXED0-2, ToPA, uncore, OvfDSBuffer,
 * BTS threshold, PEBS records, one reserved status bit.  Every one of the 8192
 * combinations must come back as exactly the causes it contains. */
TEST(pmi_every_combination)
{
	for (uint32_t m = 0; m < (1u << 13); m++) {
		struct pmi_input in;
		struct pmi_causes c;
		base_input(&in);
		uint32_t want = 0;
		uint64_t gp = m & 0xf, fx = (m >> 4) & 7;
		in.status = gp | (fx << 32);
		if (gp)
			want |= PMI_GP_OVF;
		if (fx)
			want |= PMI_FIXED_OVF;
		if (m & (1u << 7)) {
			in.status |= 1ull << 55;
			want |= PMI_TOPA;
		}
		if (m & (1u << 8)) {
			in.status |= 1ull << 61;
			want |= PMI_UNCORE;
		}
		if (m & (1u << 9)) {
			in.status |= 1ull << 62;
			want |= PMI_PEBS_OVF;
		}
		if (m & (1u << 10)) {
			in.bts_index = in.bts_thresh;
			want |= PMI_BTS_THRESH;
		}
		if (m & (1u << 11)) {
			in.pebs_index += 200;
			want |= PMI_PEBS_RECORDS;
		}
		if (m & (1u << 12)) {
			in.status |= 1ull << 20;        /* reserved: no source */
			want |= PMI_UNKNOWN;
		}
		/* state bits never change the causes */
		if (m & 1)
			in.status |= 1ull << 59;
		if (m & 2)
			in.status |= 1ull << 58 | 1ull << 63;
		if (!want)
			want = PMI_SPURIOUS;
		pmi_classify(&in, &c);
		if (!CHECK_EQ(c.causes, want))
			printf("#   combination 0x%x\n", m);
		CHECK_EQ(c.gp_ovf, gp);
		CHECK_EQ(c.fixed_ovf, fx);
		CHECK_EQ(c.unexplained, (m & (1u << 12)) ? 1ull << 20 : 0);
		CHECK_EQ(c.clear, in.status);
		CHECK_EQ(c.info, in.status & PMI_STATUS_INFO_MASK);
		CHECK_EQ(c.n, (uint32_t)__builtin_popcount(want));
	}
}

TEST(pmi_unarmed_and_absent_sources)
{
	struct pmi_input in;
	struct pmi_causes c;

	/* an overflow of a counter nobody armed is reported, and flagged unknown */
	base_input(&in);
	in.gp_armed = 0x1;
	in.status = 0x2;
	pmi_classify(&in, &c);
	CHECK_EQ(c.causes, PMI_GP_OVF | PMI_UNKNOWN);
	CHECK_EQ(c.gp_ovf, 2);
	CHECK_EQ(c.unexplained, 2);
	/* a status bit for a counter the processor does not have */
	base_input(&in);
	in.status = 1ull << 4 | 1ull << 35;
	pmi_classify(&in, &c);
	CHECK_EQ(c.causes, PMI_UNKNOWN);
	CHECK_EQ(c.gp_ovf, 0);
	CHECK_EQ(c.fixed_ovf, 0);
	CHECK_EQ(c.unexplained, 1ull << 4 | 1ull << 35);
	/* OvfDSBuffer without a PEBS buffer */
	base_input(&in);
	in.pebs_armed = false;
	in.status = 1ull << 62;
	pmi_classify(&in, &c);
	CHECK_EQ(c.causes, PMI_PEBS_OVF | PMI_UNKNOWN);
	/* ToPA PMI nobody asked for */
	base_input(&in);
	in.topa_armed = false;
	in.status = 1ull << 55;
	pmi_classify(&in, &c);
	CHECK_EQ(c.causes, PMI_TOPA | PMI_UNKNOWN);
	/* BTS / PEBS pointers are ignored when those buffers are not armed */
	base_input(&in);
	in.bts_armed = false;
	in.pebs_armed = false;
	in.bts_index = in.bts_thresh + 24;
	in.pebs_index = in.pebs_thresh;
	pmi_classify(&in, &c);
	CHECK_EQ(c.causes, PMI_SPURIOUS);
	CHECK_EQ(c.n, 1);
	/* only state bits: spurious */
	base_input(&in);
	in.status = 1ull << 59;
	pmi_classify(&in, &c);
	CHECK_EQ(c.causes, PMI_SPURIOUS);
	CHECK_EQ(c.clear, 1ull << 59);
}

/* Book ex15-7 / ex15-9: the last PEBS record fills the buffer.  The status bit
 * may already be gone (or absent); the pointers still show both causes. */
TEST(pmi_pebs_full_from_pointers)
{
	struct pmi_input in;
	struct pmi_causes c;
	base_input(&in);
	in.pebs_seen = in.pebs_thresh - 200;
	in.pebs_index = in.pebs_thresh;
	in.bts_index = in.bts_thresh;
	pmi_classify(&in, &c);
	CHECK_EQ(c.causes, PMI_PEBS_RECORDS | PMI_PEBS_OVF | PMI_BTS_THRESH);
	CHECK_EQ(c.n, 3);
	char buf[128];
	pmi_format_causes(buf, sizeof buf, &c);
	CHECK(strcmp(buf, "bts-threshold pebs-buffer-overflow pebs-records") == 0);
}

TEST(pmi_wide_counters_and_format)
{
	struct pmi_input in;
	struct pmi_causes c;
	base_input(&in);
	in.n_gp = 8;
	in.gp_armed = 0xff;
	in.n_fixed = 4;
	in.fixed_armed = 0xf;
	in.status = 0x81 | (0x9ull << 32) | (1ull << 20);
	pmi_classify(&in, &c);
	CHECK_EQ(c.gp_ovf, 0x81);
	CHECK_EQ(c.fixed_ovf, 0x9);
	char buf[128];
	size_t n = pmi_format_causes(buf, sizeof buf, &c);
	CHECK_EQ(n, strlen(buf));
	CHECK(strcmp(buf, "gp-overflow(PMC0,PMC7) fixed-overflow(FIXED0,FIXED3) unknown(0x100000)") == 0);
	for (unsigned i = 0; i < PMI_NCAUSES; i++)
		CHECK(strcmp(pmi_cause_name(1u << i), "?") != 0);
	CHECK(strcmp(pmi_cause_name(1u << PMI_NCAUSES), "?") == 0);
	/* absurd counter counts are clamped, not shifted past 64 */
	in.n_gp = 200;
	in.n_fixed = 200;
	in.status = ~0ull;
	pmi_classify(&in, &c);
	CHECK_EQ(c.gp_ovf, 0xffffffffull);
	CHECK_EQ(c.fixed_ovf, 0xffffull);          /* bits 32..47 */
}
