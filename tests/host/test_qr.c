/* lib/qr.c against ISO/IEC 18004:2015: its tables (Table 9 codeword counts,
 * Annex A generator polynomials, Annex C format information, Annex D version
 * information, Annex E alignment positions), its worked examples' Reed-Solomon
 * codewords, and a reader written here from the standard (unmask, read the
 * codewords in placement order, de-interleave, check every block's syndromes,
 * parse the segments).  tests/qr-zbar.sh reads the same symbols with zbar. */
#include <stdlib.h>
#include <string.h>
#include "qr.h"
#include "tl_test.h"

static struct qr q;

TEST(qr_total_codewords_table9)
{
	static const int total[40] = {
		26, 44, 70, 100, 134, 172, 196, 242, 292, 346, 404, 466, 532, 581, 655, 733,
		815, 901, 991, 1085, 1156, 1258, 1364, 1474, 1588, 1706, 1828, 1921, 2051, 2185,
		2323, 2465, 2611, 2761, 2876, 3034, 3196, 3362, 3532, 3706,
	};
	for (int v = 1; v <= 40; v++)
		if (!CHECK_EQ(qr_total_codewords(v), total[v - 1]))
			printf("#   version %d\n", v);
	CHECK_EQ(qr_total_codewords(0), 0);
	CHECK_EQ(qr_total_codewords(41), 0);
}

TEST(qr_data_codewords_and_capacity)
{
	/* Table 7 (data codewords) and its byte-mode capacities */
	CHECK_EQ(qr_data_codewords(1, QR_ECC_L), 19);
	CHECK_EQ(qr_data_codewords(1, QR_ECC_M), 16);
	CHECK_EQ(qr_data_codewords(1, QR_ECC_Q), 13);
	CHECK_EQ(qr_data_codewords(1, QR_ECC_H), 9);
	CHECK_EQ(qr_data_codewords(5, QR_ECC_Q), 62);
	CHECK_EQ(qr_data_codewords(10, QR_ECC_M), 216);
	CHECK_EQ(qr_data_codewords(40, QR_ECC_L), 2956);
	CHECK_EQ(qr_data_codewords(40, QR_ECC_M), 2334);
	CHECK_EQ(qr_data_codewords(40, QR_ECC_Q), 1666);
	CHECK_EQ(qr_data_codewords(40, QR_ECC_H), 1276);
	CHECK_EQ(qr_capacity(1, QR_ECC_L, false), 17);
	CHECK_EQ(qr_capacity(1, QR_ECC_H, false), 7);
	CHECK_EQ(qr_capacity(9, QR_ECC_L, false), 230);
	CHECK_EQ(qr_capacity(10, QR_ECC_M, false), 213);
	CHECK_EQ(qr_capacity(40, QR_ECC_L, false), 2953);
	CHECK_EQ(qr_capacity(40, QR_ECC_H, false), 1273);
	CHECK_EQ(qr_capacity(40, QR_ECC_L, true), 2951);
	/* every block is a Reed-Solomon code over GF(256): at most 255 codewords, and
	 * the EC codewords leave room for data */
	for (int v = 1; v <= 40; v++)
		for (int e = 0; e < 4; e++) {
			int nb = qr_ec_blocks(v, e), ec = qr_ec_per_block(v, e);
			int ndata = qr_data_codewords(v, e);
			CHECK(nb >= 1 && ec >= 7 && ec <= 30 && ndata / nb >= 1);
			CHECK(ndata / nb + (ndata % nb != 0) + ec <= 255);
			CHECK(qr_capacity(v, e, false) >= qr_capacity(v - 1 ? v - 1 : 1, e, false));
		}
}

TEST(qr_alignment_annex_e)
{
	uint8_t p[7];
	CHECK_EQ(qr_alignment(1, p), 0);
	static const struct { int v, n; uint8_t pos[7]; } t[] = {
		{ 2, 2, { 6, 18 } }, { 6, 2, { 6, 34 } }, { 7, 3, { 6, 22, 38 } },
		{ 14, 4, { 6, 26, 46, 66 } }, { 15, 4, { 6, 26, 48, 70 } },
		{ 22, 5, { 6, 26, 50, 74, 98 } }, { 32, 6, { 6, 34, 60, 86, 112, 138 } },
		{ 36, 7, { 6, 24, 50, 76, 102, 128, 154 } }, { 39, 7, { 6, 26, 54, 82, 110, 138, 166 } },
		{ 40, 7, { 6, 30, 58, 86, 114, 142, 170 } },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		int n = qr_alignment(t[i].v, p);
		CHECK_EQ(n, t[i].n);
		if (n == t[i].n && !CHECK(!memcmp(p, t[i].pos, (size_t)n)))
			printf("#   version %d\n", t[i].v);
	}
}

TEST(qr_format_information_annex_c)
{
	/* all 32 masked format words, L M Q H x masks 0..7 (Table C.1) */
	static const uint16_t t[4][8] = {
		{ 0x77c4, 0x72f3, 0x7daa, 0x789d, 0x662f, 0x6318, 0x6c41, 0x6976 },
		{ 0x5412, 0x5125, 0x5e7c, 0x5b4b, 0x45f9, 0x40ce, 0x4f97, 0x4aa0 },
		{ 0x355f, 0x3068, 0x3f31, 0x3a06, 0x24b4, 0x2183, 0x2eda, 0x2bed },
		{ 0x1689, 0x13be, 0x1ce7, 0x19d0, 0x0762, 0x0255, 0x0d0c, 0x083b },
	};
	for (int e = 0; e < 4; e++)
		for (int m = 0; m < 8; m++)
			CHECK_EQ(qr_format_bits(e, m), t[e][m]);
	/* the worked example of 7.9.1: level M, mask 101 -> 100000011001110 */
	CHECK_EQ(qr_format_bits(QR_ECC_M, 5), 0x40ce);
}

TEST(qr_version_information_annex_d)
{
	static const uint32_t t[34] = {
		0x07c94, 0x085bc, 0x09a99, 0x0a4d3, 0x0bbf6, 0x0c762, 0x0d847, 0x0e60d, 0x0f928,
		0x10b78, 0x1145d, 0x12a17, 0x13532, 0x149a6, 0x15683, 0x168c9, 0x177ec, 0x18ec4,
		0x191e1, 0x1afab, 0x1b08e, 0x1cc1a, 0x1d33f, 0x1ed75, 0x1f250, 0x209d5, 0x216f0,
		0x228ba, 0x2379f, 0x24b0b, 0x2542e, 0x26a64, 0x27541, 0x28c69,
	};
	for (int v = 7; v <= 40; v++)
		if (!CHECK_EQ(qr_version_bits(v), t[v - 7]))
			printf("#   version %d\n", v);
	CHECK_EQ(qr_version_bits(6), 0);
}

TEST(qr_rs_generators_annex_a)
{
	uint8_t g[30];
	static const uint8_t g7[] = { 87, 229, 146, 149, 238, 102, 21 };
	static const uint8_t g10[] = { 251, 67, 46, 61, 118, 70, 64, 94, 32, 45 };
	static const uint8_t g13[] = { 74, 152, 176, 100, 86, 100, 106, 104, 130, 218, 206, 140, 78 };
	qr_rs_generator_log(7, g);
	CHECK(!memcmp(g, g7, sizeof g7));
	qr_rs_generator_log(10, g);
	CHECK(!memcmp(g, g10, sizeof g10));
	qr_rs_generator_log(13, g);
	CHECK(!memcmp(g, g13, sizeof g13));
}

TEST(qr_rs_worked_examples)
{
	/* "01234567", version 1-M (the standard's Annex I example): 16 data codewords */
	static const uint8_t d1[16] = { 0x10, 0x20, 0x0c, 0x56, 0x61, 0x80, 0xec, 0x11,
					0xec, 0x11, 0xec, 0x11, 0xec, 0x11, 0xec, 0x11 };
	static const uint8_t e1[10] = { 0xa5, 0x24, 0xd4, 0xc1, 0xed, 0x36, 0xc7, 0x87, 0x2c, 0x55 };
	/* "HELLO WORLD", version 1-M, alphanumeric */
	static const uint8_t d2[16] = { 0x20, 0x5b, 0x0b, 0x78, 0xd1, 0x72, 0xdc, 0x4d,
					0x43, 0x40, 0xec, 0x11, 0xec, 0x11, 0xec, 0x11 };
	static const uint8_t e2[10] = { 0xc4, 0x23, 0x27, 0x77, 0xeb, 0xd7, 0xe7, 0xe2, 0x5d, 0x17 };
	uint8_t e[30];
	qr_rs_ecc(d1, 16, 10, e);
	CHECK(!memcmp(e, e1, 10));
	qr_rs_ecc(d2, 16, 10, e);
	CHECK(!memcmp(e, e2, 10));
}

/* ---- a reader, from the standard ----------------------------------------- */

static bool mod(int x, int y)
{
	return qr_module(&q, x, y);
}

static int read_format(int copy)
{
	int s = q.size, f = 0;
	for (int i = 0; i < 15; i++) {
		int x, y;
		if (copy == 0) {
			if (i <= 5) x = 8, y = i;
			else if (i == 6) x = 8, y = 7;
			else if (i == 7) x = 8, y = 8;
			else if (i == 8) x = 7, y = 8;
			else x = 14 - i, y = 8;
		} else {
			if (i < 8) x = s - 1 - i, y = 8;
			else x = 8, y = s - 15 + i;
		}
		f |= mod(x, y) << i;
	}
	return f;
}

static bool is_function(int v, int x, int y)
{
	int s = QR_SIZE(v);
	if ((x < 9 && y < 9) || (x >= s - 8 && y < 9) || (x < 9 && y >= s - 8))
		return true;            /* finders, separators, format information */
	if (x == 6 || y == 6)
		return true;
	if (v >= 7 && ((x >= s - 11 && y < 6) || (y >= s - 11 && x < 6)))
		return true;
	uint8_t p[7];
	int n = qr_alignment(v, p);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			if ((i == 0 && j == 0) || (i == 0 && j == n - 1) || (i == n - 1 && j == 0))
				continue;
			if (abs(x - p[i]) <= 2 && abs(y - p[j]) <= 2)
				return true;
		}
	return false;
}

static bool masked(int m, int i, int j)
{
	switch (m) {
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

static uint8_t gmul(uint8_t a, uint8_t b)
{
	uint8_t r = 0;
	while (b) {
		if (b & 1)
			r ^= a;
		a = (uint8_t)(a << 1 ^ (a & 0x80 ? 0x1d : 0));
		b >>= 1;
	}
	return r;
}

static uint32_t take(const uint8_t *d, int *p, int n)
{
	uint32_t v = 0;
	for (int i = 0; i < n; i++, (*p)++)
		v = v << 1 | (d[*p / 8] >> (7 - *p % 8) & 1);
	return v;
}

/* Reads the symbol in q back: returns the payload length or -1; *sa_hdr gets
 * the structured append header (or -1). */
static int reread(uint8_t *out, size_t cap, long *sa_hdr)
{
	int v = q.version, s = q.size;
	CHECK_EQ(s, QR_SIZE(v));
	/* finder centres dark, dark module set, timing alternates */
	CHECK(mod(3, 3) && mod(s - 4, 3) && mod(3, s - 4) && mod(8, s - 8));
	for (int i = 8; i < s - 8; i++)
		if (!CHECK_EQ(mod(6, i), i % 2 == 0) || !CHECK_EQ(mod(i, 6), i % 2 == 0))
			break;
	/* both format copies, both version copies */
	int f0 = read_format(0), f1 = read_format(1);
	CHECK_EQ(f0, f1);
	int ecc = -1, mask = -1;
	for (int e = 0; e < 4; e++)
		for (int m = 0; m < 8; m++)
			if (qr_format_bits(e, m) == f0)
				ecc = e, mask = m;
	CHECK_EQ(ecc, q.ecc);
	CHECK_EQ(mask, q.mask);
	if (v >= 7) {
		uint32_t a = 0, b = 0;
		for (int i = 0; i < 18; i++) {
			a |= (uint32_t)mod(s - 11 + i % 3, i / 3) << i;
			b |= (uint32_t)mod(i / 3, s - 11 + i % 3) << i;
		}
		CHECK_EQ(a, qr_version_bits(v));
		CHECK_EQ(b, qr_version_bits(v));
	}
	if (ecc < 0)
		return -1;
	/* codewords in placement order */
	static uint8_t cw[QR_MAX_CODEWORDS];
	memset(cw, 0, sizeof cw);
	int total = qr_total_codewords(v), bit = 0;
	for (int right = s - 1; right > 0; right -= 2) {
		if (right == 6)
			right--;
		int pair = right > 6 ? (s - 1 - right) / 2 : (s - 2 - right) / 2;
		for (int k = 0; k < s; k++) {
			int y = pair % 2 == 0 ? s - 1 - k : k;
			for (int x = right; x > right - 2; x--) {
				if (is_function(v, x, y))
					continue;
				bool b = mod(x, y) ^ masked(mask, y, x);
				if (bit < total * 8) {
					if (b)
						cw[bit / 8] |= (uint8_t)(0x80 >> bit % 8);
				} else {
					CHECK(!b);      /* remainder bits are 0 */
				}
				bit++;
			}
		}
	}
	CHECK(bit >= total * 8 && bit - total * 8 < 8);
	/* de-interleave and check the syndromes of every block */
	int nb = qr_ec_blocks(v, ecc), ec = qr_ec_per_block(v, ecc), nd = total - nb * ec;
	int sl = nd / nb, nshort = nb - nd % nb;
	static uint8_t data[QR_MAX_CODEWORDS];
	int dpos = 0;
	for (int b = 0; b < nb; b++) {
		uint8_t blk[256];
		int k = sl + (b >= nshort);
		for (int i = 0; i < k; i++)
			blk[i] = cw[i < sl ? i * nb + b : sl * nb + (b - nshort)];
		for (int i = 0; i < ec; i++)
			blk[k + i] = cw[nd + i * nb + b];
		memcpy(data + dpos, blk, (size_t)k);
		dpos += k;
		uint8_t x = 1;
		for (int r = 0; r < ec; r++) {          /* S_r = c(alpha^r) must be 0 */
			uint8_t syn = 0;
			for (int i = 0; i < k + ec; i++)
				syn = gmul(syn, x) ^ blk[i];
			if (!CHECK_EQ(syn, 0))
				return -1;
			x = gmul(x, 2);
		}
	}
	/* segments */
	int p = 0;
#define TAKE(n) take(data, &p, n)
	*sa_hdr = -1;
	uint32_t m = TAKE(4);
	if (m == 3) {
		*sa_hdr = TAKE(16);
		m = TAKE(4);
	}
	if (!CHECK_EQ(m, 4))
		return -1;
	uint32_t n = TAKE(v <= 9 ? 8 : 16);
	if (n > cap)
		return -1;
	for (uint32_t i = 0; i < n; i++)
		out[i] = (uint8_t)TAKE(8);
	if (p + 4 <= nd * 8)
		CHECK_EQ(TAKE(4), 0);
	/* pad codewords alternate EC 11 after the byte boundary */
	int first = (p + 7) / 8;
	for (int i = first; i < nd; i++)
		CHECK_EQ(data[i], (i - first) % 2 ? 0x11 : 0xec);
#undef TAKE
	return (int)n;
}

static uint32_t rng = 12345;
static uint8_t rnd(void)
{
	rng = rng * 1103515245 + 12345;
	return (uint8_t)(rng >> 16);
}

TEST(qr_encode_every_version_and_level_reads_back)
{
	static uint8_t in[3000], out[3000];
	for (int v = 1; v <= 40; v++)
		for (int e = 0; e < 4; e++) {
			size_t n = qr_capacity(v, e, false);
			for (size_t i = 0; i < n; i++)
				in[i] = rnd();
			int got = qr_encode(&q, in, n, e, 1, 40, -1, 0);
			if (!CHECK_EQ(got, v)) {
				printf("#   version %d level %d: %zu bytes\n", v, e, n);
				continue;
			}
			long sa;
			int r = reread(out, sizeof out, &sa);
			if (!CHECK_EQ(r, (int)n) || !CHECK(!memcmp(in, out, n)))
				printf("#   version %d level %d\n", v, e);
			CHECK_EQ(sa, -1);
			/* one byte more needs the next version */
			if (v < 40)
				CHECK_EQ(qr_encode(&q, in, n + 1, e, 1, 40, -1, 0), v + 1);
		}
	CHECK_EQ(qr_encode(&q, in, 2954, QR_ECC_L, 1, 40, -1, 0), 0);
}

TEST(qr_every_mask_and_structured_append)
{
	static const char msg[] = "# ---- tracelab hardware report v1: copy from here ----\n";
	uint8_t out[256];
	for (int m = 0; m < 8; m++) {
		struct qr_sa sa = { m % 3, 3, qr_parity((const uint8_t *)msg, sizeof msg - 1) };
		CHECK_EQ(qr_encode(&q, (const uint8_t *)msg, sizeof msg - 1, QR_ECC_Q, 1, 40, m, &sa), 5);
		CHECK_EQ(q.mask, m);
		long hdr;
		int r = reread(out, sizeof out, &hdr);
		CHECK(r == (int)sizeof msg - 1 && !memcmp(out, msg, sizeof msg - 1));
		CHECK_EQ(hdr, (long)((m % 3) << 12 | 2 << 8 | sa.parity));
	}
	/* the penalty picks the mask: the automatic choice scores no more than any */
	CHECK(qr_encode(&q, (const uint8_t *)msg, sizeof msg - 1, QR_ECC_M, 1, 40, -1, 0));
	long best = qr_penalty(&q);
	int chosen = q.mask;
	for (int m = 0; m < 8; m++) {
		qr_encode(&q, (const uint8_t *)msg, sizeof msg - 1, QR_ECC_M, 1, 40, m, 0);
		CHECK(qr_penalty(&q) >= best || m == chosen);
	}
	/* bad arguments */
	struct qr_sa bad = { 3, 3, 0 };
	CHECK_EQ(qr_encode(&q, (const uint8_t *)msg, 4, QR_ECC_M, 1, 40, -1, &bad), 0);
	CHECK_EQ(qr_encode(&q, (const uint8_t *)msg, 4, QR_ECC_M, 1, 40, 8, 0), 0);
	CHECK_EQ(qr_encode(&q, (const uint8_t *)msg, 4, QR_ECC_M, 5, 4, -1, 0), 0);
	CHECK_EQ(qr_encode(&q, (const uint8_t *)msg, 4, 4, 1, 40, -1, 0), 0);
	CHECK_EQ(qr_encode(&q, (const uint8_t *)msg, 0, QR_ECC_H, 1, 1, -1, 0), 1);
}

TEST(qr_penalty_rules)
{
	/* an all-light 21x21 matrix: N1 3+16 per row and column, N2 3 per 2x2 block,
	 * no N3 (needs dark), N4 50% away -> 100 */
	memset(&q, 0, sizeof q);
	q.version = 1;
	q.size = 21;
	CHECK_EQ(qr_penalty(&q), 42 * 19 + 400 * 3 + 100);
}

/* ---- lib/qrlayout.c: where the codes go ----------------------------------- */
#include "qrlayout.h"

/* The final screen: a header, two lines of failures across the width, the
 * block (lines of about 60-72 columns), at a framebuffer size and glyph scale. */
static void screen_area(struct qr_area *a, uint32_t w, uint32_t h, uint32_t scale, size_t len)
{
	memset(a, 0, sizeof *a);
	a->cell_w = 8 * scale;
	a->cell_h = 16 * scale;
	a->rows = h / a->cell_h - 1;            /* the status bar is not ours */
	a->width = w / a->cell_w * a->cell_w;
	a->height = a->rows * a->cell_h;
	uint32_t cols = w / a->cell_w;
	static const uint16_t block[] = { 72, 72, 60, 34, 72, 70, 60, 62, 72, 72, 40, 30, 64, 54, 50, 55, 50, 55, 47 };
	a->row_end[0] = (uint16_t)(cols < 72 ? cols : 72);
	a->row_end[1] = (uint16_t)cols;
	for (size_t i = 0; i < sizeof block / sizeof block[0] && i + 2 < a->rows; i++)
		a->row_end[i + 2] = block[i] < cols ? block[i] : (uint16_t)cols;
	a->len = len;
	a->min_scale = 2;
	a->max_scale = 8;
}

static bool overlaps_text(const struct qr_area *a, const struct qr_plan *p)
{
	for (int i = 0; i < p->count; i++)
		for (uint32_t r = 0; r < a->rows; r++) {
			uint32_t y0 = r * a->cell_h;
			if (y0 + a->cell_h > p->y[i] && y0 < p->y[i] + p->side &&
			    a->row_end[r] * a->cell_w > p->x[i])
				return true;
		}
	return false;
}

TEST(qr_layout_screen_sizes)
{
	static const struct { uint32_t w, h, scale; size_t len; int fits; } t[] = {
		{ 640, 480, 1, 2200, 0 },       /* no room at 2 px per module: text only */
		{ 800, 600, 1, 2200, 1 },
		{ 1024, 768, 1, 2200, 1 },
		{ 1280, 800, 1, 2200, 1 },
		{ 1920, 1080, 2, 2200, 1 },
		{ 2560, 1600, 3, 2200, 1 },
		{ 1920, 1080, 2, 900, 1 },
		{ 3840, 2160, 3, 4000, 1 },     /* needs two symbols */
	};
	static struct qr_area a;
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		struct qr_plan p;
		screen_area(&a, t[i].w, t[i].h, t[i].scale, t[i].len);
		int ok = qr_layout(&a, &p);
		if (!CHECK_EQ(ok, t[i].fits))
			printf("#   %ux%u\n", t[i].w, t[i].h);
		if (!ok)
			continue;
		CHECK(p.scale >= 2 && p.scale <= 8);
		CHECK_EQ(p.side, (uint32_t)(QR_SIZE(p.version) + 2 * QR_QUIET) * p.scale);
		CHECK(!overlaps_text(&a, &p));
		size_t per = 0;
		for (int k = 0; k < p.count; k++) {
			CHECK(p.x[k] + p.side <= a.width && p.y[k] + p.side <= a.height);
			size_t n = p.from[k + 1] - p.from[k];
			per = n > per ? n : per;
		}
		CHECK_EQ(p.from[0], 0);
		CHECK_EQ(p.from[p.count], t[i].len);
		CHECK(per <= qr_capacity(p.version, p.ecc, p.count > 1));
		printf("#   %ux%u, %zu bytes: %d symbol(s), version %d-%c, %u px per module\n", t[i].w, t[i].h,
		       t[i].len, p.count, p.version, "LMQH"[p.ecc], p.scale);
	}
	/* fewer symbols win; then more pixels per module */
	screen_area(&a, 1280, 800, 1, 2200);
	struct qr_plan p;
	CHECK(qr_layout(&a, &p) && p.count == 1 && p.scale == 4);
	a.max_scale = p.scale - 1;
	struct qr_plan q2;
	CHECK(qr_layout(&a, &q2) && q2.scale == p.scale - 1 && q2.count <= p.count);
}
