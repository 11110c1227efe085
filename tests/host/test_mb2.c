/* lib/mb2.c: well-formed multiboot2 information, and every way it can be broken. */
#include <stdlib.h>
#include <string.h>
#include "bootinfo.h"
#include "tl_test.h"

struct mbi { uint8_t b[1024]; uint32_t len; };

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

static uint8_t *tag(struct mbi *m, uint32_t type, uint32_t size)
{
	uint8_t *t = m->b + m->len;
	put32(t, type);
	put32(t + 4, size);
	m->len += (size + 7) & ~7u;
	return t;
}

static void finish(struct mbi *m)
{
	tag(m, 0, 8);
	put32(m->b, m->len);
}

static void good(struct mbi *m)
{
	memset(m, 0, sizeof *m);
	m->len = 8;
	uint8_t *t = tag(m, 1, 8 + 8);
	memcpy(t + 8, "run=101", 8);
	t = tag(m, 2, 8 + 5);
	memcpy(t + 8, "GRUB", 5);
	t = tag(m, 6, 16 + 2 * 24);
	put32(t + 8, 24);
	put64(t + 16, 0);
	put64(t + 24, 0x9fc00);
	put32(t + 32, 1);
	put64(t + 40, 0x100000);
	put64(t + 48, 0x7f00000);
	put32(t + 56, 1);
	t = tag(m, 8, 38);
	put64(t + 8, 0xfd000000);
	put32(t + 16, 3200);
	put32(t + 20, 800);
	put32(t + 24, 600);
	t[28] = 32;
	t[29] = 1;
	t[32] = 16; t[33] = 8; t[34] = 8; t[35] = 8; t[36] = 0; t[37] = 8;
	t = tag(m, 14, 8 + 20);
	memcpy(t + 8, "RSD PTR ", 8);
	finish(m);
}

TEST(mb2_wellformed)
{
	struct mbi m;
	struct boot_info bi = { 0 };
	good(&m);
	CHECK_EQ(mb2_parse(m.b, m.len, &bi), 0);
	CHECK(!strcmp(bi.cmdline, "run=101"));
	CHECK(!strcmp(bi.loader_name, "GRUB"));
	CHECK_EQ(bi.nmmap, 2);
	CHECK_EQ(bi.mmap[1].base, 0x100000);
	CHECK(bi.has_fb);
	CHECK_EQ(bi.fb_width, 800);
	CHECK_EQ(bi.fb_rpos, 16);
	CHECK_EQ(bi.rsdp_version, 1);
	CHECK(bi_range_usable(&bi, 0x8000, 0x2000));
	CHECK(bi_range_usable(&bi, 0x100000, 0x7f00000));
	CHECK(!bi_range_usable(&bi, 0x9f000, 0x2000));         /* runs past the region */
	CHECK(!bi_range_usable(&bi, 0xa0000, 0x1000));
	CHECK(!bi_range_usable(&bi, 0x8000, 0));
	CHECK(!bi_range_usable(&bi, UINT64_MAX - 10, 100));     /* wraps */
}

TEST(mb2_reserved_overlap_wins)
{
	struct boot_info bi = { .nmmap = 2 };
	bi.mmap[0] = (struct mem_region){ 0, 0x100000, MEM_USABLE };
	bi.mmap[1] = (struct mem_region){ 0x8000, 0x1000, 2 };
	CHECK(!bi_range_usable(&bi, 0x7000, 0x2000));
	CHECK(bi_range_usable(&bi, 0x9000, 0x1000));
}

TEST(mb2_truncated_everywhere)
{
	struct mbi m;
	good(&m);
	/* Every prefix, copied into an exactly-sized heap block so that ASan sees
	 * any read past it: problems are reported, nothing is read outside. */
	for (uint32_t n = 0; n < m.len; n++) {
		uint8_t *copy = malloc(n ? n : 1);
		memcpy(copy, m.b, n);
		struct boot_info bi = { 0 };
		int p = mb2_parse(copy, n, &bi);
		CHECK(p > 0);
		CHECK(bi.problem[0] != 0);
		free(copy);
	}
}

TEST(mb2_malformed_tags)
{
	struct mbi m;
	struct boot_info bi;
	good(&m);
	put32(m.b + 8 + 4, 4);                  /* first tag size < 8 */
	bi = (struct boot_info){ 0 };
	CHECK(mb2_parse(m.b, m.len, &bi) > 0);

	good(&m);
	put32(m.b + 8 + 4, 5000);               /* tag runs past total_size */
	bi = (struct boot_info){ 0 };
	CHECK(mb2_parse(m.b, m.len, &bi) > 0);

	good(&m);
	put32(m.b, m.len + 100);                /* total_size beyond the copy */
	bi = (struct boot_info){ 0 };
	CHECK(mb2_parse(m.b, m.len, &bi) > 0);

	good(&m);                               /* unterminated command line */
	memcpy(m.b + 16, "run=1015", 8);
	bi = (struct boot_info){ 0 };
	CHECK(mb2_parse(m.b, m.len, &bi) > 0);
	CHECK(strlen(bi.cmdline) <= 8);

	/* memory map with a bad entry size */
	memset(&m, 0, sizeof m);
	m.len = 8;
	uint8_t *t = tag(&m, 6, 16 + 24);
	put32(t + 8, 12);
	finish(&m);
	bi = (struct boot_info){ 0 };
	CHECK(mb2_parse(m.b, m.len, &bi) > 0);
	CHECK_EQ(bi.nmmap, 0);

	/* framebuffer that claims RGB but has no colour info */
	memset(&m, 0, sizeof m);
	m.len = 8;
	t = tag(&m, 8, 31);
	put32(t + 16, 100);
	put32(t + 20, 10);
	put32(t + 24, 10);
	t[28] = 32;
	t[29] = 1;
	finish(&m);
	bi = (struct boot_info){ 0 };
	CHECK(mb2_parse(m.b, m.len, &bi) > 0);
	CHECK(!bi.has_fb);
}

TEST(mb2_random_garbage)
{
	srand(1);
	for (int i = 0; i < 2000; i++) {
		uint32_t n = 8 + rand() % 300;
		uint8_t *buf = malloc(n);
		for (uint32_t k = 0; k < n; k++)
			buf[k] = rand();
		if (rand() & 1)
			put32(buf, n);
		if (n >= 16 && (rand() & 1))
			put32(buf + 12, 8 + rand() % 64);
		struct boot_info bi = { 0 };
		mb2_parse(buf, n, &bi);
		free(buf);
	}
	CHECK(1);
}

/* A command line longer than the kernel keeps: the copy is cut, and its whole
 * length is reported so that the line can be refused as a whole (issue 13.5). */
TEST(mb2_long_cmdline)
{
	static uint8_t b[BI_CMDLINE_SIZE + 256];
	size_t n = BI_CMDLINE_SIZE + 100;       /* characters, then the NUL */
	uint32_t tsize = (uint32_t)(8 + n + 1);
	memset(b, 0, sizeof b);
	put32(b + 8, 1);
	put32(b + 12, tsize);
	memset(b + 16, 'a', n);
	uint32_t end = 8 + ((tsize + 7) & ~7u);
	put32(b + end, 0);
	put32(b + end + 4, 8);
	put32(b, end + 8);
	struct boot_info bi = { 0 };
	CHECK_EQ(mb2_parse(b, end + 8, &bi), 0);
	CHECK_EQ(bi.cmdline_len, n);
	CHECK_EQ(strlen(bi.cmdline), BI_CMDLINE_SIZE - 1);
}
