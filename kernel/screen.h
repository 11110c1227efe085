/* The screen console: a multiboot framebuffer with the built-in 8x16 font, or
 * VGA text mode at 0xb8000 when that is what we have. */
#ifndef KERNEL_SCREEN_H
#define KERNEL_SCREEN_H
#include "bootinfo.h"

void screen_init(const struct boot_info *bi);
void screen_putc(char c);
void screen_color(int c);
/* describes the console in use, for the boot report */
const char *screen_describe(void);

#endif
