/* Per-model PEBS counter constraints and errata: see lib/pebs_model.h. */
#include "pebs_model.h"
#include "fmt.h"

enum {
	U_CORE2, U_BONNELL, U_SILVERMONT, U_GOLDMONT, U_GOLDMONT_PLUS, U_NEHALEM, U_WESTMERE,
	U_SANDY_BRIDGE, U_IVY_BRIDGE, U_HASWELL, U_SKYLAKE, U_ICE_LAKE, U_GOLDEN_COVE,
	U_GRACEMONT, U_NUARCH
};

#define GP4     0x0fu
#define GP8     0xffu

const struct pebs_uarch pebs_uarchs[U_NUARCH] = {
	/* SDM vol.3B table "PEBS Performance Events for Intel Core Microarchitecture":
	 * INSTR_RETIRED.ANY_P C0H/00H; PEBS on IA32_PMC0 only ("18.4.4"). */
	[U_CORE2] = { "Core (Merom/Penryn)", "SDM Core microarchitecture PEBS events table",
		      0x00c0, 0x1, false, 0, 0, 0, false, PEBS_Q_FMT0_4K },
	/* Atom (Bonnell/Saltwell): PEBS on PMC0 only, INST_RETIRED.ANY_P C0H/00H */
	[U_BONNELL] = { "Atom (Bonnell)", "SDM Intel Atom microarchitecture PEBS events table",
			0x00c0, 0x1, false, 0, 0, 0, false, PEBS_Q_FMT0_4K },
	/* Silvermont/Airmont: PEBS on IA32_PMC0 only (SDM "PEBS Support in
	 * Silvermont Microarchitecture"); no load-latency facility */
	[U_SILVERMONT] = { "Silvermont/Airmont", "SDM Silvermont PEBS events table (PMC0 only)",
			   0x00c0, 0x1, false, 0, 0, 0, false, 0 },
	/* Goldmont: PEBS on PMC0 only; Goldmont Plus: all four (extended PEBS) */
	[U_GOLDMONT] = { "Goldmont", "SDM Goldmont PEBS (PMC0 only)",
			 0x00c0, 0x1, false, 0, 0, 0, false, 0 },
	[U_GOLDMONT_PLUS] = { "Goldmont Plus", "SDM Goldmont Plus extended PEBS (PMC0-3)",
			      0x00c0, GP4, false, 0, 0, 0, false, 0 },
	/* Nehalem: INST_RETIRED.ANY_P C0H/01H and MEM_INST_RETIRED.LATENCY_ABOVE_THRESHOLD
	 * 0BH/10H on PMC0-3 (SDM "PEBS Performance Events for Intel Core i7");
	 * counters reset sequence, errata AAK100/AAP53/BD53 */
	[U_NEHALEM] = { "Nehalem", "SDM Nehalem PEBS events table; spec update AAK100",
			0x01c0, GP4, false, 0x100b, GP4, 0, false, PEBS_Q_NHM_RESET },
	[U_WESTMERE] = { "Westmere", "SDM Westmere PEBS events table",
			 0x01c0, GP4, false, 0x100b, GP4, 0, false, 0 },
	/* Sandy Bridge / Ivy Bridge: INST_RETIRED.PREC_DIST C0H/01H with PDIR on
	 * PMC1 only; MEM_TRANS_RETIRED.LOAD_LATENCY CDH/01H on PMC3 only (SDM
	 * "PEBS Performance Events for Sandy Bridge", "Load Latency Performance
	 * Monitoring Facility", "Precise Distribution of Instructions Retired") */
	[U_SANDY_BRIDGE] = { "Sandy Bridge", "SDM Sandy Bridge PEBS events table (PDIR PMC1, LL PMC3)",
			     0x01c0, 0x2, true, 0x01cd, 0x8, 0, false, PEBS_Q_UCODE },
	[U_IVY_BRIDGE] = { "Ivy Bridge", "SDM Ivy Bridge PEBS events table (PDIR PMC1, LL PMC3)",
			   0x01c0, 0x2, true, 0x01cd, 0x8, 0, false, 0 },
	/* Haswell / Broadwell: PDIR on PMC1; load latency on PMC0-3 */
	[U_HASWELL] = { "Haswell/Broadwell", "SDM Haswell PEBS events table (PDIR PMC1)",
			0x01c0, 0x2, true, 0x01cd, GP4, 0, false, 0 },
	/* Skylake and its derivatives: table "Precise Events for the Skylake
	 * Microarchitecture", note 1: INST_RETIRED.PREC_DIST only on IA32_PMC1 */
	[U_SKYLAKE] = { "Skylake", "SDM table Precise Events for the Skylake Microarchitecture",
			0x01c0, 0x2, true, 0x01cd, GP4, 0, false, 0 },
	/* Ice Lake / Tiger Lake (Sunny/Willow Cove), extended PEBS: every general
	 * counter takes the PEBS events (perfmon event list, PEBScounters 0-7) */
	[U_ICE_LAKE] = { "Ice Lake", "Intel perfmon event list (icelake: PEBScounters 0-7)",
			 0x00c0, GP8, false, 0x01cd, GP8, 0, false, 0 },
	/* Golden Cove and later P-cores: INST_RETIRED C0H and LOAD_LATENCY CDH/01H
	 * on PMC1-7 only; 03H/82H must count with the load-latency event; meminfo
	 * latency split in instruction and cache latency */
	[U_GOLDEN_COVE] = { "Golden Cove P-core", "Intel perfmon event list (sapphirerapids/alderlake: PEBScounters 1-7)",
			    0x00c0, 0xfe, false, 0x01cd, 0xfe, 0x8203, true, 0 },
	/* Gracemont / Crestmont E-cores: C0H on every counter; load latency is
	 * MEM_UOPS_RETIRED.LOAD_LATENCY D0H/05H on PMC0-1 */
	[U_GRACEMONT] = { "Gracemont E-core", "Intel perfmon event list (alderlake atom: LL PEBScounters 0-1)",
			  0x00c0, 0x3f, false, 0x05d0, 0x3, 0, true, 0 },
};
const unsigned pebs_n_uarchs = U_NUARCH;

#define M(model, u)             { 6, (model), PEBS_CORE_ANY, (u) }
#define H(model, core, u)       { 6, (model), (core), (u) }

/* Family 6 display models (SDM vol.4 table "CPUID Signature Values of
 * DisplayFamily_DisplayModel"). */
const struct pebs_model pebs_models[] = {
	M(0x0f, U_CORE2), M(0x16, U_CORE2), M(0x17, U_CORE2), M(0x1d, U_CORE2),
	M(0x1c, U_BONNELL), M(0x26, U_BONNELL), M(0x27, U_BONNELL), M(0x35, U_BONNELL),
	M(0x36, U_BONNELL),
	M(0x37, U_SILVERMONT), M(0x4a, U_SILVERMONT), M(0x4c, U_SILVERMONT), M(0x4d, U_SILVERMONT),
	M(0x5a, U_SILVERMONT), M(0x5d, U_SILVERMONT),
	M(0x5c, U_GOLDMONT), M(0x5f, U_GOLDMONT), M(0x7a, U_GOLDMONT_PLUS),
	M(0x1a, U_NEHALEM), M(0x1e, U_NEHALEM), M(0x1f, U_NEHALEM), M(0x2e, U_NEHALEM),
	M(0x25, U_WESTMERE), M(0x2c, U_WESTMERE), M(0x2f, U_WESTMERE),
	M(0x2a, U_SANDY_BRIDGE), M(0x2d, U_SANDY_BRIDGE),
	M(0x3a, U_IVY_BRIDGE), M(0x3e, U_IVY_BRIDGE),
	M(0x3c, U_HASWELL), M(0x3f, U_HASWELL), M(0x45, U_HASWELL), M(0x46, U_HASWELL),
	M(0x3d, U_HASWELL), M(0x47, U_HASWELL), M(0x4f, U_HASWELL), M(0x56, U_HASWELL),
	M(0x4e, U_SKYLAKE), M(0x5e, U_SKYLAKE), M(0x55, U_SKYLAKE), M(0x8e, U_SKYLAKE),
	M(0x9e, U_SKYLAKE), M(0xa5, U_SKYLAKE), M(0xa6, U_SKYLAKE),
	M(0x7d, U_ICE_LAKE), M(0x7e, U_ICE_LAKE), M(0x6a, U_ICE_LAKE), M(0x6c, U_ICE_LAKE),
	M(0x8c, U_ICE_LAKE), M(0x8d, U_ICE_LAKE), M(0xa7, U_ICE_LAKE),
	M(0x8f, U_GOLDEN_COVE), M(0xcf, U_GOLDEN_COVE), M(0xad, U_GOLDEN_COVE), M(0xae, U_GOLDEN_COVE),
	H(0x97, PEBS_CORE_CORE, U_GOLDEN_COVE), H(0x9a, PEBS_CORE_CORE, U_GOLDEN_COVE),
	H(0xb7, PEBS_CORE_CORE, U_GOLDEN_COVE), H(0xba, PEBS_CORE_CORE, U_GOLDEN_COVE),
	H(0xbf, PEBS_CORE_CORE, U_GOLDEN_COVE), H(0xaa, PEBS_CORE_CORE, U_GOLDEN_COVE),
	H(0xac, PEBS_CORE_CORE, U_GOLDEN_COVE),
	H(0x97, PEBS_CORE_ATOM, U_GRACEMONT), H(0x9a, PEBS_CORE_ATOM, U_GRACEMONT),
	H(0xb7, PEBS_CORE_ATOM, U_GRACEMONT), H(0xba, PEBS_CORE_ATOM, U_GRACEMONT),
	H(0xbf, PEBS_CORE_ATOM, U_GRACEMONT), H(0xaa, PEBS_CORE_ATOM, U_GRACEMONT),
	H(0xac, PEBS_CORE_ATOM, U_GRACEMONT), M(0xbe, U_GRACEMONT),
};
const unsigned pebs_n_models = sizeof pebs_models / sizeof pebs_models[0];

const struct pebs_uarch *pebs_uarch_for(const struct pebs_cpu *c)
{
	for (unsigned i = 0; i < pebs_n_models; i++) {
		const struct pebs_model *m = &pebs_models[i];
		if (m->family == c->family && m->model == c->model &&
		    (m->core_type == PEBS_CORE_ANY || m->core_type == c->core_type))
			return &pebs_uarchs[m->uarch];
	}
	return 0;
}

/* Errata that make PEBS hang the machine or write corrupt records.  From the
 * processors' specification updates (the facts as Linux's perf driver applies
 * them):
 *  - Core 2 06_0FH (Merom, Clovertown): AJ67 (PEBS may leak across CPLs),
 *    AJ68 (the PEBS PMI is delayed by one event), AJ69 (OvfDSBuffer set only
 *    with DEBUGCTL[12]), AJ106 (FREEZE_LBRS_ON_PMI with PEBS): unusable;
 *  - Sandy Bridge 06_2AH: PEBS records corrupted / hangs before microcode 28H;
 *  - Sandy Bridge-EP 06_2DH: before microcode 618H (stepping 6, C1) or 70CH
 *    (stepping 7, C2); every other stepping is treated as affected. */
const char *pebs_errata(const struct pebs_cpu *c, char *buf, size_t n)
{
	if (c->family != 6)
		return 0;
	if (c->model == 0x0f) {
		tl_snprintf(buf, n, "family 6 model 0xf (Merom/Clovertown): PEBS unusable "
			    "(errata AJ67, AJ68, AJ69, AJ106)");
		return buf;
	}
	uint32_t need = 0;
	if (c->model == 0x2a)
		need = 0x28;
	else if (c->model == 0x2d)
		need = c->stepping == 6 ? 0x618 : c->stepping == 7 ? 0x70c : 0xffffffffu;
	else
		return 0;
	if (need == 0xffffffffu) {
		tl_snprintf(buf, n, "family 6 model 0x2d stepping %u: PEBS erratum, no fixed "
			    "microcode known (only steppings 6 and 7 have one)", c->stepping);
		return buf;
	}
	if (!c->have_microcode) {
		tl_snprintf(buf, n, "family 6 model 0x%x: PEBS needs microcode >= 0x%x, "
			    "IA32_BIOS_SIGN_ID (0x8b) unreadable", c->model, need);
		return buf;
	}
	if (c->microcode < need) {
		tl_snprintf(buf, n, "family 6 model 0x%x stepping %u microcode 0x%x < 0x%x "
			    "(PEBS erratum fixed in 0x%x)", c->model, c->stepping, c->microcode,
			    need, need);
		return buf;
	}
	return 0;
}

uint64_t pebs_enable_bits(unsigned perfmon_version, unsigned pmc, bool load_latency)
{
	uint64_t v = 1ull << pmc;
	if (load_latency && perfmon_version < 5)
		v |= 1ull << (32 + pmc);
	return v;
}

int pebs_pick_counter(uint32_t mask, unsigned n_gp, int not)
{
	for (unsigned i = 0; i < n_gp && i < 32; i++)
		if ((mask >> i & 1) && (int)i != not)
			return (int)i;
	return -1;
}

const char *pebs_plan_for(const struct pebs_cpu *c, struct pebs_plan *p, char *buf, size_t n)
{
	const char *why = pebs_errata(c, buf, n);
	if (why)
		return why;
	const struct pebs_uarch *u = pebs_uarch_for(c);
	if (!u) {
		if (c->core_type)
			tl_snprintf(buf, n, "family 0x%x model 0x%x core type 0x%x: PEBS counter "
				    "constraints not in tracelab's table", c->family, c->model, c->core_type);
		else
			tl_snprintf(buf, n, "family 0x%x model 0x%x: PEBS counter constraints not "
				    "in tracelab's table", c->family, c->model);
		return buf;
	}
	p->u = u;
	p->inst_pmc = pebs_pick_counter(u->inst_pmcs, c->n_gp, -1);
	if (p->inst_pmc < 0) {
		tl_snprintf(buf, n, "%s: no PEBS counter for instructions retired among %u "
			    "general counters (allowed mask 0x%x)", u->name, c->n_gp, u->inst_pmcs);
		return buf;
	}
	p->other_pmc = pebs_pick_counter(~0u, c->n_gp, p->inst_pmc);
	p->inst_pebs_enable = pebs_enable_bits(c->perfmon_version, (unsigned)p->inst_pmc, false);
	p->ll_pmc = u->ll_event ? pebs_pick_counter(u->ll_pmcs, c->n_gp, -1) : -1;
	p->aux_pmc = -1;
	p->ll_pebs_enable = 0;
	if (p->ll_pmc >= 0) {
		p->ll_pebs_enable = pebs_enable_bits(c->perfmon_version, (unsigned)p->ll_pmc, true);
		if (u->ll_aux) {
			p->aux_pmc = pebs_pick_counter(~0u, c->n_gp, p->ll_pmc);
			if (p->aux_pmc < 0)
				p->ll_pmc = -1;
		}
	}
	p->max_buffer = (u->quirks & PEBS_Q_FMT0_4K) ? 4096 : 0;
	return 0;
}

bool pebs_buffer_fits(const struct pebs_plan *p, enum pebs_layout layout, uint64_t data_cfg,
		      uint32_t records, uint32_t *rec_size)
{
	*rec_size = layout == PEBS_L_ADAPTIVE ? pebs_adaptive_size(data_cfg) : pebs_record_size(layout);
	return !p->max_buffer || (uint64_t)records * *rec_size <= p->max_buffer;
}
