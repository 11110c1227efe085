/* QR codes beside the text: see qrlayout.h.
 *
 * The symbols form a grid of c columns and r rows in the bottom-right corner of
 * the area, where the final screen's text is shortest (its long lines are at
 * the top).  A grid fits when every text row it reaches ends left of it.  The
 * fewest symbols win: a phone's camera app reads one code at a time and rarely
 * joins a structured append, so one code is what a person can use; then the
 * most pixels per module; then level M, which survives a glare spot or a moire
 * stripe in a photo better than L. */
#include "qrlayout.h"

static int fits(const struct qr_area *a, uint32_t gw, uint32_t gh)
{
	if (gw > a->width || gh > a->height)
		return 0;
	uint32_t left = a->width - gw, top = a->height - gh;
	for (uint32_t r = 0; r < a->rows && r < QR_LAYOUT_MAX_ROWS; r++) {
		uint32_t y0 = r * a->cell_h, y1 = y0 + a->cell_h;
		if (y1 <= top || y0 >= a->height)
			continue;
		if ((uint32_t)a->row_end[r] * a->cell_w > left)
			return 0;
	}
	return 1;
}

/* The version every one of n symbols needs for its share of len bytes. */
static int version_for(size_t len, int n, enum qr_ecc ecc)
{
	size_t share = (len + (size_t)n - 1) / (size_t)n;
	for (int v = QR_VERSION_MIN; v <= QR_VERSION_MAX; v++)
		if (qr_capacity(v, ecc, n > 1) >= share)
			return v;
	return 0;
}

int qr_layout(const struct qr_area *a, struct qr_plan *plan)
{
	static const enum qr_ecc levels[2] = { QR_ECC_M, QR_ECC_L };
	int best = 0;
	uint32_t best_scale = 0;
	if (!a->min_scale || a->max_scale < a->min_scale)
		return 0;
	for (int n = 1; n <= QR_SA_MAX && !best; n++)
		for (int li = 0; li < 2; li++) {
			int v = version_for(a->len, n, levels[li]);
			if (!v)
				continue;
			uint32_t modules = (uint32_t)QR_SIZE(v) + 2 * QR_QUIET;
			for (int c = 1; c <= n; c++) {
				int r = (n + c - 1) / c;
				if ((r - 1) * c >= n)
					continue;       /* an empty row: the same as fewer rows */
				for (uint32_t s = a->max_scale; s >= a->min_scale && s > best_scale; s--) {
					uint32_t side = modules * s;
					if (!fits(a, side * (uint32_t)c, side * (uint32_t)r))
						continue;
					best = 1;
					best_scale = s;
					plan->count = n;
					plan->version = v;
					plan->ecc = levels[li];
					plan->scale = s;
					plan->side = side;
					uint32_t left = a->width - side * (uint32_t)c, top = a->height - side * (uint32_t)r;
					for (int i = 0; i < n; i++) {
						plan->x[i] = left + side * (uint32_t)(i % c);
						plan->y[i] = top + side * (uint32_t)(i / c);
					}
					for (int i = 0; i <= n; i++)
						plan->from[i] = a->len * (size_t)i / (size_t)n;
					break;
				}
			}
		}
	return best;
}
