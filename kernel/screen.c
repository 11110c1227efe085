/* Screen console.  Under QEMU's -kernel boot this is VGA text; from GRUB it is
 * usually a linear framebuffer (always under UEFI), drawn with an 8x16 font,
 * each glyph pixel doubled or tripled on large screens so that text stays
 * readable — and photographable — at 1920x1080 and beyond.
 *
 * The text lives in a cell array (character + colour) and the screen is drawn
 * from it, never read back: framebuffer memory is slow to read on real hardware
 * (uncached or write-through, often across PCIe).  A cell is drawn only when it
 * differs from what is on the screen, so a scroll costs about as many glyphs as
 * there is text, not the whole screen's pixels. */
#include <stdint.h>
#include "fmt.h"
#include "mem.h"
#include "qr.h"
#include "qrlayout.h"
#include "screen.h"
#include "x86.h"

extern const uint8_t font8x16[128 * 16];

#define MAXC 256
#define MAXR 128
#define BLANK ((uint16_t)' ')
#define CELL(ch, c) ((uint16_t)((uint8_t)(ch) | (uint16_t)(c) << 8))

enum { NONE, VGA, FB };
static int kind;
static uint32_t cols, rows, col, row, scale = 1;
static int color;
static uint16_t text[MAXR][MAXC];       /* what should be on the screen */
static uint16_t shown[MAXR][MAXC];      /* what is */
static char status[MAXC + 1];
static bool status_on;
/* Batching (screen_batch): while it is on, text only goes into text[] and the
 * rows it touched are remembered; the screen is drawn when the batch ends.  A
 * held KTAP block of 40 lines then costs one redraw of what stays visible, not
 * seven scrolls of the whole screen plus every character of lines that scroll
 * off before anyone could see them: under emulation (QEMU's VGA MMIO path)
 * each screen write is expensive. */
static bool batch;
static uint32_t dirty_from = MAXR, dirty_to;    /* rows [from, to) to draw at the end */

/* VGA text attributes per colour */
static volatile uint16_t *const vga = (volatile uint16_t *)0xb8000;
static const uint8_t vga_attr[SC_NCOLORS] = { 0x07, 0x0a, 0x0c, 0x0e, 0x0b, 0x0f, 0x70 };

/* Time spent writing screen memory (TSC cycles) and the bytes written, for what
 * the screen costs a run: on a real machine the framebuffer is uncached or
 * write-combined, behind PCIe, and every glyph is hundreds of writes. */
static uint64_t tsc_up, cyc_text, cyc_qr, fb_bytes;

/* framebuffer */
static uint8_t *fb;
static uint32_t pitch, width, height, bpp;
static bool channels_fixed;     /* the loader's colour layout was unusable */
static uint32_t fg_rgb[SC_NCOLORS], bg_rgb[SC_NCOLORS];
static char desc[128], brief[40];

/* Colour channel layout: the loader's, when it makes sense for the depth;
 * otherwise the usual one (x)RGB 8:8:8 or RGB 5:6:5. */
static uint8_t rpos, rsize, gpos, gsize, bpos, bsize;

static bool channel_ok(uint8_t pos, uint8_t size)
{
	return size >= 1 && size <= 8 && pos + size <= bpp;
}

static void pick_channels(const struct boot_info *bi)
{
	rpos = bi->fb_rpos, rsize = bi->fb_rsize;
	gpos = bi->fb_gpos, gsize = bi->fb_gsize;
	bpos = bi->fb_bpos, bsize = bi->fb_bsize;
	if (channel_ok(rpos, rsize) && channel_ok(gpos, gsize) && channel_ok(bpos, bsize))
		return;
	if (bpp == 16)
		rpos = 11, rsize = 5, gpos = 5, gsize = 6, bpos = 0, bsize = 5;
	else
		rpos = 16, rsize = 8, gpos = 8, gsize = 8, bpos = 0, bsize = 8;
	channels_fixed = true;
}

static uint32_t rgb(uint8_t r, uint8_t g, uint8_t b)
{
	return (uint32_t)(r >> (8 - rsize)) << rpos | (uint32_t)(g >> (8 - gsize)) << gpos |
	       (uint32_t)(b >> (8 - bsize)) << bpos;
}

/* One glyph pixel becomes scale x scale screen pixels: 2x from about 1800x1000,
 * 3x from about 2700x1500, so a line of KTAP (up to ~120 characters) still fits. */
static uint32_t pick_scale(uint32_t w, uint32_t h)
{
	uint32_t s = w / 900 < h / 500 ? w / 900 : h / 500;
	return s < 1 ? 1 : s > 3 ? 3 : s;
}

static void fb_glyph(uint32_t cx, uint32_t cy, uint16_t cell)
{
	const uint8_t *g = &font8x16[(cell & 0x7f) * 16];
	uint32_t fg = fg_rgb[cell >> 8], bg = bg_rgb[cell >> 8], bytes = bpp / 8;
	uint32_t w = 8 * scale;
	uint8_t px[8 * 3 * 4];                  /* one glyph row as it goes to the screen */
	uint8_t *dst = fb + (uint64_t)cy * 16 * scale * pitch + (uint64_t)cx * w * bytes;
	for (uint32_t gy = 0; gy < 16; gy++) {
		uint8_t *p = px;
		for (uint32_t x = 0; x < 8; x++) {
			uint32_t v = (g[gy] << x) & 0x80 ? fg : bg;
			for (uint32_t r = 0; r < scale; r++, p += bytes) {
				if (bytes == 4)
					*(uint32_t *)p = v;
				else if (bytes == 3)
					p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16);
				else
					*(uint16_t *)p = (uint16_t)v;
			}
		}
		for (uint32_t r = 0; r < scale; r++, dst += pitch)
			memcpy(dst, px, w * bytes);
	}
	fb_bytes += (uint64_t)16 * scale * w * bytes;
}


static void draw(uint32_t x, uint32_t y)
{
	uint16_t v = text[y][x];
	if (shown[y][x] == v)
		return;
	uint64_t t = rdtsc();
	shown[y][x] = v;
	if (kind == VGA) {
		vga[y * cols + x] = (uint16_t)(vga_attr[v >> 8] << 8) | (uint8_t)v;
		fb_bytes += 2;
	} else {
		fb_glyph(x, y, v);
	}
	cyc_text += rdtsc() - t;
}

static void draw_rows(uint32_t from, uint32_t to)
{
	if (batch) {
		if (from < dirty_from)
			dirty_from = from;
		if (to > dirty_to)
			dirty_to = to;
		return;
	}
	for (uint32_t y = from; y < to; y++)
		for (uint32_t x = 0; x < cols; x++)
			draw(x, y);
}

static uint32_t text_rows(void)
{
	return rows - (status_on && rows > 1);
}

static void draw_status(void)
{
	if (!status_on || rows < 2)
		return;
	bool end = false;
	for (uint32_t x = 0; x < cols; x++) {
		end = end || !status[x];
		text[rows - 1][x] = CELL(end ? ' ' : status[x], SC_STATUS);
	}
	draw_rows(rows - 1, rows);
}

/* A few lines at a time: most of the screen stays for the eye to follow, and a
 * redraw serves several lines. */
static void scroll_by(uint32_t k)
{
	uint32_t n = text_rows();
	if (k >= n)
		k = n - 1 ? n - 1 : 1;
	memmove(text[0], text[k], sizeof text[0] * (n - k));
	for (uint32_t y = n - k; y < n; y++)
		for (uint32_t x = 0; x < cols; x++)
			text[y][x] = BLANK;
	draw_rows(0, n);
	row = n - k;
}

static void scroll(void)
{
	scroll_by(text_rows() / 4 ? text_rows() / 4 : 1);
}

void screen_init(const struct boot_info *bi)
{
	if (bi->has_fb && bi->fb_type == FB_TYPE_RGB && bi->fb_addr < (1ULL << 39) &&
	    (bi->fb_bpp == 16 || bi->fb_bpp == 24 || bi->fb_bpp == 32)) {
		kind = FB;
		fb = (uint8_t *)(uintptr_t)bi->fb_addr;
		pitch = bi->fb_pitch;
		width = bi->fb_width;
		height = bi->fb_height;
		bpp = bi->fb_bpp;
		pick_channels(bi);
		scale = pick_scale(width, height);
		cols = width / (8 * scale);
		rows = height / (16 * scale);
		static const uint8_t fgs[SC_NCOLORS][3] = {
			{ 0xc0, 0xc0, 0xc0 }, { 0x40, 0xff, 0x40 }, { 0xff, 0x50, 0x50 },
			{ 0xff, 0xff, 0x40 }, { 0x40, 0xe0, 0xff }, { 0xff, 0xff, 0xff },
			{ 0x00, 0x00, 0x00 },
		};
		for (int i = 0; i < SC_NCOLORS; i++) {
			fg_rgb[i] = rgb(fgs[i][0], fgs[i][1], fgs[i][2]);
			bg_rgb[i] = i == SC_STATUS ? rgb(0xb0, 0xb0, 0xb0) : 0;
		}
		uint64_t t = rdtsc();
		for (uint32_t y = 0; y < height; y++)
			memset(fb + (uint64_t)y * pitch, 0, (uint64_t)width * bpp / 8);
		cyc_text += rdtsc() - t;
		fb_bytes += (uint64_t)height * width * bpp / 8;
	} else if (!bi->has_fb || bi->fb_type == FB_TYPE_EGA_TEXT) {
		kind = VGA;
		cols = 80;
		rows = 25;
		for (uint32_t i = 0; i < cols * rows; i++)
			vga[i] = 0x0720;
		/* no blinking hardware cursor: CRTC cursor start register, bit 5 = off */
		outb(0x3d4, 0x0a);
		outb(0x3d5, 0x20);
	} else {
		kind = NONE;
		tl_snprintf(desc, sizeof desc, "none (framebuffer type %u, %u bpp unsupported)",
			    bi->fb_type, bi->fb_bpp);
	}
	if (cols > MAXC)
		cols = MAXC;
	if (rows > MAXR)
		rows = MAXR;
	for (uint32_t y = 0; y < MAXR; y++)
		for (uint32_t x = 0; x < MAXC; x++)
			text[y][x] = shown[y][x] = BLANK;
	if (kind == FB)
		tl_snprintf(desc, sizeof desc, "framebuffer %ux%ux%u at 0x%llx, %ux%u text (font 8x16 x%u)%s",
			    width, height, bpp, (unsigned long long)bi->fb_addr, cols, rows, scale,
			    channels_fixed ? ", colours assumed RGB" : "");
	else if (kind == VGA)
		tl_snprintf(desc, sizeof desc, "VGA text 80x25 at 0xb8000");
	if (kind == FB)
		tl_snprintf(brief, sizeof brief, "fb %ux%ux%u x%u", width, height, bpp, scale);
	else
		tl_snprintf(brief, sizeof brief, kind == VGA ? "vga-text" : "no-screen");
	col = row = 0;
	tsc_up = rdtsc();
}

const char *screen_describe(void)
{
	return desc;
}

const char *screen_brief(void)
{
	return brief;
}

unsigned screen_cols(void)
{
	return kind == NONE ? 0 : cols;
}

unsigned screen_graphics_height(void)
{
	return kind == FB ? height : 0;
}

void screen_color(int c)
{
	color = c >= 0 && c < SC_NCOLORS ? c : 0;
}

static void newline(void)
{
	col = 0;
	if (++row >= text_rows())
		scroll();
}

static void put(char c)
{
	if (kind == NONE)
		return;
	if (c == '\n') {
		newline();
		return;
	}
	if (c == '\r') {
		col = 0;
		return;
	}
	if (c == '\t')
		c = ' ';
	if (col == cols)
		newline();
	text[row][col] = CELL(c, color);
	if (batch)
		draw_rows(row, row + 1);
	else
		draw(col, row);
	col++;
}

void screen_batch(bool on)
{
	if (on) {
		batch = 1;
		return;
	}
	/* Not a count: a writer that interrupts a batch (an exception in the
	 * middle of a write, a console lock given up on) ends it and draws
	 * everything, so nothing stays undrawn if the first writer never ends. */
	batch = 0;
	if (dirty_from < dirty_to && kind != NONE)
		draw_rows(dirty_from, dirty_to);
	dirty_from = MAXR;
	dirty_to = 0;
}

void screen_putc(char c)
{
	put(c);
}

void screen_puts(const char *s, int c)
{
	int saved = color;
	screen_color(c);
	while (*s)
		put(*s++);
	color = saved;
}

void screen_clear(void)
{
	if (kind == NONE)
		return;
	for (uint32_t y = 0; y < text_rows(); y++)
		for (uint32_t x = 0; x < cols; x++)
			text[y][x] = BLANK;
	draw_rows(0, text_rows());
	col = row = 0;
}

void screen_status(const char *s)
{
	if (kind == NONE)
		return;
	if (!s) {
		if (status_on) {
			status_on = false;
			for (uint32_t x = 0; x < cols; x++)
				text[rows - 1][x] = BLANK;
			draw_rows(rows - 1, rows);
		}
		return;
	}
	tl_snprintf(status, sizeof status, "%s", s);
	if (!status_on && rows > 1) {
		if (row >= rows - 1) {  /* the cursor is on the line the bar takes */
			scroll_by(1);
			row = rows - 2;
		}
		status_on = true;
	}
	draw_status();
}

/* ---- QR codes on the final screen --------------------------------------- */

static void fill(uint32_t x, uint32_t y, uint32_t w, uint32_t h, uint32_t v)
{
	uint32_t bytes = bpp / 8;
	fb_bytes += (uint64_t)w * h * bytes;
	for (uint32_t j = 0; j < h; j++) {
		uint8_t *p = fb + (uint64_t)(y + j) * pitch + (uint64_t)x * bytes;
		for (uint32_t i = 0; i < w; i++, p += bytes) {
			if (bytes == 4)
				*(uint32_t *)p = v;
			else if (bytes == 3)
				p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16);
			else
				*(uint16_t *)p = (uint16_t)v;
		}
	}
}

static struct qr symbol;        /* 15 KB: not on the stack */
static char qr_desc[80];

/* One symbol, dark on light as the standard draws it (most readers do not try
 * the inverse), its quiet zone light too; drawn a module row at a time. */
static void draw_symbol(uint32_t x0, uint32_t y0, uint32_t s)
{
	uint32_t light = rgb(0xff, 0xff, 0xff), dark = rgb(0, 0, 0);
	uint32_t side = (uint32_t)(symbol.size + 2 * QR_QUIET) * s;
	fill(x0, y0, side, QR_QUIET * s, light);
	fill(x0, y0 + side - QR_QUIET * s, side, QR_QUIET * s, light);
	for (int my = 0; my < symbol.size; my++) {
		uint32_t y = y0 + (uint32_t)(my + QR_QUIET) * s;
		fill(x0, y, QR_QUIET * s, s, light);
		fill(x0 + side - QR_QUIET * s, y, QR_QUIET * s, s, light);
		for (int mx = 0; mx < symbol.size;) {
			bool d = qr_module(&symbol, mx, my);
			int run = 1;
			while (mx + run < symbol.size && qr_module(&symbol, mx + run, my) == d)
				run++;
			fill(x0 + (uint32_t)(mx + QR_QUIET) * s, y, (uint32_t)run * s, s, d ? dark : light);
			mx += run;
		}
	}
}

int screen_qr(const uint8_t *data, size_t len)
{
	static struct qr_area a;
	struct qr_plan plan;
	qr_desc[0] = 0;
	if (kind != FB)
		return 0;
	a.width = cols * 8 * scale;
	a.height = text_rows() * 16 * scale;
	a.cell_w = 8 * scale;
	a.cell_h = 16 * scale;
	a.rows = text_rows();
	for (uint32_t y = 0; y < a.rows && y < QR_LAYOUT_MAX_ROWS; y++) {
		uint32_t end = 0;
		for (uint32_t x = 0; x < cols; x++)
			if ((uint8_t)text[y][x] != ' ')
				end = x + 1;
		a.row_end[y] = (uint16_t)(end ? end + 1 : 0);   /* a blank column before the code */
	}
	/* the cursor's line: kernel_exit() prints its last line after the report */
	if (row < a.rows && a.row_end[row] < 48)
		a.row_end[row] = 48;
	a.len = len;
	/* 2 pixels per module at least: one is below what a phone resolves from a
	 * photo of a screen; more than 8 buys nothing */
	a.min_scale = 2;
	a.max_scale = 8;
	if (!qr_layout(&a, &plan)) {
		tl_snprintf(qr_desc, sizeof qr_desc, "no room for a QR code of %zu bytes", len);
		return 0;
	}
	uint8_t parity = qr_parity(data, len);
	uint64_t t = rdtsc();
	for (int i = 0; i < plan.count; i++) {
		struct qr_sa sa = { i, plan.count, parity };
		if (!qr_encode(&symbol, data + plan.from[i], plan.from[i + 1] - plan.from[i], plan.ecc,
			       plan.version, plan.version, -1, plan.count > 1 ? &sa : 0))
			return 0;
		draw_symbol(plan.x[i], plan.y[i], plan.scale);
	}
	cyc_qr = rdtsc() - t;
	/* the cells under the codes count as drawn with what they hold (blank), so
	 * that a redraw of their rows (a batch's end) leaves the codes alone; a
	 * character written there later is drawn */
	for (uint32_t y = 0; y < a.rows; y++)
		for (uint32_t x = 0; x < cols; x++)
			if ((x + 1) * a.cell_w > plan.x[0] && (y + 1) * a.cell_h > plan.y[0])
				shown[y][x] = text[y][x];
	tl_snprintf(qr_desc, sizeof qr_desc, "%d QR code%s, version %d-%c, %u px per module",
		    plan.count, plan.count > 1 ? "s" : "", plan.version, "LMQH"[plan.ecc], plan.scale);
	return plan.count;
}

const char *screen_qr_describe(void)
{
	return qr_desc;
}

void screen_cost(uint64_t *text_cycles, uint64_t *qr_cycles, uint64_t *since_up, uint64_t *bytes)
{
	*bytes = fb_bytes;
	*text_cycles = cyc_text;
	*qr_cycles = cyc_qr;
	*since_up = rdtsc() - tsc_up;
}
