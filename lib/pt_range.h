/* Intel Processor Trace: single-range output and the configuration MSRs
 * (lib/pt_range.c).  Freestanding, host-tested; ptrange_/ptctl_/ptcaps_ prefixes
 * keep it includable next to libipt's <intel-pt.h>. */
#ifndef LIB_PT_RANGE_H
#define LIB_PT_RANGE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------------------
 * Single-range output (SDM vol.3 32.2.7.1) and the configuration MSRs
 * ------------------------------------------------------------------------- */

enum ptrange_err {
	PTRANGE_OK = 0,
	PTRANGE_ERR_SIZE_NOT_POW2,      /* size is not a power of two */
	PTRANGE_ERR_SIZE_TOO_SMALL,     /* < 128: mask bits 6:0 always read as 1 */
	PTRANGE_ERR_SIZE_TOO_BIG,       /* > 4 GiB: the mask is MASK_PTRS[31:0] */
	PTRANGE_ERR_MASK_NONCONTIG,     /* a 0 below the highest 1 of the mask */
	PTRANGE_ERR_BASE_MISALIGNED,    /* OUTPUT_BASE & mask != 0 */
	PTRANGE_ERR_OFFSET_BEYOND_MASK, /* OutputOffset > mask */
	PTRANGE_ERR_BASE_MAXPHYADDR,    /* OUTPUT_BASE has bits >= MAXPHYADDR */
	PTRANGE_ERR_BASE_RESERVED,      /* OUTPUT_BASE[6:0] != 0 (reserved) */
	PTRANGE_NERR
};
const char *ptrange_err_name(enum ptrange_err e);

#define PTRANGE_MIN_SIZE        128u
#define PTRANGE_LOWER_MASK      0x7fULL         /* MASK_PTRS[6:0], read as 1s */

/* The alignment to allocate a `size`-byte output range with: natural (OUTPUT_BASE
 * must be a multiple of the size, 32.2.7.1), and at least a 4 KiB page so that a
 * small range shares no page with anything else. */
uint64_t ptrange_alignment(uint64_t size);

/* MSR values for a naturally aligned power-of-two buffer at physical `base`,
 * writing next at `offset`.  Returns the first error (outputs untouched). */
enum ptrange_err ptrange_setup(uint64_t base, uint64_t size, uint64_t offset,
			       unsigned maxphyaddr, uint64_t *out_base,
			       uint64_t *out_mask_ptrs);
/* The SDM's single-range error conditions for a pair of MSR values, in the
 * order: reserved base bits, MAXPHYADDR, non-contiguous mask, base/mask
 * overlap, offset beyond mask. */
enum ptrange_err ptrange_check(uint64_t output_base, uint64_t mask_ptrs,
			       unsigned maxphyaddr);
static inline uint64_t ptrange_mask(uint64_t mask_ptrs)
{
	return (mask_ptrs & 0xffffffffULL) | PTRANGE_LOWER_MASK;
}
static inline uint64_t ptrange_offset(uint64_t mask_ptrs) { return mask_ptrs >> 32; }
/* trace_store_phys_addr := (OutputBase & ~OutputMask) + (OutputOffset & OutputMask) */
uint64_t ptrange_store_addr(uint64_t output_base, uint64_t mask_ptrs);
/* Copy a circular range into dst (size bytes) oldest byte first: when wrapped,
 * [offset, size) then [0, offset); else just [0, offset).  Returns bytes. */
size_t ptrange_linearize(const uint8_t *buf, uint64_t size, uint64_t offset,
			 bool wrapped, uint8_t *dst);

/* IA32_RTIT_CTL from named fields (SDM vol.3 32.2.8.2, table IA32_RTIT_CTL). */
struct ptctl {
	bool trace_en, cyc_en, os, user, pwr_evt_en, fup_on_ptw, fabric_en;
	bool cr3_filter, topa, mtc_en, tsc_en, dis_retc, ptw_en, branch_en;
	uint8_t mtc_freq;       /* 17:14 */
	uint8_t cyc_thresh;     /* 22:19 */
	uint8_t psb_freq;       /* 27:24 */
	uint8_t addr_cfg[4];    /* ADDRn_CFG: 35:32, 39:36, 43:40, 47:44 */
};
uint64_t ptctl_build(const struct ptctl *c);
void ptctl_parse(uint64_t v, struct ptctl *c);

/* What CPUID leaf 14H says (subleaves 0 and 1). */
struct ptcaps {
	uint32_t max_subleaf;
	bool cr3_filter, psb_cyc, ip_filter, mtc, ptwrite, power_evt;
	bool topa, topa_multi, single_range, transport, lip;
	unsigned nranges;               /* 14H.1 EAX[2:0] */
	uint16_t mtc_periods;           /* 14H.1 EAX[31:16] */
	uint16_t cyc_thresholds;        /* 14H.1 EBX[15:0] */
	uint16_t psb_freqs;             /* 14H.1 EBX[31:16] */
};
void ptcaps_parse(struct ptcaps *c, uint32_t eax0, uint32_t ebx0, uint32_t ecx0,
		  uint32_t eax1, uint32_t ebx1);

/* Why a CTL value would #GP on this CPU (SDM 32.2.8.2: a bit for an absent
 * feature or a reserved encoding).  Returns NULL if acceptable, else the name
 * of the first offending field. */
const char *ptctl_check(uint64_t ctl, const struct ptcaps *caps);

/* IA32_RTIT_STATUS (SDM vol.3 32.2.8.3). */
struct ptstatus {
	bool filter_en, context_en, trigger_en, error, stopped, pend_psb, pend_topa_pmi;
	uint32_t packet_byte_cnt;       /* 48:32 */
};
void ptstatus_parse(uint64_t v, struct ptstatus *s);

#endif
