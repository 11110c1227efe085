/* 2xx: Branch Trace Store on the Debug Store (book ex14-9 .. ex14-13).
 *
 * SDM vol.3 17.4.9 (18.6.3.4 in older editions) "BTS and DS Save Area": with
 * IA32_DEBUGCTL.TR=1 and BTS=1 every taken branch, interrupt and exception writes a
 * record (from, to, flags) at the BTS index, which then advances by one record.
 * BTINT=0: the buffer is circular, the index goes back to base at the absolute
 * maximum (the threshold must lie beyond it, or a DS interrupt is raised anyway).
 * BTINT=1: when the index reaches the interrupt threshold the processor raises a
 * PMI through LVT perfmon; the ISR drains the records and rewinds the index.
 * BTS_OFF_OS / BTS_OFF_USR (CPUID.01H:ECX.DS-CPL[4]) drop branches whose CPL is 0
 * / not 0.
 *
 * In IA-32e mode the DS area is always in the 64-bit format (24-byte records).
 * The branch workloads are straight-line JMP chains with global labels, entered
 * with the WRMSR that turns BTS on and left with the one that turns it off, so
 * the exact records are known. */
#include "bts_record.h"
#include "apic.h"
#include "cpu.h"
#include "cpuid.h"
#include "experiment.h"
#include "mem.h"
#include "msr.h"
#include "pmi.h"
#include "pmu_common.h"
#include "user.h"
#include "x86.h"
#include "fmt.h"

/* bts_chainN(on, off): WRMSR DEBUGCTL=on; N jumps bts_N_j0 -> j1 -> ... -> end;
 * WRMSR DEBUGCTL=off; ret.  The jump at label jK goes to jK+1. */
#define WR_DEBUGCTL(reg)						\
	"	mov " reg ", %rax\n"					\
	"	mov " reg ", %rdx\n"					\
	"	shr $32, %rdx\n"					\
	"	mov $0x1d9, %ecx\n"					\
	"	wrmsr\n"
#define J(p, k, n) #p "_j" #k ": jmp " #p "_j" #n "\n"

__asm__(
	".pushsection .text\n"
	".global bts11, bts11_j0, bts11_j1, bts11_j2, bts11_j3, bts11_j4, bts11_j5, bts11_j6\n"
	".global bts11_j7, bts11_j8, bts11_j9, bts11_j10, bts11_j11\n"
	"bts11:\n"
	WR_DEBUGCTL("%rdi")
	J(bts11, 0, 1) J(bts11, 1, 2) J(bts11, 2, 3) J(bts11, 3, 4) J(bts11, 4, 5)
	J(bts11, 5, 6) J(bts11, 6, 7) J(bts11, 7, 8) J(bts11, 8, 9) J(bts11, 9, 10)
	J(bts11, 10, 11)
	"bts11_j11:\n"
	WR_DEBUGCTL("%rsi")
	"	ret\n"
	".global bts25, bts25_j0, bts25_end\n"
	"bts25:\n"
	WR_DEBUGCTL("%rdi")
	J(bts25, 0, 1) J(bts25, 1, 2) J(bts25, 2, 3) J(bts25, 3, 4) J(bts25, 4, 5)
	J(bts25, 5, 6) J(bts25, 6, 7) J(bts25, 7, 8) J(bts25, 8, 9) J(bts25, 9, 10)
	J(bts25, 10, 11) J(bts25, 11, 12) J(bts25, 12, 13) J(bts25, 13, 14) J(bts25, 14, 15)
	J(bts25, 15, 16) J(bts25, 16, 17) J(bts25, 17, 18) J(bts25, 18, 19) J(bts25, 19, 20)
	J(bts25, 20, 21) J(bts25, 21, 22) J(bts25, 22, 23) J(bts25, 23, 24) J(bts25, 24, 25)
	"bts25_j25:\n"
	"bts25_end:\n"
	WR_DEBUGCTL("%rsi")
	"	ret\n"
	/* 204: four jumps in the kernel tail (CPL 0) and four in ring 3 */
	".global bts_k4, bts_k4_j0, bts_k4_end, bts_u4, bts_u4_j0, bts_u4_end\n"
	"bts_k4:\n"
	J(bts_k4, 0, 1) J(bts_k4, 1, 2) J(bts_k4, 2, 3) J(bts_k4, 3, 4)
	"bts_k4_j4:\n"
	"bts_k4_end:\n"
	WR_DEBUGCTL("%rdi")
	"	ret\n"
	"bts_u4:\n"
	J(bts_u4, 0, 1) J(bts_u4, 1, 2) J(bts_u4, 2, 3) J(bts_u4, 3, 4)
	"bts_u4_j4:\n"
	"bts_u4_end:\n"
	"	ret\n"
	/* 206: a loop of 2 taken branches per iteration */
	".global bts_cost_loop\n"
	"bts_cost_loop:\n"
	"	mov %rdi, %rcx\n"
	"1:	jmp 2f\n"
	"2:	dec %rcx\n"
	"	jnz 1b\n"
	"	ret\n"
	".popsection\n");

void bts11(uint64_t on, uint64_t off);
void bts25(uint64_t on, uint64_t off);
void bts_k4(uint64_t off);
void bts_u4(void *arg);
void bts_cost_loop(uint64_t iters);
extern char bts11_j0[], bts11_j1[], bts11_j2[], bts11_j3[], bts11_j4[], bts11_j5[], bts11_j6[],
	bts11_j7[], bts11_j8[], bts11_j9[], bts11_j10[], bts11_j11[];
extern char bts25_j0[], bts25_end[], bts_k4_j0[], bts_k4_end[], bts_u4_j0[], bts_u4_end[];

/* The JMP at bts25_jK (2 bytes, EB 00) lands on jK+1. */
#define JMP_LEN 2

struct bts_run {
	struct pmu_msrs saved;
	struct ds_area ds;
};

/* Gate, save MSRs, lay out and install the DS area, and check that DEBUGCTL
 * takes TR|BTS (|BTINT) at all.  false: the experiment has been marked. */
static bool bts_begin(struct bts_run *r, uint32_t records, uint32_t thresh_rec, uint64_t bits)
{
	pmu_msrs_save(&r->saved);
	const char *why = ds_bts_unavailable();
	if (why) {
		exp_skip("%s", why);
		return false;
	}
	if ((bits & DEBUGCTL_BTINT) && !pmi_require())  /* BTINT's DS interrupt is a PMI */
		return false;
	int e = ds_create(&r->ds, records, thresh_rec, 0, 0, 0);
	if (e) {
		exp_fail("DS layout: %s", ds_strerror(e));
		return false;
	}
	if ((why = ds_install(&r->ds))) {
		exp_fail("%s", why);
		return false;
	}
	/* An emulator may take DS_AREA but refuse or ignore the DEBUGCTL bits.
	 * (BTINT is left out of the probe: the probe's own branches must not
	 * reach an interrupt threshold.) */
	bits &= ~DEBUGCTL_BTINT;
	uint64_t want = (r->saved.debugctl & ~(DEBUGCTL_BTINT | DEBUGCTL_BTS_OFF_OS | DEBUGCTL_BTS_OFF_USR)) | bits;
	uint64_t v = 0, thresh = ds_read(&r->ds, DS_BTS_THRESH);
	ds_write(&r->ds, DS_BTS_THRESH, ds_read(&r->ds, DS_BTS_MAX) + r->ds.bts_rec);
	bool wr = wrmsr_safe(IA32_DEBUGCTL, want);
	bool rd = wr && rdmsr_safe(IA32_DEBUGCTL, &v);
	wrmsr_safe(IA32_DEBUGCTL, r->saved.debugctl);
	ds_write(&r->ds, DS_BTS_THRESH, thresh);
	vdiag("IA32_DS_AREA=0x%llx; IA32_DEBUGCTL was 0x%llx, wrote 0x%llx, read back 0x%llx",
	      (unsigned long long)(uintptr_t)r->ds.mgmt, (unsigned long long)r->saved.debugctl,
	      (unsigned long long)want, (unsigned long long)v);
	if (!wr) {
		ds_uninstall(&r->ds);
		exp_skip("WRMSR IA32_DEBUGCTL=0x%llx (TR|BTS) GP", (unsigned long long)want);
		return false;
	}
	if (!rd || (v & bits) != bits) {
		ds_uninstall(&r->ds);
		exp_skip("IA32_DEBUGCTL TR|BTS bits 0x%llx not kept (read 0x%llx)",
			 (unsigned long long)bits, (unsigned long long)v);
		return false;
	}
	/* the probe may have written records: start clean */
	struct ds_buf b;
	ds_buf_get(&r->ds, false, &b);
	memset((void *)(uintptr_t)b.base, 0, (size_t)(b.max - b.base));
	ds_rewind(&r->ds, false);
	ds_dump_raw(&r->ds, "before");
	return true;
}

static void bts_end(struct bts_run *r)
{
	wrmsr_safe(IA32_DEBUGCTL, r->saved.debugctl & ~(DEBUGCTL_TR | DEBUGCTL_BTS));
	ds_uninstall(&r->ds);
	pmu_msrs_restore(&r->saved);
}

static uint64_t debugctl_off(const struct bts_run *r)
{
	return r->saved.debugctl & ~(DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_BTINT |
				      DEBUGCTL_BTS_OFF_OS | DEBUGCTL_BTS_OFF_USR);
}

static uint64_t A(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

/* ---- 201: circular buffer, 11 branches into 10 records (ex14-9) ---------- */

static void exp_bts_circular(void)
{
	struct bts_run r;
	/* threshold one record past the maximum: never reached (book 14.9.8.1) */
	if (!bts_begin(&r, 10, 11, DEBUGCTL_TR | DEBUGCTL_BTS))
		return;
	uint64_t off = debugctl_off(&r), on = off | DEBUGCTL_TR | DEBUGCTL_BTS;
	uint32_t pmis = pmi_count();
	uint64_t fl = read_rflags();
	cli();                          /* an interrupt would be a record too */
	bts11(on, off);
	write_rflags(fl);
	ds_dump(&r.ds);
	ds_dump_bts(&r.ds, true);
	ds_dump_raw(&r.ds, "201");

	struct ds_buf b;
	ds_buf_get(&r.ds, false, &b);
	check_eq("BTS index after 11 branches in 10 records (record 1)", b.index, b.base + 24);
	check_eqd("DS interrupts from a circular buffer", pmi_count() - pmis, 0);
	const char *labels[12] = { bts11_j0, bts11_j1, bts11_j2, bts11_j3, bts11_j4, bts11_j5,
				   bts11_j6, bts11_j7, bts11_j8, bts11_j9, bts11_j10, bts11_j11 };
	struct bts_record rec[10];
	long n = bts_ordered((const void *)(uintptr_t)b.base, b.base, b.index, b.max, true,
			     r.ds.fmt, rec, 10);
	check_eqd("records in the wrapped buffer", (uint64_t)n, 10);
	/* oldest first: branches 1..10; branch 0 was overwritten by branch 10 */
	for (int i = 0; i < 10 && i < n; i++) {
		char what[64];
		tl_snprintf(what, sizeof what, "record %d (branch %d) from", i, i + 1);
		check_eq(what, rec[i].from, A(labels[i + 1]));
		tl_snprintf(what, sizeof what, "record %d (branch %d) to", i, i + 1);
		check_eq(what, rec[i].to, A(labels[i + 2]));
	}
	struct bts_record slot0;
	bts_decode((const void *)(uintptr_t)b.base, 24, r.ds.fmt, &slot0);
	check_eq("slot 0 overwritten by the 11th branch: from", slot0.from, A(bts11_j10));
	bts_end(&r);
}
EXPERIMENT(201, "bts-circular", "ex14-9", "DS, BTS",
	   "11 branches into a 10-record circular BTS buffer: exact records, index wraps to record 1",
	   exp_bts_circular);

/* ---- interrupting buffers: a client that drains into a log ---------------- */

#define LOG_MAX 512
struct bts_log {
	struct bts_record rec[LOG_MAX];
	uint32_t n;                     /* records drained so far */
	uint32_t drains;                /* PMIs that drained */
	uint32_t drain_n[64];           /* records per drain */
	uint64_t entry_index[64];       /* BTS index when the handler ran */
	uint32_t other;                 /* PMIs with causes other than BTS */
	struct ds_area *ds;
};
static struct bts_log blog;

static void log_range(uint64_t from, uint64_t to)
{
	for (uint64_t a = from; a + 24 <= to; a += 24) {
		if (blog.n < LOG_MAX)
			bts_decode((const void *)(uintptr_t)a, 24, DS_FMT64, &blog.rec[blog.n]);
		blog.n++;
	}
}

static void on_bts_drain(struct pmi_client *c, struct pmi_event *e, uint64_t from, uint64_t to)
{
	if (blog.drains < 64) {
		blog.drain_n[blog.drains] = (uint32_t)((to - from) / 24);
		blog.entry_index[blog.drains] = e->in.bts_index;
	}
	blog.drains++;
	log_range(from, to);
}

static void on_bts_other(struct pmi_client *c, struct pmi_event *e)
{
	blog.other++;
}

static struct pmi_client bts_client = {
	.name = "bts", .bts = true, .on_bts = on_bts_drain, .on_other = on_bts_other,
};

/* Drain what is left after tracing stopped. */
static void drain_rest(struct ds_area *d)
{
	struct ds_buf b;
	ds_buf_get(d, false, &b);
	log_range(b.base, b.index);
	ds_rewind(d, false);
}

/* Index in the log of the workload records [lo, hi) in order; returns how many
 * consecutive workload jumps were found starting at lo, checking from/to. */
static uint32_t count_chain(uint64_t lo, uint64_t hi, uint32_t *first)
{
	uint32_t k = 0;
	*first = ~0u;
	for (uint32_t i = 0; i < blog.n && i < LOG_MAX; i++) {
		struct bts_record *x = &blog.rec[i];
		if (x->from < lo || x->from >= hi)
			continue;
		if (*first == ~0u)
			*first = i;
		if (x->from == lo + k * JMP_LEN && x->to == x->from + JMP_LEN)
			k++;
	}
	return k;
}

static void blog_begin(struct ds_area *d)
{
	memset(&blog, 0, sizeof blog);
	blog.ds = d;
	pmi_register(&bts_client);
}

/* What every BTINT run checks about its interrupts (SDM 17.4.9.4/17.4.9.5):
 * each found the index in [threshold, maximum] (the "is this PMI from BTS?"
 * test, and no overrun), fewer than a threshold's worth of records were left
 * undrained at the end (no interrupt missed), and the number of interrupts is
 * what threshold and capacity allow for the records drained. */
static void check_interrupts(const struct ds_area *d, uint32_t thr, uint32_t cap, uint32_t left)
{
	uint64_t base = ds_read(d, DS_BTS_BASE), max = ds_read(d, DS_BTS_MAX), t = base + thr * 24;
	uint32_t bad = 0, full = 0, n = blog.drains < 64 ? blog.drains : 64;
	for (uint32_t i = 0; i < n; i++) {
		enum bts_pmi_index k = bts_pmi_index_check(base, blog.entry_index[i], t, max, 24);
		if (k == BTS_IDX_BELOW || k == BTS_IDX_BEYOND) {
			if (!bad)
				diag("interrupt %u: BTS index 0x%llx outside [0x%llx, 0x%llx]", i,
				     (unsigned long long)blog.entry_index[i], (unsigned long long)t,
				     (unsigned long long)max);
			bad++;
		}
		full += k == BTS_IDX_FULL;
		vdiag("interrupt %u: BTS index 0x%llx (record %u; threshold %u, maximum %u)", i,
		      (unsigned long long)blog.entry_index[i], blog.drain_n[i], thr, cap);
	}
	check(bad == 0, "interrupts whose BTS index was outside [threshold %u, maximum %u records]: %u of %u "
	      "(expected 0)", thr, cap, bad, n);
	if (full)
		diag("%u interrupt(s) found the index at the maximum: the %u-record margin was used up",
		     full, cap - thr);
	check(left < thr, "records left undrained after the workload: %u (expected < threshold %u: "
	      "no interrupt missed)", left, thr);
	uint64_t lo, hi;
	bts_interrupt_bounds(blog.n, thr, cap, &lo, &hi);
	check(bts_client.n_bts >= lo && bts_client.n_bts <= hi,
	      "DS interrupts: %u for %u records (expected %llu..%llu with threshold %u, capacity %u)",
	      bts_client.n_bts, blog.n, (unsigned long long)lo, (unsigned long long)hi, thr, cap);
}

/* ---- 202: interrupt at the threshold (ex14-10) ------------------------------ */

/* The book puts the threshold at the absolute maximum; SDM 17.4.9.4 wants it
 * several records short, so the records written while the interrupt is
 * delivered still fit (lib/bts_record.h).  The threshold is the book's 10 records. */
#define BOOK_THRESH 10

static void exp_bts_interrupt_full(void)
{
	struct bts_run r;
	const uint32_t thr = BOOK_THRESH, cap = bts_interrupt_capacity(thr, BTS_PMI_MARGIN_RECORDS);
	if (!bts_begin(&r, cap, thr, DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_BTINT))
		return;
	blog_begin(&r.ds);
	uint64_t off = debugctl_off(&r), on = off | DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_BTINT;
	bts25(on, off);                 /* interrupts enabled: the PMIs come in */
	uint32_t left = (uint32_t)((ds_read(&r.ds, DS_BTS_INDEX) - ds_read(&r.ds, DS_BTS_BASE)) / 24);
	ds_dump_raw(&r.ds, "202");
	drain_rest(&r.ds);
	ds_dump(&r.ds);

	uint32_t first;
	uint32_t chain = count_chain(A(bts25_j0), A(bts25_end), &first);
	check_eqd("workload jumps recorded, in order, none lost", chain, 25);
	check_eqd("first record is the first jump", first, 0);
	/* 25 jump records alone cross a threshold of 10 */
	check(bts_client.n_bts >= 1, "DS interrupts: %u (expected >= 1: 25 jumps, threshold %u)",
	      bts_client.n_bts, thr);
	check_interrupts(&r.ds, thr, cap, left);
	check_eqd("PMIs with other causes", blog.other, 0);
	diag("%u records in all: 25 workload jumps, %u from interrupt entry/exit", blog.n, blog.n - 25);
	if (exp_verbosity() >= 1)
		for (uint32_t i = 0; i < blog.n && i < LOG_MAX; i++)
			diag("bts-rec %3u 0x%016llx 0x%016llx", i, (unsigned long long)blog.rec[i].from,
			     (unsigned long long)blog.rec[i].to);
	pmi_unregister(&bts_client);
	bts_end(&r);
}
EXPERIMENT(202, "bts-interrupt-full", "ex14-10", "DS, BTS, LVT perfmon",
	   "BTINT with the threshold a margin short of the maximum: a DS interrupt per threshold, handler drains and rewinds",
	   exp_bts_interrupt_full);

/* ---- 203: threshold well below the maximum --------------------------------- */

static void exp_bts_threshold_below_max(void)
{
	struct bts_run r;
	const uint32_t thr = 6, cap = bts_interrupt_capacity(thr, BTS_PMI_MARGIN_RECORDS);
	if (!bts_begin(&r, cap, thr, DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_BTINT))
		return;
	blog_begin(&r.ds);
	uint64_t off = debugctl_off(&r), on = off | DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_BTINT;
	bts25(on, off);
	uint32_t left = (uint32_t)((ds_read(&r.ds, DS_BTS_INDEX) - ds_read(&r.ds, DS_BTS_BASE)) / 24);
	ds_dump_raw(&r.ds, "203");
	drain_rest(&r.ds);
	ds_dump(&r.ds);

	check(blog.drains >= 1, "DS interrupts: %u (>= 1)", blog.drains);
	if (blog.drains)
		diag("records at the first interrupt: %u (threshold %u, maximum %u)",
		     blog.drain_n[0], thr, cap);
	check_interrupts(&r.ds, thr, cap, left);
	uint32_t first;
	check_eqd("workload jumps recorded in order", count_chain(A(bts25_j0), A(bts25_end), &first), 25);
	check_eqd("PMIs with other causes", blog.other, 0);
	pmi_unregister(&bts_client);
	bts_end(&r);
}
EXPERIMENT(203, "bts-threshold-below-max", "", "DS, BTS, LVT perfmon",
	   "BTINT with threshold below maximum: the DS interrupt comes at the threshold, not when full",
	   exp_bts_threshold_below_max);

/* ---- 204: CPL filtering (ex14-11) ------------------------------------------ */

static uint32_t count_range(const struct ds_area *d, uint64_t lo, uint64_t hi, uint32_t *total)
{
	struct ds_buf b;
	ds_buf_get(d, false, &b);
	/* zeroed buffer: a written last slot means it wrapped */
	struct bts_record last;
	bts_decode((const void *)(uintptr_t)(b.max - 24), 24, d->fmt, &last);
	bool wrapped = last.from != 0 || last.to != 0;
	static struct bts_record rec[2048];
	long n = bts_ordered((const void *)(uintptr_t)b.base, b.base, b.index, b.max, wrapped,
			     d->fmt, rec, 2048);
	uint32_t k = 0;
	for (long i = 0; i < n && i < 2048; i++)
		if (rec[i].from >= lo && rec[i].from < hi)
			k++;
	*total = n > 0 ? (uint32_t)n : 0;
	return k;
}

static void cpl_run(struct bts_run *r, uint64_t filter, uint32_t *k, uint32_t *u, uint32_t *total)
{
	struct ds_buf b;
	ds_buf_get(&r->ds, false, &b);
	memset((void *)(uintptr_t)b.base, 0, (size_t)(b.max - b.base));
	ds_rewind(&r->ds, false);
	uint64_t off = debugctl_off(r);
	wrmsr_safe(IA32_DEBUGCTL, off | DEBUGCTL_TR | DEBUGCTL_BTS | filter);
	run_user(bts_u4, 0);            /* 4 jumps at CPL 3 */
	bts_k4(off);                    /* 4 jumps at CPL 0, then BTS off */
	*k = count_range(&r->ds, A(bts_k4_j0), A(bts_k4_end), total);
	*u = count_range(&r->ds, A(bts_u4_j0), A(bts_u4_end), total);
}

static void exp_bts_cpl_filter(void)
{
	struct bts_run r;
	if (!(cpu.leaf1_ecx & CPUID_1_ECX_DSCPL)) {
		exp_skip("CPUID.01H:ECX.DS-CPL[4]=0");
		return;
	}
	if (!bts_begin(&r, 2048, 2049, DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_BTS_OFF_OS))
		return;
	uint32_t k, u, total;
	cpl_run(&r, DEBUGCTL_BTS_OFF_OS, &k, &u, &total);
	diag("BTS_OFF_OS: %u records", total);
	ds_dump_bts(&r.ds, false);
	check_eqd("BTS_OFF_OS: ring-3 jumps recorded", u, 4);
	check_eqd("BTS_OFF_OS: ring-0 jumps recorded", k, 0);
	cpl_run(&r, DEBUGCTL_BTS_OFF_USR, &k, &u, &total);
	diag("BTS_OFF_USR: %u records", total);
	check_eqd("BTS_OFF_USR: ring-0 jumps recorded", k, 4);
	check_eqd("BTS_OFF_USR: ring-3 jumps recorded", u, 0);
	cpl_run(&r, 0, &k, &u, &total);
	check_eqd("no filter: ring-0 jumps recorded", k, 4);
	check_eqd("no filter: ring-3 jumps recorded", u, 4);
	bts_end(&r);
}
EXPERIMENT(204, "bts-cpl-filter", "ex14-11", "DS, BTS, DS-CPL, ring 3",
	   "BTS_OFF_OS / BTS_OFF_USR: branches of the filtered privilege level leave no record",
	   exp_bts_cpl_filter);

/* ---- 205: count DS interrupts while printing (ex14-13) --------------------- */

static void exp_bts_print_count(void)
{
	struct bts_run r;
	const uint32_t thr = BOOK_THRESH, cap = bts_interrupt_capacity(thr, BTS_PMI_MARGIN_RECORDS);
	if (!bts_begin(&r, cap, thr, DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_BTINT))
		return;
	blog_begin(&r.ds);
	uint64_t off = debugctl_off(&r), on = off | DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_BTINT;
	wrmsr_safe(IA32_DEBUGCTL, on);
	diag("this is a test message...");
	wrmsr_safe(IA32_DEBUGCTL, off);
	uint32_t left = (uint32_t)((ds_read(&r.ds, DS_BTS_INDEX) - ds_read(&r.ds, DS_BTS_BASE)) / 24);
	ds_dump_raw(&r.ds, "205");
	drain_rest(&r.ds);

	diag("printing one line: %u DS interrupts, %u branch records", bts_client.n_bts, blog.n);
	/* formatting and writing a line to the serial port takes far more than
	 * 10 branches */
	check(bts_client.n_bts >= 1, "DS interrupts while printing: %u (>= 1)", bts_client.n_bts);
	check_interrupts(&r.ds, thr, cap, left);
	check_eqd("PMIs with other causes", blog.other, 0);
	pmi_unregister(&bts_client);
	bts_end(&r);
}
EXPERIMENT(205, "bts-print-count", "ex14-13", "DS, BTS, LVT perfmon",
	   "count the DS interrupts raised while printing one line with a 10-record BTINT threshold",
	   exp_bts_print_count);

/* ---- 206: what BTS costs ---------------------------------------------------- */

static uint64_t timed_loop(uint64_t iters, uint64_t dbg_on, uint64_t dbg_off)
{
	uint64_t best = ~0ull;
	for (int i = 0; i < 5; i++) {
		uint64_t fl = read_rflags();
		cli();
		if (dbg_on)
			wrmsr(IA32_DEBUGCTL, dbg_on);
		__asm__ volatile("lfence" ::: "memory");
		uint64_t t0 = rdtsc();
		bts_cost_loop(iters);
		__asm__ volatile("lfence" ::: "memory");
		uint64_t t1 = rdtsc();
		if (dbg_on)
			wrmsr(IA32_DEBUGCTL, dbg_off);
		write_rflags(fl);
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	return best;
}

static void exp_bts_cost(void)
{
	struct bts_run r;
	const uint64_t iters = 1000;
	/* 2 branches per iteration (one JMP, one taken JNZ but the last) plus the
	 * call/ret and rdtsc-side code: a buffer that never wraps */
	const uint32_t cap = 4096;
	if (!bts_begin(&r, cap, cap + 1, DEBUGCTL_TR | DEBUGCTL_BTS))
		return;
	uint64_t off = debugctl_off(&r), on = off | DEBUGCTL_TR | DEBUGCTL_BTS;
	uint64_t plain = timed_loop(iters, 0, 0);
	ds_rewind(&r.ds, false);
	/* one traced run to count records exactly */
	uint64_t fl = read_rflags();
	cli();
	wrmsr(IA32_DEBUGCTL, on);
	bts_cost_loop(iters);
	wrmsr(IA32_DEBUGCTL, off);
	write_rflags(fl);
	uint64_t used = ds_read(&r.ds, DS_BTS_INDEX) - ds_read(&r.ds, DS_BTS_BASE);
	/* records: call bts_cost_loop, iters JMPs, iters-1 taken JNZ, ret */
	check_eqd("BTS records for the loop", used / 24, 1 + iters + (iters - 1) + 1);
	ds_rewind(&r.ds, false);
	uint64_t traced = timed_loop(iters, on, off);
	diag("loop of %llu iterations (2 branches each): %llu TSC ticks plain, %llu with BTS, ratio %llu.%02llu",
	     (unsigned long long)iters, (unsigned long long)plain, (unsigned long long)traced,
	     (unsigned long long)(plain ? traced / plain : 0),
	     (unsigned long long)(plain ? (traced * 100 / plain) % 100 : 0));
	check(traced > plain, "BTS slows the loop down: %llu > %llu ticks", (unsigned long long)traced,
	      (unsigned long long)plain);
	bts_end(&r);
}
EXPERIMENT(206, "bts-cost", "", "DS, BTS, TSC",
	   "cycles of a fixed branchy loop with and without BTS, and the ratio",
	   exp_bts_cost);
