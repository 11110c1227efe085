/* ACPI tables the kernel needs to find its processors: the RSDP, the RSDT/XSDT
 * and the MADT (ACPI 6.5 sections 5.2.5, 5.2.7, 5.2.8, 5.2.12).  Pure byte-buffer
 * parsers: every function is told how many bytes it may read and never reads
 * more, so a malformed or truncated table is reported, never followed. */
#ifndef LIB_MADT_H
#define LIB_MADT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ACPI_SDT_HDR_LEN        36
#define ACPI_RSDP_V1_LEN        20
#define ACPI_RSDP_V2_LEN        36
#define MADT_MAX_CPUS           64

struct rsdp_info {
	int revision;                   /* 0: ACPI 1.0 (RSDT only), >= 2: XSDT too */
	uint32_t rsdt;
	uint64_t xsdt;                  /* 0 when revision < 2 */
	char oem[7];
};

/* 0 if p holds a valid RSDP (signature, checksum of the first 20 bytes, and for
 * revision >= 2 the extended checksum over `length` bytes); otherwise a
 * negative ACPI_E_* code.  acpi_strerror() says what was wrong. */
int rsdp_parse(const void *p, size_t avail, struct rsdp_info *out);

/* Offset of the first valid RSDP on a 16-byte boundary in [base, base+len)
 * (ACPI 5.2.5.1: the BIOS search), or -1. */
long rsdp_scan(const void *base, size_t len);

/* 0 if t is a system description table with signature sig (NULL: any), a
 * length within [36, avail] and a zero checksum; else a negative ACPI_E_*. */
int sdt_check(const void *t, size_t avail, const char *sig);
uint32_t sdt_length(const void *t);     /* the header's length field (t has >= 8 bytes) */

/* The table addresses in an RSDT (4-byte entries) or XSDT (8-byte entries) of
 * `len` checked bytes; at most max stored, the total count is returned. */
int sdt_entries(const void *t, size_t len, bool xsdt, uint64_t *out, int max);

#define MADT_LAPIC              0       /* Processor Local APIC, 8 bytes */
#define MADT_LAPIC_OVERRIDE     5       /* Local APIC Address Override, 12 bytes */
#define MADT_X2APIC             9       /* Processor Local x2APIC, 16 bytes */
#define MADT_F_ENABLED          0x1
#define MADT_F_ONLINE_CAPABLE   0x2     /* ACPI 6.3: may be enabled at run time */

struct madt_cpu {
	uint32_t apic_id;
	uint32_t uid;                   /* ACPI processor UID */
	uint32_t flags;
	uint8_t type;                   /* MADT_LAPIC or MADT_X2APIC */
};

struct madt_info {
	uint64_t lapic_addr;            /* after any override */
	uint32_t flags;                 /* bit 0: PCAT_COMPAT (8259 pair present) */
	struct madt_cpu cpu[MADT_MAX_CPUS];
	int ncpu;                       /* stored entries (enabled or not) */
	int nenabled;                   /* stored entries with MADT_F_ENABLED */
	bool truncated;                 /* more processor entries than MADT_MAX_CPUS */
	int nproblems;
	char problem[96];               /* the first problem found */
};

/* Parses a MADT of `len` bytes (already checked with sdt_check).  Processor
 * entries whose APIC ID repeats an earlier one, entries with a bad length and
 * a list that runs off the end are counted as problems, never followed.
 * Returns the number of problems. */
int madt_parse(const void *t, size_t len, struct madt_info *m);

#define ACPI_E_SHORT            (-1)    /* fewer bytes than the structure needs */
#define ACPI_E_SIGNATURE        (-2)
#define ACPI_E_CHECKSUM         (-3)
#define ACPI_E_LENGTH           (-4)    /* length field out of range */
#define ACPI_E_XCHECKSUM        (-5)    /* RSDP extended checksum */
const char *acpi_strerror(int err);

#endif
