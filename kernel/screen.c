/* Screen console.  Under QEMU's -kernel boot this is VGA text; from GRUB it is
 * usually a linear framebuffer (always under UEFI), drawn with an 8x16 font.
 * Scrolling moves half a screen at once so that a long run costs few copies. */
#include <stdint.h>
#include "fmt.h"
#include "mem.h"
#include "screen.h"

extern const uint8_t font8x16[128 * 16];

enum { NONE, VGA, FB };
static int kind;
static uint32_t cols, rows, col, row;
static int color;

/* VGA text */
static volatile uint16_t *const vga = (volatile uint16_t *)0xb8000;
static const uint8_t vga_attr[] = { 0x07, 0x0a, 0x0c, 0x0e, 0x0b };

/* framebuffer */
static uint8_t *fb;
static uint32_t pitch, width, height, bpp;
static const struct boot_info *fbi;
static uint32_t fb_rgb[5];
static char desc[96];

static uint32_t rgb(uint8_t r, uint8_t g, uint8_t b)
{
	const struct boot_info *bi = fbi;
	uint32_t v = 0;
	v |= (uint32_t)(r >> (8 - bi->fb_rsize)) << bi->fb_rpos;
	v |= (uint32_t)(g >> (8 - bi->fb_gsize)) << bi->fb_gpos;
	v |= (uint32_t)(b >> (8 - bi->fb_bsize)) << bi->fb_bpos;
	return v;
}

void screen_init(const struct boot_info *bi)
{
	if (bi->has_fb && bi->fb_type == FB_TYPE_RGB && bi->fb_addr < (1ULL << 39)) {
		kind = FB;
		fbi = bi;
		fb = (uint8_t *)(uintptr_t)bi->fb_addr;
		pitch = bi->fb_pitch;
		width = bi->fb_width;
		height = bi->fb_height;
		bpp = bi->fb_bpp;
		cols = width / 8;
		rows = height / 16;
		fb_rgb[0] = rgb(0xc0, 0xc0, 0xc0);
		fb_rgb[1] = rgb(0x40, 0xff, 0x40);
		fb_rgb[2] = rgb(0xff, 0x50, 0x50);
		fb_rgb[3] = rgb(0xff, 0xff, 0x40);
		fb_rgb[4] = rgb(0x40, 0xe0, 0xff);
		for (uint32_t y = 0; y < height; y++)
			memset(fb + (uint64_t)y * pitch, 0, (uint64_t)width * bpp / 8);
		tl_snprintf(desc, sizeof desc, "framebuffer %ux%ux%u at 0x%llx, %ux%u text",
			    width, height, bpp, (unsigned long long)bi->fb_addr, cols, rows);
	} else if (!bi->has_fb || bi->fb_type == FB_TYPE_EGA_TEXT) {
		kind = VGA;
		cols = 80;
		rows = 25;
		for (uint32_t i = 0; i < cols * rows; i++)
			vga[i] = 0x0720;
		tl_snprintf(desc, sizeof desc, "VGA text 80x25 at 0xb8000");
	} else {
		kind = NONE;
		tl_snprintf(desc, sizeof desc, "none (framebuffer type %u, %u bpp unsupported)",
			    bi->fb_type, bi->fb_bpp);
	}
	col = row = 0;
}

const char *screen_describe(void)
{
	return desc;
}

void screen_color(int c)
{
	color = c >= 0 && c < 5 ? c : 0;
}

static void fb_pixel(uint8_t *p, uint32_t v)
{
	if (bpp == 32)
		*(volatile uint32_t *)p = v;
	else if (bpp == 24) {
		p[0] = v;
		p[1] = v >> 8;
		p[2] = v >> 16;
	} else
		*(volatile uint16_t *)p = v;
}

static void fb_glyph(uint32_t cx, uint32_t cy, char ch)
{
	const uint8_t *g = &font8x16[((unsigned char)ch & 0x7f) * 16];
	uint32_t bytes = bpp / 8;
	for (int y = 0; y < 16; y++) {
		uint8_t *line = fb + (uint64_t)(cy * 16 + y) * pitch + (uint64_t)cx * 8 * bytes;
		for (int x = 0; x < 8; x++)
			fb_pixel(line + x * bytes, (g[y] & (0x80 >> x)) ? fb_rgb[color] : 0);
	}
}

static void scroll(void)
{
	uint32_t keep = rows / 2, drop = rows - keep;
	if (kind == VGA) {
		memmove((void *)vga, (const void *)(vga + drop * cols), keep * cols * 2);
		for (uint32_t i = keep * cols; i < rows * cols; i++)
			vga[i] = 0x0720;
	} else if (kind == FB) {
		uint64_t line = (uint64_t)16 * pitch;
		memmove(fb, fb + drop * line, keep * line);
		for (uint32_t y = keep * 16; y < rows * 16; y++)
			memset(fb + (uint64_t)y * pitch, 0, (uint64_t)width * bpp / 8);
	}
	row = keep;
}

void screen_putc(char c)
{
	if (kind == NONE)
		return;
	if (c == '\n') {
		col = 0;
		if (++row == rows)
			scroll();
		return;
	}
	if (c == '\r') {
		col = 0;
		return;
	}
	if (col == cols) {
		col = 0;
		if (++row == rows)
			scroll();
	}
	if (kind == VGA)
		vga[row * cols + col] = (uint16_t)(vga_attr[color] << 8) | (uint8_t)c;
	else
		fb_glyph(col, row, c);
	col++;
}
