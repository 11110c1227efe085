/* Where QR codes go on a screen that already holds text: the version, the error
 * correction level, the number of symbols (structured append) and the pixels
 * per module, chosen from the framebuffer's size and the free space the text
 * leaves, so that a phone camera reads them: as many pixels per module as fit,
 * whole symbols with their quiet zones, never over a character. */
#ifndef LIB_QRLAYOUT_H
#define LIB_QRLAYOUT_H
#include <stddef.h>
#include <stdint.h>
#include "qr.h"

#define QR_LAYOUT_MAX_ROWS 256

struct qr_area {
	uint32_t width, height;         /* pixels the codes may use: the screen less the status bar */
	uint32_t cell_w, cell_h;        /* a text cell in pixels */
	uint32_t rows;                  /* text rows in height */
	uint16_t row_end[QR_LAYOUT_MAX_ROWS];   /* per row: columns up to the last character */
	size_t len;                     /* payload bytes */
	uint32_t min_scale, max_scale;  /* pixels per module allowed */
};

struct qr_plan {
	int count;                      /* symbols: 1, or 2..16 joined by structured append */
	int version;                    /* every symbol has this version ... */
	enum qr_ecc ecc;                /* ... and level */
	uint32_t scale;                 /* pixels per module */
	uint32_t side;                  /* pixels per symbol, quiet zone included */
	uint32_t x[QR_SA_MAX], y[QR_SA_MAX];    /* top-left of each symbol's quiet zone */
	size_t from[QR_SA_MAX + 1];     /* symbol i holds payload bytes [from[i], from[i+1]) */
};

/* Fills plan and returns 1 when the payload fits at min_scale or more; 0 when
 * it does not (the screen keeps the text only). */
int qr_layout(const struct qr_area *a, struct qr_plan *plan);

#endif
