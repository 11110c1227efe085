/* ptbench [MiB]: packet-decoding throughput of our decoder (lib/pt_decode.c)
 * and of libipt's packet decoder on the same synthetic stream, produced with
 * libipt's encoder (default 64 MiB).  The mix imitates a branchy trace: a PSB+
 * every ~4 KiB, mostly TNT.8, TIP/FUP with 16/32-bit compression, MTC, CYC.
 * Best of 5 runs each; prints one line per decoder. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <intel-pt.h>
#include "pt_decode.h"

static uint64_t rs = 0x243f6a8885a308d3ULL;
static uint64_t rnd(void)
{
	rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17;
	return rs;
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static size_t generate(uint8_t *buf, size_t cap)
{
	struct pt_config c;
	pt_config_init(&c);
	c.begin = buf;
	c.end = buf + cap;
	struct pt_encoder *e = pt_alloc_encoder(&c);
	uint64_t off = 0, last_psb = 0, ip = 0xffffffff81000000ULL;
	for (;;) {
		struct pt_packet p;
		memset(&p, 0, sizeof p);
		pt_enc_get_offset(e, &off);
		if (off + 64 > cap)
			break;
		if (off - last_psb >= 4096 || off == 0) {
			last_psb = off;
			p.type = ppt_psb; pt_enc_next(e, &p);
			p.type = ppt_tsc; p.payload.tsc.tsc = rnd() & 0xffffffffffffffULL; pt_enc_next(e, &p);
			p.type = ppt_cbr; p.payload.cbr.ratio = 36; pt_enc_next(e, &p);
			memset(&p, 0, sizeof p);
			p.type = ppt_mode; p.payload.mode.leaf = pt_mol_exec;
			p.payload.mode.bits.exec = pt_set_exec_mode(ptem_64bit); pt_enc_next(e, &p);
			memset(&p, 0, sizeof p);
			p.type = ppt_fup; p.payload.ip.ipc = pt_ipc_sext_48; p.payload.ip.ip = ip; pt_enc_next(e, &p);
			memset(&p, 0, sizeof p);
			p.type = ppt_psbend; pt_enc_next(e, &p);
			continue;
		}
		unsigned k = (unsigned)(rnd() % 100);
		if (k < 55) {
			p.type = ppt_tnt_8;
			p.payload.tnt.bit_size = (uint8_t)(1 + rnd() % 6);
			p.payload.tnt.payload = rnd() & ((1u << p.payload.tnt.bit_size) - 1);
		} else if (k < 60) {
			p.type = ppt_tnt_64;
			p.payload.tnt.bit_size = (uint8_t)(7 + rnd() % 41);
			p.payload.tnt.payload = rnd() & ((1ULL << p.payload.tnt.bit_size) - 1);
		} else if (k < 75) {
			p.type = ppt_tip;
			p.payload.ip.ipc = (rnd() & 3) ? pt_ipc_update_16 : pt_ipc_update_32;
			ip = (ip & ~0xffffffffULL) | (rnd() & 0xffffffff);
			p.payload.ip.ip = ip;
		} else if (k < 78) {
			p.type = ppt_fup;
			p.payload.ip.ipc = pt_ipc_update_32;
			p.payload.ip.ip = ip;
		} else if (k < 88) {
			p.type = ppt_mtc;
			p.payload.mtc.ctc = (uint8_t)rnd();
		} else if (k < 97) {
			p.type = ppt_cyc;
			p.payload.cyc.value = rnd() & 0xfff;
		} else {
			p.type = ppt_pad;
		}
		pt_enc_next(e, &p);
	}
	pt_free_encoder(e);
	return (size_t)off;
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? (size_t)atoi(argv[1]) : 64;
	size_t cap = mib << 20;
	uint8_t *buf = malloc(cap);
	if (!buf || !mib)
		return 1;
	size_t len = generate(buf, cap);
	double best_ours = 1e9, best_ipt = 1e9;
	uint64_t n_ours = 0, n_ipt = 0;
	for (int rep = 0; rep < 5; rep++) {
		struct ptd_decoder d;
		struct ptd_packet p;
		uint64_t n = 0, sum = 0;
		double t0 = now();
		ptd_init(&d, buf, len);
		while (ptd_next(&d, &p) == PTD_OK) {
			n++;
			sum += p.type;
		}
		double t = now() - t0;
		if (t < best_ours)
			best_ours = t;
		n_ours = n + (sum & 0);

		struct pt_config c;
		pt_config_init(&c);
		c.begin = buf;
		c.end = buf + len;
		struct pt_packet_decoder *q = pt_pkt_alloc_decoder(&c);
		struct pt_packet pk;
		n = 0;
		t0 = now();
		pt_pkt_sync_set(q, 0);
		while (pt_pkt_next(q, &pk, sizeof pk) >= 0) {
			n++;
			sum += pk.type;
		}
		t = now() - t0;
		pt_pkt_free_decoder(q);
		if (t < best_ipt)
			best_ipt = t;
		n_ipt = n;
	}
	double mb = len / 1e6;
	printf("ours:   %.0f MB/s (%" PRIu64 " packets, %zu bytes)\n", mb / best_ours, n_ours, len);
	printf("libipt: %.0f MB/s (%" PRIu64 " packets, %zu bytes)\n", mb / best_ipt, n_ipt, len);
	free(buf);
	return n_ours == n_ipt ? 0 : 1;
}
