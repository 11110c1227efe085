/* libFuzzer target for lib/pt_decode.c.
 *
 * Always: the decoder never reads out of bounds (ASan), always terminates, and
 * keeps its invariants (packet inside the buffer, size > 0, error offsets
 * strictly increasing).  If libipt can be loaded at run time (dlopen: the fuzz
 * build links only lib/), the same bytes also go through libipt's packet
 * decoder and both must agree on offsets, types, sizes, IP and TNT payloads and
 * on errors, up to the first packet libipt 2.0.5 does not know. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <intel-pt.h>
#include "pt_decode.h"

static struct {
	bool tried, ok;
	struct pt_packet_decoder *(*alloc)(const struct pt_config *);
	void (*free_)(struct pt_packet_decoder *);
	int (*sync_set)(struct pt_packet_decoder *, uint64_t);
	int (*sync_fwd)(struct pt_packet_decoder *);
	int (*next)(struct pt_packet_decoder *, struct pt_packet *, size_t);
	int (*get_off)(const struct pt_packet_decoder *, uint64_t *);
} ipt;

static void load_libipt(void)
{
	ipt.tried = true;
	void *h = dlopen("libipt.so.2", RTLD_NOW);
	if (!h)
		return;
	ipt.alloc = (__typeof__(ipt.alloc))dlsym(h, "pt_pkt_alloc_decoder");
	ipt.free_ = (__typeof__(ipt.free_))dlsym(h, "pt_pkt_free_decoder");
	ipt.sync_set = (__typeof__(ipt.sync_set))dlsym(h, "pt_pkt_sync_set");
	ipt.sync_fwd = (__typeof__(ipt.sync_fwd))dlsym(h, "pt_pkt_sync_forward");
	ipt.next = (__typeof__(ipt.next))dlsym(h, "pt_pkt_next");
	ipt.get_off = (__typeof__(ipt.get_off))dlsym(h, "pt_pkt_get_offset");
	ipt.ok = ipt.alloc && ipt.free_ && ipt.sync_set && ipt.sync_fwd && ipt.next && ipt.get_off;
}

static void fail(const char *why, uint64_t off)
{
	fprintf(stderr, "fuzz_pt: %s at offset 0x%llx\n", why, (unsigned long long)off);
	abort();
}

static enum ptd_type map_type(const struct pt_packet *q)
{
	static const enum ptd_type m[] = {
		[ppt_pad] = PTD_PAD, [ppt_psb] = PTD_PSB, [ppt_psbend] = PTD_PSBEND,
		[ppt_fup] = PTD_FUP, [ppt_tip] = PTD_TIP, [ppt_tip_pge] = PTD_TIP_PGE,
		[ppt_tip_pgd] = PTD_TIP_PGD, [ppt_tnt_8] = PTD_TNT8, [ppt_tnt_64] = PTD_TNT64,
		[ppt_mode] = PTD_MODE_EXEC, [ppt_pip] = PTD_PIP, [ppt_vmcs] = PTD_VMCS,
		[ppt_cbr] = PTD_CBR, [ppt_tsc] = PTD_TSC, [ppt_tma] = PTD_TMA,
		[ppt_mtc] = PTD_MTC, [ppt_cyc] = PTD_CYC, [ppt_stop] = PTD_STOP,
		[ppt_ovf] = PTD_OVF, [ppt_mnt] = PTD_MNT, [ppt_exstop] = PTD_EXSTOP,
		[ppt_mwait] = PTD_MWAIT, [ppt_pwre] = PTD_PWRE, [ppt_pwrx] = PTD_PWRX,
		[ppt_ptw] = PTD_PTW,
	};
	if ((unsigned)q->type >= sizeof m / sizeof m[0])
		return PTD_INVALID;
	if (q->type == ppt_mode && q->payload.mode.leaf == pt_mol_tsx)
		return PTD_MODE_TSX;
	return m[q->type];
}

static int map_err(int e)
{
	switch (pt_errcode(e)) {
	case pte_bad_opc: return PTD_ERR_BAD_OPC;
	case pte_bad_packet: return PTD_ERR_BAD_PACKET;
	case pte_eos: return PTD_ERR_TRUNC;
	default: return 99;
	}
}

static bool libipt_blind(const uint8_t *b, size_t len, const struct ptd_decoder *d)
{
	size_t off = d->pos;
	if (d->resync || off >= len)
		return false;
	if (d->blk && (b[off] & 7) == 4)
		return true;
	if (b[off] == 0x02 && off + 1 < len) {
		uint8_t x = b[off + 1];
		return x == 0x63 || x == 0x33 || x == 0xb3 || x == 0x13 || x == 0x53;
	}
	return false;
}

static void alone(const uint8_t *data, size_t size)
{
	struct ptd_decoder d;
	struct ptd_packet p;
	size_t steps = 0, limit = 32 * size + 64;
	uint64_t last_err = 0;
	bool had_err = false;
	int r;
	ptd_init(&d, data, size);
	while ((r = ptd_next(&d, &p)) != PTD_EOS) {
		if (++steps > limit)
			fail("no progress", p.offset);
		if (p.offset >= size)
			fail("packet beyond the buffer", p.offset);
		if (r == PTD_OK) {
			if (p.size == 0 || p.offset + p.size > size)
				fail("bad packet size", p.offset);
			if (p.type <= PTD_INVALID || p.type >= PTD_NTYPES)
				fail("bad type", p.offset);
			(void)ptd_type_name(p.type);
		} else {
			if (had_err && p.offset <= last_err)
				fail("error offsets not increasing", p.offset);
			had_err = true;
			last_err = p.offset;
		}
	}
}

static void differential(const uint8_t *data, size_t size)
{
	struct pt_config c;
	struct ptd_decoder d;
	struct ptd_packet a;
	pt_config_init(&c);
	c.begin = (uint8_t *)data;
	c.end = (uint8_t *)data + size;
	struct pt_packet_decoder *q = ipt.alloc(&c);
	if (!q)
		return;
	ptd_init(&d, data, size);
	if (size == 0 || ipt.sync_set(q, 0) < 0)
		goto out;
	for (size_t steps = 0; steps < 32 * size + 64; steps++) {
		struct pt_packet p;
		uint64_t qoff = 0;
		if (libipt_blind(data, size, &d))
			break;
		ipt.get_off(q, &qoff);
		int qr = ipt.next(q, &p, sizeof p);
		int r = ptd_next(&d, &a);
		if (r == PTD_EOS) {
			if (qr != -pte_eos || qoff != size)
				fail("we ended, libipt did not", qoff);
			break;
		}
		if (a.offset != qoff)
			fail("offsets differ", a.offset);
		if (r < 0 || qr < 0) {
			if (r != (qr < 0 ? map_err(qr) : 0))
				fail("errors differ", a.offset);
			/* libipt 2.0.5's pt_pkt_sync_forward() reads past the end of
			 * the buffer on some inputs (this fuzzer found one: a SEGV in
			 * libipt), so it is not called here.  libipt is put on the PSB
			 * our decoder resynchronises to, and must accept it as one;
			 * the two resync searches are compared on fixed streams in
			 * tests/host/test_pt_decode.c. */
			struct ptd_decoder peek = d;
			struct ptd_packet at;
			if (ptd_next(&peek, &at) == PTD_EOS)
				break;
			if (at.type != PTD_PSB || ipt.sync_set(q, at.offset) < 0)
				fail("resync: libipt rejects our PSB", at.offset);
			continue;
		}
		if (a.type != map_type(&p) || a.size != p.size)
			fail("types differ", a.offset);
		if (ptd_is_ip_packet(a.type) &&
		    (a.u.ip.ipc != p.payload.ip.ipc || a.u.ip.raw != p.payload.ip.ip))
			fail("IP payloads differ", a.offset);
		if ((a.type == PTD_TNT8 || a.type == PTD_TNT64) &&
		    (a.u.tnt.count != p.payload.tnt.bit_size || a.u.tnt.bits != p.payload.tnt.payload))
			fail("TNT payloads differ", a.offset);
	}
out:
	ipt.free_(q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!ipt.tried)
		load_libipt();
	alone(data, size);
	if (ipt.ok)
		differential(data, size);
	return 0;
}
