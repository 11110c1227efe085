/* libFuzzer target: the QR encoder on arbitrary bytes.  The first two bytes
 * pick the level, the mask (or automatic), the version range and a structured
 * append header; the rest is the payload.  No crash, no read or write outside
 * the struct, and whatever it returns is self-consistent (a real reader is in
 * tests/qr-zbar.sh, not here).  The same bytes also describe a screen for the
 * layout (lib/qrlayout.c): its plan must stay inside the screen and off the text. */
#include <stddef.h>
#include <stdint.h>
#include "qr.h"
#include "qrlayout.h"

static struct qr q;
static struct qr_area a;

static void layout(const uint8_t *d, size_t n)
{
	if (n < 8)
		return;
	a.cell_w = 1 + d[0] % 24;
	a.cell_h = 1 + d[1] % 48;
	a.width = (uint32_t)(d[2] | d[3] << 8) % 8192;
	a.height = (uint32_t)(d[4] | d[5] << 8) % 8192;
	a.rows = a.height / a.cell_h;
	for (uint32_t r = 0; r < QR_LAYOUT_MAX_ROWS; r++)
		a.row_end[r] = 8 + r < n ? d[8 + r] : 0;
	a.len = (size_t)d[6] * 23;
	a.min_scale = d[7] % 4;
	a.max_scale = a.min_scale + d[7] / 64;
	struct qr_plan p;
	if (!qr_layout(&a, &p))
		return;
	if (p.count < 1 || p.count > QR_SA_MAX || p.scale < a.min_scale || p.scale > a.max_scale ||
	    p.from[0] != 0 || p.from[p.count] != a.len)
		__builtin_trap();
	for (int i = 0; i < p.count; i++) {
		if (p.x[i] + p.side > a.width || p.y[i] + p.side > a.height ||
		    p.from[i + 1] - p.from[i] > qr_capacity(p.version, p.ecc, p.count > 1))
			__builtin_trap();
		for (uint32_t r = 0; r < a.rows && r < QR_LAYOUT_MAX_ROWS; r++)
			if (r * a.cell_h + a.cell_h > p.y[i] && r * a.cell_h < p.y[i] + p.side &&
			    (uint32_t)a.row_end[r] * a.cell_w > p.x[i])
				__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	layout(data, size);
	int ecc = data[0] & 3, mask = (int)(data[0] >> 2 & 15) - 1;     /* -1..14: some invalid */
	int vmin = 1 + data[1] % 40, vmax = data[1] & 0x80 ? 40 : vmin + (data[1] >> 3 & 7);
	struct qr_sa sa = { data[1] & 15, 1 + (data[0] >> 6) * 5, 0 };
	bool use_sa = data[0] & 0x40;
	data += 2;
	size -= 2;
	sa.parity = qr_parity(data, size);
	int v = qr_encode(&q, data, size, ecc, vmin, vmax > 40 ? 41 : vmax, mask, use_sa ? &sa : 0);
	if (!v)
		return 0;
	if (v < vmin || v > vmax || q.size != QR_SIZE(v) || q.mask < 0 || q.mask > 7 ||
	    size > qr_capacity(v, ecc, use_sa) || (mask >= 0 && q.mask != mask))
		__builtin_trap();
	unsigned dark = 0;
	for (int y = -1; y <= q.size; y++)
		for (int x = -1; x <= q.size; x++)
			dark += qr_module(&q, x, y);
	/* the finders' centres are dark, the quiet zone light */
	if (!qr_module(&q, 3, 3) || qr_module(&q, -1, 0) || dark == 0)
		__builtin_trap();
	(void)qr_penalty(&q);
	return 0;
}
