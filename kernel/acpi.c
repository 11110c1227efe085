/* Finding the MADT: RSDP -> XSDT (or RSDT) -> "APIC" (ACPI 6.5 5.2.5-5.2.12).
 *
 * The tables live in firmware-reserved or ACPI memory, which the kernel's own
 * map (kernel/paging.c) leaves unmapped on purpose.  The early identity map of
 * the first 4 GiB built by boot/entry32.S is still intact, so while reading the
 * tables we run on it and switch back afterwards; a table above 4 GiB is
 * reported and not read. */
#include "acpi.h"
#include "bootinfo.h"
#include "fmt.h"
#include "mem.h"
#include "str.h"
#include "x86.h"

extern struct boot_info bootinfo;
extern uint64_t early_pml4[];

#define LIMIT_4G        0x100000000ULL
#define SDT_MAX_LEN     0x100000        /* no RSDT/XSDT/MADT is anywhere near 1 MiB */

/* A physical address as a pointer; the asm hides the constant from the
 * compiler, which would otherwise treat low addresses as null-pointer offsets. */
static const uint8_t *phys(uint64_t a)
{
	uintptr_t p = (uintptr_t)a;
	__asm__("" : "+r"(p));
	return (const uint8_t *)p;
}

static bool fits(uint64_t a, uint64_t len)
{
	return a && a < LIMIT_4G && len <= LIMIT_4G - a;
}

/* Checks the table at physical address a: readable, sane length, checksum. */
static int table_at(uint64_t a, const char *sig, uint32_t *len)
{
	if (!fits(a, ACPI_SDT_HDR_LEN))
		return ACPI_E_LENGTH;
	uint32_t l = sdt_length(phys(a));
	if (l < ACPI_SDT_HDR_LEN || l > SDT_MAX_LEN || !fits(a, l))
		return ACPI_E_LENGTH;
	*len = l;
	return sdt_check(phys(a), l, sig);
}

/* ACPI 5.2.5.1: on IA-PC systems the RSDP is on a 16-byte boundary in the first
 * KiB of the EBDA (segment at 0x40E) or in 0xE0000-0xFFFFF. */
static bool bios_search(struct acpi_found *f)
{
	uint64_t ebda = (uint64_t)*(const volatile uint16_t *)phys(0x40e) << 4;
	long off;
	if (ebda >= 0x80000 && ebda < 0xa0000 && (off = rsdp_scan(phys(ebda), 1024)) >= 0) {
		f->rsdp_source = "EBDA";
		f->rsdp_addr = ebda + (uint64_t)off;
	} else if ((off = rsdp_scan(phys(0xe0000), 0x20000)) >= 0) {
		f->rsdp_source = "BIOS area 0xe0000-0xfffff";
		f->rsdp_addr = 0xe0000 + (uint64_t)off;
	} else {
		return false;
	}
	return rsdp_parse(phys(f->rsdp_addr), 0x100000 - f->rsdp_addr, &f->rsdp) == 0;
}

static bool find(struct acpi_found *f, char *why, size_t n)
{
	if (bootinfo.rsdp) {
		f->rsdp_source = "multiboot2 tag";
		int e = rsdp_parse(bootinfo.rsdp, bootinfo.rsdp_len, &f->rsdp);
		if (e) {
			tl_snprintf(why, n, "RSDP from the multiboot2 tag: %s", acpi_strerror(e));
			return false;
		}
	} else if (!bios_search(f)) {
		tl_snprintf(why, n, "no ACPI RSDP (no multiboot2 tag; none in the EBDA or 0xe0000-0xfffff)");
		return false;
	}

	/* ACPI 5.2.5.3: use the XSDT when the RSDP (revision >= 2) gives one. */
	bool x = f->rsdp.revision >= 2 && f->rsdp.xsdt;
	uint64_t root = x ? f->rsdp.xsdt : f->rsdp.rsdt;
	uint32_t len;
	int e = table_at(root, x ? "XSDT" : "RSDT", &len);
	if (e) {
		tl_snprintf(why, n, "%s at 0x%llx: %s", x ? "XSDT" : "RSDT", (unsigned long long)root,
			    acpi_strerror(e));
		return false;
	}
	uint64_t ent[64];
	int ne = sdt_entries(phys(root), len, x, ent, 64);
	for (int i = 0; i < ne && i < 64; i++) {
		uint32_t ml;
		if (!fits(ent[i], ACPI_SDT_HDR_LEN) || tl_strncmp((const char *)phys(ent[i]), "APIC", 4))
			continue;
		e = table_at(ent[i], "APIC", &ml);
		if (e) {
			tl_snprintf(why, n, "MADT at 0x%llx: %s", (unsigned long long)ent[i],
				    acpi_strerror(e));
			return false;
		}
		f->madt_addr = ent[i];
		madt_parse(phys(ent[i]), ml, &f->madt);
		return true;
	}
	tl_snprintf(why, n, "no MADT (\"APIC\") among the %d tables of the %s", ne, x ? "XSDT" : "RSDT");
	return false;
}

bool acpi_find_madt(struct acpi_found *f, char *why, size_t n)
{
	*f = (struct acpi_found){ 0 };
	uint64_t flags = read_rflags(), cr3 = read_cr3();
	cli();
	write_cr3((uint64_t)(uintptr_t)early_pml4);
	bool ok = find(f, why, n);
	write_cr3(cr3);
	write_rflags(flags);
	return ok;
}
