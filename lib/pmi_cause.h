/* Why did the performance-monitor interrupt fire?  (SDM vol.3 17.4.9.5 "Writing
 * the DS Interrupt Service Routine", and the IA32_PERF_GLOBAL_STATUS layout in
 * chapter "Performance Monitoring".)
 *
 * BTS threshold, PEBS and counter overflow share one LVT entry and one vector,
 * several causes may be present at once (book ex15-9: a PEBS record, a full PEBS
 * buffer and a full BTS buffer in one entry), and a PEBS assist leaves no status
 * bit at all: the handler must test every cause independently, never if/else.
 *
 *   general counter n overflow   GLOBAL_STATUS bit n
 *   fixed counter n overflow     GLOBAL_STATUS bit 32+n
 *   Intel PT ToPA PMI            GLOBAL_STATUS bit 55 (Trace_ToPA_PMI)
 *   uncore counter overflow      GLOBAL_STATUS bit 61
 *   DS buffer (PEBS) overflow    GLOBAL_STATUS bit 62 (OvfDSBuffer)
 *   BTS threshold reached        BTS index >= BTS interrupt threshold
 *   PEBS records written         PEBS index advanced since the last PMI
 *   unknown                      a status bit no armed source explains
 *   spurious                     nothing at all
 *
 * Bits 58 (LBR_Frz), 59 (CTR_Frz), 60 (ASCI) and 63 (CondChgd) are state, not
 * causes; they are reported in `info`. */
#ifndef LIB_PMI_CAUSE_H
#define LIB_PMI_CAUSE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PMI_GP_OVF          (1u << 0)   /* a general-purpose counter overflowed */
#define PMI_FIXED_OVF       (1u << 1)   /* a fixed-function counter overflowed */
#define PMI_BTS_THRESH      (1u << 2)
#define PMI_PEBS_OVF        (1u << 3)   /* GLOBAL_STATUS.OvfDSBuffer[62] */
#define PMI_PEBS_RECORDS    (1u << 4)
#define PMI_TOPA            (1u << 5)   /* GLOBAL_STATUS.Trace_ToPA_PMI[55] */
#define PMI_UNCORE          (1u << 6)
#define PMI_UNKNOWN         (1u << 7)
#define PMI_SPURIOUS        (1u << 8)
#define PMI_NCAUSES         9

/* What the handler read on entry. */
struct pmi_input {
	uint64_t status;                /* IA32_PERF_GLOBAL_STATUS (0 if absent) */
	uint32_t n_gp, n_fixed;         /* counters the processor has */
	uint64_t gp_armed;              /* bit n: PMCn programmed (INT=1, or PEBS) */
	uint64_t fixed_armed;           /* bit n: FIXED_CTRn programmed with PMI=1 */
	bool bts_armed;                 /* BTS on with an interrupt threshold */
	uint64_t bts_index, bts_thresh;
	bool pebs_armed;                /* DS area with a PEBS buffer in use */
	uint64_t pebs_index, pebs_thresh;
	uint64_t pebs_seen;             /* PEBS index at the end of the last PMI */
	bool topa_armed;                /* Intel PT with ToPA PMI */
};

struct pmi_causes {
	uint32_t causes;                /* PMI_ */
	uint64_t gp_ovf;                /* bit n: PMCn overflowed (armed or not) */
	uint64_t fixed_ovf;             /* bit n: FIXED_CTRn overflowed */
	uint64_t unexplained;           /* status bits no armed source accounts for */
	uint64_t info;                  /* status bits 58, 59, 60, 63 */
	uint64_t clear;                 /* bits to write to GLOBAL_STATUS_RESET / OVF_CTRL */
	uint32_t n;                     /* number of distinct cause bits set */
};

#define PMI_STATUS_INFO_MASK    ((1ull << 58) | (1ull << 59) | (1ull << 60) | (1ull << 63))

void pmi_classify(const struct pmi_input *in, struct pmi_causes *out);
const char *pmi_cause_name(uint32_t cause_bit);
/* "gp-ovf(PMC0,PMC2) bts-threshold" into buf; returns the length. */
size_t pmi_format_causes(char *buf, size_t cap, const struct pmi_causes *c);

#endif
