/* The Debug Store, hardware side: feature detection, allocation of the save area,
 * IA32_DS_AREA, and readable dumps.  The layout arithmetic lives in lib/ds_layout.c.
 *
 * SDM vol.3 17.4.9 (18.6.3.4 in older editions): the DS save area must be in
 * non-paged, present, accessed and dirty memory, on linearly contiguous pages,
 * not sharing a page with code, and the same for every address space.  exp_alloc()
 * gives zeroed, contiguous, identity-mapped memory in the kernel's arena, and we
 * keep it page aligned so it never shares a page with code. */
#include "bts_record.h"
#include "cpu.h"
#include "cpuid.h"
#include "ds_area.h"
#include "fmt.h"
#include "mem.h"
#include "msr.h"
#include "trap.h"
#include "x86.h"

static struct ds_area *active;
static char reason[96];
static void (*diag)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void (*on_install)(uint64_t pebs_base);

void ds_set_diag(void (*fn)(const char *fmt, ...))
{
	diag = fn;
}

void ds_set_install_hook(void (*fn)(uint64_t pebs_base))
{
	on_install = fn;
}

static const char *ds_common_unavailable(void)
{
	if (!(cpu.leaf1_edx & CPUID_1_EDX_DS))
		return "CPUID.01H:EDX.DS[21]=0";
	if (!cpu.has_misc_enable)
		return "IA32_MISC_ENABLE (0x1a0) read GP";
	return 0;
}

/* IA32_DS_AREA must take a canonical address and give it back. */
static const char *ds_msr_probe(void)
{
	uint64_t old, v;
	if (!rdmsr_safe(IA32_DS_AREA, &old))
		return "RDMSR IA32_DS_AREA (0x600) GP";
	if (!wrmsr_safe(IA32_DS_AREA, 0x1000))
		return "WRMSR IA32_DS_AREA (0x600) GP";
	bool ok = rdmsr_safe(IA32_DS_AREA, &v) && v == 0x1000;
	wrmsr_safe(IA32_DS_AREA, old);
	return ok ? 0 : "IA32_DS_AREA write 0x1000 not read back";
}

const char *ds_bts_unavailable(void)
{
	const char *r = ds_common_unavailable();
	if (r)
		return r;
	if (cpu.misc_enable & MISC_ENABLE_BTS_UNAVAIL)
		return "IA32_MISC_ENABLE.BTS_UNAVAILABLE[11]=1";
	return ds_msr_probe();
}

const char *ds_pebs_unavailable(void)
{
	const char *r = ds_common_unavailable();
	if (r)
		return r;
	if (cpu.misc_enable & MISC_ENABLE_PEBS_UNAVAIL)
		return "IA32_MISC_ENABLE.PEBS_UNAVAILABLE[12]=1";
	if (cpu.perfmon_version == 0)
		return "CPUID.0AH:EAX.VERSION=0";
	uint64_t v;
	if (!rdmsr_safe(IA32_PEBS_ENABLE, &v))
		return "RDMSR IA32_PEBS_ENABLE (0x3f1) GP";
	return ds_msr_probe();
}

const char *ds_pebs_layout(enum pebs_layout *l)
{
	/* In IA-32e mode the 64-bit DS format applies whatever DTES64 says. */
	if (pebs_layout_from_caps(true, cpu.has_perf_caps, cpu.perf_caps, l) == PEBS_OK)
		return 0;
	unsigned fmt = (unsigned)((cpu.perf_caps >> PERF_CAP_PEBS_FMT_SHIFT) & PERF_CAP_PEBS_FMT_MASK);
	static const char pre[] = "IA32_PERF_CAPABILITIES.PEBS_FMT=";
	unsigned i = 0;
	for (; pre[i]; i++)
		reason[i] = pre[i];
	if (fmt >= 10)
		reason[i++] = '1';
	reason[i++] = (char)('0' + fmt % 10);
	static const char post[] = " unknown";
	for (unsigned j = 0; post[j]; j++)
		reason[i++] = post[j];
	reason[i] = 0;
	return reason;
}

int ds_create(struct ds_area *d, uint32_t bts_records, uint32_t bts_thresh_rec,
	      uint32_t pebs_records, uint32_t pebs_thresh_rec, uint32_t pebs_rec_size)
{
	/* The whole layout is lib/ds_layout.c's: the management area (its size by
	 * PEBS_FMT), the BTS buffer on its own page, the PEBS buffer a guard of
	 * BTS_PMI_MARGIN_RECORDS records past the BTS maximum (records the processor
	 * writes past an interrupt threshold never reach a PEBS record), every
	 * pointer and threshold, the SDM's checks.  Here: allocate, write, remember. */
	struct ds_spec s = {
		.fmt = DS_FMT64,        /* IA-32e mode: the 64-bit format whatever DTES64 says */
		.pebs_fmt = cpu.has_perf_caps ?
			(unsigned)((cpu.perf_caps >> PERF_CAP_PEBS_FMT_SHIFT) & PERF_CAP_PEBS_FMT_MASK) : 0,
		.bts_records = bts_records, .bts_thresh_rec = bts_thresh_rec,
		.bts_guard_records = BTS_PMI_MARGIN_RECORDS,
		.pebs_records = pebs_records, .pebs_thresh_rec = pebs_thresh_rec,
		.pebs_rec_size = pebs_rec_size,
	};
	struct ds_layout l;
	uint64_t bytes, align;
	memset(d, 0, sizeof *d);
	d->fmt = s.fmt;
	d->pebs_fmt = s.pebs_fmt;
	d->bts_rec = ds_bts_record_size(s.fmt);
	d->bts_records = bts_records;
	d->pebs_rec = pebs_rec_size;
	d->pebs_records = pebs_records;
	int e = ds_layout_size(&s, &bytes, &align);
	if (e)
		return e;
	d->mgmt = exp_alloc((size_t)bytes, (size_t)align);
	if (!d->mgmt)
		return DS_ERR_NO_RECORDS;
	e = ds_layout(&s, (uint64_t)(uintptr_t)d->mgmt, &l);
	ds_layout_write(d->mgmt, &l);
	return e;
}

const char *ds_install(struct ds_area *d)
{
	uint64_t v, area = (uint64_t)(uintptr_t)d->mgmt;
	if (!rdmsr_safe(IA32_DS_AREA, &d->saved_msr))
		return "RDMSR IA32_DS_AREA (0x600) GP";
	if (!wrmsr_safe(IA32_DS_AREA, area))
		return "WRMSR IA32_DS_AREA (0x600) GP";
	if (!rdmsr_safe(IA32_DS_AREA, &v) || v != area) {
		wrmsr_safe(IA32_DS_AREA, d->saved_msr);
		return "IA32_DS_AREA not read back";
	}
	d->installed = true;
	active = d;
	if (on_install)
		on_install(ds_read(d, DS_PEBS_BASE));
	return 0;
}

void ds_uninstall(struct ds_area *d)
{
	if (!d->installed)
		return;
	wrmsr_safe(IA32_DS_AREA, d->saved_msr);
	d->installed = false;
	if (active == d)
		active = 0;
}

struct ds_area *ds_active(void)
{
	return active;
}

void ds_forget(void)
{
	active = 0;
}

uint64_t ds_read(const struct ds_area *d, enum ds_field f)
{
	const volatile uint8_t *p = d->mgmt + ds_field_offset(d->fmt, f);
	uint64_t v = 0;
	for (unsigned i = ds_field_size(d->fmt); i > 0; i--)
		v = (v << 8) | p[i - 1];
	return v;
}

void ds_write(struct ds_area *d, enum ds_field f, uint64_t v)
{
	volatile uint8_t *p = d->mgmt + ds_field_offset(d->fmt, f);
	for (unsigned i = 0; i < ds_field_size(d->fmt); i++, v >>= 8)
		p[i] = (uint8_t)v;
}

void ds_buf_get(const struct ds_area *d, bool pebs, struct ds_buf *b)
{
	enum ds_field f0 = pebs ? DS_PEBS_BASE : DS_BTS_BASE;
	b->base = ds_read(d, f0);
	b->index = ds_read(d, (enum ds_field)(f0 + 1));
	b->max = ds_read(d, (enum ds_field)(f0 + 2));
	b->thresh = ds_read(d, (enum ds_field)(f0 + 3));
}

void ds_set_pebs_reset(struct ds_area *d, unsigned pmc, uint64_t v)
{
	ds_put_gp_reset(d->mgmt, d->fmt, d->pebs_fmt, pmc, v);
}

void ds_rewind(struct ds_area *d, bool pebs)
{
	enum ds_field f0 = pebs ? DS_PEBS_BASE : DS_BTS_BASE;
	ds_write(d, (enum ds_field)(f0 + 1), ds_read(d, f0));
}

void ds_dump(const struct ds_area *d)
{
	if (!diag)
		return;
	diag("DS management area at 0x%llx (%s format, IA32_DS_AREA)",
	     (unsigned long long)(uintptr_t)d->mgmt, d->fmt == DS_FMT64 ? "64-bit" : "32-bit");
	for (int f = 0; f < DS_NFIELDS; f++) {
		uint64_t base = ds_read(d, f < DS_PEBS_BASE ? DS_BTS_BASE : DS_PEBS_BASE);
		uint64_t v = ds_read(d, (enum ds_field)f);
		uint32_t rs = f < DS_PEBS_BASE ? d->bts_rec : d->pebs_rec;
		diag("  +0x%02x %-24s 0x%016llx  (record %lld)", ds_field_offset(d->fmt, (enum ds_field)f),
		     ds_field_name((enum ds_field)f), (unsigned long long)v,
		     rs && v >= base ? (long long)((v - base) / rs) : -1LL);
	}
	for (unsigned n = 0; n < 8; n++)
		if (ds_get_gp_reset(d->mgmt, d->fmt, d->pebs_fmt, n))
			diag("  +0x%02x PEBS counter reset PMC%u 0x%016llx",
			     ds_gp_reset_offset(d->fmt, d->pebs_fmt, n), n,
			     (unsigned long long)ds_get_gp_reset(d->mgmt, d->fmt, d->pebs_fmt, n));
	for (unsigned n = 0; n < 4; n++)
		if (ds_get_fixed_reset(d->mgmt, d->fmt, d->pebs_fmt, n))
			diag("  +0x%03x PEBS counter reset FIXED_CTR%u 0x%016llx",
			     ds_fixed_reset_offset(d->fmt, d->pebs_fmt, n), n,
			     (unsigned long long)ds_get_fixed_reset(d->mgmt, d->fmt, d->pebs_fmt, n));
}

void ds_dump_bts(const struct ds_area *d, bool wrapped)
{
	if (!diag || !d->bts_records)
		return;
	struct ds_buf b;
	ds_buf_get(d, false, &b);
	diag("BTS records, oldest first%s:", wrapped ? " (buffer wrapped)" : "");
	diag("    #  slot  from                to                  predicted");
	uint64_t rs = d->bts_rec;
	uint64_t nrec = (b.max - b.base) / rs, at = (b.index - b.base) / rs;
	uint64_t total = wrapped ? nrec : at, first = wrapped ? at % nrec : 0;
	for (uint64_t i = 0; i < total; i++) {
		uint64_t slot = (first + i) % nrec;
		struct bts_record r;
		bts_decode((const void *)(uintptr_t)(b.base + slot * rs), (size_t)rs, d->fmt, &r);
		diag("  %3llu  %4llu  0x%016llx  0x%016llx  %s", (unsigned long long)i,
		     (unsigned long long)slot, (unsigned long long)r.from, (unsigned long long)r.to,
		     r.predicted ? "yes" : "no");
	}
}

void ds_dump_pebs(const struct ds_area *d)
{
	if (!diag || !d->pebs_records)
		return;
	struct ds_buf b;
	ds_buf_get(d, true, &b);
	uint64_t at = b.base;
	char text[1024];
	while (at < b.index) {
		struct pebs_record r;
		struct pebs_format f = { d->pebs_layout, d->pebs_cfg, d->pebs_timed, d->pebs_split_latency };
		int e = pebs_decode_fmt((const void *)(uintptr_t)at, (size_t)(b.index - at), &f, &r);
		if (e) {
			diag("PEBS record at 0x%llx: %s", (unsigned long long)at, pebs_strerror(e));
			return;
		}
		pebs_format(text, sizeof text, &r);
		/* one diag line per text line */
		char *s = text;
		for (char *p = text; *p; p++) {
			if (*p == '\n') {
				*p = 0;
				diag("%s", s);
				s = p + 1;
			}
		}
		if (*s)
			diag("%s", s);
		at += r.size;
	}
}

/* Raw quadwords for tools/dsdump: the whole management area, then the first
 * and the last few records of each buffer (every record if they are few). */
static void raw_records(const struct ds_area *d, bool pebs, struct ds_buf *b, uint32_t rec)
{
	if (!rec || b->index <= b->base)
		return;
	uint64_t n = (b->index - b->base) / rec;
	for (uint64_t i = 0; i < n; i++) {
		if (n > 8 && i == 4) {
			diag("ds: %s ... %llu records not shown", pebs ? "pebs" : "bts",
			     (unsigned long long)(n - 8));
			i = n - 4;
		}
		uint64_t at = b->base + i * rec;
		const volatile uint64_t *q = (const volatile uint64_t *)(uintptr_t)at;
		char line[400];
		int k = tl_snprintf(line, sizeof line, "ds: %s 0x%llx", pebs ? "pebs" : "bts",
				    (unsigned long long)at);
		for (uint32_t j = 0; j < rec / 8 && k < (int)sizeof line - 20; j++)
			k += tl_snprintf(line + k, sizeof line - (size_t)k, " %llx", (unsigned long long)q[j]);
		diag("%s", line);
	}
}

void ds_dump_raw(const struct ds_area *d, const char *name)
{
	if (!diag || !d->mgmt)
		return;
	diag("ds-dump begin %s area=0x%llx pebs_fmt=%u layout=%d cfg=0x%llx timed=%d split=%d", name,
	     (unsigned long long)(uintptr_t)d->mgmt, d->pebs_fmt, (int)d->pebs_layout,
	     (unsigned long long)d->pebs_cfg, d->pebs_timed, d->pebs_split_latency);
	unsigned size = ds_mgmt_size(d->fmt, d->pebs_fmt);
	const volatile uint64_t *m = (const volatile uint64_t *)d->mgmt;
	for (unsigned off = 0; off < size; off += 32)
		diag("ds: mgmt +0x%03x %llx %llx %llx %llx", off, (unsigned long long)m[off / 8],
		     (unsigned long long)m[off / 8 + 1], (unsigned long long)m[off / 8 + 2],
		     (unsigned long long)m[off / 8 + 3]);
	struct ds_buf b;
	if (d->bts_records) {
		ds_buf_get(d, false, &b);
		raw_records(d, false, &b, d->bts_rec);
	}
	if (d->pebs_records) {
		ds_buf_get(d, true, &b);
		/* adaptive records vary in size: walk them by their size field */
		uint32_t rec = d->pebs_layout == PEBS_L_ADAPTIVE ? pebs_adaptive_size(d->pebs_cfg) : d->pebs_rec;
		raw_records(d, true, &b, rec);
	}
	diag("ds-dump end %s", name);
}
