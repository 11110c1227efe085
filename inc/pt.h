/* Intel Processor Trace: packet decoder and single-range output helpers.
 *
 * Freestanding (lib/pt_decode.c, lib/pt_range.c): used by the kernel's 4xx
 * experiments and by the host tools and tests.  Names use the ptd_ / ptrange_ /
 * ptctl_ prefixes so that this header can be included next to libipt's
 * <intel-pt.h> (which owns pt_*).
 *
 * Packet formats: Intel SDM vol.3 32.4.2 (one table per packet).  Where the SDM is
 * silent on a decoding limit (CYC length, TMA reserved bits) we follow libipt so
 * that the host tests can require packet-for-packet agreement with it. */
#ifndef INC_PT_H
#define INC_PT_H
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

/* ---------------------------------------------------------------------------
 * Single-range output (SDM vol.3 32.2.7.1) and the configuration MSRs
 * ------------------------------------------------------------------------- */

enum ptrange_err {
	PTRANGE_OK = 0,
	PTRANGE_ERR_SIZE_NOT_POW2,      /* size is not a power of two */
	PTRANGE_ERR_SIZE_TOO_SMALL,     /* < 128: mask bits 6:0 always read as 1 */
	PTRANGE_ERR_SIZE_TOO_BIG,       /* > 4 GiB: the mask is MASK_PTRS[31:0] */
	PTRANGE_ERR_MASK_NONCONTIG,     /* a 0 below the highest 1 of the mask */
	PTRANGE_ERR_BASE_MISALIGNED,    /* OUTPUT_BASE & mask != 0 */
	PTRANGE_ERR_OFFSET_BEYOND_MASK, /* OutputOffset > mask */
	PTRANGE_ERR_BASE_MAXPHYADDR,    /* OUTPUT_BASE has bits >= MAXPHYADDR */
	PTRANGE_ERR_BASE_RESERVED,      /* OUTPUT_BASE[6:0] != 0 (reserved) */
	PTRANGE_NERR
};
const char *ptrange_err_name(enum ptrange_err e);

#define PTRANGE_MIN_SIZE        128u
#define PTRANGE_LOWER_MASK      0x7fULL         /* MASK_PTRS[6:0], read as 1s */

/* MSR values for a naturally aligned power-of-two buffer at physical `base`,
 * writing next at `offset`.  Returns the first error (outputs untouched). */
enum ptrange_err ptrange_setup(uint64_t base, uint64_t size, uint64_t offset,
			       unsigned maxphyaddr, uint64_t *out_base,
			       uint64_t *out_mask_ptrs);
/* The SDM's single-range error conditions for a pair of MSR values, in the
 * order: reserved base bits, MAXPHYADDR, non-contiguous mask, base/mask
 * overlap, offset beyond mask. */
enum ptrange_err ptrange_check(uint64_t output_base, uint64_t mask_ptrs,
			       unsigned maxphyaddr);
static inline uint64_t ptrange_mask(uint64_t mask_ptrs)
{
	return (mask_ptrs & 0xffffffffULL) | PTRANGE_LOWER_MASK;
}
static inline uint64_t ptrange_offset(uint64_t mask_ptrs) { return mask_ptrs >> 32; }
/* trace_store_phys_addr := (OutputBase & ~OutputMask) + (OutputOffset & OutputMask) */
uint64_t ptrange_store_addr(uint64_t output_base, uint64_t mask_ptrs);
/* Copy a circular range into dst (size bytes) oldest byte first: when wrapped,
 * [offset, size) then [0, offset); else just [0, offset).  Returns bytes. */
size_t ptrange_linearize(const uint8_t *buf, uint64_t size, uint64_t offset,
			 bool wrapped, uint8_t *dst);

/* IA32_RTIT_CTL from named fields (SDM vol.3 32.2.8.2, table IA32_RTIT_CTL). */
struct ptctl {
	bool trace_en, cyc_en, os, user, pwr_evt_en, fup_on_ptw, fabric_en;
	bool cr3_filter, topa, mtc_en, tsc_en, dis_retc, ptw_en, branch_en;
	uint8_t mtc_freq;       /* 17:14 */
	uint8_t cyc_thresh;     /* 22:19 */
	uint8_t psb_freq;       /* 27:24 */
	uint8_t addr_cfg[4];    /* ADDRn_CFG: 35:32, 39:36, 43:40, 47:44 */
};
uint64_t ptctl_build(const struct ptctl *c);
void ptctl_parse(uint64_t v, struct ptctl *c);

/* What CPUID leaf 14H says (subleaves 0 and 1). */
struct ptcaps {
	uint32_t max_subleaf;
	bool cr3_filter, psb_cyc, ip_filter, mtc, ptwrite, power_evt;
	bool topa, topa_multi, single_range, transport, lip;
	unsigned nranges;               /* 14H.1 EAX[2:0] */
	uint16_t mtc_periods;           /* 14H.1 EAX[31:16] */
	uint16_t cyc_thresholds;        /* 14H.1 EBX[15:0] */
	uint16_t psb_freqs;             /* 14H.1 EBX[31:16] */
};
void ptcaps_parse(struct ptcaps *c, uint32_t eax0, uint32_t ebx0, uint32_t ecx0,
		  uint32_t eax1, uint32_t ebx1);

/* Why a CTL value would #GP on this CPU (SDM 32.2.8.2: a bit for an absent
 * feature or a reserved encoding).  Returns NULL if acceptable, else the name
 * of the first offending field. */
const char *ptctl_check(uint64_t ctl, const struct ptcaps *caps);

/* IA32_RTIT_STATUS (SDM vol.3 32.2.8.3). */
struct ptstatus {
	bool filter_en, context_en, trigger_en, error, stopped, pend_psb, pend_topa_pmi;
	uint32_t packet_byte_cnt;       /* 48:32 */
};
void ptstatus_parse(uint64_t v, struct ptstatus *s);

#endif
