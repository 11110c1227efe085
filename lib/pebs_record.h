/* PEBS record decoding (Intel SDM vol.3, chapter "Performance Monitoring":
 * the PEBS record format tables of the Core, Nehalem, Haswell and Skylake
 * microarchitectures, and "Adaptive PEBS" / extended PEBS for PEBS_FMT 4).
 *
 * The record layout is chosen by the DS format (CPUID.01H:ECX.DTES64[2], or
 * IA-32e mode) and IA32_PERF_CAPABILITIES.PEBS_FMT[11:8]:
 *
 *   layout        size  contents
 *   32-bit         40   EFLAGS EIP EAX EBX ECX EDX ESI EDI EBP ESP
 *   FMT 0         144   RFLAGS RIP RAX RBX RCX RDX RSI RDI RBP RSP R8..R15
 *   FMT 1 (NHM)   176   + 0x90 IA32_PERF_GLOBAL_STATUS (applicable counters)
 *                         0x98 data linear address, 0xa0 data source encoding,
 *                         0xa8 load latency (core cycles)
 *   FMT 2 (HSW)   192   + 0xb0 EventingIP, 0xb8 TX abort information
 *   FMT 3 (SKL)   200   + 0xc0 TSC
 *   FMT 4/5      var.   adaptive: groups chosen by MSR_PEBS_DATA_CFG, in order
 *                       basic (32: record format/size, IP, applicable counters,
 *                       TSC), memory info (32: address, aux/data source,
 *                       latency, TSX aux), GPRs (144: RFLAGS RIP RAX RCX RDX RBX
 *                       RSP RBP RSI RDI R8..R15), XMM0-15 (256), LBR entries
 *                       (24 each: from, to, info).
 *
 * The basic group's first quadword holds the record format in bits 31:0 (the
 * PEBS_DATA_CFG bits the record was written with), the retire latency in bits
 * 47:32 with timed PEBS (IA32_PERF_CAPABILITIES.TIMED_PEBS[17]: Sapphire Rapids,
 * Meteor Lake and later; 0 before), and the record size in bytes in bits 63:48;
 * a record whose size field disagrees with its groups, or that runs past the
 * buffer, is rejected.
 *
 * The memory-info group's latency quadword is one load latency up to Ice Lake;
 * from Alder Lake / Sapphire Rapids it is split: instruction latency in bits
 * 15:0, cache (load) latency in bits 47:32 (a model property, see
 * lib/pebs_model.h: split_latency). */
#ifndef LIB_PEBS_RECORD_H
#define LIB_PEBS_RECORD_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pebs_layout {
	PEBS_L32 = 0,
	PEBS_L64_FMT0, PEBS_L64_FMT1, PEBS_L64_FMT2, PEBS_L64_FMT3,
	PEBS_L_ADAPTIVE,
};

/* MSR_PEBS_DATA_CFG and the record-format header of an adaptive record */
#define PEBS_CFG_MEMINFO        (1ull << 0)
#define PEBS_CFG_GPR            (1ull << 1)
#define PEBS_CFG_XMM            (1ull << 2)
#define PEBS_CFG_LBR            (1ull << 3)
#define PEBS_CFG_LBR_SHIFT      24      /* bits 31:24: LBR entries - 1 */
#define PEBS_CFG_GROUPS         0xfull
#define PEBS_CFG_KNOWN          (PEBS_CFG_GROUPS | (0xffull << PEBS_CFG_LBR_SHIFT))
#define PEBS_HDR_FORMAT_MASK    0xffffffffull   /* basic group qword 0, bits 31:0 */
#define PEBS_HDR_RETIRE_LAT_SHIFT 32            /* bits 47:32 (timed PEBS) */
#define PEBS_HDR_SIZE_SHIFT     48              /* bits 63:48 */
#define PEBS_CFG_ANY            (~0ull) /* decoder: accept whatever the header says */

#define PEBS_BASIC_SIZE         32
#define PEBS_MEMINFO_SIZE       32
#define PEBS_GPR_SIZE           144
#define PEBS_XMM_SIZE           256
#define PEBS_LBR_ENTRY_SIZE     24

/* General registers in the legacy record order (32-bit and 64-bit FMT 0..3). */
enum pebs_reg {
	PR_RAX, PR_RBX, PR_RCX, PR_RDX, PR_RSI, PR_RDI, PR_RBP, PR_RSP,
	PR_R8, PR_R9, PR_R10, PR_R11, PR_R12, PR_R13, PR_R14, PR_R15,
	PR_N
};

/* What a decoded record holds */
#define PEBS_V_FLAGS_IP         (1u << 0)       /* rflags, ip (GPR state) */
#define PEBS_V_GPRS             (1u << 1)       /* gpr[] (32-bit: the first 8) */
#define PEBS_V_APPLICABLE       (1u << 2)
#define PEBS_V_MEMINFO          (1u << 3)       /* dla, dse, latency */
#define PEBS_V_EVENTING_IP      (1u << 4)
#define PEBS_V_TSX              (1u << 5)
#define PEBS_V_TSC              (1u << 6)
#define PEBS_V_XMM              (1u << 7)
#define PEBS_V_LBR              (1u << 8)
#define PEBS_V_RETIRE_LAT       (1u << 9)       /* retire_latency (timed PEBS) */
#define PEBS_V_SPLIT_LAT        (1u << 10)      /* instr_latency, cache_latency */

struct pebs_record {
	enum pebs_layout layout;
	uint32_t size;                  /* bytes this record occupies */
	uint32_t valid;                 /* PEBS_V_ */
	uint64_t rflags, ip;            /* ip: as reported (trap-like: after the insn) */
	uint64_t gpr[PR_N];
	uint64_t applicable;            /* IA32_PERF_GLOBAL_STATUS image / applicable counters */
	uint64_t dla;                   /* data linear address */
	uint64_t dse;                   /* data source encoding (memory aux info) */
	uint64_t latency;
	uint64_t eventing_ip;
	uint64_t tsx;                   /* TX abort information / TSX aux info */
	uint64_t tsc;
	uint64_t format;                /* adaptive: header bits 31:0 */
	uint32_t retire_latency;        /* adaptive, timed PEBS: header bits 47:32 */
	uint32_t instr_latency;         /* split latency: meminfo latency[15:0] */
	uint32_t cache_latency;         /* split latency: meminfo latency[47:32] */
	uint32_t xmm_off, lbr_off;      /* adaptive: byte offsets inside the record */
	uint32_t n_lbr;
};

enum {
	PEBS_OK = 0,
	PEBS_ERR_UNKNOWN_FMT = -1,      /* PEBS_FMT the decoder does not know */
	PEBS_ERR_TRUNCATED = -2,        /* record runs past the bytes given */
	PEBS_ERR_SIZE = -3,             /* adaptive: size field != sum of its groups */
	PEBS_ERR_GROUP = -4,            /* adaptive: reserved record-format bits set */
	PEBS_ERR_CFG = -5,              /* adaptive: groups differ from PEBS_DATA_CFG */
	PEBS_ERR_LAYOUT = -6,           /* not a valid enum pebs_layout */
};
const char *pebs_strerror(int err);

/* Layout from the DS format and IA32_PERF_CAPABILITIES (have_caps false: the
 * MSR is absent (CPUID.01H:ECX.PDCM[15]=0) and FMT 0 applies).  ds64 is true
 * with DTES64 or in IA-32e mode.  Returns PEBS_OK or PEBS_ERR_UNKNOWN_FMT. */
int pebs_layout_from_caps(bool ds64, bool have_caps, uint64_t perf_caps, enum pebs_layout *out);
/* Fixed record size of a layout (0 for adaptive). */
uint32_t pebs_record_size(enum pebs_layout l);
/* Size of an adaptive record written with the given PEBS_DATA_CFG. */
uint32_t pebs_adaptive_size(uint64_t data_cfg);
const char *pebs_layout_name(enum pebs_layout l);
const char *pebs_reg_name(enum pebs_reg r);

/* Decode one record at p (len bytes available).  data_cfg: for adaptive
 * records, the MSR_PEBS_DATA_CFG value software programmed (PEBS_CFG_ANY to
 * skip that cross-check); ignored otherwise. */
int pebs_decode(const void *p, size_t len, enum pebs_layout l, uint64_t data_cfg,
		struct pebs_record *r);
/* Everything that decides how a record reads. */
struct pebs_format {
	enum pebs_layout layout;
	uint64_t data_cfg;              /* as for pebs_decode() */
	bool timed;                     /* IA32_PERF_CAPABILITIES.TIMED_PEBS[17] */
	bool split_latency;             /* the model splits the meminfo latency */
};
int pebs_decode_fmt(const void *p, size_t len, const struct pebs_format *f, struct pebs_record *r);
/* The load latency to compare with MSR_PEBS_LD_LAT: the cache latency where
 * the latency is split, else the latency field. */
uint64_t pebs_load_latency(const struct pebs_record *r);
/* Walk a buffer of records (base .. index): number of whole records, or an
 * error if any record is bad or the bytes end inside a record. */
long pebs_count(const void *p, size_t len, enum pebs_layout l, uint64_t data_cfg);
/* LBR entry i of an adaptive record that decoded from p. */
bool pebs_lbr_entry(const void *p, const struct pebs_record *r, uint32_t i,
		    uint64_t *from, uint64_t *to, uint64_t *info);

/* Load-latency data source (SDM table "Data Source Encoding for Load Latency
 * Record"): bits 3:0 name the source; bit 4 STLB miss and bit 5 locked access
 * on processors that define them. */
const char *pebs_dse_name(uint64_t dse);

/* Readable table of a record into buf (lines separated by '\n', NUL-terminated).
 * Returns the length written (truncated output ends at cap - 1). */
size_t pebs_format(char *buf, size_t cap, const struct pebs_record *r);

#endif
