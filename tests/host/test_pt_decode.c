/* lib/pt_decode.c against libipt: streams built with libipt's packet encoder for
 * every packet type and IP compression, decoded by both decoders, required to
 * agree packet for packet; plus hand-made malformed streams (truncation at every
 * length, reserved encodings, garbage then PSB) and the packets libipt 2.0.5
 * does not know (BBP/BIP/BEP, CFE, EVD, MODE.Exec IF). */
#include <stdlib.h>
#include <string.h>
#include <intel-pt.h>
#include "pt_decode.h"
#include "tl_test.h"

/* ---- deterministic PRNG ------------------------------------------------- */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void)
{
	uint64_t x = rng_state;
	x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
	rng_state = x;
	return x * 0x2545f4914f6cdd1dULL;
}
static uint64_t rndn(uint64_t n) { return rnd() % n; }

/* ---- generator: libipt encoder + what we expect to reconstruct ------------ */
#define GEN_MAX 4096
struct gen {
	uint8_t *buf;
	size_t cap;
	struct pt_encoder *enc;
	uint64_t last_ip;
	size_t n;
	uint64_t off[GEN_MAX];
	uint64_t ip[GEN_MAX];           /* expected reconstructed IP (IP packets) */
	uint8_t ipc_used[8];
};

static void gen_init(struct gen *g, uint8_t *buf, size_t cap)
{
	struct pt_config c;
	pt_config_init(&c);
	c.begin = buf;
	c.end = buf + cap;
	memset(g, 0, sizeof *g);
	g->buf = buf;
	g->cap = cap;
	g->enc = pt_alloc_encoder(&c);
}

static uint64_t gen_offset(struct gen *g)
{
	uint64_t off = 0;
	pt_enc_get_offset(g->enc, &off);
	return off;
}

/* Encode one packet; returns false when the buffer is full. */
static bool gen_emit(struct gen *g, struct pt_packet *p, uint64_t ip)
{
	uint64_t off = gen_offset(g);
	if (g->n == GEN_MAX || pt_enc_next(g->enc, p) < 0)
		return false;
	g->off[g->n] = off;
	g->ip[g->n] = ip;
	g->n++;
	return true;
}

static uint64_t sext48(uint64_t v)
{
	v &= 0xffffffffffffULL;
	return (v & (1ULL << 47)) ? v | 0xffff000000000000ULL : v;
}

/* An IP packet of type t whose target we choose, compressed with ipc. */
static bool gen_ip(struct gen *g, enum pt_packet_type t, enum pt_ip_compression ipc)
{
	struct pt_packet p;
	uint64_t ip = 0, r = rnd();
	memset(&p, 0, sizeof p);
	switch (ipc) {
	case pt_ipc_suppressed: ip = 0; break;
	case pt_ipc_update_16: ip = (g->last_ip & ~0xffffULL) | (r & 0xffff); break;
	case pt_ipc_update_32: ip = (g->last_ip & ~0xffffffffULL) | (r & 0xffffffff); break;
	case pt_ipc_sext_48: ip = sext48(r); break;
	case pt_ipc_update_48: ip = (g->last_ip & ~0xffffffffffffULL) | (r & 0xffffffffffffULL); break;
	case pt_ipc_full: ip = r; break;
	}
	p.type = t;
	p.payload.ip.ipc = ipc;
	p.payload.ip.ip = ip;
	if (!gen_emit(g, &p, ip))
		return false;
	if (ipc != pt_ipc_suppressed)
		g->last_ip = ip;
	g->ipc_used[ipc] = 1;
	return true;
}

static const enum pt_ip_compression all_ipc[] = {
	pt_ipc_suppressed, pt_ipc_update_16, pt_ipc_update_32,
	pt_ipc_sext_48, pt_ipc_update_48, pt_ipc_full,
};

/* One random packet of kind k (0..NKINDS-1). */
#define NKINDS 28
static bool gen_kind(struct gen *g, unsigned k)
{
	static const enum pt_packet_type iptypes[] = { ppt_tip, ppt_tip_pge, ppt_tip_pgd, ppt_fup };
	struct pt_packet p;
	memset(&p, 0, sizeof p);
	if (k < 4)
		return gen_ip(g, iptypes[k], all_ipc[rndn(6)]);
	switch (k) {
	case 4: p.type = ppt_pad; break;
	case 5:
		p.type = ppt_psb;
		if (!gen_emit(g, &p, 0))
			return false;
		g->last_ip = 0;        /* PSB resets the last IP */
		return true;
	case 6: p.type = ppt_psbend; break;
	case 7: case 8: case 9:        /* TNT is the most common packet */
		p.type = ppt_tnt_8;
		p.payload.tnt.bit_size = (uint8_t)(1 + rndn(6));
		p.payload.tnt.payload = rnd() & ((1ULL << p.payload.tnt.bit_size) - 1);
		break;
	case 10:
		p.type = ppt_tnt_64;
		p.payload.tnt.bit_size = (uint8_t)(1 + rndn(47));
		p.payload.tnt.payload = rnd() & ((1ULL << p.payload.tnt.bit_size) - 1);
		break;
	case 11:
		p.type = ppt_mode;
		p.payload.mode.leaf = pt_mol_exec;
		p.payload.mode.bits.exec = pt_set_exec_mode((enum pt_exec_mode)rndn(4));
		break;
	case 12:
		p.type = ppt_mode;
		p.payload.mode.leaf = pt_mol_tsx;
		p.payload.mode.bits.tsx.intx = rnd() & 1;
		p.payload.mode.bits.tsx.abrt = rnd() & 1;
		break;
	case 13:
		p.type = ppt_pip;
		p.payload.pip.cr3 = rnd() & 0x000fffffffffffe0ULL;
		p.payload.pip.nr = rnd() & 1;
		break;
	case 14:
		p.type = ppt_vmcs;
		p.payload.vmcs.base = rnd() & 0x000ffffffffff000ULL;
		break;
	case 15: p.type = ppt_cbr; p.payload.cbr.ratio = (uint8_t)rnd(); break;
	case 16: p.type = ppt_tsc; p.payload.tsc.tsc = rnd() & 0x00ffffffffffffffULL; break;
	case 17:
		p.type = ppt_tma;
		p.payload.tma.ctc = (uint16_t)rnd();
		p.payload.tma.fc = (uint16_t)(rnd() & 0x1ff);
		break;
	case 18: p.type = ppt_mtc; p.payload.mtc.ctc = (uint8_t)rnd(); break;
	case 19:
		/* libipt's encoder emits >61-bit counts that its decoder refuses. */
		p.type = ppt_cyc;
		p.payload.cyc.value = rnd() >> (3 + rndn(61));
		break;
	case 20: p.type = ppt_stop; break;
	case 21: p.type = ppt_ovf; break;
	case 22: p.type = ppt_mnt; p.payload.mnt.payload = rnd(); break;
	case 23: p.type = ppt_exstop; p.payload.exstop.ip = rnd() & 1; break;
	case 24:
		p.type = ppt_mwait;
		p.payload.mwait.hints = (uint32_t)rnd();
		p.payload.mwait.ext = (uint32_t)rnd();
		break;
	case 25:
		p.type = ppt_pwre;
		p.payload.pwre.state = (uint8_t)rndn(16);
		p.payload.pwre.sub_state = (uint8_t)rndn(16);
		p.payload.pwre.hw = rnd() & 1;
		break;
	case 26:
		p.type = ppt_pwrx;
		p.payload.pwrx.last = (uint8_t)rndn(16);
		p.payload.pwrx.deepest = (uint8_t)rndn(16);
		p.payload.pwrx.interrupt = rnd() & 1;
		p.payload.pwrx.store = rnd() & 1;
		p.payload.pwrx.autonomous = rnd() & 1;
		break;
	case 27:
		p.type = ppt_ptw;
		p.payload.ptw.plc = (uint8_t)(rnd() & 1);
		p.payload.ptw.payload = p.payload.ptw.plc ? rnd() : (uint32_t)rnd();
		p.payload.ptw.ip = rnd() & 1;
		break;
	}
	return gen_emit(g, &p, 0);
}

/* ---- comparison ------------------------------------------------------------ */
static enum ptd_type map_type(const struct pt_packet *q)
{
	switch (q->type) {
	case ppt_pad: return PTD_PAD;
	case ppt_psb: return PTD_PSB;
	case ppt_psbend: return PTD_PSBEND;
	case ppt_fup: return PTD_FUP;
	case ppt_tip: return PTD_TIP;
	case ppt_tip_pge: return PTD_TIP_PGE;
	case ppt_tip_pgd: return PTD_TIP_PGD;
	case ppt_tnt_8: return PTD_TNT8;
	case ppt_tnt_64: return PTD_TNT64;
	case ppt_mode: return q->payload.mode.leaf == pt_mol_exec ? PTD_MODE_EXEC : PTD_MODE_TSX;
	case ppt_pip: return PTD_PIP;
	case ppt_vmcs: return PTD_VMCS;
	case ppt_cbr: return PTD_CBR;
	case ppt_tsc: return PTD_TSC;
	case ppt_tma: return PTD_TMA;
	case ppt_mtc: return PTD_MTC;
	case ppt_cyc: return PTD_CYC;
	case ppt_stop: return PTD_STOP;
	case ppt_ovf: return PTD_OVF;
	case ppt_mnt: return PTD_MNT;
	case ppt_exstop: return PTD_EXSTOP;
	case ppt_mwait: return PTD_MWAIT;
	case ppt_pwre: return PTD_PWRE;
	case ppt_pwrx: return PTD_PWRX;
	case ppt_ptw: return PTD_PTW;
	default: return PTD_INVALID;
	}
}

static int map_err(int libipt_err)
{
	switch (pt_errcode(libipt_err)) {
	case pte_bad_opc: return PTD_ERR_BAD_OPC;
	case pte_bad_packet: return PTD_ERR_BAD_PACKET;
	case pte_eos: return PTD_ERR_TRUNC;
	default: return 99;
	}
}

/* Field-by-field agreement; returns the number of mismatches (each CHECKed). */
static int same_packet(const struct ptd_packet *a, const struct pt_packet *q)
{
	int bad = 0;
#define SAME(x, y) do { if (!CHECK_EQ(x, y)) bad++; } while (0)
	SAME(a->type, map_type(q));
	SAME(a->size, q->size);
	const __typeof__(q->payload) *u = &q->payload;
	switch (a->type) {
	case PTD_TNT8: case PTD_TNT64:
		SAME(a->u.tnt.count, u->tnt.bit_size);
		SAME(a->u.tnt.bits, u->tnt.payload);
		break;
	case PTD_TIP: case PTD_TIP_PGE: case PTD_TIP_PGD: case PTD_FUP:
		SAME(a->u.ip.ipc, u->ip.ipc);
		SAME(a->u.ip.raw, u->ip.ip);
		break;
	case PTD_MODE_EXEC:
		SAME(a->u.exec.csl, u->mode.bits.exec.csl);
		SAME(a->u.exec.csd, u->mode.bits.exec.csd);
		break;
	case PTD_MODE_TSX:
		SAME(a->u.tsx.intx, u->mode.bits.tsx.intx);
		SAME(a->u.tsx.abrt, u->mode.bits.tsx.abrt);
		break;
	case PTD_PIP: SAME(a->u.pip.cr3, u->pip.cr3); SAME(a->u.pip.nr, u->pip.nr); break;
	case PTD_VMCS: SAME(a->u.vmcs, u->vmcs.base); break;
	case PTD_CBR: SAME(a->u.cbr, u->cbr.ratio); break;
	case PTD_TSC: SAME(a->u.tsc, u->tsc.tsc); break;
	case PTD_TMA: SAME(a->u.tma.ctc, u->tma.ctc); SAME(a->u.tma.fc, u->tma.fc); break;
	case PTD_MTC: SAME(a->u.mtc, u->mtc.ctc); break;
	case PTD_CYC: SAME(a->u.cyc, u->cyc.value); break;
	case PTD_MNT: SAME(a->u.mnt, u->mnt.payload); break;
	case PTD_EXSTOP: SAME(a->u.exstop.ip, u->exstop.ip); break;
	case PTD_MWAIT: SAME(a->u.mwait.hints, u->mwait.hints); SAME(a->u.mwait.ext, u->mwait.ext); break;
	case PTD_PWRE:
		SAME(a->u.pwre.state, u->pwre.state);
		SAME(a->u.pwre.sub_state, u->pwre.sub_state);
		/* libipt 2.0.5 takes HW from byte 2 bit 3; the SDM (and we) use
		 * bit 7.  Agree on the raw bit libipt looked at. */
		SAME((a->u.pwre.raw >> 3) & 1, u->pwre.hw);
		SAME(a->u.pwre.hw, (a->u.pwre.raw >> 7) & 1);
		break;
	case PTD_PWRX:
		SAME(a->u.pwrx.last, u->pwrx.last);
		SAME(a->u.pwrx.deepest, u->pwrx.deepest);
		SAME(a->u.pwrx.wake & 1, u->pwrx.interrupt);
		SAME((a->u.pwrx.wake >> 2) & 1, u->pwrx.store);
		SAME((a->u.pwrx.wake >> 3) & 1, u->pwrx.autonomous);
		break;
	case PTD_PTW:
		SAME(a->u.ptw.plc, u->ptw.plc);
		SAME(a->u.ptw.payload, u->ptw.payload);
		SAME(a->u.ptw.ip, u->ptw.ip);
		break;
	default:
		break;
	}
#undef SAME
	return bad;
}

/* Types libipt 2.0.5 cannot decode: comparison stops at them. */
static bool libipt_blind(const uint8_t *b, size_t len, size_t off, const struct ptd_decoder *d)
{
	if (d->blk && (b[off] & 7) == 4)
		return true;            /* BIP, or a TNT that a BBP turned into BIP */
	if (b[off] == 0x02 && off + 1 < len) {
		uint8_t x = b[off + 1];
		return x == 0x63 || x == 0x33 || x == 0xb3 || x == 0x13 || x == 0x53;
	}
	return false;
}

/* Decode buf with both decoders from offset 0.  Compares every packet and every
 * error (then both resync forward).  Returns packets compared; *mismatch counts
 * disagreements. */
static size_t diff_decode(const uint8_t *buf, size_t len, int *mismatch)
{
	struct pt_config c;
	struct ptd_decoder d;
	struct ptd_packet a;
	size_t npk = 0;
	pt_config_init(&c);
	c.begin = (uint8_t *)buf;
	c.end = (uint8_t *)buf + len;
	struct pt_packet_decoder *q = pt_pkt_alloc_decoder(&c);
	ptd_init(&d, buf, len);
	*mismatch = 0;
	if (len == 0 || pt_pkt_sync_set(q, 0) < 0) {
		pt_pkt_free_decoder(q);
		return 0;
	}
	for (;;) {
		struct pt_packet p;
		uint64_t qoff = 0;
		if (!d.resync && d.pos < len && libipt_blind(buf, len, d.pos, &d))
			break;
		pt_pkt_get_offset(q, &qoff);
		int qr = pt_pkt_next(q, &p, sizeof p);
		int r = ptd_next(&d, &a);
		if (r == PTD_EOS) {
			if (!CHECK(qr == -pte_eos && qoff == len))
				(*mismatch)++;
			break;
		}
		npk++;
		if (!CHECK_EQ(a.offset, qoff)) {
			(*mismatch)++;
			break;
		}
		if (r < 0 || qr < 0) {
			if (!CHECK_EQ(r, qr < 0 ? map_err(qr) : 0)) {
				printf("#   offset 0x%llx: ours %s, libipt %s\n",
				       (unsigned long long)a.offset, ptd_status_name(r),
				       qr < 0 ? pt_errstr(pt_errcode(qr)) : "ok");
				(*mismatch)++;
				break;
			}
			/* both failed here: both look for the next PSB; our next
			 * packet must be at libipt's sync offset */
			if (pt_pkt_sync_forward(q) < 0) {
				if (!CHECK_EQ(ptd_next(&d, &a), PTD_EOS))
					(*mismatch)++;
				break;
			}
			continue;
		}
		if (same_packet(&a, &p)) {
			printf("#   at offset 0x%llx (%s)\n", (unsigned long long)a.offset,
			       ptd_type_name(a.type));
			(*mismatch)++;
			break;
		}
	}
	pt_pkt_free_decoder(q);
	return npk;
}

/* Decode a generated stream with ours and check offsets and reconstructed IPs. */
static void check_generated(struct gen *g)
{
	struct ptd_decoder d;
	struct ptd_packet a;
	size_t len = gen_offset(g), i = 0;
	int mm;
	ptd_init(&d, g->buf, len);
	while (ptd_next(&d, &a) == PTD_OK) {
		if (!CHECK(i < g->n))
			return;
		CHECK_EQ(a.offset, g->off[i]);
		if (ptd_is_ip_packet(a.type)) {
			if (a.u.ip.suppressed)
				CHECK_EQ(a.u.ip.ip, 0);
			else if (!CHECK_EQ(a.u.ip.ip, g->ip[i]))
				printf("#   packet %zu ipc %u\n", i, a.u.ip.ipc);
		}
		i++;
	}
	CHECK_EQ(i, g->n);
	CHECK_EQ(d.pos, len);
	size_t np = diff_decode(g->buf, len, &mm);
	CHECK_EQ(mm, 0);
	CHECK_EQ(np, g->n);
}

/* ---- tests ----------------------------------------------------------------- */

TEST(pt_every_packet_type_vs_libipt)
{
	static uint8_t buf[1 << 16];
	struct gen *g = malloc(sizeof *g);
	gen_init(g, buf, sizeof buf);
	for (int rep = 0; rep < 20; rep++)
		for (unsigned k = 0; k < NKINDS; k++)
			CHECK(gen_kind(g, k));
	check_generated(g);
	pt_free_encoder(g->enc);
	free(g);
}

/* Every IP compression after every other one, for each of the four IP
 * packets: exercises last-IP tracking across updates, sext48 with bit 47 set and
 * clear, full 64-bit (non-canonical too), suppressed (last IP kept). */
TEST(pt_ip_compression_matrix)
{
	static uint8_t buf[1 << 16];
	static const enum pt_packet_type t[] = { ppt_tip, ppt_tip_pge, ppt_tip_pgd, ppt_fup };
	struct gen *g = malloc(sizeof *g);
	gen_init(g, buf, sizeof buf);
	struct pt_packet psb = { .type = ppt_psb };
	CHECK(gen_emit(g, &psb, 0));
	for (int rep = 0; rep < 4; rep++)
		for (unsigned i = 0; i < 6; i++)
			for (unsigned j = 0; j < 6; j++) {
				CHECK(gen_ip(g, t[(i + j + rep) % 4], all_ipc[i]));
				CHECK(gen_ip(g, t[(i * j + rep) % 4], all_ipc[j]));
			}
	for (unsigned i = 0; i < 6; i++)
		CHECK(g->ipc_used[all_ipc[i]]);
	check_generated(g);
	pt_free_encoder(g->enc);
	free(g);
}

TEST(pt_ip_reconstruction_by_hand)
{
	/* PSB; FUP full 0xffff800012345678; TIP upd16 0xabcd; TIP.PGE upd32;
	 * TIP.PGD sext48 with bit 47 clear; FUP upd48; TIP suppressed; TIP upd16 */
	static const uint8_t s[] = {
		0x02,0x82,0x02,0x82,0x02,0x82,0x02,0x82,0x02,0x82,0x02,0x82,0x02,0x82,0x02,0x82,
		0xdd, 0x78,0x56,0x34,0x12,0x00,0x80,0xff,0xff,
		0x2d, 0xcd,0xab,
		0x51, 0x44,0x33,0x22,0x11,
		0x61, 0x06,0x05,0x04,0x03,0x02,0x01,
		0x9d, 0xff,0xee,0xdd,0xcc,0xbb,0xaa,
		0x0d,
		0x2d, 0x34,0x12,
		0x02,0x82,0x02,0x82,0x02,0x82,0x02,0x82,0x02,0x82,0x02,0x82,0x02,0x82,0x02,0x82,
		0x2d, 0x34,0x12,
	};
	static const uint64_t want[] = {
		0, 0xffff800012345678ULL, 0xffff80001234abcdULL, 0xffff800011223344ULL,
		0x0000010203040506ULL, 0x0000aabbccddeeffULL, 0, 0x0000aabbccdd1234ULL, 0, 0x1234,
	};
	struct ptd_decoder d;
	struct ptd_packet p;
	unsigned i = 0;
	ptd_init(&d, s, sizeof s);
	while (ptd_next(&d, &p) == PTD_OK && i < 10) {
		if (ptd_is_ip_packet(p.type))
			CHECK_EQ(p.u.ip.ip, want[i]);
		i++;
	}
	CHECK_EQ(i, 10);
	/* The TIP after the second PSB updates from a zero last IP: partial. */
	CHECK(p.u.ip.partial);
	CHECK_EQ(p.u.ip.ip, 0x1234);
}

TEST(pt_random_streams_vs_libipt)
{
	static uint8_t buf[1 << 15];
	struct gen *g = malloc(sizeof *g);
	for (int s = 0; s < 40; s++) {
		gen_init(g, buf, sizeof buf);
		struct pt_packet psb = { .type = ppt_psb };
		CHECK(gen_emit(g, &psb, 0));
		for (int i = 0; i < 1500; i++)
			if (!gen_kind(g, (unsigned)rndn(NKINDS)))
				break;
		check_generated(g);
		pt_free_encoder(g->enc);
	}
	free(g);
}

/* Every prefix of every packet is a truncation error at offset 0, both for us
 * and for libipt; then the stream ends (no PSB to resync to). */
TEST(pt_truncated_at_every_length)
{
	static uint8_t buf[1 << 14];
	struct gen *g = malloc(sizeof *g);
	gen_init(g, buf, sizeof buf);
	for (unsigned k = 0; k < NKINDS; k++)
		for (int rep = 0; rep < 6; rep++)
			CHECK(gen_kind(g, k));
	for (size_t i = 0; i < g->n; i++) {
		size_t end = i + 1 < g->n ? g->off[i + 1] : gen_offset(g);
		const uint8_t *pk = buf + g->off[i];
		for (size_t cut = 1; cut < end - g->off[i]; cut++) {
			struct ptd_decoder d;
			struct ptd_packet p;
			uint8_t tmp[32];
			memcpy(tmp, pk, cut);
			ptd_init(&d, tmp, cut);
			int r = ptd_next(&d, &p);
			if (!CHECK_EQ(r, PTD_ERR_TRUNC))
				printf("#   packet %02x %02x cut at %zu\n", pk[0], pk[1], cut);
			CHECK_EQ(p.offset, 0);
			CHECK_EQ(ptd_next(&d, &p), PTD_EOS);
			int mm;
			diff_decode(tmp, cut, &mm);
			CHECK_EQ(mm, 0);
		}
	}
	pt_free_encoder(g->enc);
	free(g);
}

static const uint8_t psb16[16] = {
	0x02,0x82,0x02,0x82,0x02,0x82,0x02,0x82,0x02,0x82,0x02,0x82,0x02,0x82,0x02,0x82,
};

/* Garbage, then a PSB: one error at the first bad byte, next packet is that PSB. */
TEST(pt_garbage_then_psb_resyncs)
{
	static const uint8_t garbage[][6] = {
		{ 0xc9 },                       /* undefined opcode */
		{ 0x02, 0x04 },                 /* undefined extended opcode */
		{ 0xad, 0x00 },                 /* TIP with IPBytes=101b */
		{ 0xfd },                       /* FUP with IPBytes=111b */
		{ 0x99, 0x40 },                 /* MODE leaf 010b */
		{ 0x02, 0x73, 1, 2, 3, 4 },     /* TMA reserved byte set */
		{ 0x02, 0x52 },                 /* PTW PayloadBytes=10b */
		{ 0x02, 0xc3, 0x11 },           /* ext2 other than MNT */
		{ 0x02, 0x82, 0x02, 0x82, 0x02, 0x83 }, /* broken PSB */
		{ 0x02, 0x82 },                 /* PSB pattern run-in */
	};
	static const uint8_t glen[] = { 1, 2, 2, 1, 2, 6, 2, 3, 6, 2 };
	static const int gerr[] = {
		PTD_ERR_BAD_OPC, PTD_ERR_BAD_OPC, PTD_ERR_BAD_PACKET, PTD_ERR_BAD_PACKET,
		PTD_ERR_BAD_PACKET, PTD_ERR_BAD_PACKET, PTD_ERR_BAD_PACKET, PTD_ERR_BAD_OPC,
		PTD_ERR_BAD_PACKET, PTD_ERR_BAD_PACKET,
	};
	for (unsigned gi = 0; gi < sizeof glen; gi++) {
		for (unsigned lead = 0; lead < 9; lead++) {
			uint8_t s[64];
			size_t n = 0;
			for (unsigned i = 0; i < lead; i++)
				s[n++] = 0x00;          /* PADs */
			memcpy(s + n, garbage[gi], glen[gi]);
			size_t bad = n;
			n += glen[gi];
			s[n++] = 0x55;                  /* more garbage (bad opcode) */
			size_t psb = n;
			memcpy(s + n, psb16, 16);
			n += 16;
			s[n++] = 0x02; s[n++] = 0x23;   /* PSBEND */
			s[n++] = 0x0e;                  /* TNT.8 TT */
			struct ptd_decoder d;
			struct ptd_packet p;
			ptd_init(&d, s, n);
			for (unsigned i = 0; i < lead; i++)
				CHECK(ptd_next(&d, &p) == PTD_OK && p.type == PTD_PAD);
			int r = ptd_next(&d, &p);
			if (!CHECK_EQ(r, gerr[gi]))
				printf("#   garbage %u\n", gi);
			CHECK_EQ(p.offset, bad);
			CHECK_EQ(ptd_next(&d, &p), PTD_OK);
			CHECK_EQ(p.type, PTD_PSB);
			if (!CHECK_EQ(p.offset, psb))
				printf("#   garbage %u lead %u\n", gi, lead);
			CHECK(ptd_next(&d, &p) == PTD_OK && p.type == PTD_PSBEND);
			CHECK(ptd_next(&d, &p) == PTD_OK && p.type == PTD_TNT8 && p.u.tnt.count == 2);
			CHECK_EQ(ptd_next(&d, &p), PTD_EOS);
			int mm;
			diff_decode(s, n, &mm);
			CHECK_EQ(mm, 0);
		}
	}
}

TEST(pt_reserved_encodings)
{
	static const struct { uint8_t b[12]; uint8_t n; int err; } c[] = {
		{ { 0x02, 0xa3, 0, 0, 0, 0, 0, 0 }, 8, PTD_ERR_BAD_PACKET },   /* TNT64, no stop bit */
		{ { 0x02, 0x73, 0, 0, 0, 0, 2 }, 7, PTD_ERR_BAD_PACKET },      /* TMA FC bit 9 */
		{ { 0x02, 0x72, 1, 2, 3, 4 }, 6, PTD_ERR_BAD_PACKET },         /* PTW plc 3 */
		{ { 0x99, 0xe0 }, 2, PTD_ERR_BAD_PACKET },                     /* MODE leaf 111b */
		{ { 0xf1 }, 1, PTD_ERR_BAD_PACKET },                           /* TIP.PGD IPBytes 111b */
		{ { 0x05 }, 1, PTD_ERR_BAD_OPC },
		{ { 0x09 }, 1, PTD_ERR_BAD_OPC },
		{ { 0x15 }, 1, PTD_ERR_BAD_OPC },
		{ { 0x39, 0 }, 2, PTD_ERR_BAD_OPC },
		{ { 0xd9, 0, 0 }, 3, PTD_ERR_BAD_OPC },
		/* CYC with 9 extension bytes (> 64 bits of count) */
		{ { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0e }, 10, PTD_ERR_BAD_PACKET },
	};
	for (unsigned i = 0; i < sizeof c / sizeof c[0]; i++) {
		struct ptd_decoder d;
		struct ptd_packet p;
		ptd_init(&d, c[i].b, c[i].n);
		if (!CHECK_EQ(ptd_next(&d, &p), c[i].err))
			printf("#   case %u\n", i);
		CHECK_EQ(p.offset, 0);
		CHECK_EQ(ptd_next(&d, &p), PTD_EOS);
		int mm;
		diff_decode(c[i].b, c[i].n, &mm);
		CHECK_EQ(mm, 0);
	}
	/* CYC with 8 extension bytes is the longest accepted */
	static const uint8_t cyc9[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0e };
	struct ptd_decoder d;
	struct ptd_packet p;
	ptd_init(&d, cyc9, sizeof cyc9);
	CHECK_EQ(ptd_next(&d, &p), PTD_OK);
	CHECK_EQ(p.size, 9);
	CHECK_EQ(p.u.cyc, 0x1ffffffffffffffULL);
}

/* A run of 02 82 longer than a PSB: the PSB is the last 16 bytes (as libipt). */
TEST(pt_psb_run_sync)
{
	uint8_t s[64];
	size_t n = 0;
	s[n++] = 0xc9;
	for (int i = 0; i < 11; i++) {
		s[n++] = 0x02;
		s[n++] = 0x82;
	}
	s[n++] = 0x02; s[n++] = 0x23;
	CHECK_EQ(ptd_find_psb(s, n, 0), n - 2 - 16);
	CHECK_EQ(ptd_find_psb(s, n, 1), n - 2 - 16);
	CHECK_EQ(ptd_find_psb(s, n - 2, n - 2 - 15), n - 2);   /* none */
	CHECK_EQ(ptd_find_psb(psb16, 15, 0), 15);
	CHECK_EQ(ptd_find_psb(psb16, 16, 0), 0);
	struct ptd_decoder d;
	struct ptd_packet p;
	ptd_init(&d, s, n);
	CHECK_EQ(ptd_next(&d, &p), PTD_ERR_BAD_OPC);
	CHECK(ptd_next(&d, &p) == PTD_OK && p.type == PTD_PSB && p.offset == n - 18);
	CHECK(ptd_next(&d, &p) == PTD_OK && p.type == PTD_PSBEND);
	ptd_init(&d, s, n);
	CHECK_EQ(ptd_sync_forward(&d), PTD_OK);
	CHECK_EQ(d.pos, n - 18);
	int mm;
	diff_decode(s, n, &mm);
	CHECK_EQ(mm, 0);
}

/* Packets libipt 2.0.5 does not decode: hand-assembled from the SDM tables. */
TEST(pt_block_cfe_evd_packets)
{
	static const uint8_t s[] = {
		0x02, 0x63, 0x81,               /* BBP SZ=1 (4-byte items) type 1 */
		0x0c, 0x11, 0x22, 0x33, 0x44,   /* BIP id 1 */
		0x00,                           /* PAD keeps the block open */
		0xfc, 0x01, 0x02, 0x03, 0x04,   /* BIP id 31 */
		0x02, 0xb3,                     /* BEP, IP bit */
		0x04,                           /* outside a block: TNT.8, 1 bit N */
		0x02, 0x63, 0x02,               /* BBP SZ=0 (8-byte items) type 2 */
		0x04, 1, 2, 3, 4, 5, 6, 7, 8,   /* BIP id 0, 8 bytes */
		0x06,                           /* TNT.8 (bits 2:0 != 100b): ends block */
		0x04,                           /* TNT.8 again, not a BIP */
		0x02, 0x13, 0x85, 0x0e,         /* CFE IP=1 type 5 vector 14 */
		0x02, 0x53, 0x01, 1, 0, 0, 0, 0, 0, 0, 0x80, /* EVD type 1 */
		0x99, 0x05,                     /* MODE.Exec CS.L, IF */
		0x02, 0x22, 0x80, 0x21,         /* PWRE HW, C2.1 */
	};
	struct ptd_decoder d;
	struct ptd_packet p;
	ptd_init(&d, s, sizeof s);
	CHECK(ptd_next(&d, &p) == PTD_OK && p.type == PTD_BBP);
	CHECK_EQ(p.u.bbp.item_size, 4);
	CHECK_EQ(p.u.bbp.type, 1);
	CHECK(ptd_next(&d, &p) == PTD_OK && p.type == PTD_BIP);
	CHECK_EQ(p.u.bip.id, 1);
	CHECK_EQ(p.u.bip.value, 0x44332211);
	CHECK(ptd_next(&d, &p) == PTD_OK && p.type == PTD_PAD);
	CHECK(ptd_next(&d, &p) == PTD_OK && p.type == PTD_BIP);
	CHECK_EQ(p.u.bip.id, 31);
	CHECK(ptd_next(&d, &p) == PTD_OK && p.type == PTD_BEP && p.u.bep.ip);
	CHECK(ptd_next(&d, &p) == PTD_OK && p.type == PTD_TNT8);
	CHECK_EQ(p.u.tnt.count, 1);
	CHECK(!ptd_tnt_taken(&p, 0));
	CHECK(ptd_next(&d, &p) == PTD_OK && p.type == PTD_BBP && p.u.bbp.item_size == 8);
	CHECK(ptd_next(&d, &p) == PTD_OK && p.type == PTD_BIP && p.size == 9);
	CHECK_EQ(p.u.bip.value, 0x0807060504030201ULL);
	CHECK(ptd_next(&d, &p) == PTD_OK && p.type == PTD_TNT8 && p.u.tnt.count == 1);
	CHECK(ptd_tnt_taken(&p, 0));
	CHECK(ptd_next(&d, &p) == PTD_OK && p.type == PTD_TNT8 && p.u.tnt.count == 1);
	CHECK(!ptd_tnt_taken(&p, 0));
	CHECK(ptd_next(&d, &p) == PTD_OK && p.type == PTD_CFE);
	CHECK(p.u.cfe.ip && p.u.cfe.type == 5 && p.u.cfe.vector == 14);
	CHECK(ptd_next(&d, &p) == PTD_OK && p.type == PTD_EVD);
	CHECK_EQ(p.u.evd.type, 1);
	CHECK_EQ(p.u.evd.payload, 0x8000000000000001ULL);
	CHECK(ptd_next(&d, &p) == PTD_OK && p.type == PTD_MODE_EXEC);
	CHECK(p.u.exec.csl && !p.u.exec.csd && p.u.exec.iflag);
	CHECK(ptd_next(&d, &p) == PTD_OK && p.type == PTD_PWRE);
	CHECK(p.u.pwre.hw && p.u.pwre.state == 2 && p.u.pwre.sub_state == 1);
	CHECK_EQ(ptd_next(&d, &p), PTD_EOS);
	/* truncated BIP inside a block */
	static const uint8_t t[] = { 0x02, 0x63, 0x00, 0x0c, 1, 2, 3 };
	ptd_init(&d, t, sizeof t);
	CHECK_EQ(ptd_next(&d, &p), PTD_OK);
	CHECK_EQ(ptd_next(&d, &p), PTD_ERR_TRUNC);
	CHECK_EQ(p.offset, 3);
}

TEST(pt_tnt_bit_order)
{
	/* TNT.8 0x1a = 0001 1010b: stop bit 4, bits 3..1 = 101: T N T */
	static const uint8_t s[] = { 0x1a, 0x02, 0xa3, 0x05, 0, 0, 0, 0, 0 };
	struct ptd_decoder d;
	struct ptd_packet p;
	ptd_init(&d, s, sizeof s);
	CHECK(ptd_next(&d, &p) == PTD_OK && p.u.tnt.count == 3);
	CHECK(ptd_tnt_taken(&p, 0) && !ptd_tnt_taken(&p, 1) && ptd_tnt_taken(&p, 2));
	/* TNT.64 payload 0x05 = 101b: stop bit 2, bits: N T */
	CHECK(ptd_next(&d, &p) == PTD_OK && p.type == PTD_TNT64 && p.u.tnt.count == 2);
	CHECK(!ptd_tnt_taken(&p, 0) && ptd_tnt_taken(&p, 1));
	CHECK_EQ(ptd_next(&d, &p), PTD_EOS);
	/* long TNT with 47 bits */
	static const uint8_t l[] = { 0x02, 0xa3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	ptd_init(&d, l, sizeof l);
	CHECK(ptd_next(&d, &p) == PTD_OK && p.u.tnt.count == 47);
	CHECK_EQ(p.u.tnt.bits, (1ULL << 47) - 1);
}

/* Random bytes (biased towards opcode bytes) decoded by both. */
TEST(pt_random_bytes_vs_libipt)
{
	static const uint8_t common[] = { 0x02, 0x82, 0x23, 0x0d, 0x1d, 0x11, 0x01, 0x99,
					  0x19, 0x59, 0x03, 0x43, 0x73, 0xa3, 0xc3, 0x88, 0x00 };
	uint8_t s[256];
	int total = 0;
	for (int it = 0; it < 20000; it++) {
		size_t n = 1 + rndn(sizeof s);
		for (size_t i = 0; i < n; i++)
			s[i] = rndn(3) ? common[rndn(sizeof common)] : (uint8_t)rnd();
		if (rndn(4) == 0 && n > 20)
			memcpy(s + rndn(n - 16), psb16, 16);
		int mm;
		total += (int)diff_decode(s, n, &mm);
		if (!CHECK_EQ(mm, 0)) {
			for (size_t i = 0; i < n; i++)
				printf("%02x ", s[i]);
			printf("\n");
			break;
		}
	}
	CHECK(total > 20000);
}

/* Never reads past the buffer: decode from every start offset of a stream
 * copied to the end of a heap block (ASan catches any overread). */
TEST(pt_no_overread_any_start)
{
	static uint8_t buf[1 << 13];
	struct gen *g = malloc(sizeof *g);
	gen_init(g, buf, sizeof buf);
	for (int i = 0; i < 300; i++)
		if (!gen_kind(g, (unsigned)rndn(NKINDS)))
			break;
	size_t len = gen_offset(g);
	uint8_t *h = malloc(len);
	memcpy(h, buf, len);
	for (size_t start = 0; start < len; start += 3) {
		struct ptd_decoder d;
		struct ptd_packet p;
		ptd_init(&d, h + start, len - start);
		size_t steps = 0;
		int r;
		while ((r = ptd_next(&d, &p)) != PTD_EOS && steps < 100000)
			steps++;
		CHECK(steps < 100000);
	}
	free(h);
	pt_free_encoder(g->enc);
	free(g);
}

TEST(pt_type_names_as_libipt_ptdump)
{
	CHECK(!strcmp(ptd_type_name(PTD_TNT8), "tnt.8"));
	CHECK(!strcmp(ptd_type_name(PTD_TNT64), "tnt.64"));
	CHECK(!strcmp(ptd_type_name(PTD_TIP_PGE), "tip.pge"));
	CHECK(!strcmp(ptd_type_name(PTD_TIP_PGD), "tip.pgd"));
	CHECK(!strcmp(ptd_type_name(PTD_MODE_EXEC), "mode.exec"));
	CHECK(!strcmp(ptd_type_name(PTD_MODE_TSX), "mode.tsx"));
	CHECK(!strcmp(ptd_type_name(PTD_STOP), "stop"));
	CHECK(!strcmp(ptd_type_name(PTD_EVD), "evd"));
	for (int t = 0; t < PTD_NTYPES; t++)
		CHECK(ptd_type_name((enum ptd_type)t) != NULL);
	CHECK(!strcmp(ptd_type_name(PTD_NTYPES), "?"));
}
