/* 305-309: PEBS (book ex15-5 .. ex15-10).
 *
 * SDM vol.3 "Processor Event Based Sampling": a counter enabled in
 * IA32_PEBS_ENABLE arms PEBS when it overflows and the next event triggers the
 * assist, which writes a record (layout by PEBS_FMT, see lib/pebs_record.h) at the PEBS
 * index, reloads the counter from the DS "PEBS counter reset" slot, and raises a
 * PMI when the index reaches the PEBS interrupt threshold (setting
 * IA32_PERF_GLOBAL_STATUS.OvfDSBuffer[62]).  With PEBS_TRAP (PERF_CAPABILITIES[6])
 * the record holds the state after the instruction (RIP = next instruction),
 * otherwise before it; either way RIP is the address right after the `mov $k, %eax`
 * whose result is in the record's RAX, which is what these experiments check.
 * Counters are stopped (GLOBAL_CTRL) before PEBS_ENABLE is cleared.
 *
 * Which counter takes which event, which processors may not use PEBS at all
 * (errata), and whether the record is skid-free (PDIR) are per model:
 * lib/pebs_model.c, host-tested over every row.  A PEBS counter's event select
 * has INT clear: its PMI comes from the DS buffer threshold. */
#include "apic.h"
#include "bts_record.h"
#include "apicdef.h"
#include "cpu.h"
#include "cpuid.h"
#include "experiment.h"
#include "mem.h"
#include "msr.h"
#include "pmi.h"
#include "pmc.h"
#include "pmu_common.h"
#include "x86.h"
#include "fmt.h"

#define MOV(k) "pebs_m" #k ": mov $" #k ", %eax\n"
#define PEBS_MAGIC 0x5eb5a11c0ffeeull

/* pebs_movs(gctl): GLOBAL_CTRL = gctl; mov $1..$20 to eax with RBX = RSP and R12 =
 * magic; GLOBAL_CTRL = 0.  pebs_mK is the mov of K; pebs_m21 follows the last. */
__asm__(
	".pushsection .text\n"
	".global pebs_movs\n"
	"pebs_movs:\n"
	"	push %rbx\n"
	"	push %r12\n"
	"	mov %rsp, %rbx\n"
	"	movabs $0x5eb5a11c0ffee, %r12\n"
	"	mov %rdi, %rax\n"
	"	mov %rdi, %rdx\n"
	"	shr $32, %rdx\n"
	"	mov $0x38f, %ecx\n"
	"	wrmsr\n"
	MOV(1) MOV(2) MOV(3) MOV(4) MOV(5) MOV(6) MOV(7) MOV(8) MOV(9) MOV(10)
	MOV(11) MOV(12) MOV(13) MOV(14) MOV(15) MOV(16) MOV(17) MOV(18) MOV(19) MOV(20)
	"pebs_m21:\n"
	"	xor %eax, %eax\n"
	"	xor %edx, %edx\n"
	"	wrmsr\n"
	"	pop %r12\n"
	"	pop %rbx\n"
	"	ret\n"
	/* pebs_multi(dbg_on, dbg_off, gctl): counters on, BTS on, 12 jumps, off again */
	".global pebs_multi, pebs_mj0, pebs_mj_end\n"
	"pebs_multi:\n"
	"	mov %rdx, %r8\n"
	"	mov %rdx, %rax\n"
	"	shr $32, %rdx\n"
	"	mov $0x38f, %ecx\n"
	"	wrmsr\n"
	"	mov %rdi, %rax\n"
	"	mov %rdi, %rdx\n"
	"	shr $32, %rdx\n"
	"	mov $0x1d9, %ecx\n"
	"	wrmsr\n"
	"pebs_mj0: jmp 1f\n1: jmp 1f\n1: jmp 1f\n1: jmp 1f\n1: jmp 1f\n1: jmp 1f\n"
	"1: jmp 1f\n1: jmp 1f\n1: jmp 1f\n1: jmp 1f\n1: jmp 1f\n1: jmp 1f\n1:\n"
	"pebs_mj_end:\n"
	"	mov %rsi, %rax\n"
	"	mov %rsi, %rdx\n"
	"	shr $32, %rdx\n"
	"	wrmsr\n"
	"	xor %eax, %eax\n"
	"	xor %edx, %edx\n"
	"	mov $0x38f, %ecx\n"
	"	wrmsr\n"
	"	ret\n"
	/* ld_loop(buf, n, stride, mask): n loads from buf + (i * stride & mask) */
	".global ld_loop\n"
	"ld_loop:\n"
	"	xor %eax, %eax\n"
	"1:	mov (%rdi,%rax), %r8\n"
	"	add %rdx, %rax\n"
	"	and %rcx, %rax\n"
	"	dec %rsi\n"
	"	jnz 1b\n"
	"	ret\n"
	".popsection\n");

void pebs_movs(uint64_t gctl);
void pebs_multi(uint64_t dbg_on, uint64_t dbg_off, uint64_t gctl);
void ld_loop(void *buf, uint64_t n, uint64_t stride, uint64_t mask);
extern char pebs_m1[], pebs_m2[], pebs_m3[], pebs_m4[], pebs_m5[], pebs_m6[], pebs_m7[], pebs_m8[],
	pebs_m9[], pebs_m10[], pebs_m11[], pebs_m12[], pebs_m13[], pebs_m14[], pebs_m15[], pebs_m16[],
	pebs_m17[], pebs_m18[], pebs_m19[], pebs_m20[], pebs_m21[];
static const char *const mov_at[22] = {
	0, pebs_m1, pebs_m2, pebs_m3, pebs_m4, pebs_m5, pebs_m6, pebs_m7, pebs_m8, pebs_m9, pebs_m10,
	pebs_m11, pebs_m12, pebs_m13, pebs_m14, pebs_m15, pebs_m16, pebs_m17, pebs_m18, pebs_m19,
	pebs_m20, pebs_m21,
};

/* ---- the PEBS client: decode each new record ------------------------------- */

#define REC_MAX 8
static struct {
	struct pebs_setup ps;
	struct pebs_record rec[REC_MAX];
	uint32_t n, bad;
	int err;
	uint64_t status_or, index_at_full;
	uint32_t bts_and_pebs;          /* PMIs that found a BTS threshold AND a PEBS cause */
	uint32_t pmi_causes[8];         /* causes of the first PMIs, for the diagnostics */
} pv;

static void on_records(struct pmi_client *c, struct pmi_event *e, uint64_t from, uint64_t to)
{
	while (from < to) {
		struct pebs_record r;
		int err = pebs_decode_fmt((const void *)(uintptr_t)from, (size_t)(to - from), &pv.ps.fmt, &r);
		if (err) {
			pv.err = err;
			pv.bad++;
			return;
		}
		if (pv.n < REC_MAX)
			pv.rec[pv.n] = r;
		pv.n++;
		from += r.size;
	}
}

static void on_full(struct pmi_client *c, struct pmi_event *e)
{
	pv.index_at_full = e->in.pebs_index;
}

static void on_any(struct pmi_client *c, struct pmi_event *e)
{
	pv.status_or |= e->in.status;
	if (e->seq <= 8)
		pv.pmi_causes[e->seq - 1] = e->c.causes;
	/* Book ex15-9: the BTS buffer and the PEBS assist in one interrupt.  A
	 * PEBS record and OvfDSBuffer come from the same PEBS index: together
	 * they are one source, not two. */
	if ((e->c.causes & PMI_BTS_THRESH) && (e->c.causes & (PMI_PEBS_RECORDS | PMI_PEBS_OVF)))
		pv.bts_and_pebs++;
}

static struct pmi_client pebs_client = {
	.name = "pebs", .pebs = true, .on_pmi = on_any, .on_pebs = on_records, .on_pebs_full = on_full,
};

static bool pebs_begin(struct pmu_msrs *saved, uint64_t cfg, uint32_t bts_rec, uint32_t bts_thr,
		       uint32_t recs, uint32_t thr)
{
	memset(&pv, 0, sizeof pv);
	pebs_client.bts = false;
	pmu_msrs_save(saved);
	if (!pebs_prepare(&pv.ps, cfg, bts_rec, bts_thr, recs, thr))
		return false;
	pmu_quiesce();
	pmu_nhm_reset(&pv.ps.plan);
	/* after an assist the counter reloads from here: far enough for no second one */
	for (unsigned n = 0; n < cpu.n_gp && n < 8; n++)
		ds_set_pebs_reset(&pv.ps.ds, n, pmu_preset(1ull << 30, cpu.gp_width));
	ds_dump_raw(&pv.ps.ds, "before");
	return true;
}

static void pebs_finish(struct pmu_msrs *saved, const char *name)
{
	delay_us(100);                  /* a PMI raised at the very end lands here */
	ds_dump(&pv.ps.ds);
	ds_dump_raw(&pv.ps.ds, name);
	pmi_unregister(&pebs_client);
	ds_uninstall(&pv.ps.ds);
	pmu_msrs_restore(saved);
}

/* A PEBS counter's event select: no INT (SDM "PEBS": the PMI comes from the DS
 * buffer threshold; with INT the counter's own overflow raises an ordinary PMI
 * as well, without a record). */
static uint64_t sel_pebs(uint64_t event)
{
	return event | EVTSEL_OS | EVTSEL_EN | (pv.ps.adaptive ? EVTSEL_ADAPTIVE : 0);
}

/* Which `mov $k` the record of a PEBS counter preset to overflow after n
 * events may name.  The counter starts with the WRMSR that enables it, so
 * the n-th event is `mov $n`.  With PDIR (INST_RETIRED.PREC_DIST on PMC1, SNB
 * to SKL) the record is taken on the instruction that overflowed the counter,
 * without skid (SDM vol.3 "Precise Distribution of Instructions Retired
 * (PDIR)"): exactly n.  Otherwise PEBS is armed by the overflow and the assist
 * comes with a later event, after a skid the SDM does not bound (same section:
 * "variable skids in instruction address space"): n + 1 at the earliest. */
static void expected_mov(uint64_t n, uint64_t *lo, uint64_t *hi)
{
	if (pv.ps.plan.u->inst_pdir) {
		*lo = *hi = n;
	} else {
		*lo = n + 1;
		*hi = 20;
	}
}

/* The checks on a record of the mov sequence. */
static void check_mov_record(const char *what, const struct pebs_record *r, unsigned pmc, uint64_t n)
{
	char t[96];
	uint64_t k = r->gpr[PR_RAX], lo, hi;
	expected_mov(n, &lo, &hi);
	if (lo == hi) {
		tl_snprintf(t, sizeof t, "%s: RAX (which mov; PDIR, counter overflow at mov $%llu)", what,
			     (unsigned long long)n);
		check_eqd(t, k, lo);
	} else {
		check(k >= lo && k <= hi, "%s: RAX (which mov) %llu (expected %llu..%llu: overflow at mov $%llu, "
		      "the assist at the next event or after a skid)", what, (unsigned long long)k,
		      (unsigned long long)lo, (unsigned long long)hi, (unsigned long long)n);
	}
	if (k >= 1 && k <= 20) {
		tl_snprintf(t, sizeof t, "%s: RIP right after mov $%llu", what, (unsigned long long)k);
		check_eq(t, r->ip, (uint64_t)(uintptr_t)mov_at[k + 1]);
		if (r->valid & PEBS_V_EVENTING_IP) {
			tl_snprintf(t, sizeof t, "%s: EventingIP at mov $%llu", what, (unsigned long long)k);
			check_eq(t, r->eventing_ip, (uint64_t)(uintptr_t)mov_at[k]);
		}
	}
	tl_snprintf(t, sizeof t, "%s: RBX == RSP", what);
	check_eq(t, r->gpr[PR_RBX], r->gpr[PR_RSP]);
	tl_snprintf(t, sizeof t, "%s: R12", what);
	check_eq(t, r->gpr[PR_R12], PEBS_MAGIC);
	if (r->valid & PEBS_V_APPLICABLE) {
		tl_snprintf(t, sizeof t, "%s: applicable counters include PMC%u", what, pmc);
		check_eq(t, (r->applicable >> pmc) & 1, 1);
	}
	if (exp_verbosity() >= 1) {
		char text[1024];
		pebs_format(text, sizeof text, r);
		diag("%s", text);
	}
}

/* ---- 305: PEBS interrupt (ex15-5 / ex15-6) ---------------------------------- */

/* PEBS on the plan's counter for instructions retired, preset to overflow
 * after n events; with pmi_too, the plan's other counter counts the same
 * instructions with INT set (an ordinary overflow PMI).  Both start with the
 * same WRMSR (book ex15-8). */
static void run_movs(bool pmi_too, uint64_t n)
{
	unsigned pebs = (unsigned)pv.ps.plan.inst_pmc;
	int other = pmi_too ? pv.ps.plan.other_pmc : -1;
	uint64_t gctl = 1ull << pebs;
	pmc_write(pebs, pmu_preset(n, cpu.gp_width));
	pebs_client.gp_armed = 1ull << pebs;
	if (other >= 0) {
		pmc_write((unsigned)other, pmu_preset(n, cpu.gp_width));
		pebs_client.gp_armed |= 1ull << other;
		gctl |= 1ull << other;
		wrmsr_safe(IA32_PERFEVTSEL0 + (unsigned)other,
			   EVT_INST_RETIRED_ANY_P | EVTSEL_OS | EVTSEL_INT | EVTSEL_EN);
	}
	pmi_register(&pebs_client);
	uint64_t sel = sel_pebs(pv.ps.plan.u->inst_event);
	wrmsr_safe(IA32_PERFEVTSEL0 + pebs, sel);
	wrmsr_safe(IA32_PEBS_ENABLE, pv.ps.plan.inst_pebs_enable);
	vdiag("PMC%u: IA32_PERFEVTSEL=0x%llx preset 0x%llx, IA32_PEBS_ENABLE=0x%llx, GLOBAL_CTRL=0x%llx",
	      pebs, (unsigned long long)sel, (unsigned long long)pmu_preset(n, cpu.gp_width),
	      (unsigned long long)pv.ps.plan.inst_pebs_enable, (unsigned long long)gctl);
	pebs_movs(gctl);
	/* counters stopped inside pebs_movs: now PEBS may be disabled */
	wrmsr_safe(IA32_PEBS_ENABLE, 0);
	wrmsr_safe(IA32_PERFEVTSEL0 + pebs, 0);
	if (other >= 0)
		wrmsr_safe(IA32_PERFEVTSEL0 + (unsigned)other, 0);
}

static void exp_pebs_interrupt(void)
{
	struct pmu_msrs saved;
	if (!pebs_begin(&saved, PEBS_CFG_GPR, 0, 0, 4, 1))
		goto out;
	const uint64_t n = 4;
	run_movs(false, n);
	pebs_finish(&saved, "305");
	check_eqd("PEBS records written (one assist, counter reset far away)", pv.n, 1);
	check_eqd("undecodable records", pv.bad, 0);
	check(pebs_client.n_pmi >= 1, "PMIs: %u (>= 1)", pebs_client.n_pmi);
	if (pv.n >= 1)
		check_mov_record("record 0", &pv.rec[0], (unsigned)pv.ps.plan.inst_pmc, n);
	return;
out:
	pmu_msrs_restore(&saved);
}
EXPERIMENT(305, "pebs-interrupt", "ex15-5", "DS, PEBS, arch perfmon",
	   "PEBS on instructions retired: one record whose RIP/RAX pin down the mov $N that triggered it",
	   exp_pebs_interrupt);

/* ---- 306: PEBS buffer full (ex15-7) ----------------------------------------- */

static void exp_pebs_buffer_full(void)
{
	struct pmu_msrs saved;
	if (!pebs_begin(&saved, PEBS_CFG_GPR, 0, 0, 1, 1))
		goto out;
	uint64_t base = ds_read(&pv.ps.ds, DS_PEBS_BASE), max = ds_read(&pv.ps.ds, DS_PEBS_MAX);
	const uint64_t n = 4;
	run_movs(false, n);
	uint64_t index_after = ds_read(&pv.ps.ds, DS_PEBS_INDEX);
	uint64_t st = 0;
	rdmsr_safe(IA32_PERF_GLOBAL_STATUS, &st);
	pebs_finish(&saved, "306");
	check_eqd("PEBS records", pv.n, 1);
	check(pebs_client.n_pebs_full >= 1, "PMIs for a full PEBS buffer: %u (>= 1)", pebs_client.n_pebs_full);
	check_eq("PEBS index when the buffer-full PMI came (== maximum)", pv.index_at_full, max);
	check_eq("IA32_PERF_GLOBAL_STATUS.OvfDSBuffer[62] seen", !!(pv.status_or & GLOBAL_STATUS_OVF_BUF), 1);
	check_eq("OvfDSBuffer cleared by the handler", st & GLOBAL_STATUS_OVF_BUF, 0);
	check_eq("PEBS index rewound to base", index_after, base);
	if (pv.n >= 1)
		check_mov_record("record 0", &pv.rec[0], (unsigned)pv.ps.plan.inst_pmc, n);
	return;
out:
	pmu_msrs_restore(&saved);
}
EXPERIMENT(306, "pebs-buffer-full", "ex15-7", "DS, PEBS, arch perfmon v2",
	   "a one-record PEBS buffer: the record, OvfDSBuffer, the DS interrupt, the handler's rewind",
	   exp_pebs_buffer_full);

/* ---- 307: PMI and PEBS at once (ex15-8) ------------------------------------- */

static void exp_pmi_and_pebs(void)
{
	struct pmu_msrs saved;
	if (!pebs_begin(&saved, PEBS_CFG_GPR, 0, 0, 4, 1))
		goto out;
	if (pv.ps.plan.other_pmc < 0) {
		exp_skip("CPUID.0AH:EAX[15:8] (general counters)=%u (needs 2)", cpu.n_gp);
		pebs_finish(&saved, "307");
		return;
	}
	/* the plan's PEBS counter and another one with an ordinary PMI, same
	 * event, same preset */
	unsigned pebs = (unsigned)pv.ps.plan.inst_pmc, other = (unsigned)pv.ps.plan.other_pmc;
	const uint64_t n = 4;
	run_movs(true, n);
	uint64_t st = 0;
	rdmsr_safe(IA32_PERF_GLOBAL_STATUS, &st);
	pebs_finish(&saved, "307");
	char t[96];
	tl_snprintf(t, sizeof t, "PMC%u (ordinary PMI) overflow identified", other);
	check_eq(t, (pebs_client.gp_ovf >> other) & 1, 1);
	/* both conditions arrive together: the handler must see the overflow AND
	 * find the record (the book's point); one of them is not enough */
	tl_snprintf(t, sizeof t, "PMC%u (PEBS) records", pebs);
	check_eqd(t, pv.n, 1);
	check_eq("both counters' overflow bits cleared", st & ((1ull << pebs) | (1ull << other)), 0);
	diag("PMIs %u, PEBS records %u, status bits seen 0x%llx", pebs_client.n_pmi, pv.n,
	     (unsigned long long)pv.status_or);
	if (pv.n >= 1)
		check_mov_record("PEBS record", &pv.rec[0], pebs, n);
	return;
out:
	pmu_msrs_restore(&saved);
}
EXPERIMENT(307, "pmi-and-pebs", "ex15-8", "DS, PEBS, 2 counters",
	   "an ordinary overflow PMI and a PEBS record triggered together: the handler sees and clears both",
	   exp_pmi_and_pebs);

/* ---- 308: several causes in one PMI (ex15-9) -------------------------------- */

#define MULTI_BTS_THRESH 10     /* records: the book's 10-record BTS buffer */

static void exp_pmi_multi_cause(void)
{
	struct pmu_msrs saved;
	/* BTS threshold at 10 records, BTS_PMI_MARGIN_RECORDS short of the
	 * maximum (SDM 17.4.9.4), a guard before the PEBS buffer (ds_create) */
	if (!pebs_begin(&saved, PEBS_CFG_GPR,
			bts_interrupt_capacity(MULTI_BTS_THRESH, BTS_PMI_MARGIN_RECORDS),
			MULTI_BTS_THRESH, 1, 1))
		goto out;
	if (cpu.misc_enable & MISC_ENABLE_BTS_UNAVAIL) {
		exp_skip("IA32_MISC_ENABLE.BTS_UNAVAILABLE[11]=1");
		pebs_finish(&saved, "308");
		return;
	}
	unsigned pebs = (unsigned)pv.ps.plan.inst_pmc;
	uint64_t off = saved.debugctl & ~(DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_BTINT);
	uint64_t on = off | DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_BTINT;
	/* counted after GLOBAL_CTRL: 5 instructions to turn BTS on, then the jumps;
	 * overflow at the 9th jump, the assist on the 10th, which is also the 10th
	 * BTS record, the threshold (book: counter 0xFFFFFFFF - 9 and 10 jumps) */
	pmc_write(pebs, pmu_preset(5 + 9, cpu.gp_width));
	pebs_client.gp_armed = 1ull << pebs;
	pebs_client.bts = true;
	pmi_register(&pebs_client);
	wrmsr_safe(IA32_PERFEVTSEL0 + pebs, sel_pebs(pv.ps.plan.u->inst_event));
	wrmsr_safe(IA32_PEBS_ENABLE, pv.ps.plan.inst_pebs_enable);
	pebs_multi(on, off, 1ull << pebs);
	wrmsr_safe(IA32_PEBS_ENABLE, 0);
	wrmsr_safe(IA32_PERFEVTSEL0 + pebs, 0);
	pebs_client.bts = false;
	uint64_t st = 0;
	rdmsr_safe(IA32_PERF_GLOBAL_STATUS, &st);
	uint64_t pidx = ds_read(&pv.ps.ds, DS_PEBS_INDEX), pbase = ds_read(&pv.ps.ds, DS_PEBS_BASE);
	uint32_t causes = pebs_client.causes;
	pebs_finish(&saved, "308");
	for (uint32_t i = 0; i < pebs_client.n_pmi && i < 8; i++) {
		char c[160];
		struct pmi_causes pc = { .causes = pv.pmi_causes[i] };
		pmi_format_causes(c, sizeof c, &pc);
		diag("PMI %u: %s", i + 1, c);
	}
	check_eq("BTS threshold seen", !!(causes & PMI_BTS_THRESH), 1);
	check_eq("PEBS record seen", !!(causes & PMI_PEBS_RECORDS), 1);
	check_eq("PEBS buffer full seen", !!(causes & PMI_PEBS_OVF), 1);
	check(pv.bts_and_pebs >= 1, "PMIs that found the BTS threshold and the PEBS record together: "
	      "%u (expected >= 1, book ex15-9)", pv.bts_and_pebs);
	check_eq("PEBS index rewound", pidx, pbase);
	check_eq("OvfDSBuffer cleared", st & GLOBAL_STATUS_OVF_BUF, 0);
	check_eq("LVT perfmon unmasked", apic_lvt_pmi() & LVT_MASKED, 0);
	diag("PMIs %u: BTS %u, PEBS records %u, PEBS full %u", pebs_client.n_pmi, pebs_client.n_bts,
	     pebs_client.n_pebs, pebs_client.n_pebs_full);
	return;
out:
	pmu_msrs_restore(&saved);
}
EXPERIMENT(308, "pmi-multi-cause", "ex15-9", "DS, BTS, PEBS",
	   "BTS threshold, PEBS record and PEBS buffer full at once: one handler finds and clears them all",
	   exp_pmi_multi_cause);

/* ---- 309: load latency (ex15-10) -------------------------------------------- */

/* The load-latency event and its counter are model specific (SDM "Load Latency
 * Performance Monitoring Facility"; lib/pebs_model.c): 0BH/10H on Nehalem and
 * Westmere, CDH/01H from Sandy Bridge (PMC3 only on SNB/IVB, PMC1-7 on Golden
 * Cove, which also needs the auxiliary event 03H/82H counting). */
static void exp_pebs_load_latency(void)
{
	struct pmu_msrs saved;
	if (!pebs_begin(&saved, PEBS_CFG_MEMINFO | PEBS_CFG_GPR, 0, 0, 4, 1))
		goto out;
	if (pv.ps.layout == PEBS_L64_FMT0 || pv.ps.layout == PEBS_L32) {
		exp_skip("IA32_PERF_CAPABILITIES.PEBS_FMT=0 (no load-latency fields)");
		pebs_finish(&saved, "309");
		return;
	}
	const struct pebs_plan *pl = &pv.ps.plan;
	if (pl->ll_pmc < 0) {
		exp_skip("%s: no load-latency PEBS event on %u general counters in tracelab's table",
			 pl->u->name, cpu.n_gp);
		pebs_finish(&saved, "309");
		return;
	}
	const uint64_t thresh = 3;
	uint64_t v = 0;
	if (!wrmsr_safe(MSR_PEBS_LD_LAT, thresh) || !rdmsr_safe(MSR_PEBS_LD_LAT, &v) || (v & 0xffff) != thresh) {
		exp_skip("MSR_PEBS_LD_LAT (0x3f6) write 3 read back 0x%llx", (unsigned long long)v);
		pebs_finish(&saved, "309");
		return;
	}
	const uint64_t size = 1ull << 22, stride = 4096 + 64;
	uint8_t *buf = exp_alloc(size, 4096);
	if (!buf) {
		exp_fail("no memory for the load buffer");
		pebs_finish(&saved, "309");
		return;
	}
	unsigned ll = (unsigned)pl->ll_pmc;
	uint64_t gctl = 1ull << ll;
	pmc_write(ll, pmu_preset(100, cpu.gp_width));
	pebs_client.gp_armed = 1ull << ll;
	if (pl->aux_pmc >= 0) {
		/* the auxiliary event counts, without PEBS and without a PMI */
		wrmsr_safe(IA32_PERFEVTSEL0 + (unsigned)pl->aux_pmc, pl->u->ll_aux | EVTSEL_OS | EVTSEL_EN);
		gctl |= 1ull << pl->aux_pmc;
	}
	pmi_register(&pebs_client);
	wrmsr_safe(IA32_PERFEVTSEL0 + ll, sel_pebs(pl->u->ll_event));
	wrmsr_safe(IA32_PEBS_ENABLE, pl->ll_pebs_enable);
	vdiag("load latency: PMC%u event 0x%04x, aux PMC%d 0x%04x, IA32_PEBS_ENABLE=0x%llx, LD_LAT=%llu",
	      ll, pl->u->ll_event, pl->aux_pmc, pl->u->ll_aux, (unsigned long long)pl->ll_pebs_enable,
	      (unsigned long long)thresh);
	wrmsr(IA32_PERF_GLOBAL_CTRL, gctl);
	ld_loop(buf, 20000, stride, size - 1 - 63);
	wrmsr(IA32_PERF_GLOBAL_CTRL, 0);
	wrmsr_safe(IA32_PEBS_ENABLE, 0);
	wrmsr_safe(IA32_PERFEVTSEL0 + ll, 0);
	if (pl->aux_pmc >= 0)
		wrmsr_safe(IA32_PERFEVTSEL0 + (unsigned)pl->aux_pmc, 0);
	pebs_finish(&saved, "309");
	check(pv.n >= 1, "load-latency PEBS records: %u (>= 1)", pv.n);
	for (uint32_t i = 0; i < pv.n && i < REC_MAX; i++) {
		struct pebs_record *r = &pv.rec[i];
		uint64_t lat = pebs_load_latency(r);
		if (r->valid & PEBS_V_SPLIT_LAT)
			diag("record %u: data linear address 0x%llx, instruction latency %u, cache latency %u, "
			     "source 0x%llx (%s)", i, (unsigned long long)r->dla, r->instr_latency,
			     r->cache_latency, (unsigned long long)r->dse, pebs_dse_name(r->dse));
		else
			diag("record %u: data linear address 0x%llx, latency %llu, source 0x%llx (%s)", i,
			     (unsigned long long)r->dla, (unsigned long long)r->latency,
			     (unsigned long long)r->dse, pebs_dse_name(r->dse));
		check(r->dla >= (uintptr_t)buf && r->dla < (uintptr_t)buf + size,
		      "record %u: data address 0x%llx inside the load buffer [0x%llx, 0x%llx)", i,
		      (unsigned long long)r->dla, (unsigned long long)(uintptr_t)buf,
		      (unsigned long long)((uintptr_t)buf + size));
		check(lat > thresh, "record %u: %s latency %llu (expected above the threshold %llu)", i,
		      (r->valid & PEBS_V_SPLIT_LAT) ? "cache" : "load", (unsigned long long)lat,
		      (unsigned long long)thresh);
	}
	return;
out:
	pmu_msrs_restore(&saved);
}
EXPERIMENT(309, "pebs-load-latency", "ex15-10", "DS, PEBS_FMT >= 1, MSR_PEBS_LD_LAT",
	   "load-latency PEBS: data address inside the buffer, latency above the threshold, data source decoded",
	   exp_pebs_load_latency);
