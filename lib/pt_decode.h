/* Intel Processor Trace: the packet decoder (lib/pt_decode.c).  The single-range
 * output and the configuration MSRs are lib/pt_range.h.
 *
 * Freestanding: used by the kernel's 4xx
 * experiments and by the host tools and tests.  Names use the ptd_ / ptrange_ /
 * ptctl_ prefixes so that this header can be included next to libipt's
 * <intel-pt.h> (which owns pt_*).
 *
 * Packet formats: Intel SDM vol.3 32.4.2 (one table per packet).  Where the SDM is
 * silent on a decoding limit (CYC length, TMA reserved bits) we follow libipt so
 * that the host tests can require packet-for-packet agreement with it. */
#ifndef LIB_PT_DECODE_H
#define LIB_PT_DECODE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------------------
 * Packet decoder
 * ------------------------------------------------------------------------- */

enum ptd_type {
	PTD_INVALID = 0,
	PTD_PAD, PTD_PSB, PTD_PSBEND, PTD_TNT8, PTD_TNT64,
	PTD_TIP, PTD_TIP_PGE, PTD_TIP_PGD, PTD_FUP,
	PTD_PIP, PTD_MODE_EXEC, PTD_MODE_TSX, PTD_TSC, PTD_TMA, PTD_CBR,
	PTD_MTC, PTD_CYC, PTD_VMCS, PTD_OVF, PTD_STOP, PTD_MNT, PTD_PTW,
	PTD_EXSTOP, PTD_MWAIT, PTD_PWRE, PTD_PWRX,
	PTD_BBP, PTD_BIP, PTD_BEP, PTD_CFE, PTD_EVD,
	PTD_NTYPES
};

/* ptd_next() results.  Errors are negative; the packet's offset says where. */
enum ptd_status {
	PTD_OK = 0,
	PTD_EOS = 1,            /* clean end of buffer (or no PSB left to sync to) */
	PTD_ERR_BAD_OPC = -1,   /* opcode (or extended opcode) not defined */
	PTD_ERR_BAD_PACKET = -2,/* defined opcode, reserved/illegal payload */
	PTD_ERR_TRUNC = -3,     /* packet runs past the end of the buffer */
};

/* IPBytes encodings of TIP/TIP.PGE/TIP.PGD/FUP (SDM 32.4.2.2, table "Compressed
 * IP Packet Payload"); same values as libipt's enum pt_ip_compression. */
enum ptd_ipc {
	PTD_IPC_SUPPRESSED = 0, /* no payload, IP unknown; last IP unchanged */
	PTD_IPC_UPDATE16 = 1,   /* IP[15:0] from payload, IP[63:16] from last IP */
	PTD_IPC_UPDATE32 = 2,   /* IP[31:0] from payload, IP[63:32] from last IP */
	PTD_IPC_SEXT48 = 3,     /* IP[47:0] from payload, sign-extended from bit 47 */
	PTD_IPC_UPDATE48 = 4,   /* IP[47:0] from payload, IP[63:48] from last IP */
	PTD_IPC_FULL = 6,       /* IP[63:0] from payload */
};

struct ptd_packet {
	uint64_t offset;        /* byte offset of the packet (or of the error) */
	enum ptd_type type;
	uint8_t size;           /* bytes, opcode included */
	union {
		/* TNT8 / TNT64: count branches; the OLDEST is bit count-1 of bits
		 * (libipt's order: payload below the stop bit).  ptd_tnt_taken(). */
		struct { uint64_t bits; uint8_t count; } tnt;
		/* TIP, TIP.PGE, TIP.PGD, FUP: raw = zero-extended payload;
		 * ip = reconstructed IP (0 if suppressed); partial = the update used a
		 * last IP that no sext48/full packet had set since the last PSB. */
		struct { uint64_t ip, raw; uint8_t ipc; bool suppressed, partial; } ip;
		struct { uint64_t cr3; bool nr; } pip;          /* CR3[51:5] */
		struct { bool csl, csd, iflag; } exec;          /* MODE.Exec */
		struct { bool intx, abrt; } tsx;                /* MODE.TSX */
		uint64_t tsc;                                   /* TSC[55:0] */
		struct { uint16_t ctc, fc; } tma;               /* CTC[15:0], FC[8:0] */
		uint8_t cbr;
		uint8_t mtc;                                    /* CTC[N+7:N] */
		uint64_t cyc;
		uint64_t vmcs;                                  /* VMCS pointer [51:12] */
		uint64_t mnt;
		struct { uint64_t payload; uint8_t plc; bool ip; } ptw; /* plc 0: 4B, 1: 8B */
		struct { bool ip; } exstop;
		struct { uint32_t hints, ext; } mwait;
		/* PWRE: hw is byte 2 bit 7 per the SDM; raw is the 16-bit payload. */
		struct { uint8_t state, sub_state; bool hw; uint16_t raw; } pwre;
		/* PWRX: wake reason bits: 0 interrupt, 1 timer deadline, 2 store to
		 * monitored address, 3 h/w autonomous. */
		struct { uint8_t last, deepest, wake; } pwrx;
		struct { uint8_t type; uint8_t item_size; } bbp; /* item_size 4 or 8 */
		struct { uint8_t id; uint64_t value; } bip;
		struct { bool ip; } bep;
		struct { uint8_t type, vector; bool ip; } cfe;
		struct { uint8_t type; uint64_t payload; } evd;
	} u;
};

struct ptd_decoder {
	const uint8_t *buf;
	size_t len;
	size_t pos;
	uint64_t last_ip;
	bool have_ip;           /* last_ip fully known (sext48/full since PSB) */
	bool resync;            /* an error happened: next call syncs to a PSB */
	uint8_t blk;            /* 0, or 4/8: inside BBP..BEP, BIP payload size */
};

/* Decode buf[0, len) from offset 0, assuming offset 0 is a packet boundary. */
void ptd_init(struct ptd_decoder *d, const void *buf, size_t len);
/* Move to the first PSB at or after the current position.  Returns PTD_OK, or
 * PTD_EOS if there is none (the decoder is then at the end). */
int ptd_sync_forward(struct ptd_decoder *d);
/* Offset of the first PSB at or after `from` in buf, or len if none.  In a run
 * of 02 82 longer than 16 bytes the PSB is the run's last 16 bytes. */
size_t ptd_find_psb(const uint8_t *buf, size_t len, size_t from);
/* Next packet.  PTD_OK: *p is filled.  PTD_EOS: nothing left.  An error:
 * p->offset is where the bad packet starts, p->type is PTD_INVALID, and the
 * following call resynchronises at the next PSB (searched for from 15 bytes
 * before the error, so a PSB partly swallowed by a bad packet is found). */
int ptd_next(struct ptd_decoder *d, struct ptd_packet *p);

/* libipt ptdump's name of a packet type ("tnt.8", "tip.pge", "mode.exec" ...). */
const char *ptd_type_name(enum ptd_type t);
const char *ptd_status_name(int status);
/* Branch i of a TNT packet (0 = oldest): true if taken. */
static inline bool ptd_tnt_taken(const struct ptd_packet *p, unsigned i)
{
	return (p->u.tnt.bits >> (p->u.tnt.count - 1 - i)) & 1;
}
static inline bool ptd_is_ip_packet(enum ptd_type t)
{
	return t == PTD_TIP || t == PTD_TIP_PGE || t == PTD_TIP_PGD || t == PTD_FUP;
}

#endif
