/* 305-309: PEBS (book ex15-5 .. ex15-10).
 *
 * SDM vol.3 "Processor Event Based Sampling": a counter enabled in
 * IA32_PEBS_ENABLE arms PEBS when it overflows and the next event triggers the
 * assist, which writes a record (layout by PEBS_FMT, see inc/pebs.h) at the PEBS
 * index, reloads the counter from the DS "PEBS counter reset" slot, and raises a
 * PMI when the index reaches the PEBS interrupt threshold (setting
 * IA32_PERF_GLOBAL_STATUS.OvfDSBuffer[62]).  With PEBS_TRAP (PERF_CAPABILITIES[6])
 * the record holds the state after the instruction (RIP = next instruction),
 * otherwise before it; either way RIP is the address right after the `mov $k, %eax`
 * whose result is in the record's RAX, which is what these experiments check.
 * Counters are stopped (GLOBAL_CTRL) before PEBS_ENABLE is cleared. */
#include "apic.h"
#include "apicdef.h"
#include "cpu.h"
#include "cpuid.h"
#include "experiment.h"
#include "mem.h"
#include "msr.h"
#include "pmi.h"
#include "pmu.h"
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
	uint32_t max_causes;
} pv;

static void on_records(struct pmi_client *c, struct pmi_event *e, uint64_t from, uint64_t to)
{
	while (from < to) {
		struct pebs_record r;
		int err = pebs_decode((const void *)(uintptr_t)from, (size_t)(to - from), pv.ps.layout,
				      pv.ps.adaptive ? pv.ps.data_cfg : 0, &r);
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
	if (e->c.n > pv.max_causes)
		pv.max_causes = e->c.n;
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
	/* after an assist the counter reloads from here: far enough for no second one */
	ds_set_pebs_reset(&pv.ps.ds, 0, pmu_preset(1ull << 30, cpu.gp_width));
	ds_set_pebs_reset(&pv.ps.ds, 1, pmu_preset(1ull << 30, cpu.gp_width));
	return true;
}

static void pebs_finish(struct pmu_msrs *saved)
{
	delay_us(100);                  /* a PMI raised at the very end lands here */
	/* records the PMI did not report (none expected) */
	struct ds_buf b;
	ds_buf_get(&pv.ps.ds, true, &b);
	ds_dump(&pv.ps.ds);
	pmi_unregister(&pebs_client);
	ds_uninstall(&pv.ps.ds);
	pmu_msrs_restore(saved);
}

static uint64_t sel_pebs(uint64_t event)
{
	return event | EVTSEL_OS | EVTSEL_INT | EVTSEL_EN | (pv.ps.adaptive ? EVTSEL_ADAPTIVE : 0);
}

/* The checks on a record of the mov sequence. */
static void check_mov_record(const char *what, const struct pebs_record *r, unsigned pmc)
{
	char t[96];
	uint64_t k = r->gpr[PR_RAX];
	tl_snprintf(t, sizeof t, "%s: RAX (which mov) in 1..20", what);
	check(k >= 1 && k <= 20, "%s: %llu", t, (unsigned long long)k);
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
}

/* ---- 305: PEBS interrupt (ex15-5 / ex15-6) ---------------------------------- */

static void run_movs(unsigned pmc_pebs, unsigned pmc_pmi, uint64_t n)
{
	pmc_write(pmc_pebs, pmu_preset(n, cpu.gp_width));
	pebs_client.gp_armed = 1ull << pmc_pebs;
	if (pmc_pmi != pmc_pebs) {
		pmc_write(pmc_pmi, pmu_preset(n, cpu.gp_width));
		pebs_client.gp_armed |= 1ull << pmc_pmi;
		wrmsr_safe(IA32_PERFEVTSEL0 + pmc_pmi, EVT_INST_RETIRED_ANY_P | EVTSEL_OS | EVTSEL_INT | EVTSEL_EN);
	}
	pmi_register(&pebs_client);
	wrmsr_safe(IA32_PERFEVTSEL0 + pmc_pebs, sel_pebs(EVT_INST_RETIRED_ANY_P));
	wrmsr_safe(IA32_PEBS_ENABLE, 1ull << pmc_pebs);
	/* both counters start with the same WRMSR (book ex15-8) */
	pebs_movs((1ull << pmc_pebs) | (1ull << pmc_pmi));
	/* counters stopped inside pebs_movs: now PEBS may be disabled */
	wrmsr_safe(IA32_PEBS_ENABLE, 0);
	wrmsr_safe(IA32_PERFEVTSEL0 + pmc_pebs, 0);
	wrmsr_safe(IA32_PERFEVTSEL0 + pmc_pmi, 0);
}

static void exp_pebs_interrupt(void)
{
	struct pmu_msrs saved;
	if (!pebs_begin(&saved, PEBS_CFG_GPR, 0, 0, 4, 1))
		goto out;
	run_movs(0, 0, 4);
	pebs_finish(&saved);
	check_eqd("PEBS records written (one assist, counter reset far away)", pv.n, 1);
	check_eqd("undecodable records", pv.bad, 0);
	check(pebs_client.n_pmi >= 1, "PMIs: %u (>= 1)", pebs_client.n_pmi);
	if (pv.n >= 1) {
		char text[1024];
		pebs_format(text, sizeof text, &pv.rec[0]);
		if (exp_verbosity() >= 1)
			diag("%s", text);
		check_mov_record("record 0", &pv.rec[0], 0);
	}
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
	run_movs(0, 0, 4);
	uint64_t index_after = ds_read(&pv.ps.ds, DS_PEBS_INDEX);
	uint64_t st = 0;
	rdmsr_safe(IA32_PERF_GLOBAL_STATUS, &st);
	pebs_finish(&saved);
	check_eqd("PEBS records", pv.n, 1);
	check(pebs_client.n_pebs_full >= 1, "PMIs for a full PEBS buffer: %u (>= 1)", pebs_client.n_pebs_full);
	check_eq("PEBS index when the buffer-full PMI came (== maximum)", pv.index_at_full, max);
	check_eq("IA32_PERF_GLOBAL_STATUS.OvfDSBuffer[62] seen", !!(pv.status_or & GLOBAL_STATUS_OVF_BUF), 1);
	check_eq("OvfDSBuffer cleared by the handler", st & GLOBAL_STATUS_OVF_BUF, 0);
	check_eq("PEBS index rewound to base", index_after, base);
	if (pv.n >= 1)
		check_mov_record("record 0", &pv.rec[0], 0);
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
	if (cpu.n_gp < 2) {
		exp_skip("CPUID.0AH:EAX[15:8] (general counters)=%u (needs 2)", cpu.n_gp);
		pebs_finish(&saved);
		return;
	}
	/* PMC0: ordinary overflow PMI; PMC1: PEBS; same event, same preset */
	run_movs(1, 0, 4);
	uint64_t st = 0;
	rdmsr_safe(IA32_PERF_GLOBAL_STATUS, &st);
	pebs_finish(&saved);
	check_eq("PMC0 overflow identified", pebs_client.gp_ovf & 1, 1);
	/* the two conditions arrive together; PMC0 has priority.  PMC1 either
	 * wrote its record or left its overflow bit set (assist suppressed) */
	check(pv.n >= 1 || (pebs_client.gp_ovf & 2), "PMC1: %u PEBS records, overflow bit %llu (one of them)",
	      pv.n, (unsigned long long)((pebs_client.gp_ovf >> 1) & 1));
	check_eq("both overflow bits cleared", st & 3, 0);
	diag("PMIs %u, PEBS records %u, status bits seen 0x%llx", pebs_client.n_pmi, pv.n,
	     (unsigned long long)pv.status_or);
	if (pv.n >= 1)
		check_mov_record("PMC1 record", &pv.rec[0], 1);
	return;
out:
	pmu_msrs_restore(&saved);
}
EXPERIMENT(307, "pmi-and-pebs", "ex15-8", "DS, PEBS, 2 counters",
	   "PMC0 overflow PMI and PMC1 PEBS triggered together: the handler sees and clears both",
	   exp_pmi_and_pebs);

/* ---- 308: several causes in one PMI (ex15-9) -------------------------------- */

static void exp_pmi_multi_cause(void)
{
	struct pmu_msrs saved;
	if (!pebs_begin(&saved, PEBS_CFG_GPR, 10, 10, 1, 1))
		goto out;
	if (cpu.misc_enable & MISC_ENABLE_BTS_UNAVAIL) {
		exp_skip("IA32_MISC_ENABLE.BTS_UNAVAILABLE[11]=1");
		pebs_finish(&saved);
		return;
	}
	uint64_t off = saved.debugctl & ~(DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_BTINT);
	uint64_t on = off | DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_BTINT;
	/* counted after GLOBAL_CTRL: 5 instructions to turn BTS on, then the jumps;
	 * overflow at the 9th jump, the assist on the 10th, which also fills the
	 * 10-record BTS buffer (book: counter 0xFFFFFFFF - 9 and 10 jumps) */
	pmc_write(0, pmu_preset(5 + 9, cpu.gp_width));
	pebs_client.gp_armed = 1;
	pebs_client.bts = true;
	pmi_register(&pebs_client);
	wrmsr_safe(IA32_PERFEVTSEL0, sel_pebs(EVT_INST_RETIRED_ANY_P));
	wrmsr_safe(IA32_PEBS_ENABLE, 1);
	pebs_multi(on, off, 1);
	wrmsr_safe(IA32_PEBS_ENABLE, 0);
	wrmsr_safe(IA32_PERFEVTSEL0, 0);
	pebs_client.bts = false;
	uint64_t st = 0;
	rdmsr_safe(IA32_PERF_GLOBAL_STATUS, &st);
	uint64_t pidx = ds_read(&pv.ps.ds, DS_PEBS_INDEX), pbase = ds_read(&pv.ps.ds, DS_PEBS_BASE);
	uint32_t causes = pebs_client.causes;
	pebs_finish(&saved);
	check_eq("BTS buffer full seen", !!(causes & PMI_BTS_THRESH), 1);
	check_eq("PEBS record seen", !!(causes & PMI_PEBS_RECORDS), 1);
	check_eq("PEBS buffer full seen", !!(causes & PMI_PEBS_OVF), 1);
	check(pv.max_causes >= 2, "most causes present in one PMI: %u (>= 2, book ex15-9)", pv.max_causes);
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
	   "BTS buffer full, PEBS record and PEBS buffer full at once: one handler finds and clears them all",
	   exp_pmi_multi_cause);

/* ---- 309: load latency (ex15-10) -------------------------------------------- */

/* The load-latency event is model specific (SDM "Load Latency Performance
 * Monitoring Facility"): MEM_INST_RETIRED.LATENCY_ABOVE_THRESHOLD (0BH/10H) on
 * Nehalem and Westmere, MEM_TRANS_RETIRED.LOAD_LATENCY (CDH/01H) from Sandy Bridge. */
static uint64_t ld_lat_event(void)
{
	static const uint32_t nhm[] = { 0x1a, 0x1e, 0x1f, 0x2e, 0x25, 0x2c, 0x2f };
	if (cpu.family == 6)
		for (unsigned i = 0; i < sizeof nhm / sizeof nhm[0]; i++)
			if (cpu.model == nhm[i])
				return 0x100b;
	return 0x01cd;
}

static void exp_pebs_load_latency(void)
{
	struct pmu_msrs saved;
	if (!pebs_begin(&saved, PEBS_CFG_MEMINFO | PEBS_CFG_GPR, 0, 0, 4, 1))
		goto out;
	if (pv.ps.layout == PEBS_L64_FMT0 || pv.ps.layout == PEBS_L32) {
		exp_skip("IA32_PERF_CAPABILITIES.PEBS_FMT=0 (no load-latency fields)");
		pebs_finish(&saved);
		return;
	}
	uint64_t v = 0;
	if (!wrmsr_safe(MSR_PEBS_LD_LAT, 3) || !rdmsr_safe(MSR_PEBS_LD_LAT, &v) || (v & 0xffff) != 3) {
		exp_skip("MSR_PEBS_LD_LAT (0x3f6) write 3 read back 0x%llx", (unsigned long long)v);
		pebs_finish(&saved);
		return;
	}
	const uint64_t size = 1ull << 22, stride = 4096 + 64;
	uint8_t *buf = exp_alloc(size, 4096);
	if (!buf) {
		exp_fail("no memory for the load buffer");
		pebs_finish(&saved);
		return;
	}
	pmc_write(0, pmu_preset(100, cpu.gp_width));
	pebs_client.gp_armed = 1;
	pmi_register(&pebs_client);
	wrmsr_safe(IA32_PERFEVTSEL0, sel_pebs(ld_lat_event()));
	wrmsr_safe(IA32_PEBS_ENABLE, 1 | (1ull << PEBS_ENABLE_LD_LAT_SHIFT));
	wrmsr(IA32_PERF_GLOBAL_CTRL, 1);
	ld_loop(buf, 20000, stride, size - 1 - 63);
	wrmsr(IA32_PERF_GLOBAL_CTRL, 0);
	wrmsr_safe(IA32_PEBS_ENABLE, 0);
	wrmsr_safe(IA32_PERFEVTSEL0, 0);
	pebs_finish(&saved);
	check(pv.n >= 1, "load-latency PEBS records: %u (>= 1)", pv.n);
	for (uint32_t i = 0; i < pv.n && i < REC_MAX; i++) {
		struct pebs_record *r = &pv.rec[i];
		diag("record %u: data linear address 0x%llx, latency %llu, source 0x%llx (%s)", i,
		     (unsigned long long)r->dla, (unsigned long long)r->latency, (unsigned long long)r->dse,
		     pebs_dse_name(r->dse));
		check(r->dla >= (uintptr_t)buf && r->dla < (uintptr_t)buf + size,
		      "record %u: data address 0x%llx inside the load buffer [0x%llx, 0x%llx)", i,
		      (unsigned long long)r->dla, (unsigned long long)(uintptr_t)buf,
		      (unsigned long long)((uintptr_t)buf + size));
		check(r->latency > 3, "record %u: latency %llu above the threshold 3", i,
		      (unsigned long long)r->latency);
	}
	return;
out:
	pmu_msrs_restore(&saved);
}
EXPERIMENT(309, "pebs-load-latency", "ex15-10", "DS, PEBS_FMT >= 1, MSR_PEBS_LD_LAT",
	   "load-latency PEBS: data address inside the buffer, latency above the threshold, data source decoded",
	   exp_pebs_load_latency);
