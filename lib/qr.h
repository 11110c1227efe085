/* QR Code encoder (ISO/IEC 18004:2015), byte mode only, for the hardware report
 * on the final screen.  Freestanding, no allocation: the caller owns a struct
 * qr (about 15 KB) and gets a module matrix back.
 *
 *   struct qr q;
 *   if (qr_encode(&q, data, len, QR_ECC_M, 1, 40, -1, 0) > 0)
 *           for (y ...) for (x ...) dark = qr_module(&q, x, y);
 *
 * Everything the symbol needs is here: byte-mode bit stream with terminator and
 * pad codewords (7.4), Reed-Solomon error correction over GF(2^8) with the
 * primitive polynomial x^8+x^4+x^3+x^2+1 and block interleaving (7.5, 7.6),
 * function patterns (6.3), codeword placement (7.7.3), the eight data masks
 * chosen by the penalty rules (7.8), format information BCH(15,5) (7.9) and
 * version information BCH(18,6) for versions 7-40 (7.10), and the structured
 * append header (8) for a message spread over up to 16 symbols. */
#ifndef LIB_QR_H
#define LIB_QR_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum qr_ecc { QR_ECC_L, QR_ECC_M, QR_ECC_Q, QR_ECC_H };

#define QR_VERSION_MIN 1
#define QR_VERSION_MAX 40
#define QR_SIZE(v) (4 * (v) + 17)               /* modules per side */
#define QR_QUIET 4                              /* quiet zone, modules per side (6.3.8) */
#define QR_MAX_SIZE QR_SIZE(QR_VERSION_MAX)     /* 177 */
#define QR_MAX_CODEWORDS 3706                   /* version 40 */
#define QR_BITMAP_BYTES ((QR_MAX_SIZE * QR_MAX_SIZE + 7) / 8)
#define QR_SA_MAX 16                            /* symbols in a structured append */

struct qr {
	int version;            /* 1..40 */
	int ecc;                /* enum qr_ecc */
	int mask;               /* 0..7 */
	int size;               /* QR_SIZE(version) */
	uint8_t modules[QR_BITMAP_BYTES];       /* 1 = dark, row-major bits */
	uint8_t function[QR_BITMAP_BYTES];      /* 1 = function pattern (not masked) */
	uint8_t data[QR_MAX_CODEWORDS];         /* data codewords, in order */
	uint8_t codewords[QR_MAX_CODEWORDS];    /* interleaved data + EC */
};

/* Structured append (8): this symbol's position (0-based), the number of
 * symbols (2..16) and the parity, the XOR of every byte of the whole message. */
struct qr_sa {
	int index, count;
	uint8_t parity;
};

/* Encodes len bytes in byte mode into the smallest version in [vmin, vmax] that
 * holds them at level ecc.  mask: 0..7, or -1 for the one with the lowest
 * penalty.  sa: 0, or the structured append header to put first.  Returns the
 * version, or 0 when the data does not fit (or an argument is out of range). */
int qr_encode(struct qr *q, const uint8_t *data, size_t len, enum qr_ecc ecc, int vmin, int vmax,
	      int mask, const struct qr_sa *sa);
/* 1 for a dark module; 0 outside the symbol (the quiet zone is light). */
bool qr_module(const struct qr *q, int x, int y);

/* The most bytes one symbol of this version and level holds in byte mode (with
 * the 20-bit structured append header when sa); 0 for a bad argument. */
size_t qr_capacity(int version, enum qr_ecc ecc, bool sa);
/* XOR of the bytes: the structured append parity of a whole message. */
uint8_t qr_parity(const uint8_t *data, size_t len);

/* The pieces, exposed for the tests against the specification's tables. */
/* Data codewords and EC codewords per block; blocks in total (7.5.1, Table 9). */
int qr_total_codewords(int version);
int qr_ec_per_block(int version, enum qr_ecc ecc);
int qr_ec_blocks(int version, enum qr_ecc ecc);
int qr_data_codewords(int version, enum qr_ecc ecc);
/* Alignment pattern centre coordinates (Annex E); returns how many, <= 7. */
int qr_alignment(int version, uint8_t pos[7]);
/* The 15-bit format information, BCH-coded and masked with 0x5412 (7.9). */
uint16_t qr_format_bits(enum qr_ecc ecc, int mask);
/* The 18-bit version information, BCH-coded (7.10, Annex D); 0 below version 7. */
uint32_t qr_version_bits(int version);
/* The n-degree Reed-Solomon generator polynomial, coefficients as exponents of
 * alpha, highest degree first without the leading x^n term (Annex A). */
void qr_rs_generator_log(int n, uint8_t out[30]);
/* The n EC codewords of k data codewords. */
void qr_rs_ecc(const uint8_t *data, int k, int n, uint8_t *ecc);
/* The penalty score of the current matrix (7.8.3). */
long qr_penalty(const struct qr *q);

#endif
