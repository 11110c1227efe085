/* Classification of performance-monitor interrupt causes: see lib/pmi_cause.h. */
#include "pmi_cause.h"
#include "fbuf.h"

#define ST_TOPA     (1ull << 55)
#define ST_UNCORE   (1ull << 61)
#define ST_OVF_BUF  (1ull << 62)

static uint64_t low_mask(uint32_t n, uint32_t limit)
{
	if (n > limit)
		n = limit;
	return n >= 64 ? ~0ull : (1ull << n) - 1;
}

void pmi_classify(const struct pmi_input *in, struct pmi_causes *out)
{
	uint64_t st = in->status;
	uint64_t gp_exist = low_mask(in->n_gp, 32);
	uint64_t fx_exist = low_mask(in->n_fixed, 16);
	uint64_t explained = 0;

	out->causes = 0;
	out->gp_ovf = st & gp_exist;
	out->fixed_ovf = (st >> 32) & fx_exist;
	out->info = st & PMI_STATUS_INFO_MASK;
	out->clear = 0;

	if (out->gp_ovf) {
		out->causes |= PMI_GP_OVF;
		explained |= out->gp_ovf & in->gp_armed;
	}
	if (out->fixed_ovf) {
		out->causes |= PMI_FIXED_OVF;
		explained |= (out->fixed_ovf & in->fixed_armed) << 32;
	}
	if (st & ST_TOPA) {
		out->causes |= PMI_TOPA;
		if (in->topa_armed)
			explained |= ST_TOPA;
	}
	if (st & ST_UNCORE) {
		out->causes |= PMI_UNCORE;
		explained |= ST_UNCORE;         /* uncore PMIs are enabled elsewhere */
	}
	if (st & ST_OVF_BUF) {
		out->causes |= PMI_PEBS_OVF;
		if (in->pebs_armed)
			explained |= ST_OVF_BUF;
	}
	/* A full BTS buffer leaves no status bit: compare the pointers (the
	 * processor raises the interrupt when index reaches the threshold). */
	if (in->bts_armed && in->bts_index >= in->bts_thresh)
		out->causes |= PMI_BTS_THRESH;
	/* Nor does a PEBS assist: the index moved since the last look. */
	if (in->pebs_armed && in->pebs_index > in->pebs_seen)
		out->causes |= PMI_PEBS_RECORDS;
	/* OvfDSBuffer can also be inferred from the PEBS pointers when the
	 * status MSR is absent or was already cleared. */
	if (in->pebs_armed && in->pebs_index >= in->pebs_thresh && in->pebs_thresh)
		out->causes |= PMI_PEBS_OVF;

	out->unexplained = st & ~explained & ~PMI_STATUS_INFO_MASK;
	if (out->unexplained)
		out->causes |= PMI_UNKNOWN;
	if (!out->causes)
		out->causes = PMI_SPURIOUS;
	/* Everything that was set gets cleared, the state bits included (clearing
	 * CTR_Frz / LBR_Frz is what unfreezes with streamlined freeze, v4+). */
	out->clear = st;
	out->n = 0;
	for (uint32_t c = out->causes; c; c &= c - 1)
		out->n++;
}

const char *pmi_cause_name(uint32_t cause_bit)
{
	switch (cause_bit) {
	case PMI_GP_OVF: return "gp-overflow";
	case PMI_FIXED_OVF: return "fixed-overflow";
	case PMI_BTS_THRESH: return "bts-threshold";
	case PMI_PEBS_OVF: return "pebs-buffer-overflow";
	case PMI_PEBS_RECORDS: return "pebs-records";
	case PMI_TOPA: return "topa-pmi";
	case PMI_UNCORE: return "uncore-overflow";
	case PMI_UNKNOWN: return "unknown";
	case PMI_SPURIOUS: return "spurious";
	}
	return "?";
}

static void counters(struct fbuf *f, const char *prefix, uint64_t mask)
{
	bool first = true;
	fbuf_putc(f, '(');
	for (unsigned i = 0; i < 64; i++) {
		if (!(mask & (1ull << i)))
			continue;
		if (!first)
			fbuf_putc(f, ',');
		fbuf_puts(f, prefix);
		fbuf_dec(f, i);
		first = false;
	}
	fbuf_putc(f, ')');
}

size_t pmi_format_causes(char *buf, size_t cap, const struct pmi_causes *c)
{
	struct fbuf f;
	bool first = true;

	fbuf_init(&f, buf, cap);
	for (unsigned i = 0; i < PMI_NCAUSES; i++) {
		uint32_t bit = 1u << i;
		if (!(c->causes & bit))
			continue;
		if (!first)
			fbuf_putc(&f, ' ');
		first = false;
		fbuf_puts(&f, pmi_cause_name(bit));
		if (bit == PMI_GP_OVF)
			counters(&f, "PMC", c->gp_ovf);
		else if (bit == PMI_FIXED_OVF)
			counters(&f, "FIXED", c->fixed_ovf);
		else if (bit == PMI_UNKNOWN) {
			fbuf_putc(&f, '(');
			fbuf_hex(&f, c->unexplained, 1);
			fbuf_putc(&f, ')');
		}
	}
	return f.len;
}
