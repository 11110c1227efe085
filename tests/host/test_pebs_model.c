/* Host tests of lib/pebs_model.c: every model row gets a counter its
 * constraints allow, the PEBS_ENABLE bits follow the perfmon version, and the
 * errata gate names the exact reason. */
#include <string.h>
#include "tl_test.h"
#include "pebs_model.h"

static struct pebs_cpu cpu_of(const struct pebs_model *m, unsigned version, unsigned n_gp)
{
	struct pebs_cpu c = { .family = m->family, .model = m->model, .stepping = 7,
			      .have_microcode = true, .microcode = 0xffff,
			      .core_type = m->core_type, .perfmon_version = version, .n_gp = n_gp };
	return c;
}

/* Every row: the chosen counters are allowed, exist, and differ. */
TEST(pebs_model_every_row)
{
	char why[160];
	for (unsigned i = 0; i < pebs_n_models; i++) {
		const struct pebs_model *m = &pebs_models[i];
		CHECK(m->uarch < pebs_n_uarchs);
		const struct pebs_uarch *u = &pebs_uarchs[m->uarch];
		CHECK(u->name && u->source && u->inst_event && u->inst_pmcs);
		for (unsigned v = 1; v <= 6; v++) {
			for (unsigned n = 2; n <= 8; n += 2) {
				struct pebs_cpu c = cpu_of(m, v, n);
				struct pebs_plan p;
				const char *r = pebs_plan_for(&c, &p, why, sizeof why);
				if (m->model == 0x0f) {         /* Clovertown: always refused */
					CHECK(r != NULL);
					continue;
				}
				if (!CHECK(r == NULL)) {
					printf("#   model 0x%x v%u n_gp %u: %s\n", m->model, v, n, r);
					continue;
				}
				CHECK(p.u == u);
				CHECK(p.inst_pmc >= 0 && p.inst_pmc < (int)n);
				CHECK(u->inst_pmcs >> p.inst_pmc & 1);
				CHECK(p.other_pmc >= 0 && p.other_pmc < (int)n && p.other_pmc != p.inst_pmc);
				CHECK_EQ(p.inst_pebs_enable, 1ull << p.inst_pmc);
				if (u->ll_event && (u->ll_pmcs & ((1u << n) - 1))) {
					CHECK(p.ll_pmc >= 0 && (u->ll_pmcs >> p.ll_pmc & 1));
					uint64_t want = 1ull << p.ll_pmc;
					if (v < 5)
						want |= 1ull << (32 + p.ll_pmc);
					CHECK_EQ(p.ll_pebs_enable, want);
					if (u->ll_aux)
						CHECK(p.aux_pmc >= 0 && p.aux_pmc != p.ll_pmc && p.aux_pmc < (int)n);
					else
						CHECK_EQ(p.aux_pmc, -1);
				} else {
					CHECK_EQ(p.ll_pmc, -1);
				}
			}
		}
	}
}

static struct pebs_plan plan(uint8_t model, uint8_t core, unsigned v, unsigned n)
{
	struct pebs_model m = { 6, model, core, 0 };
	struct pebs_cpu c = cpu_of(&m, v, n);
	struct pebs_plan p;
	char why[160];
	memset(&p, 0xff, sizeof p);
	CHECK(pebs_plan_for(&c, &p, why, sizeof why) == NULL);
	return p;
}

/* The cases the issue names. */
TEST(pebs_model_named_constraints)
{
	/* Golden Cove P-cores: never PMC0 for C0H or CDH/01H; aux event 8203H */
	static const uint8_t glc[] = { 0x8f, 0xcf, 0xad, 0xae };
	for (unsigned i = 0; i < sizeof glc; i++) {
		struct pebs_plan p = plan(glc[i], 0, 5, 8);
		CHECK_EQ(p.inst_pmc, 1);
		CHECK_EQ(p.other_pmc, 0);
		CHECK_EQ(p.ll_pmc, 1);
		CHECK_EQ(p.aux_pmc, 0);
		CHECK_EQ(p.u->ll_aux, 0x8203);
		CHECK(p.u->split_latency);
		CHECK_EQ(p.ll_pebs_enable, 0x2);        /* v5: no bit 33 */
	}
	struct pebs_plan p = plan(0x97, PEBS_CORE_CORE, 5, 8);       /* ADL P-core */
	CHECK_EQ(p.inst_pmc, 1);
	CHECK_EQ(p.u->ll_aux, 0x8203);
	p = plan(0x97, PEBS_CORE_ATOM, 5, 6);                        /* ADL E-core */
	CHECK_EQ(p.inst_pmc, 0);
	CHECK_EQ(p.u->ll_event, 0x05d0);
	CHECK_EQ(p.ll_pmc, 0);
	CHECK_EQ(p.aux_pmc, -1);
	/* Sandy Bridge / Ivy Bridge: load latency on PMC3 only, PDIR on PMC1 */
	static const uint8_t snb[] = { 0x2a, 0x2d, 0x3a, 0x3e };
	for (unsigned i = 0; i < sizeof snb; i++) {
		p = plan(snb[i], 0, 3, 4);
		CHECK_EQ(p.ll_pmc, 3);
		CHECK_EQ(p.ll_pebs_enable, (1ull << 3) | (1ull << 35));
		CHECK_EQ(p.inst_pmc, 1);
		CHECK(p.u->inst_pdir);
		CHECK_EQ(p.u->inst_event, 0x01c0);
	}
	/* Haswell: PDIR PMC1, load latency on any of PMC0-3 */
	p = plan(0x3c, 0, 3, 4);
	CHECK_EQ(p.ll_pmc, 0);
	CHECK_EQ(p.ll_pebs_enable, 0x100000001ull);
	/* Ice Lake, version 5: PMC0 and no load-latency bit 32 (bit 32 is FIXED_CTR0) */
	p = plan(0x7e, 0, 5, 8);
	CHECK_EQ(p.inst_pmc, 0);
	CHECK_EQ(p.ll_pebs_enable, 1);
	/* Core 2, Atom, Silvermont, Goldmont: PMC0 only */
	static const uint8_t pmc0[] = { 0x17, 0x1d, 0x1c, 0x37, 0x4d, 0x5c };
	for (unsigned i = 0; i < sizeof pmc0; i++) {
		p = plan(pmc0[i], 0, 2, 2);
		CHECK_EQ(p.inst_pmc, 0);
		CHECK_EQ(p.ll_pmc, -1);
	}
	CHECK_EQ(plan(0x17, 0, 2, 2).max_buffer, 4096);          /* PEBS_FMT 0: 4 KiB */
	CHECK_EQ(plan(0x1a, 0, 3, 4).u->inst_event, 0x01c0);     /* Nehalem */
	CHECK_EQ(plan(0x1a, 0, 3, 4).u->ll_event, 0x100b);
	CHECK(plan(0x1a, 0, 3, 4).u->quirks & PEBS_Q_NHM_RESET);
	CHECK_EQ(pebs_enable_bits(4, 2, true), (1ull << 2) | (1ull << 34));
	CHECK_EQ(pebs_enable_bits(5, 2, true), 1ull << 2);
	CHECK_EQ(pebs_enable_bits(3, 0, false), 1);
	CHECK_EQ(pebs_pick_counter(0xfe, 1, -1), -1);       /* GLC with one counter: none */
	CHECK_EQ(pebs_pick_counter(0xfe, 8, 1), 2);
}

/* SNB 06_2A microcode < 0x28; SNB-EP 06_2D stepping 6 < 0x618, 7 < 0x70c, other
 * steppings refused; Clovertown refused; unknown models named. */
TEST(pebs_errata_gate)
{
	char why[160];
	struct pebs_cpu c = { .family = 6, .model = 0x2a, .stepping = 7, .have_microcode = true,
			      .microcode = 0x27, .perfmon_version = 3, .n_gp = 4 };
	struct pebs_plan p;
	CHECK(pebs_errata(&c, why, sizeof why) != NULL);
	CHECK(strcmp(why, "family 6 model 0x2a stepping 7 microcode 0x27 < 0x28 (PEBS erratum fixed in 0x28)") == 0);
	CHECK(pebs_plan_for(&c, &p, why, sizeof why) != NULL);
	c.microcode = 0x28;
	CHECK(pebs_errata(&c, why, sizeof why) == NULL);
	c.have_microcode = false;
	CHECK(pebs_errata(&c, why, sizeof why) != NULL);
	CHECK(strcmp(why, "family 6 model 0x2a: PEBS needs microcode >= 0x28, IA32_BIOS_SIGN_ID (0x8b) unreadable") == 0);
	c.have_microcode = true;
	c.model = 0x2d;
	c.stepping = 6;
	c.microcode = 0x617;
	CHECK(pebs_errata(&c, why, sizeof why) != NULL);
	CHECK(strcmp(why, "family 6 model 0x2d stepping 6 microcode 0x617 < 0x618 (PEBS erratum fixed in 0x618)") == 0);
	c.microcode = 0x618;
	CHECK(pebs_errata(&c, why, sizeof why) == NULL);
	c.stepping = 7;
	CHECK(pebs_errata(&c, why, sizeof why) != NULL);        /* 0x618 < 0x70c */
	c.microcode = 0x70c;
	CHECK(pebs_errata(&c, why, sizeof why) == NULL);
	c.stepping = 5;
	CHECK(pebs_errata(&c, why, sizeof why) != NULL);
	CHECK(strcmp(why, "family 6 model 0x2d stepping 5: PEBS erratum, no fixed microcode known (only steppings 6 and 7 have one)") == 0);
	c.model = 0x0f;
	c.stepping = 11;
	CHECK(pebs_errata(&c, why, sizeof why) != NULL);
	CHECK(strcmp(why, "family 6 model 0xf (Merom/Clovertown): PEBS unusable (errata AJ67, AJ68, AJ69, AJ106)") == 0);
	/* not affected */
	c.model = 0x3c;
	c.microcode = 0;
	CHECK(pebs_errata(&c, why, sizeof why) == NULL);
	c.family = 0xf;
	c.model = 0x2a;
	CHECK(pebs_errata(&c, why, sizeof why) == NULL);
	/* no row */
	CHECK(pebs_plan_for(&c, &p, why, sizeof why) != NULL);
	CHECK(strcmp(why, "family 0xf model 0x2a: PEBS counter constraints not in tracelab's table") == 0);
	c.family = 6;
	c.model = 0x97;
	c.core_type = 0x10;
	CHECK(pebs_plan_for(&c, &p, why, sizeof why) != NULL);
	CHECK(strcmp(why, "family 0x6 model 0x97 core type 0x10: PEBS counter constraints not in tracelab's table") == 0);
}

/* The buffer's record size by layout and data groups, and the model's limit. */
TEST(pebs_buffer_shape)
{
	struct pebs_plan p;
	memset(&p, 0, sizeof p);
	uint32_t rs = 0;
	CHECK(pebs_buffer_fits(&p, PEBS_L64_FMT0, 0, 1000, &rs));
	CHECK_EQ(rs, pebs_record_size(PEBS_L64_FMT0));
	CHECK(pebs_buffer_fits(&p, PEBS_L_ADAPTIVE, PEBS_CFG_GPR, 4, &rs));
	CHECK_EQ(rs, pebs_adaptive_size(PEBS_CFG_GPR));
	p.max_buffer = 4096;
	CHECK(pebs_buffer_fits(&p, PEBS_L64_FMT0, 0, 4096 / pebs_record_size(PEBS_L64_FMT0), &rs));
	CHECK(!pebs_buffer_fits(&p, PEBS_L64_FMT0, 0, 4096 / pebs_record_size(PEBS_L64_FMT0) + 1, &rs));
	CHECK_EQ(rs, pebs_record_size(PEBS_L64_FMT0));
}
