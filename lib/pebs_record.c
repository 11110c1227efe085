/* PEBS record decoding for every record format: see lib/pebs_record.h. */
#include "pebs_record.h"
#include "le.h"
#include "fbuf.h"

static uint64_t q(const uint8_t *p, unsigned off)
{
	return le_get(p + off, 8);
}

const char *pebs_strerror(int err)
{
	switch (err) {
	case PEBS_OK: return "ok";
	case PEBS_ERR_UNKNOWN_FMT: return "unknown PEBS record format";
	case PEBS_ERR_TRUNCATED: return "record truncated";
	case PEBS_ERR_SIZE: return "record size field disagrees with its groups";
	case PEBS_ERR_GROUP: return "reserved record-format bits set";
	case PEBS_ERR_CFG: return "record groups differ from PEBS_DATA_CFG";
	case PEBS_ERR_LAYOUT: return "invalid layout";
	}
	return "unknown PEBS error";
}

int pebs_layout_from_caps(bool ds64, bool have_caps, uint64_t perf_caps, enum pebs_layout *out)
{
	unsigned fmt = have_caps ? (unsigned)((perf_caps >> 8) & 0xf) : 0;

	if (!ds64) {
		/* Without the 64-bit DS format only the original 40-byte record exists */
		*out = PEBS_L32;
		return PEBS_OK;
	}
	switch (fmt) {
	case 0: *out = PEBS_L64_FMT0; return PEBS_OK;
	case 1: *out = PEBS_L64_FMT1; return PEBS_OK;
	case 2: *out = PEBS_L64_FMT2; return PEBS_OK;
	case 3: *out = PEBS_L64_FMT3; return PEBS_OK;
	/* 4: extended/adaptive PEBS (Ice Lake); 5 keeps the same record layout
	 * (it adds PEBS on fixed counters and for EPT guests). */
	case 4: case 5: *out = PEBS_L_ADAPTIVE; return PEBS_OK;
	}
	return PEBS_ERR_UNKNOWN_FMT;
}

uint32_t pebs_record_size(enum pebs_layout l)
{
	switch (l) {
	case PEBS_L32: return 40;
	case PEBS_L64_FMT0: return 144;
	case PEBS_L64_FMT1: return 176;
	case PEBS_L64_FMT2: return 192;
	case PEBS_L64_FMT3: return 200;
	case PEBS_L_ADAPTIVE: return 0;
	}
	return 0;
}

uint32_t pebs_adaptive_size(uint64_t cfg)
{
	uint32_t s = PEBS_BASIC_SIZE;
	if (cfg & PEBS_CFG_MEMINFO)
		s += PEBS_MEMINFO_SIZE;
	if (cfg & PEBS_CFG_GPR)
		s += PEBS_GPR_SIZE;
	if (cfg & PEBS_CFG_XMM)
		s += PEBS_XMM_SIZE;
	if (cfg & PEBS_CFG_LBR)
		s += PEBS_LBR_ENTRY_SIZE * (uint32_t)(((cfg >> PEBS_CFG_LBR_SHIFT) & 0xff) + 1);
	return s;
}

const char *pebs_layout_name(enum pebs_layout l)
{
	switch (l) {
	case PEBS_L32: return "32-bit";
	case PEBS_L64_FMT0: return "64-bit PEBS_FMT 0 (Core)";
	case PEBS_L64_FMT1: return "64-bit PEBS_FMT 1 (Nehalem)";
	case PEBS_L64_FMT2: return "64-bit PEBS_FMT 2 (Haswell)";
	case PEBS_L64_FMT3: return "64-bit PEBS_FMT 3 (Skylake)";
	case PEBS_L_ADAPTIVE: return "adaptive PEBS_FMT 4/5";
	}
	return "?";
}

const char *pebs_reg_name(enum pebs_reg r)
{
	static const char *const n[PR_N] = {
		"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
		"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
	};
	return (unsigned)r < PR_N ? n[r] : "?";
}

/* GPR group order of adaptive records (encoding order, unlike the legacy one) */
static const enum pebs_reg adaptive_gpr_order[PR_N] = {
	PR_RAX, PR_RCX, PR_RDX, PR_RBX, PR_RSP, PR_RBP, PR_RSI, PR_RDI,
	PR_R8, PR_R9, PR_R10, PR_R11, PR_R12, PR_R13, PR_R14, PR_R15,
};

static void clear(struct pebs_record *r)
{
	uint8_t *b = (uint8_t *)r;
	for (size_t i = 0; i < sizeof *r; i++)
		b[i] = 0;
}

static int decode_adaptive(const uint8_t *p, size_t len, const struct pebs_format *f,
			   struct pebs_record *r)
{
	uint64_t cfg = f->data_cfg;
	if (len < PEBS_BASIC_SIZE)
		return PEBS_ERR_TRUNCATED;
	/* Basic group, qword 0 (SDM vol.3 "Basic Info Group" of adaptive PEBS):
	 * record format [31:0], retire latency [47:32] (timed PEBS), size [63:48].
	 * Bits 47:32 were reserved (0) before timed PEBS; a decoder that treats
	 * them as format bits rejects every record of a timed-PEBS processor. */
	uint64_t hdr = q(p, 0);
	uint64_t fmt = hdr & PEBS_HDR_FORMAT_MASK;
	uint32_t retire = (uint32_t)((hdr >> PEBS_HDR_RETIRE_LAT_SHIFT) & 0xffff);
	uint32_t size = (uint32_t)(hdr >> PEBS_HDR_SIZE_SHIFT);

	if (fmt & ~PEBS_CFG_KNOWN)
		return PEBS_ERR_GROUP;
	/* the LBR count field only means something with the LBR group */
	uint64_t groups = fmt & ((fmt & PEBS_CFG_LBR) ? PEBS_CFG_KNOWN : PEBS_CFG_GROUPS);
	if (size != pebs_adaptive_size(groups))
		return PEBS_ERR_SIZE;
	if (size > len)
		return PEBS_ERR_TRUNCATED;
	if (cfg != PEBS_CFG_ANY) {
		uint64_t want = cfg & ((cfg & PEBS_CFG_LBR) ? PEBS_CFG_KNOWN : PEBS_CFG_GROUPS);
		if (want != groups)
			return PEBS_ERR_CFG;
	}
	r->size = size;
	r->format = fmt;
	r->retire_latency = retire;
	r->ip = r->eventing_ip = q(p, 8);
	r->applicable = q(p, 16);
	r->tsc = q(p, 24);
	r->valid = PEBS_V_EVENTING_IP | PEBS_V_APPLICABLE | PEBS_V_TSC;
	if (f->timed || retire)
		r->valid |= PEBS_V_RETIRE_LAT;
	uint32_t off = PEBS_BASIC_SIZE;
	if (groups & PEBS_CFG_MEMINFO) {
		r->dla = q(p, off);
		r->dse = q(p, off + 8);
		r->latency = q(p, off + 16);
		r->tsx = q(p, off + 24);
		r->valid |= PEBS_V_MEMINFO | PEBS_V_TSX;
		if (f->split_latency) {
			r->instr_latency = (uint32_t)(r->latency & 0xffff);
			r->cache_latency = (uint32_t)((r->latency >> 32) & 0xffff);
			r->valid |= PEBS_V_SPLIT_LAT;
		}
		off += PEBS_MEMINFO_SIZE;
	}
	if (groups & PEBS_CFG_GPR) {
		r->rflags = q(p, off);
		r->ip = q(p, off + 8);
		for (unsigned i = 0; i < PR_N; i++)
			r->gpr[adaptive_gpr_order[i]] = q(p, off + 16 + 8 * i);
		r->valid |= PEBS_V_FLAGS_IP | PEBS_V_GPRS;
		off += PEBS_GPR_SIZE;
	}
	if (groups & PEBS_CFG_XMM) {
		r->xmm_off = off;
		r->valid |= PEBS_V_XMM;
		off += PEBS_XMM_SIZE;
	}
	if (groups & PEBS_CFG_LBR) {
		r->lbr_off = off;
		r->n_lbr = (uint32_t)((groups >> PEBS_CFG_LBR_SHIFT) & 0xff) + 1;
		r->valid |= PEBS_V_LBR;
	}
	return PEBS_OK;
}

int pebs_decode(const void *pv, size_t len, enum pebs_layout l, uint64_t cfg, struct pebs_record *r)
{
	struct pebs_format f = { .layout = l, .data_cfg = cfg };
	return pebs_decode_fmt(pv, len, &f, r);
}

uint64_t pebs_load_latency(const struct pebs_record *r)
{
	return (r->valid & PEBS_V_SPLIT_LAT) ? r->cache_latency : r->latency;
}

int pebs_decode_fmt(const void *pv, size_t len, const struct pebs_format *f, struct pebs_record *r)
{
	const uint8_t *p = pv;
	enum pebs_layout l = f->layout;

	clear(r);
	r->layout = l;
	if (l == PEBS_L_ADAPTIVE)
		return decode_adaptive(p, len, f, r);
	if (l == PEBS_L32) {
		if (len < 40)
			return PEBS_ERR_TRUNCATED;
		r->size = 40;
		r->rflags = le_get(p, 4);
		r->ip = le_get(p + 4, 4);
		for (unsigned i = 0; i < 8; i++)
			r->gpr[i] = le_get(p + 8 + 4 * i, 4);
		r->valid = PEBS_V_FLAGS_IP | PEBS_V_GPRS;
		return PEBS_OK;
	}
	uint32_t size = pebs_record_size(l);
	if (size == 0)
		return PEBS_ERR_LAYOUT;
	if (len < size)
		return PEBS_ERR_TRUNCATED;
	r->size = size;
	r->rflags = q(p, 0x00);
	r->ip = q(p, 0x08);
	for (unsigned i = 0; i < PR_N; i++)
		r->gpr[i] = q(p, 0x10 + 8 * i);
	r->valid = PEBS_V_FLAGS_IP | PEBS_V_GPRS;
	if (l >= PEBS_L64_FMT1) {
		r->applicable = q(p, 0x90);
		r->dla = q(p, 0x98);
		r->dse = q(p, 0xa0);
		r->latency = q(p, 0xa8);
		r->valid |= PEBS_V_APPLICABLE | PEBS_V_MEMINFO;
	}
	if (l >= PEBS_L64_FMT2) {
		r->eventing_ip = q(p, 0xb0);
		r->tsx = q(p, 0xb8);
		r->valid |= PEBS_V_EVENTING_IP | PEBS_V_TSX;
	}
	if (l >= PEBS_L64_FMT3) {
		r->tsc = q(p, 0xc0);
		r->valid |= PEBS_V_TSC;
	}
	return PEBS_OK;
}

long pebs_count(const void *pv, size_t len, enum pebs_layout l, uint64_t cfg)
{
	const uint8_t *p = pv;
	size_t off = 0;
	long n = 0;
	struct pebs_record r;

	while (off < len) {
		int e = pebs_decode(p + off, len - off, l, cfg, &r);
		if (e)
			return e;
		off += r.size;
		n++;
	}
	return n;
}

bool pebs_lbr_entry(const void *pv, const struct pebs_record *r, uint32_t i,
		    uint64_t *from, uint64_t *to, uint64_t *info)
{
	const uint8_t *p = pv;

	if (!(r->valid & PEBS_V_LBR) || i >= r->n_lbr)
		return false;
	uint32_t off = r->lbr_off + i * PEBS_LBR_ENTRY_SIZE;
	*from = q(p, off);
	*to = q(p, off + 8);
	*info = q(p, off + 16);
	return true;
}

const char *pebs_dse_name(uint64_t dse)
{
	static const char *const names[16] = {
		"unknown L3 cache miss",
		"L1 data cache hit",
		"pending core cache hit (miss to the line already outstanding)",
		"L2 hit",
		"L3 hit, no snoop needed",
		"L3 hit, cross-core snoop, clean",
		"L3 hit, cross-core snoop, modified (HITM)",
		"reserved (LLC snoop HITM on 06_2A/06_2E)",
		"L3 miss, cross-package snoop forward, clean",
		"reserved",
		"L3 miss, local DRAM (shared)",
		"L3 miss, remote DRAM (shared)",
		"L3 miss, local DRAM (exclusive)",
		"L3 miss, remote DRAM (exclusive)",
		"I/O (reserved before Sandy Bridge)",
		"uncacheable memory",
	};
	return names[dse & 0xf];
}

static void reg(struct fbuf *f, const char *name, uint64_t v)
{
	fbuf_puts(f, name);
	fbuf_putc(f, '=');
	fbuf_hex(f, v, 16);
}

size_t pebs_format(char *buf, size_t cap, const struct pebs_record *r)
{
	struct fbuf f;

	fbuf_init(&f, buf, cap);
	fbuf_puts(&f, "PEBS record: ");
	fbuf_puts(&f, pebs_layout_name(r->layout));
	fbuf_puts(&f, ", ");
	fbuf_dec(&f, r->size);
	fbuf_puts(&f, " bytes\n");
	if (r->layout == PEBS_L_ADAPTIVE) {
		fbuf_puts(&f, "  ");
		reg(&f, "format", r->format);
		fbuf_puts(&f, " groups:basic");
		if (r->format & PEBS_CFG_MEMINFO) fbuf_puts(&f, ",meminfo");
		if (r->format & PEBS_CFG_GPR) fbuf_puts(&f, ",gpr");
		if (r->format & PEBS_CFG_XMM) fbuf_puts(&f, ",xmm");
		if (r->format & PEBS_CFG_LBR) {
			fbuf_puts(&f, ",lbr*");
			fbuf_dec(&f, r->n_lbr);
		}
		if (r->valid & PEBS_V_RETIRE_LAT) {
			fbuf_puts(&f, " retire_latency=");
			fbuf_dec(&f, r->retire_latency);
		}
		fbuf_putc(&f, '\n');
	}
	if (r->valid & PEBS_V_FLAGS_IP) {
		fbuf_puts(&f, "  ");
		reg(&f, "rflags", r->rflags);
		fbuf_puts(&f, "  ");
		reg(&f, "rip", r->ip);
		fbuf_putc(&f, '\n');
	}
	if (r->valid & PEBS_V_GPRS) {
		unsigned n = r->layout == PEBS_L32 ? 8 : PR_N;
		for (unsigned i = 0; i < n; i++) {
			fbuf_col(&f, 2 + (i % 4) * 24);
			reg(&f, pebs_reg_name((enum pebs_reg)i), r->gpr[i]);
			if (i % 4 == 3 || i == n - 1)
				fbuf_putc(&f, '\n');
		}
	}
	if (r->valid & PEBS_V_EVENTING_IP) {
		fbuf_puts(&f, "  ");
		reg(&f, "eventing_ip", r->eventing_ip);
		fbuf_putc(&f, '\n');
	}
	if (r->valid & PEBS_V_APPLICABLE) {
		fbuf_puts(&f, "  ");
		reg(&f, "applicable_counters", r->applicable);
		fbuf_putc(&f, '\n');
	}
	if (r->valid & PEBS_V_MEMINFO) {
		fbuf_puts(&f, "  ");
		reg(&f, "data_linear_address", r->dla);
		if (r->valid & PEBS_V_SPLIT_LAT) {
			fbuf_puts(&f, "  instr_latency=");
			fbuf_dec(&f, r->instr_latency);
			fbuf_puts(&f, " cache_latency=");
			fbuf_dec(&f, r->cache_latency);
		} else {
			fbuf_puts(&f, "  latency=");
			fbuf_dec(&f, r->latency);
		}
		fbuf_puts(&f, "\n  ");
		reg(&f, "data_source", r->dse);
		fbuf_puts(&f, " (");
		fbuf_puts(&f, pebs_dse_name(r->dse));
		if (r->dse & (1u << 4))
			fbuf_puts(&f, ", STLB miss");
		if (r->dse & (1u << 5))
			fbuf_puts(&f, ", locked");
		fbuf_puts(&f, ")\n");
	}
	if (r->valid & PEBS_V_TSX) {
		fbuf_puts(&f, "  ");
		reg(&f, "tsx_info", r->tsx);
		fbuf_putc(&f, '\n');
	}
	if (r->valid & PEBS_V_TSC) {
		fbuf_puts(&f, "  ");
		reg(&f, "tsc", r->tsc);
		fbuf_putc(&f, '\n');
	}
	return f.len;
}
