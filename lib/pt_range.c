/* Intel PT single-range output and configuration MSR helpers (SDM vol.3 32.2.7.1,
 * 32.2.8): MSR values for a buffer, the SDM's single-range error conditions,
 * IA32_RTIT_CTL from named fields, IA32_RTIT_STATUS decoding. */
#include "pt_range.h"
#include "msr.h"

static const char *const err_names[PTRANGE_NERR] = {
	[PTRANGE_OK] = "ok",
	[PTRANGE_ERR_SIZE_NOT_POW2] = "size-not-power-of-two",
	[PTRANGE_ERR_SIZE_TOO_SMALL] = "size-below-128",
	[PTRANGE_ERR_SIZE_TOO_BIG] = "size-above-4GiB",
	[PTRANGE_ERR_MASK_NONCONTIG] = "mask-non-contiguous",
	[PTRANGE_ERR_BASE_MISALIGNED] = "base-overlaps-mask",
	[PTRANGE_ERR_OFFSET_BEYOND_MASK] = "offset-beyond-mask",
	[PTRANGE_ERR_BASE_MAXPHYADDR] = "base-beyond-maxphyaddr",
	[PTRANGE_ERR_BASE_RESERVED] = "base-reserved-bits-6:0",
};

const char *ptrange_err_name(enum ptrange_err e)
{
	return (unsigned)e < PTRANGE_NERR ? err_names[e] : "?";
}

static bool beyond_maxphyaddr(uint64_t addr, unsigned maxphyaddr)
{
	return maxphyaddr < 64 && (addr >> maxphyaddr) != 0;
}

enum ptrange_err ptrange_check(uint64_t base, uint64_t mask_ptrs, unsigned maxphyaddr)
{
	uint64_t mask = ptrange_mask(mask_ptrs);
	/* OUTPUT_BASE[6:0] and bits at or above MAXPHYADDR are reserved: a WRMSR
	 * setting them #GPs (SDM 32.2.8.7), before TraceEn is ever set. */
	if (base & PTRANGE_LOWER_MASK)
		return PTRANGE_ERR_BASE_RESERVED;
	if (beyond_maxphyaddr(base, maxphyaddr))
		return PTRANGE_ERR_BASE_MAXPHYADDR;
	/* The three single-range errors of SDM 32.2.7.1, signalled as an
	 * operational error when TraceEn is set (32.3.10):
	 * "Mask value is non-contiguous": a 0 below the most significant 1. */
	if (mask & (mask + 1))
		return PTRANGE_ERR_MASK_NONCONTIG;
	/* "Base address and Mask are mis-aligned, and have overlapping bits set":
	 * IA32_RTIT_OUTPUT_BASE && IA32_RTIT_OUTPUT_MASK_PTRS[31:0] > 0. */
	if (base & mask)
		return PTRANGE_ERR_BASE_MISALIGNED;
	/* "Illegal Output Offset": OutputOffset greater than the mask value. */
	if (ptrange_offset(mask_ptrs) > mask)
		return PTRANGE_ERR_OFFSET_BEYOND_MASK;
	return PTRANGE_OK;
}

enum ptrange_err ptrange_setup(uint64_t base, uint64_t size, uint64_t offset,
			       unsigned maxphyaddr, uint64_t *out_base, uint64_t *out_mask_ptrs)
{
	if (size == 0 || (size & (size - 1)))
		return PTRANGE_ERR_SIZE_NOT_POW2;
	if (size < PTRANGE_MIN_SIZE)
		return PTRANGE_ERR_SIZE_TOO_SMALL;
	if (size > (1ULL << 32))
		return PTRANGE_ERR_SIZE_TOO_BIG;
	if (offset >= size)
		return PTRANGE_ERR_OFFSET_BEYOND_MASK;
	/* MaskOrTableOffset (31:7) = (size-1) >> 7; bits 6:0 are ones. */
	uint64_t mp = (offset << 32) | (size - 1);
	enum ptrange_err e = ptrange_check(base, mp, maxphyaddr);
	if (e != PTRANGE_OK)
		return e;
	*out_base = base;
	*out_mask_ptrs = mp;
	return PTRANGE_OK;
}

uint64_t ptrange_store_addr(uint64_t base, uint64_t mask_ptrs)
{
	uint64_t mask = ptrange_mask(mask_ptrs);
	return (base & ~mask) + (ptrange_offset(mask_ptrs) & mask);
}

size_t ptrange_linearize(const uint8_t *buf, uint64_t size, uint64_t offset,
			 bool wrapped, uint8_t *dst)
{
	size_t n = 0;
	if (offset > size)
		offset = size;
	if (wrapped)
		for (uint64_t i = offset; i < size; i++)
			dst[n++] = buf[i];
	for (uint64_t i = 0; i < offset; i++)
		dst[n++] = buf[i];
	return n;
}

#define CTL_FIELD(v, shift, bits) (((v) >> (shift)) & ((1u << (bits)) - 1))

uint64_t ptctl_build(const struct ptctl *c)
{
	uint64_t v = 0;
	v |= c->trace_en ? RTIT_CTL_TRACEEN : 0;
	v |= c->cyc_en ? RTIT_CTL_CYCEN : 0;
	v |= c->os ? RTIT_CTL_OS : 0;
	v |= c->user ? RTIT_CTL_USER : 0;
	v |= c->pwr_evt_en ? RTIT_CTL_PWREVTEN : 0;
	v |= c->fup_on_ptw ? RTIT_CTL_FUPONPTW : 0;
	v |= c->fabric_en ? RTIT_CTL_FABRICEN : 0;
	v |= c->cr3_filter ? RTIT_CTL_CR3FILTER : 0;
	v |= c->topa ? RTIT_CTL_TOPA : 0;
	v |= c->mtc_en ? RTIT_CTL_MTCEN : 0;
	v |= c->tsc_en ? RTIT_CTL_TSCEN : 0;
	v |= c->dis_retc ? RTIT_CTL_DISRETC : 0;
	v |= c->ptw_en ? RTIT_CTL_PTWEN : 0;
	v |= c->branch_en ? RTIT_CTL_BRANCHEN : 0;
	v |= (uint64_t)(c->mtc_freq & 0xf) << RTIT_CTL_MTCFREQ_SHIFT;
	v |= (uint64_t)(c->cyc_thresh & 0xf) << RTIT_CTL_CYCTHRESH_SHIFT;
	v |= (uint64_t)(c->psb_freq & 0xf) << RTIT_CTL_PSBFREQ_SHIFT;
	for (int n = 0; n < 4; n++)
		v |= (uint64_t)(c->addr_cfg[n] & 0xf) << RTIT_CTL_ADDR_CFG_SHIFT(n);
	return v;
}

void ptctl_parse(uint64_t v, struct ptctl *c)
{
	c->trace_en = v & RTIT_CTL_TRACEEN;
	c->cyc_en = v & RTIT_CTL_CYCEN;
	c->os = v & RTIT_CTL_OS;
	c->user = v & RTIT_CTL_USER;
	c->pwr_evt_en = v & RTIT_CTL_PWREVTEN;
	c->fup_on_ptw = v & RTIT_CTL_FUPONPTW;
	c->fabric_en = v & RTIT_CTL_FABRICEN;
	c->cr3_filter = v & RTIT_CTL_CR3FILTER;
	c->topa = v & RTIT_CTL_TOPA;
	c->mtc_en = v & RTIT_CTL_MTCEN;
	c->tsc_en = v & RTIT_CTL_TSCEN;
	c->dis_retc = v & RTIT_CTL_DISRETC;
	c->ptw_en = v & RTIT_CTL_PTWEN;
	c->branch_en = v & RTIT_CTL_BRANCHEN;
	c->mtc_freq = (uint8_t)CTL_FIELD(v, RTIT_CTL_MTCFREQ_SHIFT, 4);
	c->cyc_thresh = (uint8_t)CTL_FIELD(v, RTIT_CTL_CYCTHRESH_SHIFT, 4);
	c->psb_freq = (uint8_t)CTL_FIELD(v, RTIT_CTL_PSBFREQ_SHIFT, 4);
	for (int n = 0; n < 4; n++)
		c->addr_cfg[n] = (uint8_t)CTL_FIELD(v, RTIT_CTL_ADDR_CFG_SHIFT(n), 4);
}

void ptcaps_parse(struct ptcaps *c, uint32_t eax0, uint32_t ebx0, uint32_t ecx0,
		  uint32_t eax1, uint32_t ebx1)
{
	c->max_subleaf = eax0;
	c->cr3_filter = ebx0 & (1u << 0);
	c->psb_cyc = ebx0 & (1u << 1);
	c->ip_filter = ebx0 & (1u << 2);
	c->mtc = ebx0 & (1u << 3);
	c->ptwrite = ebx0 & (1u << 4);
	c->power_evt = ebx0 & (1u << 5);
	c->topa = ecx0 & (1u << 0);
	c->topa_multi = ecx0 & (1u << 1);
	c->single_range = ecx0 & (1u << 2);
	c->transport = ecx0 & (1u << 3);
	c->lip = ecx0 & (1u << 31);
	if (eax0 >= 1) {
		c->nranges = eax1 & 7;
		c->mtc_periods = (uint16_t)(eax1 >> 16);
		c->cyc_thresholds = (uint16_t)ebx1;
		c->psb_freqs = (uint16_t)(ebx1 >> 16);
	} else {
		c->nranges = 0;
		c->mtc_periods = c->cyc_thresholds = c->psb_freqs = 0;
	}
}

/* Bits of IA32_RTIT_CTL defined by table "IA32_RTIT_CTL MSR" that this file
 * knows; everything else (18, 23, 28-31, 48-63) is treated as reserved. */
#define CTL_KNOWN (0x3fffULL | (0xfULL << 14) | (0xfULL << 19) | (0xfULL << 24) | \
		   (0xffffULL << 32))

const char *ptctl_check(uint64_t ctl, const struct ptcaps *caps)
{
	struct ptctl c;
	if (ctl & ~CTL_KNOWN)
		return "reserved bits";
	ptctl_parse(ctl, &c);
	if (c.cyc_en && !caps->psb_cyc)
		return "CYCEn";
	if (c.cr3_filter && !caps->cr3_filter)
		return "CR3Filter";
	if (c.mtc_en && !caps->mtc)
		return "MTCEn";
	if (c.ptw_en && !caps->ptwrite)
		return "PTWEn";
	if (c.fup_on_ptw && !caps->ptwrite)
		return "FUPonPTW";
	if (c.pwr_evt_en && !caps->power_evt)
		return "PwrEvtEn";
	if (c.fabric_en && !caps->transport)
		return "FabricEn";
	if (!c.fabric_en && c.topa && !caps->topa)
		return "ToPA";
	if (!c.fabric_en && !c.topa && c.trace_en && !caps->single_range)
		return "single-range output";
	/* An encoding whose bit is clear in the CPUID bitmap is reserved. */
	if (c.mtc_freq && !(caps->mtc_periods >> c.mtc_freq & 1))
		return "MTCFreq";
	if (c.cyc_thresh && !(caps->cyc_thresholds >> c.cyc_thresh & 1))
		return "CycThresh";
	if (c.psb_freq && !(caps->psb_freqs >> c.psb_freq & 1))
		return "PSBFreq";
	for (unsigned n = 0; n < 4; n++) {
		if (!c.addr_cfg[n])
			continue;
		if (n >= caps->nranges || !caps->ip_filter)
			return n == 0 ? "ADDR0_CFG" : n == 1 ? "ADDR1_CFG" : n == 2 ? "ADDR2_CFG" : "ADDR3_CFG";
		if (c.addr_cfg[n] > RTIT_ADDR_CFG_STOP)
			return n == 0 ? "ADDR0_CFG" : n == 1 ? "ADDR1_CFG" : n == 2 ? "ADDR2_CFG" : "ADDR3_CFG";
	}
	return 0;
}

void ptstatus_parse(uint64_t v, struct ptstatus *s)
{
	s->filter_en = v & RTIT_STATUS_FILTEREN;
	s->context_en = v & RTIT_STATUS_CONTEXTEN;
	s->trigger_en = v & RTIT_STATUS_TRIGGEREN;
	s->error = v & RTIT_STATUS_ERROR;
	s->stopped = v & RTIT_STATUS_STOPPED;
	s->pend_psb = v & BIT(6);
	s->pend_topa_pmi = v & BIT(7);
	s->packet_byte_cnt = (uint32_t)((v >> RTIT_STATUS_PACKETBYTECNT_SHIFT) & 0x1ffff);
}

uint64_t ptrange_alignment(uint64_t size)
{
	return size < 4096 ? 4096 : size;
}
