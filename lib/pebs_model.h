/* Which counter may take which PEBS event on which processor, and which
 * processors must not use PEBS at all: the per-model decisions of the 3xx PEBS
 * experiments, as tables (lib/pebs_model.c).
 *
 * PEBS is not architectural: the events that can be sampled precisely, and on
 * which general counters, are listed per microarchitecture in the SDM vol.3
 * "Performance Monitoring" chapter (the "PEBS Performance Events" / "Precise
 * Events" tables of Core, Nehalem, Sandy Bridge, Haswell, Skylake) and, from
 * Ice Lake on, in Intel's per-model event lists (perfmon-events.intel.com: the
 * "PEBScounters" of each event), which the SDM refers to.  Those tables, with
 * the facts Linux's perf driver carries as *_pebs_event_constraints, are
 * summarised here for the two events tracelab samples:
 *
 *   instructions retired    INST_RETIRED (event C0H); with PDIR (SNB..SKL:
 *                           INST_RETIRED.PREC_DIST, umask 01H, PMC1 only) the
 *                           record is taken on the overflowing instruction
 *                           without skid (SDM "Precise Distribution of
 *                           Instructions Retired (PDIR)")
 *   load latency            MEM_INST_RETIRED.LATENCY_ABOVE_THRESHOLD (0BH/10H,
 *                           Nehalem/Westmere), MEM_TRANS_RETIRED.LOAD_LATENCY
 *                           (CDH/01H, Sandy Bridge on; PMC3 only on SNB/IVB),
 *                           MEM_UOPS_RETIRED.LOAD_LATENCY (D0H/05H, Gracemont)
 *
 * Golden Cove and later P-cores (Sapphire/Emerald/Granite Rapids, Alder/Raptor
 * Lake and Meteor Lake P-cores) do not take C0H or CDH/01H with PEBS on PMC0
 * (PMC1-7 only), and need the auxiliary event MEM_TRANS_RETIRED.LOAD_LATENCY
 * aux (03H/82H) counting at the same time for complete load records.
 *
 * IA32_PEBS_ENABLE: bit n enables PEBS on PMCn; bits 32+n enable the
 * load-latency facility on PMCn only up to architectural perfmon version 4; from
 * version 5 bits 32+n enable PEBS on IA32_FIXED_CTRn and load latency needs no
 * extra bit (SDM vol.3 "IA32_PEBS_ENABLE MSR", extended PEBS). */
#ifndef LIB_PEBS_MODEL_H
#define LIB_PEBS_MODEL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "pebs_record.h"

/* CPUID.1AH:EAX[31:24] on hybrid parts (CPUID.07H:EDX.HYBRID[15]) */
#define PEBS_CORE_ANY   0x00
#define PEBS_CORE_ATOM  0x20
#define PEBS_CORE_CORE  0x40

/* Quirks */
#define PEBS_Q_NO_PEBS          (1u << 0)       /* PEBS unusable on the whole model */
#define PEBS_Q_FMT0_4K          (1u << 1)       /* PEBS buffer must fit in one 4 KiB page */
#define PEBS_Q_NHM_RESET        (1u << 2)       /* counters need the AAK100 reset sequence */
#define PEBS_Q_UCODE            (1u << 3)       /* minimum microcode, see pebs_errata() */

struct pebs_uarch {
	const char *name;
	const char *source;             /* where the constraints are written down */
	uint16_t inst_event;            /* EVTSEL[15:0] = umask << 8 | event */
	uint32_t inst_pmcs;             /* general counters that take it with PEBS */
	bool inst_pdir;                 /* no skid: the record is the overflowing insn */
	uint16_t ll_event;              /* load-latency event; 0: none */
	uint32_t ll_pmcs;
	uint16_t ll_aux;                /* auxiliary event counted alongside; 0: none */
	bool split_latency;             /* meminfo latency: instr[15:0], cache[47:32] */
	uint32_t quirks;
};

struct pebs_model {
	uint8_t family, model, core_type;       /* core_type PEBS_CORE_ANY: not hybrid */
	uint8_t uarch;                          /* index into the uarch table */
};

/* What the CPU reports, as far as these decisions go. */
struct pebs_cpu {
	uint32_t family, model, stepping;       /* display family/model */
	bool have_microcode;
	uint32_t microcode;                     /* IA32_BIOS_SIGN_ID[63:32] */
	uint8_t core_type;                      /* CPUID.1AH:EAX[31:24], 0 if not hybrid */
	unsigned perfmon_version, n_gp;
};

/* The counters the experiments use, chosen from the constraints. */
struct pebs_plan {
	const struct pebs_uarch *u;
	int inst_pmc;                   /* PEBS on instructions retired; -1: none */
	int other_pmc;                  /* a non-PEBS counter next to it; -1: none */
	uint64_t inst_pebs_enable;      /* IA32_PEBS_ENABLE for inst_pmc */
	int ll_pmc;                     /* load latency; -1: none */
	int aux_pmc;                    /* the auxiliary event's counter; -1: none */
	uint64_t ll_pebs_enable;        /* IA32_PEBS_ENABLE for ll_pmc (+ LL bit < v5) */
	uint32_t max_buffer;            /* bytes of PEBS buffer allowed; 0: any */
};

/* The tables, for the host tests to walk. */
extern const struct pebs_uarch pebs_uarchs[];
extern const unsigned pebs_n_uarchs;
extern const struct pebs_model pebs_models[];
extern const unsigned pebs_n_models;

/* The row for this CPU, or NULL. */
const struct pebs_uarch *pebs_uarch_for(const struct pebs_cpu *c);
/* Errata that rule PEBS out (family/model/stepping/microcode): NULL if none,
 * else the SKIP reason, written into buf. */
const char *pebs_errata(const struct pebs_cpu *c, char *buf, size_t n);
/* The errata gate, then the counters: NULL and *p filled, or the SKIP reason. */
const char *pebs_plan_for(const struct pebs_cpu *c, struct pebs_plan *p, char *buf, size_t n);
/* IA32_PEBS_ENABLE bits for PEBS on PMCn, with the load-latency bit 32+n where
 * the perfmon version gives it that meaning (< 5). */
uint64_t pebs_enable_bits(unsigned perfmon_version, unsigned pmc, bool load_latency);
/* The PEBS buffer's shape: the record size (fixed by the layout, or by the
 * adaptive data groups data_cfg), and whether `records` of them stay within the
 * plan's limit (max_buffer, e.g. 4 KiB on the models with that erratum).  True
 * when they fit; *rec_size is set either way. */
bool pebs_buffer_fits(const struct pebs_plan *p, enum pebs_layout layout, uint64_t data_cfg,
		      uint32_t records, uint32_t *rec_size);
/* Lowest counter in mask below n_gp other than `not`; -1 if none. */
int pebs_pick_counter(uint32_t mask, unsigned n_gp, int not);

#endif
