/* The screen console: a multiboot framebuffer drawn with the built-in 8x16 font
 * (scaled up on large screens), or VGA text mode at 0xb8000 when that is what we
 * have.  Text scrolls a few lines at a time; the bottom line can hold a status bar. */
#ifndef KERNEL_SCREEN_H
#define KERNEL_SCREEN_H
#include <stddef.h>
#include <stdint.h>
#include "bootinfo.h"

/* Colours: the first five are console_color()'s; the rest are the screen's own. */
enum { SC_NORMAL, SC_PASS, SC_FAIL, SC_SKIP, SC_HEAD, SC_BRIGHT, SC_STATUS, SC_NCOLORS };

void screen_init(const struct boot_info *bi);
/* Every character the console prints. */
void screen_putc(char c);
void screen_color(int c);
/* screen_batch(true) ... screen_batch(false): what is written in between is
 * drawn once at the end (only the cells that changed).  Batches do not nest:
 * the first screen_batch(false) draws all. */
void screen_batch(bool on);
/* Screen-only output (the final summary): no serial, no KTAP tap. */
void screen_puts(const char *s, int color);
/* Empties the text area (not the status bar) and puts the cursor top left. */
void screen_clear(void);
/* The status bar on the bottom line; 0 removes it. */
void screen_status(const char *s);
/* Text columns, for callers that wrap their own lines; 0 without a screen. */
unsigned screen_cols(void);
/* The framebuffer's height in pixels; 0 in VGA text mode or without a screen. */
unsigned screen_graphics_height(void);
/* The payload as QR code(s) in the free space at the bottom right of a
 * framebuffer, beside the text already there (version, level, number of
 * symbols and pixels per module chosen from the free space: lib/qrlayout.c).
 * Returns the number of symbols drawn: 0 in VGA text mode or without room. */
int screen_qr(const uint8_t *data, size_t len);
/* what screen_qr() drew, in words ("" when nothing) */
const char *screen_qr_describe(void);
/* TSC cycles spent drawing text (glyphs, scrolling, clearing) and encoding and
 * drawing the QR codes, the cycles since screen_init(), and the bytes written to
 * the framebuffer (what a real machine's uncached framebuffer makes slow). */
void screen_cost(uint64_t *text_cycles, uint64_t *qr_cycles, uint64_t *since_up, uint64_t *bytes);
/* describes the console in use, for the boot report */
const char *screen_describe(void);
/* the same in a few words ("fb 1920x1080x32 x2", "vga-text"), for the hardware report */
const char *screen_brief(void);

#endif
