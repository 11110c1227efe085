/* Host tests of lib/madt.c: RSDP (v1, v2, BIOS scan), SDT checks, RSDT/XSDT
 * entries, MADT processor entries, and malformed tables that must not crash. */
#include <stdlib.h>
#include <string.h>
#include "tl_test.h"
#include "madt.h"

static void put(uint8_t *p, unsigned n, uint64_t v)
{
	for (unsigned i = 0; i < n; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

static void fix_sum(uint8_t *p, size_t n, size_t at)
{
	uint8_t s = 0;
	p[at] = 0;
	for (size_t i = 0; i < n; i++)
		s = (uint8_t)(s + p[i]);
	p[at] = (uint8_t)-s;
}

static void make_rsdp(uint8_t *r, int rev, uint32_t rsdt, uint64_t xsdt)
{
	memset(r, 0, ACPI_RSDP_V2_LEN);
	memcpy(r, "RSD PTR ", 8);
	memcpy(r + 9, "BOCHS ", 6);
	r[15] = (uint8_t)rev;
	put(r + 16, 4, rsdt);
	if (rev >= 2) {
		put(r + 20, 4, ACPI_RSDP_V2_LEN);
		put(r + 24, 8, xsdt);
		fix_sum(r, ACPI_RSDP_V2_LEN, 32);
	}
	fix_sum(r, ACPI_RSDP_V1_LEN, 8);
	if (rev >= 2)
		fix_sum(r, ACPI_RSDP_V2_LEN, 32);
}

TEST(rsdp_v1_and_v2)
{
	uint8_t r[ACPI_RSDP_V2_LEN];
	struct rsdp_info i;
	make_rsdp(r, 0, 0x7fe14ba, 0);
	CHECK_EQ(rsdp_parse(r, ACPI_RSDP_V1_LEN, &i), 0);
	CHECK_EQ(i.revision, 0);
	CHECK_EQ(i.rsdt, 0x7fe14ba);
	CHECK_EQ(i.xsdt, 0);
	CHECK(!strcmp(i.oem, "BOCHS "));

	make_rsdp(r, 2, 0x1000, 0x123456789aull);
	CHECK_EQ(rsdp_parse(r, sizeof r, &i), 0);
	CHECK_EQ(i.revision, 2);
	CHECK_EQ(i.xsdt, 0x123456789aull);
	CHECK_EQ(rsdp_parse(r, ACPI_RSDP_V1_LEN, &i), ACPI_E_SHORT);   /* v2 needs 36 bytes */

	r[25] ^= 1;                                     /* only the extended checksum covers it */
	CHECK_EQ(rsdp_parse(r, sizeof r, &i), ACPI_E_XCHECKSUM);
	make_rsdp(r, 2, 0x1000, 0);
	put(r + 20, 4, 8);                              /* length below 36 */
	fix_sum(r, ACPI_RSDP_V1_LEN, 8);
	CHECK_EQ(rsdp_parse(r, sizeof r, &i), ACPI_E_LENGTH);
	make_rsdp(r, 2, 0x1000, 0);
	put(r + 20, 4, 0xffffffff);                     /* length beyond what is readable */
	fix_sum(r, ACPI_RSDP_V1_LEN, 8);
	CHECK_EQ(rsdp_parse(r, sizeof r, &i), ACPI_E_SHORT);

	make_rsdp(r, 0, 0x1000, 0);
	r[16] ^= 0x10;
	CHECK_EQ(rsdp_parse(r, sizeof r, &i), ACPI_E_CHECKSUM);
	r[0] = 'r';
	CHECK_EQ(rsdp_parse(r, sizeof r, &i), ACPI_E_SIGNATURE);
	CHECK_EQ(rsdp_parse(r, 19, &i), ACPI_E_SHORT);
	CHECK(acpi_strerror(ACPI_E_XCHECKSUM)[0] != 0);
}

TEST(rsdp_scan_finds_aligned_valid_only)
{
	static uint8_t area[0x420];     /* scanned: the first 0x400 */
	memset(area, 0, sizeof area);
	/* a decoy with a bad checksum, one off the 16-byte grid, then the real one */
	make_rsdp(area + 0x40, 0, 0x1000, 0);
	area[0x40 + 16] ^= 1;
	make_rsdp(area + 0x88, 0, 0x1000, 0);
	CHECK_EQ(rsdp_scan(area, 0x400), -1);
	make_rsdp(area + 0x3e0, 2, 0x1000, 0x2000);    /* 36 bytes do not fit: v2 needs them */
	CHECK_EQ(rsdp_scan(area, 0x400), -1);
	make_rsdp(area + 0x200, 0, 0x1234, 0);
	CHECK_EQ(rsdp_scan(area, 0x400), 0x200);
	CHECK_EQ(rsdp_scan(area, 0x200), -1);
	CHECK_EQ(rsdp_scan(area, 0), -1);
}

static size_t make_sdt(uint8_t *t, const char *sig, size_t len)
{
	memcpy(t, sig, 4);
	put(t + 4, 4, len);
	t[8] = 1;
	fix_sum(t, len, 9);
	return len;
}

TEST(sdt_check_and_entries)
{
	uint8_t t[64];
	memset(t, 0, sizeof t);
	put(t + 36, 4, 0x11223344);
	put(t + 40, 4, 0x55667788);
	put(t + 44, 4, 0x99aabbcc);
	make_sdt(t, "RSDT", 48);
	CHECK_EQ(sdt_check(t, sizeof t, "RSDT"), 0);
	CHECK_EQ(sdt_check(t, sizeof t, NULL), 0);
	CHECK_EQ(sdt_check(t, sizeof t, "XSDT"), ACPI_E_SIGNATURE);
	CHECK_EQ(sdt_check(t, 47, "RSDT"), ACPI_E_SHORT);
	CHECK_EQ(sdt_check(t, 35, "RSDT"), ACPI_E_SHORT);
	uint64_t e[4];
	CHECK_EQ(sdt_entries(t, 48, false, e, 4), 3);
	CHECK_EQ(e[0], 0x11223344);
	CHECK_EQ(e[2], 0x99aabbcc);
	CHECK_EQ(sdt_entries(t, 48, false, e, 1), 3);  /* counted, only one stored */
	CHECK_EQ(sdt_entries(t, 48, true, e, 4), 1);
	CHECK_EQ(e[0], 0x5566778811223344ull);
	CHECK_EQ(sdt_entries(t, 20, true, e, 4), 0);
	t[40] ^= 1;
	CHECK_EQ(sdt_check(t, sizeof t, "RSDT"), ACPI_E_CHECKSUM);
	put(t + 4, 4, 10);
	CHECK_EQ(sdt_check(t, sizeof t, "RSDT"), ACPI_E_LENGTH);
}

static size_t lapic(uint8_t *p, uint8_t uid, uint8_t id, uint32_t flags)
{
	p[0] = MADT_LAPIC;
	p[1] = 8;
	p[2] = uid;
	p[3] = id;
	put(p + 4, 4, flags);
	return 8;
}

static size_t x2apic(uint8_t *p, uint32_t id, uint32_t flags, uint32_t uid)
{
	memset(p, 0, 16);
	p[0] = MADT_X2APIC;
	p[1] = 16;
	put(p + 4, 4, id);
	put(p + 8, 4, flags);
	put(p + 12, 4, uid);
	return 16;
}

/* QEMU's MADT for -smp 4 looks like this: four Local APIC entries, an I/O APIC
 * and interrupt source overrides in between. */
TEST(madt_qemu_like)
{
	uint8_t t[256];
	memset(t, 0, sizeof t);
	size_t o = 44;
	put(t + 36, 4, 0xfee00000);
	put(t + 40, 4, 1);
	for (int i = 0; i < 3; i++)
		o += lapic(t + o, (uint8_t)i, (uint8_t)i, MADT_F_ENABLED);
	t[o] = 1, t[o + 1] = 12, o += 12;               /* I/O APIC: skipped */
	t[o] = 2, t[o + 1] = 10, o += 10;               /* interrupt source override */
	o += lapic(t + o, 3, 3, 0);                     /* present but disabled */
	o += lapic(t + o, 4, 6, MADT_F_ONLINE_CAPABLE);
	o += x2apic(t + o, 0x1234, MADT_F_ENABLED, 77);
	make_sdt(t, "APIC", o);
	CHECK_EQ(sdt_check(t, o, "APIC"), 0);
	struct madt_info m;
	CHECK_EQ(madt_parse(t, o, &m), 0);
	CHECK_EQ(m.lapic_addr, 0xfee00000);
	CHECK_EQ(m.flags, 1);
	CHECK_EQ(m.ncpu, 6);
	CHECK_EQ(m.nenabled, 4);
	CHECK_EQ(m.cpu[2].apic_id, 2);
	CHECK_EQ(m.cpu[3].flags, 0);
	CHECK_EQ(m.cpu[4].apic_id, 6);
	CHECK_EQ(m.cpu[4].uid, 4);
	CHECK_EQ(m.cpu[4].flags, MADT_F_ONLINE_CAPABLE);
	CHECK_EQ(m.cpu[5].apic_id, 0x1234);
	CHECK_EQ(m.cpu[5].uid, 77);
	CHECK_EQ(m.cpu[5].type, MADT_X2APIC);
	CHECK(!m.truncated);
}

TEST(madt_override_duplicates_and_overflow)
{
	static uint8_t t[44 + 12 + 8 * (MADT_MAX_CPUS + 4)];
	memset(t, 0, sizeof t);
	size_t o = 44;
	put(t + 36, 4, 0xfee00000);
	t[o] = MADT_LAPIC_OVERRIDE, t[o + 1] = 12;
	put(t + o + 4, 8, 0x1fee00000ull);
	o += 12;
	o += lapic(t + o, 0, 5, MADT_F_ENABLED);
	o += lapic(t + o, 1, 5, MADT_F_ENABLED);        /* same APIC ID again */
	for (int i = 0; i < MADT_MAX_CPUS + 2; i++)
		o += lapic(t + o, (uint8_t)i, (uint8_t)(10 + i), MADT_F_ENABLED);
	struct madt_info m;
	CHECK_EQ(madt_parse(t, o, &m), 1);
	CHECK(strstr(m.problem, "duplicate APIC ID") != NULL);
	CHECK_EQ(m.lapic_addr, 0x1fee00000ull);
	CHECK_EQ(m.ncpu, MADT_MAX_CPUS);
	CHECK_EQ(m.nenabled, MADT_MAX_CPUS);
	CHECK(m.truncated);
}

TEST(madt_malformed_entries_stop_the_walk)
{
	uint8_t t[80];
	struct madt_info m;
	memset(t, 0, sizeof t);
	size_t o = 44 + lapic(t + 44, 0, 0, MADT_F_ENABLED);
	t[o] = MADT_LAPIC, t[o + 1] = 0;                /* zero length: would loop forever */
	CHECK_EQ(madt_parse(t, o + 8, &m), 1);
	CHECK_EQ(m.ncpu, 1);
	t[o + 1] = 200;                                 /* runs past the end */
	CHECK_EQ(madt_parse(t, o + 8, &m), 1);
	CHECK(strstr(m.problem, "past the end") != NULL);
	t[o + 1] = 4;                                   /* too short for a Local APIC entry */
	CHECK_EQ(madt_parse(t, o + 4, &m), 1);
	CHECK_EQ(m.ncpu, 1);
	t[o] = MADT_X2APIC, t[o + 1] = 8;
	CHECK_EQ(madt_parse(t, o + 8, &m), 1);
	CHECK_EQ(madt_parse(t, o + 1, &m), 1);          /* a lone type byte */
	CHECK_EQ(madt_parse(t, 40, &m), 1);             /* no room for the fixed part */
	CHECK_EQ(m.ncpu, 0);
}

/* Random bytes of every length: the parser must stay inside the buffer (ASan
 * watches) and account for every stored entry. */
TEST(madt_random_bytes)
{
	srand(8);
	for (int iter = 0; iter < 20000; iter++) {
		size_t n = (size_t)(rand() % 200);
		uint8_t *t = malloc(n ? n : 1);
		for (size_t i = 0; i < n; i++)
			t[i] = (uint8_t)(rand() % 4 == 0 ? rand() % 10 : rand());
		struct madt_info m;
		struct rsdp_info r;
		madt_parse(t, n, &m);
		CHECK(m.ncpu >= 0 && m.ncpu <= MADT_MAX_CPUS && m.nenabled <= m.ncpu);
		rsdp_parse(t, n, &r);
		rsdp_scan(t, n);
		sdt_check(t, n, "APIC");
		free(t);
	}
}
