/* Multiboot v1 information (QEMU's -kernel loader).  Pointers in it are
 * physical addresses below 4 GiB, inside the early identity map. */
#include "bootinfo.h"
#include "fmt.h"
#include "kmem.h"
#include "str.h"

#define MB1_FLAG_CMDLINE  (1u << 2)
#define MB1_FLAG_MMAP     (1u << 6)
#define MB1_FLAG_LOADER   (1u << 9)
#define MB1_FLAG_FB       (1u << 12)

static void problem(struct boot_info *bi, const char *what)
{
	if (!bi->nproblems++)
		tl_snprintf(bi->problem, sizeof bi->problem, "multiboot v1 info: %s", what);
}

/* Returns the string's whole length (up to 64 KiB), which may exceed the copy. */
static size_t copy_str(char *dst, size_t n, uint32_t addr, struct boot_info *bi)
{
	if (!addr) {
		problem(bi, "null string pointer");
		return 0;
	}
	const char *s = (const char *)(uintptr_t)addr;
	size_t len = tl_strnlen(s, 65536);
	if (len == 65536)
		problem(bi, "string not terminated within 64 KiB");
	size_t c = len < n - 1 ? len : n - 1;
	for (size_t i = 0; i < c; i++)
		dst[i] = s[i];
	dst[c] = 0;
	return len;
}

void mb1_parse(uint32_t addr, struct boot_info *bi)
{
	bi->loader = 1;
	if (!addr) {
		problem(bi, "null information pointer");
		return;
	}
	const uint8_t *p = (const uint8_t *)(uintptr_t)addr;
	uint32_t flags = *(const uint32_t *)p;
	if (flags & MB1_FLAG_CMDLINE)
		bi->cmdline_len = copy_str(bi->cmdline, sizeof bi->cmdline, *(const uint32_t *)(p + 16), bi);
	if (flags & MB1_FLAG_LOADER)
		copy_str(bi->loader_name, sizeof bi->loader_name, *(const uint32_t *)(p + 64), bi);
	if (flags & MB1_FLAG_MMAP) {
		uint32_t len = *(const uint32_t *)(p + 44), base = *(const uint32_t *)(p + 48);
		uint32_t off = 0;
		if (len > 64 * 1024)
			problem(bi, "memory map longer than 64 KiB");
		while (len <= 64 * 1024 && off + 24 <= len) {
			const uint8_t *e = (const uint8_t *)(uintptr_t)(base + off);
			uint32_t size = *(const uint32_t *)e;
			if (size < 20) {
				problem(bi, "memory-map entry size below 20");
				break;
			}
			if (bi->nmmap == BI_MAX_REGIONS) {
				bi->mmap_truncated = true;
				break;
			}
			struct mem_region *r = &bi->mmap[bi->nmmap++];
			r->base = *(const uint64_t *)(e + 4);
			r->len = *(const uint64_t *)(e + 12);
			r->type = *(const uint32_t *)(e + 20);
			off += size + 4;
		}
	} else {
		problem(bi, "no memory map (flags bit 6 clear)");
	}
	if (flags & MB1_FLAG_FB) {
		bi->fb_addr = *(const uint64_t *)(p + 88);
		bi->fb_pitch = *(const uint32_t *)(p + 96);
		bi->fb_width = *(const uint32_t *)(p + 100);
		bi->fb_height = *(const uint32_t *)(p + 104);
		bi->fb_bpp = p[108];
		bi->fb_type = p[109];
		bi->has_fb = bi->fb_type == FB_TYPE_EGA_TEXT;   /* RGB needs the colour info too */
	}
}
