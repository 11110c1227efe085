/* QR Code encoder, byte mode: see qr.h.  Section numbers are ISO/IEC 18004:2015. */
#include "qr.h"

/* ---- tables (7.5.1, Table 9) --------------------------------------------- */

/* EC codewords per block, per level (L M Q H) and version 1..40. */
static const uint8_t ec_per_block[4][40] = {
	{ 7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28,
	  28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30 },
	{ 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26,
	  26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28 },
	{ 13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30,
	  28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30 },
	{ 17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28,
	  30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30 },
};

/* Error correction blocks (both groups together), per level and version. */
static const uint8_t ec_blocks[4][40] = {
	{ 1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8,
	  8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25 },
	{ 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16,
	  17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49 },
	{ 1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20,
	  23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68 },
	{ 1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25,
	  25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81 },
};

static bool version_ok(int v)
{
	return v >= QR_VERSION_MIN && v <= QR_VERSION_MAX;
}

static bool ecc_ok(int e)
{
	return e >= QR_ECC_L && e <= QR_ECC_H;
}

/* ---- GF(2^8) and Reed-Solomon (7.5.2) ------------------------------------ */

/* Multiplication modulo the primitive polynomial x^8+x^4+x^3+x^2+1 (0x11d). */
static uint8_t gf_mul(uint8_t a, uint8_t b)
{
	unsigned r = 0, x = a;
	for (; b; b >>= 1) {
		if (b & 1)
			r ^= x;
		x <<= 1;
		if (x & 0x100)
			x ^= 0x11d;
	}
	return (uint8_t)r;
}

/* g(x) = (x - a^0)(x - a^1)...(x - a^(n-1)), coefficients highest degree first,
 * the leading 1 left out: g[0] multiplies x^(n-1). */
static void rs_generator(int n, uint8_t g[30])
{
	for (int i = 0; i < n; i++)
		g[i] = 0;
	g[n - 1] = 1;                   /* g(x) = 1 */
	uint8_t root = 1;
	for (int i = 0; i < n; i++) {
		/* g(x) *= (x + root): shift up by one degree, add root * g */
		for (int j = 0; j < n; j++) {
			g[j] = gf_mul(g[j], root);
			if (j + 1 < n)
				g[j] ^= g[j + 1];
		}
		root = gf_mul(root, 2);
	}
}

void qr_rs_generator_log(int n, uint8_t out[30])
{
	uint8_t g[30];
	if (n < 1 || n > 30)
		return;
	rs_generator(n, g);
	for (int i = 0; i < n; i++) {
		uint8_t p = 1;
		int e = 0;
		while (p != g[i] && e < 255) {
			p = gf_mul(p, 2);
			e++;
		}
		out[i] = (uint8_t)e;
	}
}

/* The remainder of data(x) * x^n divided by g(x). */
void qr_rs_ecc(const uint8_t *data, int k, int n, uint8_t *ecc)
{
	uint8_t g[30];
	if (n < 1 || n > 30)
		return;
	rs_generator(n, g);
	for (int i = 0; i < n; i++)
		ecc[i] = 0;
	for (int i = 0; i < k; i++) {
		uint8_t f = data[i] ^ ecc[0];
		for (int j = 0; j + 1 < n; j++)
			ecc[j] = ecc[j + 1] ^ gf_mul(g[j], f);
		ecc[n - 1] = gf_mul(g[n - 1], f);
	}
}

/* ---- BCH codes (7.9, 7.10) ----------------------------------------------- */

/* value * x^(deg g) + remainder modulo g, over GF(2). */
static uint32_t bch(uint32_t value, uint32_t g, int gdeg)
{
	uint32_t r = value << gdeg;
	for (int b = 31; b >= gdeg; b--)
		if (r & (1u << b))
			r ^= g << (b - gdeg);
	return value << gdeg | r;
}

uint16_t qr_format_bits(enum qr_ecc ecc, int mask)
{
	static const uint8_t level_bits[4] = { 1, 0, 3, 2 };    /* L 01, M 00, Q 11, H 10 */
	if (!ecc_ok(ecc) || mask < 0 || mask > 7)
		return 0;
	/* generator x^10+x^8+x^5+x^4+x^2+x+1; the mask keeps the word non-zero */
	return (uint16_t)(bch((uint32_t)level_bits[ecc] << 3 | (uint32_t)mask, 0x537, 10) ^ 0x5412);
}

uint32_t qr_version_bits(int version)
{
	if (version < 7 || version > QR_VERSION_MAX)
		return 0;
	/* generator x^12+x^11+x^10+x^9+x^8+x^5+x^2+1 */
	return bch((uint32_t)version, 0x1f25, 12);
}

/* ---- the module matrix --------------------------------------------------- */

static bool get(const uint8_t *m, int size, int x, int y)
{
	int i = y * size + x;
	return m[i >> 3] >> (i & 7) & 1;
}

static void put(uint8_t *m, int size, int x, int y, bool v)
{
	int i = y * size + x;
	if (v)
		m[i >> 3] |= (uint8_t)(1u << (i & 7));
	else
		m[i >> 3] &= (uint8_t)~(1u << (i & 7));
}

/* A function module: set and marked, so data placement and masking skip it. */
static void fn(struct qr *q, int x, int y, bool dark)
{
	put(q->modules, q->size, x, y, dark);
	put(q->function, q->size, x, y, true);
}

bool qr_module(const struct qr *q, int x, int y)
{
	if (x < 0 || y < 0 || x >= q->size || y >= q->size)
		return false;
	return get(q->modules, q->size, x, y);
}

int qr_alignment(int version, uint8_t pos[7])
{
	if (!version_ok(version) || version == 1)
		return 0;
	/* Annex E: first at 6, last at size-7, the rest evenly spaced by an even
	 * step counted back from the last; version 32 is the one exception. */
	int n = version / 7 + 2, size = QR_SIZE(version);
	int step = version == 32 ? 26 : ((size - 13) + (2 * n - 2) - 1) / (2 * n - 2) * 2;
	pos[0] = 6;
	for (int i = n - 1, p = size - 7; i >= 1; i--, p -= step)
		pos[i] = (uint8_t)p;
	return n;
}

static void finder(struct qr *q, int cx, int cy)
{
	/* 7x7 finder with its 1-module light separator (6.3.3, 6.3.4) */
	for (int dy = -4; dy <= 4; dy++)
		for (int dx = -4; dx <= 4; dx++) {
			int x = cx + dx, y = cy + dy;
			if (x < 0 || y < 0 || x >= q->size || y >= q->size)
				continue;
			int d = dx < 0 ? -dx : dx, e = dy < 0 ? -dy : dy;
			int ring = d > e ? d : e;
			fn(q, x, y, ring != 2 && ring != 4);
		}
}

static void draw_format(struct qr *q, int mask)
{
	uint16_t f = qr_format_bits(q->ecc, mask);
	int s = q->size;
	/* 7.9.1, Figure 25: bit 0 is the least significant */
	for (int i = 0; i <= 5; i++)
		fn(q, 8, i, f >> i & 1);
	fn(q, 8, 7, f >> 6 & 1);
	fn(q, 8, 8, f >> 7 & 1);
	fn(q, 7, 8, f >> 8 & 1);
	for (int i = 9; i < 15; i++)
		fn(q, 14 - i, 8, f >> i & 1);
	for (int i = 0; i < 8; i++)
		fn(q, s - 1 - i, 8, f >> i & 1);
	for (int i = 8; i < 15; i++)
		fn(q, 8, s - 15 + i, f >> i & 1);
	fn(q, 8, s - 8, true);          /* the dark module */
}

static void function_patterns(struct qr *q)
{
	int s = q->size;
	for (int i = 0; i < QR_BITMAP_BYTES; i++)
		q->modules[i] = q->function[i] = 0;
	/* timing patterns (6.3.5), then the finders over their ends */
	for (int i = 0; i < s; i++) {
		fn(q, 6, i, i % 2 == 0);
		fn(q, i, 6, i % 2 == 0);
	}
	finder(q, 3, 3);
	finder(q, s - 4, 3);
	finder(q, 3, s - 4);
	/* alignment patterns (6.3.6), except where they would overlap a finder */
	uint8_t pos[7];
	int n = qr_alignment(q->version, pos);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			if ((i == 0 && j == 0) || (i == 0 && j == n - 1) || (i == n - 1 && j == 0))
				continue;
			for (int dy = -2; dy <= 2; dy++)
				for (int dx = -2; dx <= 2; dx++) {
					int d = dx < 0 ? -dx : dx, e = dy < 0 ? -dy : dy;
					fn(q, pos[i] + dx, pos[j] + dy, (d > e ? d : e) != 1);
				}
		}
	/* format information area, reserved now, written per mask */
	draw_format(q, 0);
	/* version information (7.10): two 6x3 blocks, bit 0 least significant */
	uint32_t v = qr_version_bits(q->version);
	if (v)
		for (int i = 0; i < 18; i++) {
			int a = s - 11 + i % 3, b = i / 3;
			fn(q, a, b, v >> i & 1);
			fn(q, b, a, v >> i & 1);
		}
}

int qr_total_codewords(int version)
{
	if (!version_ok(version))
		return 0;
	/* all modules less the function patterns, in whole codewords (7.4.10
	 * remainder bits are what is left over) */
	int s = QR_SIZE(version), n = s * s;
	n -= 3 * 64;                            /* finders with separators */
	n -= 2 * (s - 16);                      /* timing, between the separators */
	n -= 31;                                /* format information and the dark module */
	uint8_t pos[7];
	int a = qr_alignment(version, pos);
	if (a) {
		n -= 25 * (a * a - 3);
		n += 2 * 5 * (a - 2);           /* alignment patterns crossing the timing lines */
	}
	if (version >= 7)
		n -= 36;
	return n / 8;
}

int qr_ec_per_block(int version, enum qr_ecc ecc)
{
	return version_ok(version) && ecc_ok(ecc) ? ec_per_block[ecc][version - 1] : 0;
}

int qr_ec_blocks(int version, enum qr_ecc ecc)
{
	return version_ok(version) && ecc_ok(ecc) ? ec_blocks[ecc][version - 1] : 0;
}

int qr_data_codewords(int version, enum qr_ecc ecc)
{
	if (!version_ok(version) || !ecc_ok(ecc))
		return 0;
	return qr_total_codewords(version) - qr_ec_per_block(version, ecc) * qr_ec_blocks(version, ecc);
}

static int count_bits(int version)
{
	return version <= 9 ? 8 : 16;   /* byte mode character count indicator (Table 3) */
}

size_t qr_capacity(int version, enum qr_ecc ecc, bool sa)
{
	if (!version_ok(version) || !ecc_ok(ecc))
		return 0;
	int bits = qr_data_codewords(version, ecc) * 8 - 4 - count_bits(version) - (sa ? 20 : 0);
	size_t n = bits > 0 ? (size_t)bits / 8 : 0;
	size_t limit = version <= 9 ? 255 : 65535;
	return n < limit ? n : limit;
}

uint8_t qr_parity(const uint8_t *data, size_t len)
{
	uint8_t p = 0;
	for (size_t i = 0; i < len; i++)
		p ^= data[i];
	return p;
}

/* ---- the bit stream (7.4) ------------------------------------------------ */

struct bits {
	uint8_t *p;
	int n, cap;             /* in bits */
};

static void add(struct bits *b, uint32_t v, int n)
{
	for (int i = n - 1; i >= 0 && b->n < b->cap; i--, b->n++) {
		if (b->n % 8 == 0)
			b->p[b->n / 8] = 0;
		if (v >> i & 1)
			b->p[b->n / 8] |= (uint8_t)(0x80 >> b->n % 8);
	}
}

static void stream(struct qr *q, const uint8_t *data, size_t len, const struct qr_sa *sa)
{
	int ndata = qr_data_codewords(q->version, q->ecc);
	struct bits b = { q->data, 0, ndata * 8 };
	if (sa) {
		add(&b, 3, 4);                          /* mode 0011: structured append */
		add(&b, (uint32_t)sa->index, 4);
		add(&b, (uint32_t)(sa->count - 1), 4);
		add(&b, sa->parity, 8);
	}
	add(&b, 4, 4);                                  /* mode 0100: byte */
	add(&b, (uint32_t)len, count_bits(q->version));
	for (size_t i = 0; i < len; i++)
		add(&b, data[i], 8);
	int term = b.cap - b.n < 4 ? b.cap - b.n : 4;   /* terminator, maybe short */
	add(&b, 0, term);
	add(&b, 0, (8 - b.n % 8) % 8);
	for (int i = 0; b.n < b.cap; i++)               /* pad codewords (7.4.10) */
		add(&b, i % 2 ? 0x11 : 0xec, 8);
}

/* Splits the data codewords into blocks, computes each block's EC codewords
 * and interleaves both (7.6): data codeword i of every block in turn, then EC
 * codeword i of every block in turn.  The short blocks come first. */
static void interleave(struct qr *q)
{
	int total = qr_total_codewords(q->version), nb = qr_ec_blocks(q->version, q->ecc);
	int ec = qr_ec_per_block(q->version, q->ecc), ndata = total - nb * ec;
	int short_len = ndata / nb, nlong = ndata % nb, nshort = nb - nlong;
	const uint8_t *d = q->data;
	for (int b = 0; b < nb; b++) {
		int k = short_len + (b >= nshort);
		for (int i = 0; i < k; i++)
			q->codewords[i < short_len ? i * nb + b : short_len * nb + (b - nshort)] = d[i];
		uint8_t e[30];
		qr_rs_ecc(d, k, ec, e);
		for (int i = 0; i < ec; i++)
			q->codewords[ndata + i * nb + b] = e[i];
		d += k;
	}
}

/* 7.7.3: two-module columns from the right, upwards then downwards, skipping
 * the vertical timing pattern; remainder modules stay light. */
static void place(struct qr *q)
{
	int s = q->size, total = qr_total_codewords(q->version) * 8, i = 0;
	for (int right = s - 1; right >= 1; right -= 2) {
		if (right == 6)
			right = 5;
		bool up = ((s - 1 - right) / 2) % 2 == 0;
		if (right < 6)
			up = ((s - 2 - right) / 2) % 2 == 0;
		for (int k = 0; k < s; k++) {
			int y = up ? s - 1 - k : k;
			for (int dx = 0; dx < 2; dx++) {
				int x = right - dx;
				if (get(q->function, s, x, y))
					continue;
				bool bit = i < total && (q->codewords[i / 8] >> (7 - i % 8) & 1);
				put(q->modules, s, x, y, bit);
				i++;
			}
		}
	}
}

/* 7.8.2, Table 10: i is the row, j the column. */
static bool mask_bit(int mask, int i, int j)
{
	switch (mask) {
	case 0: return (i + j) % 2 == 0;
	case 1: return i % 2 == 0;
	case 2: return j % 3 == 0;
	case 3: return (i + j) % 3 == 0;
	case 4: return (i / 2 + j / 3) % 2 == 0;
	case 5: return (i * j) % 2 + (i * j) % 3 == 0;
	case 6: return ((i * j) % 2 + (i * j) % 3) % 2 == 0;
	default: return ((i + j) % 2 + (i * j) % 3) % 2 == 0;
	}
}

static void apply_mask(struct qr *q, int mask)
{
	int s = q->size;
	for (int y = 0; y < s; y++)
		for (int x = 0; x < s; x++)
			if (!get(q->function, s, x, y) && mask_bit(mask, y, x))
				put(q->modules, s, x, y, !get(q->modules, s, x, y));
}

/* ---- penalty (7.8.3, Table 11) ------------------------------------------- */

/* One row (dir 0) or column (dir 1), as dark bits. */
static bool at(const struct qr *q, int dir, int line, int k)
{
	return dir ? get(q->modules, q->size, line, k) : get(q->modules, q->size, k, line);
}

long qr_penalty(const struct qr *q)
{
	int s = q->size;
	long score = 0;
	for (int dir = 0; dir < 2; dir++)
		for (int line = 0; line < s; line++) {
			/* N1: a run of 5 + i modules of one colour scores 3 + i */
			int run = 1;
			for (int k = 1; k <= s; k++) {
				if (k < s && at(q, dir, line, k) == at(q, dir, line, k - 1)) {
					run++;
					continue;
				}
				if (run >= 5)
					score += 3 + (run - 5);
				run = 1;
			}
			/* N3: 1:1:3:1:1 (dark light dark dark dark light dark) with four
			 * light modules on one side, inside the symbol: 40 each */
			uint32_t w = 0;
			for (int k = 0; k < s; k++) {
				w = (w << 1 | at(q, dir, line, k)) & 0x7ff;
				if (k >= 10 && (w == 0x5d0 || w == 0x05d))
					score += 40;
			}
		}
	/* N2: every 2x2 block of one colour scores 3 */
	for (int y = 0; y + 1 < s; y++)
		for (int x = 0; x + 1 < s; x++) {
			bool c = get(q->modules, s, x, y);
			if (get(q->modules, s, x + 1, y) == c && get(q->modules, s, x, y + 1) == c &&
			    get(q->modules, s, x + 1, y + 1) == c)
				score += 3;
		}
	/* N4: 10 for every full 5% the dark share is away from 50% */
	long dark = 0, total = (long)s * s;
	for (int y = 0; y < s; y++)
		for (int x = 0; x < s; x++)
			dark += get(q->modules, s, x, y);
	long dev = dark * 100 / total - 50;
	if (dark * 100 % total && dev < 0)
		dev++;                          /* truncate toward 50 on both sides */
	score += (dev < 0 ? -dev : dev) / 5 * 10;
	return score;
}

/* ---- encoding ------------------------------------------------------------ */

int qr_encode(struct qr *q, const uint8_t *data, size_t len, enum qr_ecc ecc, int vmin, int vmax,
	      int mask, const struct qr_sa *sa)
{
	if (!ecc_ok(ecc) || mask < -1 || mask > 7 || vmin < QR_VERSION_MIN || vmax > QR_VERSION_MAX ||
	    vmin > vmax || (len && !data))
		return 0;
	if (sa && (sa->count < 2 || sa->count > QR_SA_MAX || sa->index < 0 || sa->index >= sa->count))
		return 0;
	int v = vmin;
	while (v <= vmax && qr_capacity(v, ecc, sa) < len)
		v++;
	if (v > vmax)
		return 0;
	q->version = v;
	q->ecc = ecc;
	q->size = QR_SIZE(v);
	stream(q, data, len, sa);
	interleave(q);
	function_patterns(q);
	place(q);
	if (mask < 0) {
		long best = -1;
		for (int m = 0; m < 8; m++) {
			apply_mask(q, m);
			draw_format(q, m);
			long p = qr_penalty(q);
			if (best < 0 || p < best) {
				best = p;
				mask = m;
			}
			apply_mask(q, m);       /* XOR again: undone */
		}
	}
	q->mask = mask;
	apply_mask(q, mask);
	draw_format(q, mask);
	return v;
}
