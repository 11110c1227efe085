/* ACPI: just enough to list the processors (the MADT). */
#ifndef KERNEL_ACPI_H
#define KERNEL_ACPI_H
#include <stdbool.h>
#include <stddef.h>
#include "madt.h"

struct acpi_found {
	const char *rsdp_source;        /* "multiboot2 tag", "EBDA", "BIOS area 0xe0000" */
	uint64_t rsdp_addr;             /* 0 when it came from the multiboot2 copy */
	struct rsdp_info rsdp;
	uint64_t madt_addr;
	struct madt_info madt;
};

/* Finds the RSDP (multiboot2 tag, else the BIOS search of ACPI 5.2.5.1), walks the
 * XSDT or RSDT and parses the MADT.  false with a one-line reason in why when
 * any step fails; nothing in the tables is followed without being checked. */
bool acpi_find_madt(struct acpi_found *f, char *why, size_t n);

#endif
