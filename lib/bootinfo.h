/* What the boot loader told us, in one loader-independent structure. */
#ifndef LIB_BOOTINFO_H
#define LIB_BOOTINFO_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BI_MAX_REGIONS  64
#define BI_CMDLINE_SIZE 4096    /* CMD_MAX_LINE + 1: a longer line is refused whole */
#define MEM_USABLE      1       /* multiboot memory types */
#define MEM_ACPI        3
#define MEM_NVS         4
#define MEM_BAD         5

struct mem_region {
	uint64_t base, len;
	uint32_t type;
};

#define FB_TYPE_INDEXED 0
#define FB_TYPE_RGB     1
#define FB_TYPE_EGA_TEXT 2

struct boot_info {
	int loader;                     /* 1: multiboot v1, 2: multiboot2 */
	char cmdline[BI_CMDLINE_SIZE];
	size_t cmdline_len;             /* the whole length the loader passed (may exceed the copy) */
	char loader_name[64];
	struct mem_region mmap[BI_MAX_REGIONS];
	int nmmap;
	bool mmap_truncated;
	bool has_fb;
	uint64_t fb_addr;
	uint32_t fb_pitch, fb_width, fb_height;
	uint8_t fb_bpp, fb_type;
	uint8_t fb_rpos, fb_rsize, fb_gpos, fb_gsize, fb_bpos, fb_bsize;
	const uint8_t *rsdp;            /* points into the (copied) information */
	uint32_t rsdp_len;
	int rsdp_version;               /* 1 (tag 14) or 2 (tag 15) */
	int nproblems;
	char problem[160];              /* the first problem found */
};

/* Walks a multiboot2 information block of which `avail` bytes are readable.
 * Never reads outside [mbi, mbi+avail); every inconsistency is counted and the
 * first one described in bi->problem.  Returns the number of problems. */
int mb2_parse(const void *mbi, size_t avail, struct boot_info *bi);

/* true if [base, base+len) lies entirely in usable RAM according to the map. */
bool bi_range_usable(const struct boot_info *bi, uint64_t base, uint64_t len);

#endif
