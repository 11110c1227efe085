/* libFuzzer target: the QR encoder on arbitrary bytes.  The first two bytes
 * pick the level, the mask (or automatic), the version range and a structured
 * append header; the rest is the payload.  No crash, no read or write outside
 * the struct, and whatever it returns is self-consistent (a real reader is in
 * tests/qr-zbar.sh, not here). */
#include <stddef.h>
#include <stdint.h>
#include "qr.h"

static struct qr q;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
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
