/* RSDP, RSDT/XSDT and MADT parsing: see lib/madt.h.  All multi-byte fields are
 * read byte by byte (ACPI tables are little-endian and need not be aligned). */
#include "fmt.h"
#include "madt.h"

static uint64_t rd(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = n; i > 0; i--)
		v = (v << 8) | p[i - 1];
	return v;
}

static uint8_t sum(const uint8_t *p, size_t n)
{
	uint8_t s = 0;
	while (n--)
		s = (uint8_t)(s + *p++);
	return s;
}

static bool same(const uint8_t *p, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != (uint8_t)s[i])
			return false;
	return true;
}

const char *acpi_strerror(int err)
{
	switch (err) {
	case 0: return "valid";
	case ACPI_E_SHORT: return "truncated";
	case ACPI_E_SIGNATURE: return "wrong signature";
	case ACPI_E_CHECKSUM: return "bad checksum";
	case ACPI_E_LENGTH: return "length field out of range";
	case ACPI_E_XCHECKSUM: return "bad extended checksum";
	}
	return "unknown error";
}

/* ACPI 5.2.5.3: the checksum covers the ACPI 1.0 part (20 bytes); revision 2
 * and later add a length and an extended checksum over the whole structure. */
int rsdp_parse(const void *p, size_t avail, struct rsdp_info *out)
{
	const uint8_t *b = p;
	if (avail < ACPI_RSDP_V1_LEN)
		return ACPI_E_SHORT;
	if (!same(b, "RSD PTR ", 8))
		return ACPI_E_SIGNATURE;
	if (sum(b, ACPI_RSDP_V1_LEN))
		return ACPI_E_CHECKSUM;
	struct rsdp_info r = { .revision = b[15], .rsdt = (uint32_t)rd(b + 16, 4) };
	for (int i = 0; i < 6; i++)
		r.oem[i] = (b[9 + i] >= 0x20 && b[9 + i] < 0x7f) ? (char)b[9 + i] : '?';
	if (r.revision >= 2) {
		if (avail < ACPI_RSDP_V2_LEN)
			return ACPI_E_SHORT;
		uint32_t len = (uint32_t)rd(b + 20, 4);
		if (len < ACPI_RSDP_V2_LEN)
			return ACPI_E_LENGTH;
		if (len > avail)
			return ACPI_E_SHORT;
		if (sum(b, len))
			return ACPI_E_XCHECKSUM;
		r.xsdt = rd(b + 24, 8);
	}
	*out = r;
	return 0;
}

long rsdp_scan(const void *base, size_t len)
{
	const uint8_t *b = base;
	struct rsdp_info r;
	for (size_t off = 0; off + ACPI_RSDP_V1_LEN <= len; off += 16)
		if (rsdp_parse(b + off, len - off, &r) == 0)
			return (long)off;
	return -1;
}

uint32_t sdt_length(const void *t)
{
	return (uint32_t)rd((const uint8_t *)t + 4, 4);
}

int sdt_check(const void *t, size_t avail, const char *sig)
{
	const uint8_t *b = t;
	if (avail < ACPI_SDT_HDR_LEN)
		return ACPI_E_SHORT;
	if (sig && !same(b, sig, 4))
		return ACPI_E_SIGNATURE;
	uint32_t len = sdt_length(t);
	if (len < ACPI_SDT_HDR_LEN)
		return ACPI_E_LENGTH;
	if (len > avail)
		return ACPI_E_SHORT;
	if (sum(b, len))
		return ACPI_E_CHECKSUM;
	return 0;
}

int sdt_entries(const void *t, size_t len, bool xsdt, uint64_t *out, int max)
{
	const uint8_t *b = t;
	unsigned w = xsdt ? 8 : 4;
	if (len < ACPI_SDT_HDR_LEN)
		return 0;
	int n = (int)((len - ACPI_SDT_HDR_LEN) / w);
	for (int i = 0; i < n && i < max; i++)
		out[i] = rd(b + ACPI_SDT_HDR_LEN + (size_t)i * w, w);
	return n;
}

static void problem(struct madt_info *m, const char *what, size_t off, unsigned v)
{
	if (!m->nproblems++)
		tl_snprintf(m->problem, sizeof m->problem, "%s at offset %u (0x%x)", what,
			    (unsigned)off, v);
}

static void add_cpu(struct madt_info *m, uint8_t type, uint32_t id, uint32_t uid, uint32_t flags,
		    size_t off)
{
	for (int i = 0; i < m->ncpu; i++)
		if (m->cpu[i].apic_id == id) {
			problem(m, "duplicate APIC ID", off, id);
			return;
		}
	if (m->ncpu == MADT_MAX_CPUS) {
		m->truncated = true;
		return;
	}
	m->cpu[m->ncpu++] = (struct madt_cpu){ .apic_id = id, .uid = uid, .flags = flags, .type = type };
	if (flags & MADT_F_ENABLED)
		m->nenabled++;
}

/* ACPI 5.2.12: after the header, the local interrupt controller address (4
 * bytes) and flags (4), then entries of (type, length, ...).  An x2APIC entry
 * (5.2.12.12) describes a processor whose APIC ID does not fit the 8-bit field;
 * firmware must not describe one processor with both kinds, but if it does the
 * first one wins and the repeat is a problem. */
int madt_parse(const void *t, size_t len, struct madt_info *m)
{
	const uint8_t *b = t;
	*m = (struct madt_info){ 0 };
	if (len < ACPI_SDT_HDR_LEN + 8) {
		problem(m, "MADT shorter than its fixed part", 0, (unsigned)len);
		return m->nproblems;
	}
	m->lapic_addr = rd(b + 36, 4);
	m->flags = (uint32_t)rd(b + 40, 4);
	size_t off = ACPI_SDT_HDR_LEN + 8;
	while (off < len) {
		if (len - off < 2) {
			problem(m, "entry header runs past the end", off, 0);
			break;
		}
		uint8_t type = b[off], elen = b[off + 1];
		if (elen < 2) {
			problem(m, "entry length below 2", off, elen);
			break;          /* cannot step over it */
		}
		if (elen > len - off) {
			problem(m, "entry runs past the end", off, elen);
			break;
		}
		const uint8_t *e = b + off;
		if (type == MADT_LAPIC) {
			if (elen < 8)
				problem(m, "short Local APIC entry", off, elen);
			else
				add_cpu(m, type, e[3], e[2], (uint32_t)rd(e + 4, 4), off);
		} else if (type == MADT_X2APIC) {
			if (elen < 16)
				problem(m, "short Local x2APIC entry", off, elen);
			else
				add_cpu(m, type, (uint32_t)rd(e + 4, 4), (uint32_t)rd(e + 12, 4),
					(uint32_t)rd(e + 8, 4), off);
		} else if (type == MADT_LAPIC_OVERRIDE) {
			if (elen < 12)
				problem(m, "short Local APIC Address Override", off, elen);
			else
				m->lapic_addr = rd(e + 4, 8);
		}
		off += elen;
	}
	return m->nproblems;
}
