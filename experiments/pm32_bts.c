/* 201 bts-circular in 32-bit protected mode: book ex14-9 in the mode it was
 * written for.
 *
 * The DS save area's layout depends on the mode (SDM vol.3 17.4.9.1): with
 * CPUID.01H:ECX.DTES64[2]=0 and IA-32e mode off, the 32-bit layout (4-byte
 * pointers, 12-byte BTS records); with DTES64=1 the 64-bit layout in every mode
 * (8-byte fields holding the 32-bit linear addresses).  lib/ds_layout.c
 * ds_format_for() decides, lib/ds_layout.c lays the area out and lib/bts_record.c
 * decodes it (host-tested: tests/host/test_ds_layout.c, test_bts_record.c).  IA32_DS_AREA and DEBUGCTL are
 * MSRs, the same in every mode: long mode sets IA32_DS_AREA, the protected-mode
 * scenario turns BTS on, takes eleven jumps into a ten-record circular buffer
 * and turns it off. */
#include "bts_record.h"
#include "cpuid.h"
#include "ds_area.h"
#include "ds_layout.h"
#include "experiment.h"
#include "fmt.h"
#include "mem.h"
#include "msr.h"
#include "msr_safe.h"
#include "pm32.h"
#include "x86.h"

extern char pm32_s_bts11[], pm32_bts_j0[], pm32_bts_j1[], pm32_bts_j2[], pm32_bts_j3[],
	pm32_bts_j4[], pm32_bts_j5[], pm32_bts_j6[], pm32_bts_j7[], pm32_bts_j8[], pm32_bts_j9[],
	pm32_bts_j10[], pm32_bts_j11[];

static struct pm32 pm;

static void exp_pm32_bts_circular(void)
{
	const char *why = ds_bts_unavailable();
	if (why) {
		exp_skip("%s", why);
		return;
	}
	bool dtes64 = cpuid(1, 0).ecx & (1u << 2);
	enum ds_format fmt = ds_format_for(dtes64, false);
	unsigned rs = ds_bts_record_size(fmt);
	diag("CPUID.01H:ECX.DTES64[2]=%d: the %s-bit DS layout in protected mode (SDM 17.4.9.1)",
	     dtes64, fmt == DS_FMT64 ? "64" : "32");

	uint8_t *area = exp_alloc(4096, 4096);
	if (!area) {
		exp_fail("no memory for the DS area");
		return;
	}
	uint64_t base = (uint64_t)(uintptr_t)area + 256;
	struct ds_buf b;
	int e = ds_buf_layout(fmt, base, rs, 10, 11, DS_USE_CIRCULAR, &b);
	if (!check(e == DS_OK, "DS layout: %s (expected ok)", ds_strerror(e)))
		return;
	ds_put_buf(area, fmt, false, &b);

	uint64_t saved_area = 0, saved_ctl = 0;
	rdmsr_safe(IA32_DS_AREA, &saved_area);
	rdmsr_safe(IA32_DEBUGCTL, &saved_ctl);
	if (!wrmsr_safe(IA32_DS_AREA, (uint64_t)(uintptr_t)area)) {
		exp_skip("WRMSR IA32_DS_AREA (0x600) raises GP");
		return;
	}
	pm32_prepare(&pm, (uint32_t)(uintptr_t)pm32_s_bts11, 0, 0);
	pm.cb->arg = (uint32_t)(saved_ctl | DEBUGCTL_TR | DEBUGCTL_BTS);
	pm.cb->mark[0] = (uint32_t)saved_ctl;
	pm.cb->sti = 0;                 /* an interrupt would be a record too */
	bool ran = pm32_run(&pm, "eleven jumps with BTS on");
	wrmsr_safe(IA32_DEBUGCTL, saved_ctl);
	wrmsr_safe(IA32_DS_AREA, saved_area);
	if (!ran)
		return;

	ds_get_buf(area, fmt, false, &b);
	check_eq("BTS index after 11 branches in 10 records (record 1)", b.index, base + rs);
	check_eq("BTS threshold untouched", b.thresh, base + 11 * rs);
	const char *labels[12] = { pm32_bts_j0, pm32_bts_j1, pm32_bts_j2, pm32_bts_j3, pm32_bts_j4,
				   pm32_bts_j5, pm32_bts_j6, pm32_bts_j7, pm32_bts_j8, pm32_bts_j9,
				   pm32_bts_j10, pm32_bts_j11 };
	struct bts_record rec[10];
	long n = bts_ordered((const void *)(uintptr_t)b.base, b.base, b.index, b.max, true, fmt, rec, 10);
	check_eqd("records in the wrapped buffer", (uint64_t)n, 10);
	for (int i = 0; i < 10 && i < n; i++) {
		char what[64];
		tl_snprintf(what, sizeof what, "record %d (branch %d) from", i, i + 1);
		check_eq(what, rec[i].from, (uint32_t)(uintptr_t)labels[i + 1]);
		tl_snprintf(what, sizeof what, "record %d (branch %d) to", i, i + 1);
		check_eq(what, rec[i].to, (uint32_t)(uintptr_t)labels[i + 2]);
	}
}
EXPERIMENT_PM32(201, "bts-circular", "ex14-9", "DS, BTS",
		"ex14-9 in 32-bit protected mode: 11 branches into a 10-record BTS buffer, the layout DTES64 picks",
		exp_pm32_bts_circular, 0);
