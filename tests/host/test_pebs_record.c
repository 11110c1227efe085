/* Host tests of lib/pebs_record.c: every PEBS record format, adaptive groups, errors. */
#include <string.h>
#include "tl_test.h"
#include "pebs_record.h"

static void put(uint8_t *p, unsigned off, unsigned n, uint64_t v)
{
	for (unsigned i = 0; i < n; i++, v >>= 8)
		p[off + i] = (uint8_t)v;
}

TEST(pebs_layout_selection)
{
	enum pebs_layout l;
	CHECK_EQ(pebs_layout_from_caps(false, true, 0x100, &l), PEBS_OK);
	CHECK_EQ(l, PEBS_L32);
	CHECK_EQ(pebs_layout_from_caps(true, false, 0xf00, &l), PEBS_OK);
	CHECK_EQ(l, PEBS_L64_FMT0);             /* no PERF_CAPABILITIES: format 0 */
	static const enum pebs_layout want[6] = {
		PEBS_L64_FMT0, PEBS_L64_FMT1, PEBS_L64_FMT2, PEBS_L64_FMT3,
		PEBS_L_ADAPTIVE, PEBS_L_ADAPTIVE };
	for (unsigned f = 0; f < 6; f++) {
		/* other capability bits must not matter */
		CHECK_EQ(pebs_layout_from_caps(true, true, ((uint64_t)f << 8) | 0x70c5, &l), PEBS_OK);
		CHECK_EQ(l, want[f]);
	}
	for (unsigned f = 6; f < 16; f++)
		CHECK_EQ(pebs_layout_from_caps(true, true, (uint64_t)f << 8, &l), PEBS_ERR_UNKNOWN_FMT);
	CHECK_EQ(pebs_record_size(PEBS_L32), 40);
	CHECK_EQ(pebs_record_size(PEBS_L64_FMT0), 144);
	CHECK_EQ(pebs_record_size(PEBS_L64_FMT1), 176);
	CHECK_EQ(pebs_record_size(PEBS_L64_FMT2), 192);
	CHECK_EQ(pebs_record_size(PEBS_L64_FMT3), 200);
	CHECK_EQ(pebs_record_size(PEBS_L_ADAPTIVE), 0);
}

/* A legacy 64-bit record with recognisable values: field at offset o holds 0x1000 + o. */
static void fill_legacy(uint8_t *p, unsigned size)
{
	for (unsigned o = 0; o < size; o += 8)
		put(p, o, 8, 0x1000 + o);
}

TEST(pebs_decode_legacy_formats)
{
	static const enum pebs_layout ls[4] = { PEBS_L64_FMT0, PEBS_L64_FMT1, PEBS_L64_FMT2, PEBS_L64_FMT3 };
	uint8_t p[256];
	struct pebs_record r;
	for (int i = 0; i < 4; i++) {
		unsigned size = pebs_record_size(ls[i]);
		fill_legacy(p, size);
		CHECK_EQ(pebs_decode(p, size, ls[i], 0, &r), PEBS_OK);
		CHECK_EQ(r.size, size);
		CHECK_EQ(r.rflags, 0x1000);
		CHECK_EQ(r.ip, 0x1008);
		CHECK_EQ(r.gpr[PR_RAX], 0x1010);
		CHECK_EQ(r.gpr[PR_RBX], 0x1018);
		CHECK_EQ(r.gpr[PR_RCX], 0x1020);
		CHECK_EQ(r.gpr[PR_RDX], 0x1028);
		CHECK_EQ(r.gpr[PR_RSI], 0x1030);
		CHECK_EQ(r.gpr[PR_RDI], 0x1038);
		CHECK_EQ(r.gpr[PR_RBP], 0x1040);
		CHECK_EQ(r.gpr[PR_RSP], 0x1048);
		CHECK_EQ(r.gpr[PR_R8], 0x1050);
		CHECK_EQ(r.gpr[PR_R15], 0x1088);
		CHECK_EQ(!!(r.valid & PEBS_V_MEMINFO), i >= 1);
		CHECK_EQ(!!(r.valid & PEBS_V_EVENTING_IP), i >= 2);
		CHECK_EQ(!!(r.valid & PEBS_V_TSC), i >= 3);
		if (i >= 1) {
			CHECK_EQ(r.applicable, 0x1090);
			CHECK_EQ(r.dla, 0x1098);
			CHECK_EQ(r.dse, 0x10a0);
			CHECK_EQ(r.latency, 0x10a8);
		}
		if (i >= 2) {
			CHECK_EQ(r.eventing_ip, 0x10b0);
			CHECK_EQ(r.tsx, 0x10b8);
		}
		if (i >= 3)
			CHECK_EQ(r.tsc, 0x10c0);
		/* one byte short is rejected */
		CHECK_EQ(pebs_decode(p, size - 1, ls[i], 0, &r), PEBS_ERR_TRUNCATED);
		/* a buffer of three records and a partial fourth */
		uint8_t buf[4 * 200];
		for (int k = 0; k < 3; k++)
			fill_legacy(buf + k * size, size);
		CHECK_EQ(pebs_count(buf, 3 * size, ls[i], 0), 3);
		CHECK_EQ(pebs_count(buf, 3 * size + 8, ls[i], 0), PEBS_ERR_TRUNCATED);
	}
	CHECK_EQ(pebs_decode(p, sizeof p, (enum pebs_layout)42, 0, &r), PEBS_ERR_LAYOUT);
}

TEST(pebs_decode_32bit)
{
	uint8_t p[40];
	for (unsigned o = 0; o < 40; o += 4)
		put(p, o, 4, 0xa0000000u + o);
	struct pebs_record r;
	CHECK_EQ(pebs_decode(p, 40, PEBS_L32, 0, &r), PEBS_OK);
	CHECK_EQ(r.size, 40);
	CHECK_EQ(r.rflags, 0xa0000000u);
	CHECK_EQ(r.ip, 0xa0000004u);
	CHECK_EQ(r.gpr[PR_RAX], 0xa0000008u);
	CHECK_EQ(r.gpr[PR_RBX], 0xa000000cu);
	CHECK_EQ(r.gpr[PR_RCX], 0xa0000010u);
	CHECK_EQ(r.gpr[PR_RDX], 0xa0000014u);
	CHECK_EQ(r.gpr[PR_RSI], 0xa0000018u);
	CHECK_EQ(r.gpr[PR_RDI], 0xa000001cu);
	CHECK_EQ(r.gpr[PR_RBP], 0xa0000020u);
	CHECK_EQ(r.gpr[PR_RSP], 0xa0000024u);
	CHECK_EQ(r.gpr[PR_R8], 0);
	CHECK(!(r.valid & PEBS_V_MEMINFO));
	CHECK_EQ(pebs_decode(p, 39, PEBS_L32, 0, &r), PEBS_ERR_TRUNCATED);
}

/* Build an adaptive record as the processor would for cfg; returns its size. */
static unsigned build_adaptive(uint8_t *p, uint64_t cfg)
{
	uint64_t groups = cfg & ((cfg & PEBS_CFG_LBR) ? PEBS_CFG_KNOWN : PEBS_CFG_GROUPS);
	unsigned size = pebs_adaptive_size(groups);
	memset(p, 0, size);
	put(p, 0, 8, groups | ((uint64_t)size << 48));
	put(p, 8, 8, 0x401000);         /* IP */
	put(p, 16, 8, 0x1);             /* applicable counters: PMC0 */
	put(p, 24, 8, 0x123456789ull);  /* TSC */
	unsigned off = 32;
	if (groups & PEBS_CFG_MEMINFO) {
		put(p, off, 8, 0xdada);
		put(p, off + 8, 8, 0x21);   /* L1 hit, locked */
		put(p, off + 16, 8, 7);
		put(p, off + 24, 8, 0x77);
		off += 32;
	}
	if (groups & PEBS_CFG_GPR) {
		put(p, off, 8, 0x246);
		put(p, off + 8, 8, 0x401005);
		for (unsigned i = 0; i < 16; i++)   /* RAX RCX RDX RBX RSP RBP RSI RDI R8.. */
			put(p, off + 16 + 8 * i, 8, 0x100 + i);
		off += 144;
	}
	if (groups & PEBS_CFG_XMM) {
		for (unsigned i = 0; i < 256; i++)
			p[off + i] = (uint8_t)i;
		off += 256;
	}
	if (groups & PEBS_CFG_LBR) {
		unsigned n = (unsigned)((groups >> 24) & 0xff) + 1;
		for (unsigned i = 0; i < n; i++) {
			put(p, off, 8, 0xf000 + i);
			put(p, off + 8, 8, 0xe000 + i);
			put(p, off + 16, 8, i);
			off += 24;
		}
	}
	return off;
}

TEST(pebs_adaptive_every_group_combination)
{
	static uint8_t p[32 + 32 + 144 + 256 + 24 * 256];
	static const unsigned lbrs[] = { 1, 8, 32, 256 };
	for (unsigned g = 0; g < 16; g++) {
		for (unsigned li = 0; li < 4; li++) {
			uint64_t cfg = g | ((uint64_t)(lbrs[li] - 1) << 24);
			unsigned size = build_adaptive(p, cfg);
			CHECK_EQ(size, pebs_adaptive_size(cfg & ((cfg & PEBS_CFG_LBR) ? PEBS_CFG_KNOWN : PEBS_CFG_GROUPS)));
			struct pebs_record r;
			CHECK_EQ(pebs_decode(p, size, PEBS_L_ADAPTIVE, cfg, &r), PEBS_OK);
			CHECK_EQ(pebs_decode(p, size, PEBS_L_ADAPTIVE, PEBS_CFG_ANY, &r), PEBS_OK);
			CHECK_EQ(r.size, size);
			CHECK_EQ(r.eventing_ip, 0x401000);
			CHECK_EQ(r.applicable, 1);
			CHECK_EQ(r.tsc, 0x123456789ull);
			CHECK_EQ(!!(r.valid & PEBS_V_MEMINFO), !!(g & 1));
			CHECK_EQ(!!(r.valid & PEBS_V_GPRS), !!(g & 2));
			CHECK_EQ(!!(r.valid & PEBS_V_XMM), !!(g & 4));
			CHECK_EQ(!!(r.valid & PEBS_V_LBR), !!(g & 8));
			if (g & 1) {
				CHECK_EQ(r.dla, 0xdada);
				CHECK_EQ(r.dse, 0x21);
				CHECK_EQ(r.latency, 7);
				CHECK_EQ(r.tsx, 0x77);
			}
			if (g & 2) {
				CHECK_EQ(r.ip, 0x401005);
				CHECK_EQ(r.rflags, 0x246);
				CHECK_EQ(r.gpr[PR_RAX], 0x100);
				CHECK_EQ(r.gpr[PR_RCX], 0x101);
				CHECK_EQ(r.gpr[PR_RDX], 0x102);
				CHECK_EQ(r.gpr[PR_RBX], 0x103);
				CHECK_EQ(r.gpr[PR_RSP], 0x104);
				CHECK_EQ(r.gpr[PR_RBP], 0x105);
				CHECK_EQ(r.gpr[PR_RSI], 0x106);
				CHECK_EQ(r.gpr[PR_RDI], 0x107);
				CHECK_EQ(r.gpr[PR_R8], 0x108);
				CHECK_EQ(r.gpr[PR_R15], 0x10f);
			} else {
				CHECK_EQ(r.ip, 0x401000);
			}
			if (g & 4)
				CHECK_EQ(p[r.xmm_off + 17], 17);
			if (g & 8) {
				CHECK_EQ(r.n_lbr, lbrs[li]);
				uint64_t f, t, info;
				CHECK(pebs_lbr_entry(p, &r, r.n_lbr - 1, &f, &t, &info));
				CHECK_EQ(f, 0xf000 + r.n_lbr - 1);
				CHECK_EQ(t, 0xe000 + r.n_lbr - 1);
				CHECK_EQ(info, r.n_lbr - 1);
				CHECK(!pebs_lbr_entry(p, &r, r.n_lbr, &f, &t, &info));
			}
			/* truncated by one byte */
			CHECK_EQ(pebs_decode(p, size - 1, PEBS_L_ADAPTIVE, cfg, &r), PEBS_ERR_TRUNCATED);
			/* size field off by 8 */
			put(p, 6, 2, size + 8);
			CHECK_EQ(pebs_decode(p, size + 8, PEBS_L_ADAPTIVE, cfg, &r), PEBS_ERR_SIZE);
			put(p, 6, 2, size);
			/* groups that differ from what software programmed */
			CHECK_EQ(pebs_decode(p, size, PEBS_L_ADAPTIVE, cfg ^ PEBS_CFG_GPR, &r), PEBS_ERR_CFG);
		}
	}
}

TEST(pebs_adaptive_bad_headers)
{
	uint8_t p[512];
	struct pebs_record r;
	unsigned size = build_adaptive(p, PEBS_CFG_MEMINFO);
	p[0] |= 0x10;                    /* reserved group bit 4 */
	CHECK_EQ(pebs_decode(p, size, PEBS_L_ADAPTIVE, PEBS_CFG_ANY, &r), PEBS_ERR_GROUP);
	size = build_adaptive(p, 0);
	put(p, 2, 1, 0x10);              /* bit 20: reserved format bit */
	CHECK_EQ(pebs_decode(p, size, PEBS_L_ADAPTIVE, PEBS_CFG_ANY, &r), PEBS_ERR_GROUP);
	CHECK_EQ(pebs_decode(p, 31, PEBS_L_ADAPTIVE, PEBS_CFG_ANY, &r), PEBS_ERR_TRUNCATED);
	/* size 0 header (a zeroed buffer) must not loop the walker */
	memset(p, 0, sizeof p);
	CHECK_EQ(pebs_count(p, sizeof p, PEBS_L_ADAPTIVE, PEBS_CFG_ANY), PEBS_ERR_SIZE);
	/* two records of different shapes back to back */
	unsigned a = build_adaptive(p, PEBS_CFG_GPR);
	unsigned b = build_adaptive(p + a, PEBS_CFG_MEMINFO | PEBS_CFG_LBR | (3ull << 24));
	CHECK_EQ(pebs_count(p, a + b, PEBS_L_ADAPTIVE, PEBS_CFG_ANY), 2);
	CHECK_EQ(pebs_count(p, a + b - 1, PEBS_L_ADAPTIVE, PEBS_CFG_ANY), PEBS_ERR_TRUNCATED);
	CHECK_EQ(pebs_count(p, 0, PEBS_L_ADAPTIVE, PEBS_CFG_ANY), 0);
	/* the LBR count field without the LBR group is ignored */
	a = build_adaptive(p, PEBS_CFG_GPR);
	put(p, 3, 1, 0x1f);
	CHECK_EQ(pebs_decode(p, a, PEBS_L_ADAPTIVE, PEBS_CFG_GPR | (0x1full << 24), &r), PEBS_OK);
	CHECK_EQ(r.n_lbr, 0);
}

TEST(pebs_data_source_names)
{
	CHECK(strcmp(pebs_dse_name(0), "unknown L3 cache miss") == 0);
	CHECK(strcmp(pebs_dse_name(1), "L1 data cache hit") == 0);
	CHECK(strcmp(pebs_dse_name(3), "L2 hit") == 0);
	CHECK(strcmp(pebs_dse_name(0x36), "L3 hit, cross-core snoop, modified (HITM)") == 0);
	CHECK(strcmp(pebs_dse_name(0xf), "uncacheable memory") == 0);
	for (unsigned i = 0; i < 16; i++)
		CHECK(pebs_dse_name(i)[0] != 0);
	CHECK(strcmp(pebs_strerror(PEBS_ERR_SIZE), "record size field disagrees with its groups") == 0);
	for (int e = 0; e >= -6; e--)
		CHECK(strcmp(pebs_strerror(e), "unknown PEBS error") != 0);
	CHECK(strcmp(pebs_reg_name(PR_R12), "r12") == 0);
	CHECK(strcmp(pebs_layout_name(PEBS_L64_FMT3), "64-bit PEBS_FMT 3 (Skylake)") == 0);
}

TEST(pebs_format_table)
{
	uint8_t p[200];
	fill_legacy(p, 200);
	put(p, 0xa0, 8, 0x33);           /* L2 hit, STLB miss, locked */
	struct pebs_record r;
	CHECK_EQ(pebs_decode(p, 200, PEBS_L64_FMT3, 0, &r), PEBS_OK);
	char buf[2048];
	size_t n = pebs_format(buf, sizeof buf, &r);
	CHECK_EQ(n, strlen(buf));
	CHECK(strstr(buf, "PEBS record: 64-bit PEBS_FMT 3 (Skylake), 200 bytes\n") == buf);
	CHECK(strstr(buf, "rip=0x0000000000001008") != NULL);
	CHECK(strstr(buf, "rax=0x0000000000001010") != NULL);
	CHECK(strstr(buf, "r15=0x0000000000001088") != NULL);
	CHECK(strstr(buf, "(L2 hit, STLB miss, locked)") != NULL);
	CHECK(strstr(buf, "tsc=0x00000000000010c0") != NULL);
	/* truncation is bounded and terminated */
	char small[40];
	memset(small, 'x', sizeof small);
	n = pebs_format(small, sizeof small, &r);
	CHECK_EQ(n, sizeof small - 1);
	CHECK_EQ(small[sizeof small - 1], 0);
	CHECK_EQ(pebs_format(small, 0, &r), 0);
	/* adaptive header line */
	uint8_t a[512];
	unsigned size = build_adaptive(a, PEBS_CFG_MEMINFO | PEBS_CFG_LBR | (7ull << 24));
	CHECK_EQ(pebs_decode(a, size, PEBS_L_ADAPTIVE, PEBS_CFG_ANY, &r), PEBS_OK);
	pebs_format(buf, sizeof buf, &r);
	CHECK(strstr(buf, "groups:basic,meminfo,lbr*8") != NULL);
	CHECK(strstr(buf, "(L1 data cache hit, locked)") != NULL);
}

/* Timed PEBS: bits 47:32 of the basic header are the retire latency, not
 * format bits (SDM "Basic Info Group"; PERF_CAPABILITIES[17]). */
TEST(pebs_adaptive_timed_retire_latency)
{
	uint8_t p[512];
	struct pebs_record r;
	unsigned size = build_adaptive(p, PEBS_CFG_GPR);
	put(p, 4, 2, 0x1234);
	struct pebs_format f = { .layout = PEBS_L_ADAPTIVE, .data_cfg = PEBS_CFG_GPR, .timed = true };
	CHECK_EQ(pebs_decode_fmt(p, size, &f, &r), PEBS_OK);
	CHECK_EQ(r.retire_latency, 0x1234);
	CHECK(r.valid & PEBS_V_RETIRE_LAT);
	CHECK_EQ(r.format, PEBS_CFG_GPR);
	CHECK_EQ(r.size, size);
	/* the plain decoder must not reject it either */
	CHECK_EQ(pebs_decode(p, size, PEBS_L_ADAPTIVE, PEBS_CFG_GPR, &r), PEBS_OK);
	CHECK_EQ(r.retire_latency, 0x1234);
	/* all ones in the latency field, every group */
	size = build_adaptive(p, PEBS_CFG_MEMINFO | PEBS_CFG_GPR | PEBS_CFG_XMM | PEBS_CFG_LBR);
	put(p, 4, 2, 0xffff);
	CHECK_EQ(pebs_count(p, size, PEBS_L_ADAPTIVE, PEBS_CFG_ANY), 1);
	CHECK_EQ(pebs_decode_fmt(p, size, &f, &r), PEBS_ERR_CFG);       /* groups differ */
	f.data_cfg = PEBS_CFG_ANY;
	CHECK_EQ(pebs_decode_fmt(p, size, &f, &r), PEBS_OK);
	CHECK_EQ(r.retire_latency, 0xffff);
	/* not timed, latency 0: no retire-latency field reported */
	size = build_adaptive(p, 0);
	f.timed = false;
	CHECK_EQ(pebs_decode_fmt(p, size, &f, &r), PEBS_OK);
	CHECK(!(r.valid & PEBS_V_RETIRE_LAT));
	char text[1024];
	put(p, 4, 2, 77);
	f.timed = true;
	CHECK_EQ(pebs_decode_fmt(p, size, &f, &r), PEBS_OK);
	pebs_format(text, sizeof text, &r);
	CHECK(strstr(text, "retire_latency=77") != NULL);
}

/* Alder Lake / Sapphire Rapids and later: meminfo latency = instr[15:0],
 * cache[47:32]; a "latency > threshold" on the packed value cannot fail. */
TEST(pebs_adaptive_split_latency)
{
	uint8_t p[512];
	struct pebs_record r;
	unsigned size = build_adaptive(p, PEBS_CFG_MEMINFO);
	put(p, 32 + 16, 8, (37ull << 32) | 123);
	struct pebs_format f = { .layout = PEBS_L_ADAPTIVE, .data_cfg = PEBS_CFG_MEMINFO,
				 .split_latency = true };
	CHECK_EQ(pebs_decode_fmt(p, size, &f, &r), PEBS_OK);
	CHECK(r.valid & PEBS_V_SPLIT_LAT);
	CHECK_EQ(r.instr_latency, 123);
	CHECK_EQ(r.cache_latency, 37);
	CHECK_EQ(pebs_load_latency(&r), 37);
	char text[1024];
	pebs_format(text, sizeof text, &r);
	CHECK(strstr(text, "instr_latency=123 cache_latency=37") != NULL);
	/* cache latency 0 below a threshold of 3 even though the packed qword is huge */
	put(p, 32 + 16, 8, 0xffff);
	CHECK_EQ(pebs_decode_fmt(p, size, &f, &r), PEBS_OK);
	CHECK_EQ(pebs_load_latency(&r), 0);
	CHECK(r.latency > 3);
	/* not split: the whole field */
	f.split_latency = false;
	put(p, 32 + 16, 8, 55);
	CHECK_EQ(pebs_decode_fmt(p, size, &f, &r), PEBS_OK);
	CHECK_EQ(pebs_load_latency(&r), 55);
	CHECK(!(r.valid & PEBS_V_SPLIT_LAT));
	/* legacy FMT1..3 records: one latency field at 0xa8 */
	uint8_t q[256];
	memset(q, 0, sizeof q);
	put(q, 0xa8, 8, 99);
	CHECK_EQ(pebs_decode(q, 192, PEBS_L64_FMT2, 0, &r), PEBS_OK);
	CHECK_EQ(pebs_load_latency(&r), 99);
}
