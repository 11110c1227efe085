/* Multiboot2 information parser (Multiboot2 specification, section 3.6). */
#include "bootinfo.h"
#include "le.h"
#include "fmt.h"
#include "str.h"

static void problem(struct boot_info *bi, const char *what, uint32_t off)
{
	if (!bi->nproblems++)
		tl_snprintf(bi->problem, sizeof bi->problem, "multiboot2 info: %s at offset %u", what, off);
}

static size_t copy_string(char *dst, size_t dsize, const uint8_t *s, size_t n,
			  struct boot_info *bi, uint32_t off)
{
	size_t len = tl_strnlen((const char *)s, n), whole = len;
	if (len == n)
		problem(bi, "string not terminated inside its tag", off);
	if (len >= dsize)
		len = dsize - 1;
	for (size_t i = 0; i < len; i++)
		dst[i] = (char)s[i];
	dst[len] = 0;
	return whole;
}

static void parse_mmap(struct boot_info *bi, const uint8_t *t, uint32_t size, uint32_t off)
{
	if (size < 16) {
		problem(bi, "memory-map tag too short", off);
		return;
	}
	uint32_t esize = (uint32_t)le_get(t + 8, 4);
	if (esize < 24 || esize % 8) {
		problem(bi, "memory-map entry_size invalid", off);
		return;
	}
	for (uint32_t p = 16; p + esize <= size; p += esize) {
		if (bi->nmmap == BI_MAX_REGIONS) {
			bi->mmap_truncated = true;
			break;
		}
		struct mem_region *r = &bi->mmap[bi->nmmap++];
		r->base = le_get(t + p, 8);
		r->len = le_get(t + p + 8, 8);
		r->type = (uint32_t)le_get(t + p + 16, 4);
	}
	if ((size - 16) % esize)
		problem(bi, "memory-map tag size not a multiple of entry_size", off);
}

static void parse_fb(struct boot_info *bi, const uint8_t *t, uint32_t size, uint32_t off)
{
	if (size < 31) {
		problem(bi, "framebuffer tag too short", off);
		return;
	}
	bi->fb_addr = le_get(t + 8, 8);
	bi->fb_pitch = (uint32_t)le_get(t + 16, 4);
	bi->fb_width = (uint32_t)le_get(t + 20, 4);
	bi->fb_height = (uint32_t)le_get(t + 24, 4);
	bi->fb_bpp = t[28];
	bi->fb_type = t[29];
	if (bi->fb_type == FB_TYPE_RGB) {
		if (size < 38) {
			problem(bi, "RGB framebuffer tag without colour info", off);
			return;
		}
		/* colour info follows the common part, whose reserved field GRUB lays
		 * out as 16 bits (struct multiboot_tag_framebuffer_common): offset 32 */
		bi->fb_rpos = t[32];
		bi->fb_rsize = t[33];
		bi->fb_gpos = t[34];
		bi->fb_gsize = t[35];
		bi->fb_bpos = t[36];
		bi->fb_bsize = t[37];
	}
	if (!bi->fb_width || !bi->fb_height || !bi->fb_pitch ||
	    (bi->fb_type == FB_TYPE_RGB && bi->fb_bpp != 32 && bi->fb_bpp != 24 &&
	     bi->fb_bpp != 16)) {
		problem(bi, "framebuffer geometry unusable", off);
		return;
	}
	bi->has_fb = true;
}

int mb2_parse(const void *mbi, size_t avail, struct boot_info *bi)
{
	const uint8_t *base = mbi;
	bi->loader = 2;
	if (avail < 16) {
		problem(bi, "shorter than its fixed part", 0);
		return bi->nproblems;
	}
	uint32_t total = (uint32_t)le_get(base, 4);
	if (total > avail) {
		problem(bi, "total_size exceeds what was copied", 0);
		total = (uint32_t)avail;
	}
	uint32_t off = 8;
	bool ended = false;
	while (off + 8 <= total) {
		const uint8_t *t = base + off;
		uint32_t type = (uint32_t)le_get(t, 4), size = (uint32_t)le_get(t + 4, 4);
		if (size < 8 || size > total - off) {
			problem(bi, "tag size out of bounds", off);
			break;
		}
		switch (type) {
		case 0:
			ended = true;
			break;
		case 1:
			bi->cmdline_len = copy_string(bi->cmdline, sizeof bi->cmdline, t + 8, size - 8,
						      bi, off);
			break;
		case 2:
			copy_string(bi->loader_name, sizeof bi->loader_name, t + 8, size - 8, bi, off);
			break;
		case 6:
			parse_mmap(bi, t, size, off);
			break;
		case 8:
			parse_fb(bi, t, size, off);
			break;
		case 14:
		case 15:
			if (size < 8 + 20) {
				problem(bi, "ACPI RSDP tag too short", off);
				break;
			}
			if (!bi->rsdp || type == 15) {
				bi->rsdp = t + 8;
				bi->rsdp_len = size - 8;
				bi->rsdp_version = type == 14 ? 1 : 2;
			}
			break;
		default:
			break;
		}
		if (ended)
			break;
		off += (size + 7) & ~7u;
	}
	if (!ended)
		problem(bi, "no end tag", off);
	return bi->nproblems;
}

bool bi_range_usable(const struct boot_info *bi, uint64_t base, uint64_t len)
{
	uint64_t end = base + len;
	if (end < base || !len)
		return false;
	/* Firmware maps may overlap: a reserved region over usable RAM wins. */
	for (int i = 0; i < bi->nmmap; i++) {
		const struct mem_region *r = &bi->mmap[i];
		if (r->type != MEM_USABLE && r->len && r->base < end && base - r->base < r->len)
			return false;
		if (r->type != MEM_USABLE && r->len && base < r->base && r->base < end)
			return false;
	}
	/* Then every byte must be covered by some usable region. */
	while (base < end) {
		bool advanced = false;
		for (int i = 0; i < bi->nmmap; i++) {
			const struct mem_region *r = &bi->mmap[i];
			if (r->type == MEM_USABLE && r->base <= base && base - r->base < r->len) {
				uint64_t rend = r->base + r->len;
				base = rend < r->base ? UINT64_MAX : rend;
				advanced = true;
				break;
			}
		}
		if (!advanced)
			return false;
	}
	return true;
}
