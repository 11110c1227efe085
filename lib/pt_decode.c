/* Intel PT packet decoder (SDM vol.3 32.4): one packet per call, last-IP
 * reconstruction, resynchronisation at the next PSB after malformed bytes.
 *
 * Dispatch is two 256-entry tables: one on the first byte, one on the second
 * byte of extended (02h) opcodes.  Every read is bounds-checked against the
 * buffer; nothing here loops without consuming input. */
#include "pt_decode.h"
#include "le.h"

/* first-byte classes */
enum {
	K_BAD = 0, K_PAD, K_EXT, K_TNT8, K_CYC, K_TIP, K_PGE, K_PGD, K_FUP,
	K_TSC, K_MTC, K_MODE,
};
/* extended-opcode classes (second byte after 02h) */
enum {
	X_BAD = 0, X_PSB, X_PSBEND, X_CBR, X_TNT64, X_PIP, X_TMA, X_VMCS, X_OVF,
	X_STOP, X_EXT2, X_PTW, X_EXSTOP, X_MWAIT, X_PWRE, X_PWRX, X_BBP, X_BEP,
	X_CFE, X_EVD,
};

static uint8_t first_class[256];
static uint8_t ext_class[256];
static bool tables_ready;

static void build_tables(void)
{
	for (unsigned b = 0; b < 256; b++) {
		uint8_t k = K_BAD;
		if (!(b & 1))
			k = K_TNT8;             /* short TNT: bit 0 clear, stop bit above */
		else if ((b & 3) == 3)
			k = K_CYC;              /* CYC: bits 1:0 = 11b */
		else switch (b & 0x1f) {       /* IPBytes in 7:5 */
		case 0x0d: k = K_TIP; break;
		case 0x11: k = K_PGE; break;
		case 0x01: k = K_PGD; break;
		case 0x1d: k = K_FUP; break;
		}
		first_class[b] = k;
		uint8_t x = X_BAD;
		if ((b & 0x1f) == 0x12)
			x = X_PTW;              /* PTW: 7 IP, 6:5 PayloadBytes, 4:0 10010b */
		ext_class[b] = x;
	}
	first_class[0x00] = K_PAD;
	first_class[0x02] = K_EXT;
	first_class[0x19] = K_TSC;
	first_class[0x59] = K_MTC;
	first_class[0x99] = K_MODE;
	ext_class[0x82] = X_PSB;
	ext_class[0x23] = X_PSBEND;
	ext_class[0x03] = X_CBR;
	ext_class[0xa3] = X_TNT64;
	ext_class[0x43] = X_PIP;
	ext_class[0x73] = X_TMA;
	ext_class[0xc8] = X_VMCS;
	ext_class[0xf3] = X_OVF;
	ext_class[0x83] = X_STOP;
	ext_class[0xc3] = X_EXT2;
	ext_class[0x62] = X_EXSTOP;
	ext_class[0xe2] = X_EXSTOP;
	ext_class[0xc2] = X_MWAIT;
	ext_class[0x22] = X_PWRE;
	ext_class[0xa2] = X_PWRX;
	ext_class[0x63] = X_BBP;
	ext_class[0x33] = X_BEP;
	ext_class[0xb3] = X_BEP;
	ext_class[0x13] = X_CFE;
	ext_class[0x53] = X_EVD;
	tables_ready = true;
}

void ptd_init(struct ptd_decoder *d, const void *buf, size_t len)
{
	if (!tables_ready)
		build_tables();
	d->buf = buf;
	d->len = len;
	d->pos = 0;
	d->last_ip = 0;
	d->have_ip = false;
	d->resync = false;
	d->blk = 0;
}

static bool psb_at(const uint8_t *b, size_t len, size_t p)
{
	if (len - p < 16)
		return false;
	for (unsigned i = 0; i < 16; i += 2)
		if (b[p + i] != 0x02 || b[p + i + 1] != 0x82)
			return false;
	return true;
}

size_t ptd_find_psb(const uint8_t *b, size_t len, size_t from)
{
	for (size_t p = from; p < len && len - p >= 16; p++) {
		if (b[p] != 0x02 || b[p + 1] != 0x82 || !psb_at(b, len, p))
			continue;
		/* A run of 02 82 longer than 16 bytes: the PSB is its last 16 bytes
		 * (what precedes it is payload of an earlier packet or garbage). */
		while (len - p >= 18 && b[p + 16] == 0x02 && b[p + 17] == 0x82)
			p += 2;
		return p;
	}
	return len;
}

int ptd_sync_forward(struct ptd_decoder *d)
{
	d->pos = ptd_find_psb(d->buf, d->len, d->pos);
	d->resync = false;
	d->blk = 0;
	return d->pos < d->len ? PTD_OK : PTD_EOS;
}

/* SDM 32.4.2.2 "IP compression": how the payload combines with the last IP. */
static int decode_ip(struct ptd_decoder *d, struct ptd_packet *p, const uint8_t *b,
		     size_t avail, enum ptd_type t)
{
	static const int8_t ipsize[8] = { 0, 2, 4, 6, 6, -1, 8, -1 };
	unsigned ipc = b[0] >> 5;
	int n = ipsize[ipc];
	if (n < 0)
		return PTD_ERR_BAD_PACKET;      /* IPBytes 101b, 111b: reserved */
	if (avail < (size_t)n + 1)
		return PTD_ERR_TRUNC;
	uint64_t raw = le_get(b + 1, (unsigned)n), ip = 0;
	bool partial = false;
	switch (ipc) {
	case PTD_IPC_SUPPRESSED:
		break;
	case PTD_IPC_UPDATE16:
		ip = (d->last_ip & ~0xffffULL) | raw;
		partial = !d->have_ip;
		break;
	case PTD_IPC_UPDATE32:
		ip = (d->last_ip & ~0xffffffffULL) | raw;
		partial = !d->have_ip;
		break;
	case PTD_IPC_SEXT48:
		ip = (raw & (1ULL << 47)) ? raw | 0xffff000000000000ULL : raw;
		d->have_ip = true;
		break;
	case PTD_IPC_UPDATE48:
		ip = (d->last_ip & ~0xffffffffffffULL) | raw;
		partial = !d->have_ip;
		break;
	case PTD_IPC_FULL:
		ip = raw;
		d->have_ip = true;
		break;
	}
	if (ipc != PTD_IPC_SUPPRESSED)
		d->last_ip = ip;
	p->type = t;
	p->size = (uint8_t)(n + 1);
	p->u.ip.ip = ip;
	p->u.ip.raw = raw;
	p->u.ip.ipc = (uint8_t)ipc;
	p->u.ip.suppressed = ipc == PTD_IPC_SUPPRESSED;
	p->u.ip.partial = partial;
	return PTD_OK;
}

static int decode_cyc(struct ptd_packet *p, const uint8_t *b, size_t avail)
{
	uint64_t v = b[0] >> 3;
	unsigned shl = 5, n = 1;
	bool ext = b[0] & 4;
	while (ext) {
		if (n >= avail)
			return PTD_ERR_TRUNC;
		uint8_t x = b[n++];
		ext = x & 1;
		v |= (uint64_t)(x >> 1) << shl;
		shl += 7;
		/* The SDM sets no bound; libipt refuses a count beyond 64 bits
		 * (at most 8 extension bytes), and so do we. */
		if (shl > 64)
			return PTD_ERR_BAD_PACKET;
	}
	p->type = PTD_CYC;
	p->size = (uint8_t)n;
	p->u.cyc = v;
	return PTD_OK;
}

static int tnt_payload(struct ptd_packet *p, uint64_t payload, enum ptd_type t, uint8_t size)
{
	if (!payload)
		return PTD_ERR_BAD_PACKET;      /* no stop bit */
	unsigned stop = 63 - (unsigned)__builtin_clzll(payload);
	p->type = t;
	p->size = size;
	p->u.tnt.count = (uint8_t)stop;
	p->u.tnt.bits = payload & ~(1ULL << stop);
	return stop ? PTD_OK : PTD_ERR_BAD_PACKET;
}

#define NEED(n) do { if (avail < (size_t)(n)) return PTD_ERR_TRUNC; } while (0)

static int decode_ext(struct ptd_decoder *d, struct ptd_packet *p, const uint8_t *b, size_t avail)
{
	NEED(2);
	uint8_t x = b[1];
	switch (ext_class[x]) {
	case X_PSB:
		NEED(16);
		if (!psb_at(b, 16, 0))
			return PTD_ERR_BAD_PACKET;
		/* PSB: the decoder's last IP starts from zero again (SDM 32.4.2.2). */
		d->last_ip = 0;
		d->have_ip = false;
		p->type = PTD_PSB;
		p->size = 16;
		return PTD_OK;
	case X_PSBEND:
		p->type = PTD_PSBEND;
		p->size = 2;
		return PTD_OK;
	case X_OVF:
		p->type = PTD_OVF;
		p->size = 2;
		return PTD_OK;
	case X_STOP:
		p->type = PTD_STOP;
		p->size = 2;
		return PTD_OK;
	case X_CBR:
		NEED(4);
		p->type = PTD_CBR;
		p->size = 4;
		p->u.cbr = b[2];
		return PTD_OK;
	case X_TNT64:
		NEED(8);
		return tnt_payload(p, le_get(b + 2, 6), PTD_TNT64, 8);
	case X_PIP:
		NEED(8);
		{
			/* byte 2 bit 0: NR; CR3[51:5] in payload bits 47:1 */
			uint64_t v = le_get(b + 2, 6);
			p->type = PTD_PIP;
			p->size = 8;
			p->u.pip.nr = v & 1;
			p->u.pip.cr3 = (v >> 1) << 5;
		}
		return PTD_OK;
	case X_TMA:
		NEED(7);
		/* CTC[15:0] in bytes 2-3, byte 4 reserved, FC[8:0] in bytes 5-6 */
		if (b[4] || (b[6] & 0xfe))
			return PTD_ERR_BAD_PACKET;
		p->type = PTD_TMA;
		p->size = 7;
		p->u.tma.ctc = (uint16_t)le_get(b + 2, 2);
		p->u.tma.fc = (uint16_t)le_get(b + 5, 2);
		return PTD_OK;
	case X_VMCS:
		NEED(7);
		p->type = PTD_VMCS;
		p->size = 7;
		p->u.vmcs = le_get(b + 2, 5) << 12;
		return PTD_OK;
	case X_EXT2:
		NEED(3);
		if (b[2] != 0x88)
			return PTD_ERR_BAD_OPC;
		NEED(11);
		p->type = PTD_MNT;
		p->size = 11;
		p->u.mnt = le_get(b + 3, 8);
		return PTD_OK;
	case X_PTW: {
		unsigned plc = (x >> 5) & 3;
		if (plc > 1)
			return PTD_ERR_BAD_PACKET;
		unsigned n = plc ? 8 : 4;
		NEED(2 + n);
		p->type = PTD_PTW;
		p->size = (uint8_t)(2 + n);
		p->u.ptw.payload = le_get(b + 2, n);
		p->u.ptw.plc = (uint8_t)plc;
		p->u.ptw.ip = x & 0x80;
		return PTD_OK;
	}
	case X_EXSTOP:
		p->type = PTD_EXSTOP;
		p->size = 2;
		p->u.exstop.ip = x & 0x80;
		return PTD_OK;
	case X_MWAIT:
		NEED(10);
		p->type = PTD_MWAIT;
		p->size = 10;
		p->u.mwait.hints = (uint32_t)le_get(b + 2, 4);
		p->u.mwait.ext = (uint32_t)le_get(b + 6, 4);
		return PTD_OK;
	case X_PWRE:
		NEED(4);
		p->type = PTD_PWRE;
		p->size = 4;
		p->u.pwre.raw = (uint16_t)le_get(b + 2, 2);
		p->u.pwre.hw = b[2] & 0x80;
		p->u.pwre.state = b[3] >> 4;
		p->u.pwre.sub_state = b[3] & 0xf;
		return PTD_OK;
	case X_PWRX:
		NEED(7);
		p->type = PTD_PWRX;
		p->size = 7;
		p->u.pwrx.last = b[2] >> 4;
		p->u.pwrx.deepest = b[2] & 0xf;
		p->u.pwrx.wake = b[3] & 0xf;
		return PTD_OK;
	case X_BBP:
		NEED(3);
		p->type = PTD_BBP;
		p->size = 3;
		p->u.bbp.type = b[2] & 0x1f;
		p->u.bbp.item_size = (b[2] & 0x80) ? 4 : 8;  /* SZ */
		return PTD_OK;
	case X_BEP:
		p->type = PTD_BEP;
		p->size = 2;
		p->u.bep.ip = x & 0x80;
		return PTD_OK;
	case X_CFE:
		NEED(4);
		p->type = PTD_CFE;
		p->size = 4;
		p->u.cfe.ip = b[2] & 0x80;
		p->u.cfe.type = b[2] & 0x1f;
		p->u.cfe.vector = b[3];
		return PTD_OK;
	case X_EVD:
		NEED(11);
		p->type = PTD_EVD;
		p->size = 11;
		p->u.evd.type = b[2] & 0x1f;
		p->u.evd.payload = le_get(b + 3, 8);
		return PTD_OK;
	}
	return PTD_ERR_BAD_OPC;
}

static int decode_one(struct ptd_decoder *d, struct ptd_packet *p)
{
	const uint8_t *b = d->buf + d->pos;
	size_t avail = d->len - d->pos;
	uint8_t op = b[0];

	/* Between BBP and BEP, a byte with bits 2:0 = 100b starts a BIP whose
	 * payload size the BBP's SZ bit gave (SDM 32.4.2, block packets). */
	if (d->blk && (op & 7) == 4) {
		NEED(1 + d->blk);
		p->type = PTD_BIP;
		p->size = (uint8_t)(1 + d->blk);
		p->u.bip.id = op >> 3;
		p->u.bip.value = le_get(b + 1, d->blk);
		return PTD_OK;
	}
	switch (first_class[op]) {
	case K_PAD:
		p->type = PTD_PAD;
		p->size = 1;
		return PTD_OK;
	case K_TNT8:
		return tnt_payload(p, op >> 1, PTD_TNT8, 1);
	case K_EXT:
		return decode_ext(d, p, b, avail);
	case K_CYC:
		return decode_cyc(p, b, avail);
	case K_TIP:
		return decode_ip(d, p, b, avail, PTD_TIP);
	case K_PGE:
		return decode_ip(d, p, b, avail, PTD_TIP_PGE);
	case K_PGD:
		return decode_ip(d, p, b, avail, PTD_TIP_PGD);
	case K_FUP:
		return decode_ip(d, p, b, avail, PTD_FUP);
	case K_TSC:
		NEED(8);
		p->type = PTD_TSC;
		p->size = 8;
		p->u.tsc = le_get(b + 1, 7);
		return PTD_OK;
	case K_MTC:
		NEED(2);
		p->type = PTD_MTC;
		p->size = 2;
		p->u.mtc = b[1];
		return PTD_OK;
	case K_MODE:
		NEED(2);
		/* leaf in bits 7:5: 000b MODE.Exec, 001b MODE.TSX, others reserved */
		switch (b[1] >> 5) {
		case 0:
			p->type = PTD_MODE_EXEC;
			p->u.exec.csl = b[1] & 1;
			p->u.exec.csd = b[1] & 2;
			p->u.exec.iflag = b[1] & 4;
			break;
		case 1:
			p->type = PTD_MODE_TSX;
			p->u.tsx.intx = b[1] & 1;
			p->u.tsx.abrt = b[1] & 2;
			break;
		default:
			return PTD_ERR_BAD_PACKET;
		}
		p->size = 2;
		return PTD_OK;
	}
	return PTD_ERR_BAD_OPC;
}

/* Which packets end a BBP block context (the rest may be interleaved). */
static bool ends_block(enum ptd_type t)
{
	switch (t) {
	case PTD_PAD: case PTD_TSC: case PTD_TMA: case PTD_MTC: case PTD_FUP:
	case PTD_CYC: case PTD_CBR: case PTD_MNT: case PTD_EXSTOP: case PTD_PWRE:
	case PTD_PWRX: case PTD_BIP:
		return false;
	default:
		return true;
	}
}

int ptd_next(struct ptd_decoder *d, struct ptd_packet *p)
{
	if (d->resync && ptd_sync_forward(d) != PTD_OK)
		return PTD_EOS;
	if (d->pos >= d->len)
		return PTD_EOS;
	p->offset = d->pos;
	int r = decode_one(d, p);
	if (r != PTD_OK) {
		p->type = PTD_INVALID;
		p->size = 0;
		/* Resync at the next PSB, starting the search 15 bytes back: the bad
		 * packet (or one before it) may have swallowed the start of a PSB.
		 * libipt does the same.  It cannot loop: a PSB found there begins
		 * before this error but ends after it, so each error lies beyond the
		 * last. */
		d->pos = p->offset > 15 ? p->offset - 15 : 0;
		d->resync = true;
		return r;
	}
	d->pos += p->size;
	if (p->type == PTD_BBP)
		d->blk = p->u.bbp.item_size;
	else if (d->blk && ends_block(p->type))
		d->blk = 0;
	return PTD_OK;
}

static const char *const type_names[PTD_NTYPES] = {
	[PTD_INVALID] = "invalid", [PTD_PAD] = "pad", [PTD_PSB] = "psb",
	[PTD_PSBEND] = "psbend", [PTD_TNT8] = "tnt.8", [PTD_TNT64] = "tnt.64",
	[PTD_TIP] = "tip", [PTD_TIP_PGE] = "tip.pge", [PTD_TIP_PGD] = "tip.pgd",
	[PTD_FUP] = "fup", [PTD_PIP] = "pip", [PTD_MODE_EXEC] = "mode.exec",
	[PTD_MODE_TSX] = "mode.tsx", [PTD_TSC] = "tsc", [PTD_TMA] = "tma",
	[PTD_CBR] = "cbr", [PTD_MTC] = "mtc", [PTD_CYC] = "cyc", [PTD_VMCS] = "vmcs",
	[PTD_OVF] = "ovf", [PTD_STOP] = "stop", [PTD_MNT] = "mnt", [PTD_PTW] = "ptw",
	[PTD_EXSTOP] = "exstop", [PTD_MWAIT] = "mwait", [PTD_PWRE] = "pwre",
	[PTD_PWRX] = "pwrx", [PTD_BBP] = "bbp", [PTD_BIP] = "bip", [PTD_BEP] = "bep",
	[PTD_CFE] = "cfe", [PTD_EVD] = "evd",
};

const char *ptd_type_name(enum ptd_type t)
{
	return (unsigned)t < PTD_NTYPES ? type_names[t] : "?";
}

const char *ptd_status_name(int s)
{
	switch (s) {
	case PTD_OK: return "ok";
	case PTD_EOS: return "end of stream";
	case PTD_ERR_BAD_OPC: return "bad opcode";
	case PTD_ERR_BAD_PACKET: return "bad packet";
	case PTD_ERR_TRUNC: return "truncated packet";
	}
	return "?";
}
