/* 4xx: Intel Processor Trace with single-range output (SDM vol.3 chapter 32):
 * the scenarios.  Each one runs inside the shared setup of experiments/pt_common.c
 * (pt_scenario: the gate, IA32_RTIT_CTL validity, RTIT MSRs saved and restored),
 * traces a known workload with pt_trace() and compares the decoded packets with
 * what the SDM prescribes.  The workloads and the packets they must produce are
 * described in pt_common.c.
 *
 * Output goes to one naturally aligned power-of-two buffer: IA32_RTIT_OUTPUT_BASE
 * holds its physical base, IA32_RTIT_OUTPUT_MASK_PTRS the mask (size-1, bits 6:0
 * always 1) and the write offset (bits 63:32); the range is circular (32.2.7.1). */
#include "cpu.h"
#include "cpuid.h"
#include "cr.h"
#include "experiment.h"
#include "msr.h"
#include "pt_decode.h"
#include "pt_range.h"
#include "pt_common.h"
#include "trap.h"
#include "user.h"
#include "x86.h"

/* IA32_RTIT_CTL of most scenarios: TraceEn, BranchEn, OS only */
static void ctl_os(const struct ptcaps *c, uint64_t ctl[2])
{
	ctl[0] = pt_ctl_of(true, false);
}

/* the loop (pt_wl) with interrupts off: arg = iterations */
static bool run_loop(struct pt_exp *x, const void *arg)
{
	pt_run_cli(pt_wl, x->ctl, PATTERN, *(const uint64_t *)arg);
	return true;
}

/* ---- 401 ------------------------------------------------------------------ */

static void exp_pt_enum(void)
{
	struct ptcaps c;
	if (!pt_gate(&c, 0))
		return;
	struct cpuid_regs r0 = cpuid(0x14, 0);
	for (uint32_t s = 0; s <= r0.eax && s < 16; s++) {
		struct cpuid_regs r = cpuid(0x14, s);
		diag("CPUID.(EAX=14H,ECX=%u): EAX=%#010x EBX=%#010x ECX=%#010x EDX=%#010x",
		     s, r.eax, r.ebx, r.ecx, r.edx);
	}
	diag("CR3Filter=%d PSB/CYC=%d IPFilter=%d MTC=%d PTWRITE=%d PowerEvt=%d ToPA=%d "
	     "ToPAMulti=%d SingleRange=%d Transport=%d LIP=%d ranges=%u MTCperiods=%#x "
	     "CYCthresh=%#x PSBfreq=%#x", c.cr3_filter, c.psb_cyc, c.ip_filter, c.mtc,
	     c.ptwrite, c.power_evt, c.topa, c.topa_multi, c.single_range, c.transport, c.lip,
	     c.nranges, c.mtc_periods, c.cyc_thresholds, c.psb_freqs);
	check(c.topa || c.single_range || c.transport,
	      "an output scheme: ToPA=%d SingleRange=%d Transport=%d (expected one set)",
	      c.topa, c.single_range, c.transport);
	check(!c.topa_multi || c.topa, "ToPA multiple entries (%d) implies ToPA (%d)",
	      c.topa_multi, c.topa);
	if (c.ip_filter || c.mtc || c.psb_cyc)
		check(r0.eax >= 1, "max subleaf %u (expected >= 1: subleaf 1 describes the "
		      "ranges/MTC/CYC/PSB encodings)", r0.eax);
	if (c.ip_filter)
		check(c.nranges >= 1, "IP filtering: %u address ranges (expected >= 1)", c.nranges);
	if (c.mtc)
		check(c.mtc_periods != 0, "MTC: period bitmap %#x (expected non-zero)", c.mtc_periods);
	if (c.psb_cyc)
		check(c.cyc_thresholds != 0 && c.psb_freqs != 0,
		      "PSB/CYC configurable: CYC thresholds %#x, PSB frequencies %#x (expected non-zero)",
		      c.cyc_thresholds, c.psb_freqs);
	uint64_t v = 0;
	rdmsr_safe(IA32_RTIT_CTL, &v);
	check(!(v & RTIT_CTL_TRACEEN), "IA32_RTIT_CTL=%#llx: TraceEn=0 at start",
	      (unsigned long long)v);
	bool out = c.topa || c.single_range;
	bool b = rdmsr_safe(IA32_RTIT_OUTPUT_BASE, &v);
	check(b == out, "RDMSR IA32_RTIT_OUTPUT_BASE %s (expected %s: ToPA or single range)",
	      b ? "ok" : "GP", out ? "ok" : "GP");
	b = rdmsr_safe(IA32_RTIT_OUTPUT_MASK_PTRS, &v);
	check(b == out, "RDMSR IA32_RTIT_OUTPUT_MASK_PTRS %s (expected %s)", b ? "ok" : "GP",
	      out ? "ok" : "GP");
	if (b)
		check((v & PTRANGE_LOWER_MASK) == PTRANGE_LOWER_MASK,
		      "OUTPUT_MASK_PTRS[6:0]=%#llx (expected 0x7f: forced to 1)",
		      (unsigned long long)(v & 0x7f));
	b = rdmsr_safe(IA32_RTIT_STATUS, &v);
	check(b, "RDMSR IA32_RTIT_STATUS %s (expected ok)", b ? "ok" : "GP");
	if (c.cr3_filter) {
		b = rdmsr_safe(IA32_RTIT_CR3_MATCH, &v);
		check(b, "RDMSR IA32_RTIT_CR3_MATCH %s (expected ok: CR3 filtering)", b ? "ok" : "GP");
	}
	for (unsigned n = 0; c.ip_filter && n < c.nranges && n < 4; n++) {
		uint64_t a = 0, z = 0;
		bool ok = rdmsr_safe(IA32_RTIT_ADDR0_A + 2 * n, &a) &&
			  rdmsr_safe(IA32_RTIT_ADDR0_B + 2 * n, &z);
		check(ok, "RDMSR IA32_RTIT_ADDR%u_A/B %s (expected ok: %u ranges)", n,
		      ok ? "ok" : "GP", c.nranges);
	}
	diag("MAXPHYADDR=%u", pt_maxphyaddr());
}
EXPERIMENT(401, "pt-enum", "", "Intel PT",
	   "CPUID leaf 14H, every subleaf; consistency of the capability bits and the RTIT MSRs",
	   exp_pt_enum);

/* ---- 402 ------------------------------------------------------------------ */

/* ---- 402 ------------------------------------------------------------------ */

static void sc_single_range(struct pt_exp *x)
{
	static const uint64_t n = 24;
	if (!pt_trace(x, "402", 4096, run_loop, &n))
		return;
	pt_check_status_clean(&x->t);
	check(!x->t.wrapped, "4 KiB range did not wrap: offset %llu", (unsigned long long)x->t.offset);
	pt_check_decoded_clean();
	pt_check_psb_start();
	int pge = pt_find_ev(PTD_TIP_PGE, 0);
	check_eqd("tip.pge packets", pt_count_ev(PTD_TIP_PGE), 1);
	pt_check_ip("tip.pge (next IP of the enabling WRMSR)", pge, A(pt_wl_pge));
	check(pge < 0 || pt_lg.ev[pge].tnt_pos == 0, "TNT bits before tip.pge: %u (expected 0)",
	      pge < 0 ? 0 : pt_lg.ev[pge].tnt_pos);
	int pgd = pt_find_ev(PTD_TIP_PGD, pge);
	check(pgd > 0 && pt_lg.ev[pgd].supp, "tip.pgd after the disabling WRMSR: %s (expected "
	      "IPBytes=0)", pgd < 0 ? "missing" : pt_lg.ev[pgd].supp ? "IP suppressed" : "has an IP");
	check(pgd < 0 || pgd + 1 == (int)pt_lg.nev, "tip.pgd is event %d of %u (expected the last one)",
	      pgd, pt_lg.nev);
	int fup = pgd > 0 ? pgd - 1 : -1;
	if (fup >= 0 && pt_lg.ev[fup].type != PTD_FUP)
		fup = -1;
	pt_check_ip("fup before tip.pgd (the disabling WRMSR)", fup, A(pt_wl_dis));
	check_eqd("tip packets between tip.pge and tip.pgd", pt_count_ev(PTD_TIP), 0);
	pt_check_loop_between("loop branches", pge, pgd, PATTERN, n);
	check_eqd("TNT bits after tip.pgd", pgd < 0 ? 0 : pt_lg.nbits - pt_lg.ev[pgd].tnt_pos, 0);
}

static void exp_pt_single_range(void)
{
	pt_scenario(G_SINGLE, ctl_os, sc_single_range);
}
EXPERIMENT(402, "pt-single-range", "", "Intel PT, single-range output",
	   "a known loop traced into one 4 KiB range: PSB+, TIP.PGE IP, the exact TNT bits, FUP+TIP.PGD",
	   exp_pt_single_range);

/* ---- 403 ------------------------------------------------------------------ */

static void ctl_psb_often(const struct ptcaps *c, uint64_t ctl[2])
{
	struct ptctl f = { .trace_en = true, .os = true, .branch_en = true };
	if (c->psb_cyc && (c->psb_freqs & 1))
		f.psb_freq = 0;         /* PSB every 2 KiB of output */
	ctl[0] = ptctl_build(&f);
}

static void sc_wrap(struct pt_exp *x)
{
	static const uint64_t n = 60000;        /* ~120000 TNT bits: about 25 KB of trace */
	if (!pt_trace(x, "403", 8192, run_loop, &n))
		return;
	pt_check_status_clean(&x->t);
	check(x->t.wrapped, "8 KiB range wrapped: %s (offset %llu)", x->t.wrapped ? "yes" : "no",
	      (unsigned long long)x->t.offset);
	check(pt_lg.start < x->t.len, "a PSB to resync at in the wrapped range: offset %llu of %zu",
	      (unsigned long long)pt_lg.start, x->t.len);
	pt_check_decoded_clean();
	check(pt_count_ev(PTD_PSB) >= 1, "psb packets after the wrap: %u (expected >= 1)",
	      pt_count_ev(PTD_PSB));
	check_eqd("tip.pge after the wrap (the enable was overwritten)", pt_count_ev(PTD_TIP_PGE), 0);
	pt_check_tail(PATTERN, n);
}

static void exp_pt_wrap(void)
{
	pt_scenario(G_SINGLE, ctl_psb_often, sc_wrap);
}
EXPERIMENT(403, "pt-wrap", "", "Intel PT, single-range output",
	   "a long loop into an 8 KiB range: the range wraps, decoding resyncs at a PSB, the tail is exact",
	   exp_pt_wrap);

/* ---- 404 ------------------------------------------------------------------ */

struct uwl_arg { uint64_t pattern, n; };
static struct uwl_arg uwl = { PATTERN, 20 };

/* DisRETC: the RET out of the workload gives a TIP, not a compressed T bit */
static void ctl_user_then_os(const struct ptcaps *c, uint64_t ctl[2])
{
	ctl[0] = pt_ctl_of(false, true) | RTIT_CTL_DISRETC;
	ctl[1] = pt_ctl_of(true, false) | RTIT_CTL_DISRETC;
}

/* the ring-3 loop with tracing on around it: arg = the IA32_RTIT_CTL value */
static bool run_user_traced(struct pt_exp *x, const void *arg)
{
	uint64_t ctl = *(const uint64_t *)arg;
	if (!wrmsr_safe(IA32_RTIT_CTL, ctl)) {
		exp_fail("WRMSR IA32_RTIT_CTL=%#llx GP", (unsigned long long)ctl);
		return false;
	}
	run_user(pt_uwl, &uwl);
	wrmsr_safe(IA32_RTIT_CTL, ctl & ~RTIT_CTL_TRACEEN);
	return true;
}

static void sc_cpl_filter(struct pt_exp *x)
{
	/* User=1, OS=0: only ring 3 (ContextEn, 32.2.6.3) */
	if (!pt_trace(x, "404-user", 16384, run_user_traced, &x->ctl))
		return;
	pt_check_status_clean(&x->t);
	pt_check_decoded_clean();
	pt_check_psb_start();
	int pge = pt_find_ev(PTD_TIP_PGE, 0);
	check(pge >= 0, "tip.pge on the way to CPL 3: %s (expected found)", pge >= 0 ? "found" : "missing");
	check(pge < 0 || pt_lg.ev[pge].tnt_pos == 0,
	      "TNT bits before the first tip.pge (CPL 0 code): %u (expected 0)",
	      pge < 0 ? 0 : pt_lg.ev[pge].tnt_pos);
	int in = -1;
	for (int i = 0; i < (int)pt_lg.nev && in < 0; i++)
		if ((pt_lg.ev[i].type == PTD_TIP || pt_lg.ev[i].type == PTD_TIP_PGE) &&
		    !pt_lg.ev[i].supp && pt_lg.ev[i].ip == A(pt_uwl))
			in = i;
	pt_check_ip("tip into the ring-3 workload", in, A(pt_uwl));
	int ret = in >= 0 ? pt_find_ev(PTD_TIP, in + 1) : -1;
	check(ret > in && in >= 0, "tip of the workload's RET (DisRETC=1): %s (expected found)",
	      ret > in && in >= 0 ? "found" : "missing");
	if (in >= 0 && ret > in)
		pt_check_bits("ring-3 loop branches", pt_lg.ev[in].tnt_pos,
			      pt_lg.ev[ret].tnt_pos - pt_lg.ev[in].tnt_pos, uwl.pattern, uwl.n, 0, 2 * uwl.n);
	int pgd = pt_find_ev(PTD_TIP_PGD, in);
	check(pgd > in && pt_lg.ev[pgd].supp, "tip.pgd on the return to CPL 0: %s (expected IPBytes=0)",
	      pgd < 0 ? "missing" : pt_lg.ev[pgd].supp ? "IP suppressed" : "has an IP");

	/* OS=1, User=0: the ring-3 workload must be invisible */
	if (!pt_trace(x, "404-os", 65536, run_user_traced, &x->ctl2))
		return;
	pt_check_status_clean(&x->t);
	pt_check_decoded_clean();
	unsigned inside = 0;
	for (unsigned i = 0; i < pt_lg.nev; i++)
		if (ptd_is_ip_packet(pt_lg.ev[i].type) && !pt_lg.ev[i].supp &&
		    pt_lg.ev[i].ip >= A(pt_uwl) && pt_lg.ev[i].ip < A(pt_uwl_end))
			inside++;
	check_eqd("OS only: IP packets inside the ring-3 workload", inside, 0);
	int pgd_os = pt_find_ev(PTD_TIP_PGD, 0);
	check(pgd_os >= 0 && pt_lg.ev[pgd_os].supp,
	      "OS only: tip.pgd entering CPL 3: %s (expected IPBytes=0)",
	      pgd_os < 0 ? "missing" : pt_lg.ev[pgd_os].supp ? "IP suppressed" : "has an IP");
	int back = pt_find_ev(PTD_TIP_PGE, pgd_os);
	check(back > pgd_os, "OS only: tip.pge back at CPL 0: %s (expected found)", back > pgd_os ? "found" : "missing");
}

static void exp_pt_cpl_filter(void)
{
	pt_scenario(G_SINGLE, ctl_user_then_os, sc_cpl_filter);
}
EXPERIMENT(404, "pt-cpl-filter", "", "Intel PT, single-range output, ring 3",
	   "User=1/OS=0 traces only the ring-3 loop (exact TNT bits); OS=1/User=0 hides it",
	   exp_pt_cpl_filter);

/* ---- 405 ------------------------------------------------------------------ */

static void ctl_filter(const struct ptcaps *c, uint64_t ctl[2])
{
	ctl[0] = pt_ctl_of(true, false) | ((uint64_t)RTIT_ADDR_CFG_FILTER << RTIT_CTL_ADDR_CFG_SHIFT(0));
}

/* ADDR0 around the loop of pt_wlf, then the workload: arg = iterations */
static bool run_filtered(struct pt_exp *x, const void *arg)
{
	/* The range is inclusive: [first byte of the loop, first byte of the JMP out] */
	if (!wrmsr_safe(IA32_RTIT_ADDR0_A, A(pt_wlf_in)) ||
	    !wrmsr_safe(IA32_RTIT_ADDR0_B, A(pt_wlf_last))) {
		exp_fail("WRMSR IA32_RTIT_ADDR0_A/B GP");
		return false;
	}
	diag("ADDR0 = [%#llx, %#llx], ADDR0_CFG=1 (FilterEn)", (unsigned long long)A(pt_wlf_in),
	     (unsigned long long)A(pt_wlf_last));
	pt_run_cli(pt_wlf, x->ctl, PATTERN, *(const uint64_t *)arg);
	return true;
}

static void sc_ip_filter(struct pt_exp *x)
{
	static const uint64_t n = 16;
	if (!pt_trace(x, "405", 4096, run_filtered, &n))
		return;
	pt_check_status_clean(&x->t);
	pt_check_decoded_clean();
	pt_check_psb_start();
	check_eqd("tip.pge packets", pt_count_ev(PTD_TIP_PGE), 1);
	int pge = pt_find_ev(PTD_TIP_PGE, 0);
	pt_check_ip("tip.pge (target of the JMP into the range)", pge, A(pt_wlf_in));
	check(pge < 0 || pt_lg.ev[pge].tnt_pos == 0, "TNT bits before tip.pge: %u (expected 0)",
	      pge < 0 ? 0 : pt_lg.ev[pge].tnt_pos);
	int pgd = pt_find_ev(PTD_TIP_PGD, pge);
	/* 32.2.6.5: leaving by a direct unconditional branch: PGD carries its target */
	pt_check_ip("tip.pgd (target of the JMP out of the range)", pgd, A(pt_wlf_out));
	pt_check_loop_between("in-range loop branches", pge, pgd, PATTERN, n);
	check_eqd("TNT bits after tip.pgd (outside the range)",
		  pgd < 0 ? 0 : pt_lg.nbits - pt_lg.ev[pgd].tnt_pos, 0);
	check_eqd("fup packets (disable with PacketEn=0 makes none)", pt_count_ev(PTD_FUP), 0);
}

static void exp_pt_ip_filter(void)
{
	pt_scenario(G_SINGLE | G_IPFILT, ctl_filter, sc_ip_filter);
}
EXPERIMENT(405, "pt-ip-filter", "", "Intel PT, single-range output, IP filtering",
	   "ADDR0_CFG=1 around the loop: TIP.PGE/TIP.PGD at the range edges, only the loop's TNT bits",
	   exp_pt_ip_filter);

/* ---- 406 ------------------------------------------------------------------ */

static void ctl_stop(const struct ptcaps *c, uint64_t ctl[2])
{
	ctl[0] = pt_ctl_of(true, false) | ((uint64_t)RTIT_ADDR_CFG_STOP << RTIT_CTL_ADDR_CFG_SHIFT(0));
}

static uint64_t live[2];        /* IA32_RTIT_STATUS, read by pt_wls while tracing */

/* ADDR0 on the TraceStop range of pt_wls, then the workload: arg = iterations */
static bool run_stopped(struct pt_exp *x, const void *arg)
{
	if (!wrmsr_safe(IA32_RTIT_ADDR0_A, A(pt_wls_stop)) ||
	    !wrmsr_safe(IA32_RTIT_ADDR0_B, A(pt_wls_stop_end))) {
		exp_fail("WRMSR IA32_RTIT_ADDR0_A/B GP");
		return false;
	}
	live[0] = live[1] = ~0ULL;
	uint64_t fl = read_rflags();
	cli();
	pt_wls(x->ctl, PATTERN, *(const uint64_t *)arg, live);
	if (fl & RFLAGS_IF)
		sti();
	return true;
}

static void sc_tracestop(struct pt_exp *x)
{
	static const uint64_t n = 12;
	if (!pt_trace(x, "406", 4096, run_stopped, &n))
		return;
	struct ptstatus s, before, after;
	ptstatus_parse(x->t.status, &s);
	ptstatus_parse(live[0], &before);
	ptstatus_parse(live[1], &after);
	diag("IA32_RTIT_STATUS while tracing 0x%llx, after the JMP into the TraceStop range 0x%llx",
	     (unsigned long long)live[0], (unsigned long long)live[1]);
	/* 32.2.5.3 TraceStop: a branch into the range sets STATUS.Stopped, which
	 * clears TriggerEn (TriggerEn = TraceEn && !Stopped, 32.2.8.3): read it
	 * while TraceEn is still 1, before and after; after TraceEn=0 it is 0
	 * whatever happened.  TIP.PGD(target) then a TraceStop packet. */
	check(before.trigger_en && !before.stopped, "STATUS before the stop: TriggerEn=%d Stopped=%d "
	      "(expected 1, 0)", before.trigger_en, before.stopped);
	check(after.stopped && !after.trigger_en, "STATUS after the stop, TraceEn=1: Stopped=%d TriggerEn=%d "
	      "(expected 1, 0)", after.stopped, after.trigger_en);
	check(s.stopped, "IA32_RTIT_STATUS.Stopped=%d after TraceEn=0 (expected 1: sticky)", s.stopped);
	check(!s.error, "IA32_RTIT_STATUS.Error=%d (expected 0)", s.error);
	pt_check_decoded_clean();
	pt_check_psb_start();
	int pge = pt_find_ev(PTD_TIP_PGE, 0);
	pt_check_ip("tip.pge", pge, A(pt_wls_pge));
	int pgd = pt_find_ev(PTD_TIP_PGD, pge);
	pt_check_ip("tip.pgd (target of the JMP into the TraceStop range)", pgd, A(pt_wls_stop));
	int stop = pt_find_ev(PTD_STOP, pgd);
	check(stop > pgd && pgd >= 0, "stop packet after tip.pgd: %s (expected found)",
	      stop > pgd && pgd >= 0 ? "found" : "missing");
	pt_check_loop_between("loop branches", pge, pgd, PATTERN, n);
	check_eqd("fup packets (tracing already stopped at the disabling WRMSR)",
		  pt_count_ev(PTD_FUP), 0);
	/* Resuming needs TraceEn=0 then Stopped cleared by software. */
	bool w = wrmsr_safe(IA32_RTIT_STATUS, 0);
	uint64_t st = ~0ULL;
	rdmsr_safe(IA32_RTIT_STATUS, &st);
	check(w && !(st & RTIT_STATUS_STOPPED), "WRMSR STATUS=0 with TraceEn=0 clears Stopped: "
	      "%s, STATUS=%#llx", w ? "ok" : "GP", (unsigned long long)st);
}

static void exp_pt_tracestop(void)
{
	pt_scenario(G_SINGLE | G_IPFILT, ctl_stop, sc_tracestop);
}
EXPERIMENT(406, "pt-tracestop", "", "Intel PT, single-range output, IP filtering",
	   "ADDR0_CFG=2: a JMP into the range sets Stopped, TIP.PGD(target) then a TraceStop packet",
	   exp_pt_tracestop);

/* ---- 407 ------------------------------------------------------------------ */

static void ctl_cr3(const struct ptcaps *c, uint64_t ctl[2])
{
	ctl[0] = pt_ctl_of(true, false) | RTIT_CTL_CR3FILTER;
}

struct cr3_run { uint64_t cr3, match, n; };

/* CR3_MATCH, then the loop */
static bool run_cr3(struct pt_exp *x, const void *arg)
{
	const struct cr3_run *r = arg;
	if (!wrmsr_safe(IA32_RTIT_CR3_MATCH, r->match)) {
		exp_fail("WRMSR IA32_RTIT_CR3_MATCH=%#llx GP", (unsigned long long)r->match);
		return false;
	}
	diag("CR3=%#llx CR3_MATCH=%#llx", (unsigned long long)r->cr3, (unsigned long long)r->match);
	pt_run_cli(pt_wl, x->ctl, PATTERN, r->n);
	return true;
}

static void sc_cr3_filter(struct pt_exp *x)
{
	const uint64_t n = 10;
	/* IA32_RTIT_CR3_MATCH[4:0] are reserved; in 4-level paging CR3[63:12] is
	 * compared (32.2.5.2) */
	uint64_t cr3 = read_cr3() & ~0x1fULL;
	for (int run = 0; run < 2; run++) {
		struct cr3_run r = { cr3, run == 0 ? cr3 : cr3 ^ 0x1000, n };
		if (!pt_trace(x, run == 0 ? "407-match" : "407-nomatch", 4096, run_cr3, &r))
			return;
		pt_check_status_clean(&x->t);
		pt_check_decoded_clean();
		pt_check_psb_start();
		if (run == 0) {
			int pge = pt_find_ev(PTD_TIP_PGE, 0);
			pt_check_ip("CR3 matches: tip.pge", pge, A(pt_wl_pge));
			int pgd = pt_find_ev(PTD_TIP_PGD, pge);
			check(pgd > pge && pge >= 0, "CR3 matches: tip.pgd %s (expected found)",
			      pgd > pge && pge >= 0 ? "found" : "missing");
			pt_check_loop_between("CR3 matches: loop branches", pge, pgd, PATTERN, n);
		} else {
			/* ContextEn=0: no control-flow packet at all (32.2.6.3) */
			check_eqd("CR3 differs: TNT bits", pt_lg.nbits, 0);
			check_eqd("CR3 differs: tip.pge", pt_count_ev(PTD_TIP_PGE), 0);
			check_eqd("CR3 differs: tip.pgd", pt_count_ev(PTD_TIP_PGD), 0);
			check_eqd("CR3 differs: fup", pt_count_ev(PTD_FUP), 0);
			check(!(x->t.status & RTIT_STATUS_CONTEXTEN),
			      "CR3 differs: STATUS.ContextEn=%d (expected 0)",
			      !!(x->t.status & RTIT_STATUS_CONTEXTEN));
		}
	}
}

static void exp_pt_cr3_filter(void)
{
	pt_scenario(G_SINGLE | G_CR3, ctl_cr3, sc_cr3_filter);
}
EXPERIMENT(407, "pt-cr3-filter", "", "Intel PT, single-range output, CR3 filtering",
	   "CR3Filter=1: CR3_MATCH=CR3 traces the loop exactly; another value traces nothing",
	   exp_pt_cr3_filter);

/* ---- 408 ------------------------------------------------------------------ */

/* Program BASE/MASK_PTRS, set TraceEn, see whether the CPU objects: #GP on a
 * WRMSR, or an operational error (STATUS.Error, 32.3.10). */
static void bad_range(const char *what, uint64_t base, uint64_t mask_ptrs, uint64_t ctl,
		      enum ptrange_err want)
{
	/* tracelab's own validator, not the hardware: a disagreement is a set-up
	 * bug, not a result, so it fails the experiment without a PASS line */
	enum ptrange_err e = ptrange_check(base, mask_ptrs, pt_maxphyaddr());
	if (e != want)
		exp_fail("%s: tracelab's ptrange_check says %s (expected %s)", what,
			 ptrange_err_name(e), ptrange_err_name(want));
	wrmsr_safe(IA32_RTIT_CTL, 0);
	wrmsr_safe(IA32_RTIT_STATUS, 0);
	const char *how = NULL;
	if (!wrmsr_safe(IA32_RTIT_OUTPUT_BASE, base))
		how = "GP on WRMSR OUTPUT_BASE";
	else if (!wrmsr_safe(IA32_RTIT_OUTPUT_MASK_PTRS, mask_ptrs))
		how = "GP on WRMSR OUTPUT_MASK_PTRS";
	else if (!wrmsr_safe(IA32_RTIT_CTL, ctl))
		how = "GP on WRMSR CTL.TraceEn=1";
	else {
		wrmsr_safe(IA32_RTIT_CTL, ctl & ~RTIT_CTL_TRACEEN);
		uint64_t st = 0;
		rdmsr_safe(IA32_RTIT_STATUS, &st);
		if (st & RTIT_STATUS_ERROR)
			how = "IA32_RTIT_STATUS.Error=1";
		else
			diag("%s: STATUS=%#llx after enable/disable", what, (unsigned long long)st);
	}
	check(how != NULL, "%s (BASE=%#llx MASK_PTRS=%#llx): %s (expected GP or STATUS.Error)",
	      what, (unsigned long long)base, (unsigned long long)mask_ptrs,
	      how ? how : "not detected");
	wrmsr_safe(IA32_RTIT_CTL, 0);
	wrmsr_safe(IA32_RTIT_STATUS, 0);
}

static void sc_config_errors(struct pt_exp *x)
{
	const struct ptcaps c = x->c;
	const uint64_t ctl = x->ctl;
	struct trace *t = &x->t;
	/* 8 KiB aligned: should the CPU not flag an error, every store the bad
	 * settings could address still lands inside this buffer. */
	if (!pt_arm(t, 8192))
		return;
	uint64_t b = A(t->buf);
	bad_range("mask non-contiguous (bit 7 clear below bit 11)", b, 0xf7f, ctl,
		  PTRANGE_ERR_MASK_NONCONTIG);
	bad_range("base overlaps the mask (base+0x100, 4 KiB mask)", b + 0x100, 0xfff, ctl,
		  PTRANGE_ERR_BASE_MISALIGNED);
	bad_range("offset beyond the mask (offset == size)", b, (0x1000ULL << 32) | 0xfff, ctl,
		  PTRANGE_ERR_OFFSET_BEYOND_MASK);
	/* Reserved OUTPUT_BASE bits must #GP at the WRMSR; never enable with them. */
	unsigned mp = pt_maxphyaddr();
	static const struct { const char *what; int shift; enum ptrange_err e; } rsv[] = {
		{ "base beyond MAXPHYADDR", -1, PTRANGE_ERR_BASE_MAXPHYADDR },
		{ "base bits 6:0 set", 6, PTRANGE_ERR_BASE_RESERVED },
	};
	for (unsigned i = 0; i < 2; i++) {
		uint64_t bad = rsv[i].shift < 0 ? (mp < 64 ? b | (1ULL << mp) : b) : b | (1ULL << rsv[i].shift);
		if (rsv[i].shift < 0 && mp >= 64)
			continue;
		enum ptrange_err e = ptrange_check(bad, 0xfff, mp);
		if (e != rsv[i].e)
			exp_fail("%s: tracelab's ptrange_check says %s (expected %s)", rsv[i].what,
				 ptrange_err_name(e), ptrange_err_name(rsv[i].e));
		wrmsr_safe(IA32_RTIT_CTL, 0);
		bool ok = wrmsr_safe(IA32_RTIT_OUTPUT_BASE, bad);
		check(!ok, "%s: WRMSR OUTPUT_BASE=%#llx %s (expected GP)", rsv[i].what,
		      (unsigned long long)bad, ok ? "accepted" : "GP");
		wrmsr_safe(IA32_RTIT_OUTPUT_BASE, t->base_msr);
	}
	/* 32.2.8.1: with TraceEn=1, WRMSR to any configuration MSR #GPs, except
	 * writing IA32_RTIT_CTL with its current value. */
	wrmsr_safe(IA32_RTIT_STATUS, 0);
	wrmsr_safe(IA32_RTIT_OUTPUT_BASE, t->base_msr);
	wrmsr_safe(IA32_RTIT_OUTPUT_MASK_PTRS, t->mask_msr);
	if (!wrmsr_safe(IA32_RTIT_CTL, ctl)) {
		check(false, "valid configuration: WRMSR CTL=%#llx GP", (unsigned long long)ctl);
		return;
	}
	bool g_base = !wrmsr_safe(IA32_RTIT_OUTPUT_BASE, t->base_msr);
	bool g_mask = !wrmsr_safe(IA32_RTIT_OUTPUT_MASK_PTRS, t->mask_msr);
	bool g_stat = !wrmsr_safe(IA32_RTIT_STATUS, 0);
	bool g_ctl = !wrmsr_safe(IA32_RTIT_CTL, ctl ^ RTIT_CTL_DISRETC);
	bool g_same = !wrmsr_safe(IA32_RTIT_CTL, ctl);
	bool g_addr = false, g_cr3 = false;
	uint64_t a0 = 0;
	if (c.ip_filter && c.nranges) {
		rdmsr_safe(IA32_RTIT_ADDR0_A, &a0);
		g_addr = !wrmsr_safe(IA32_RTIT_ADDR0_A, a0);
	}
	if (c.cr3_filter)
		g_cr3 = !wrmsr_safe(IA32_RTIT_CR3_MATCH, x->sv.have_cr3 ? x->sv.cr3 : 0);
	bool g_off = !wrmsr_safe(IA32_RTIT_CTL, ctl & ~RTIT_CTL_TRACEEN);
	check(g_base, "TraceEn=1: WRMSR OUTPUT_BASE %s (expected GP)", g_base ? "GP" : "accepted");
	check(g_mask, "TraceEn=1: WRMSR OUTPUT_MASK_PTRS %s (expected GP)", g_mask ? "GP" : "accepted");
	check(g_stat, "TraceEn=1: WRMSR STATUS %s (expected GP)", g_stat ? "GP" : "accepted");
	check(g_ctl, "TraceEn=1: WRMSR CTL changing DisRETC %s (expected GP)",
	      g_ctl ? "GP" : "accepted");
	check(!g_same, "TraceEn=1: WRMSR CTL with the same value %s (expected accepted)",
	      g_same ? "GP" : "accepted");
	if (c.ip_filter && c.nranges)
		check(g_addr, "TraceEn=1: WRMSR ADDR0_A %s (expected GP)", g_addr ? "GP" : "accepted");
	if (c.cr3_filter)
		check(g_cr3, "TraceEn=1: WRMSR CR3_MATCH %s (expected GP)", g_cr3 ? "GP" : "accepted");
	check(!g_off, "WRMSR CTL clearing TraceEn %s (expected accepted)", g_off ? "GP" : "accepted");
	if (g_off)
		wrmsr_safe(IA32_RTIT_CTL, 0);
	pt_collect(t, "408");
}

static void exp_pt_config_errors(void)
{
	pt_scenario(G_SINGLE, ctl_os, sc_config_errors);
}
EXPERIMENT(408, "pt-config-errors", "", "Intel PT, single-range output",
	   "each single-range error condition and WRMSR with TraceEn=1: caught (GP / STATUS.Error), not fatal",
	   exp_pt_config_errors);

/* ---- 409 ------------------------------------------------------------------ */

static void sc_cost(struct pt_exp *x)
{
	const uint64_t n = 400000;      /* ~135 KB of trace: wraps 64 KiB twice */
	const uint64_t ctl = x->ctl;
	struct trace *t = &x->t;
	if (!pt_arm(t, 65536))
		return;
	uint64_t best_off = ~0ULL, best_on = ~0ULL;
	for (int rep = 0; rep < 3; rep++) {
		uint64_t t0 = rdtsc();
		pt_run_cli(pt_wl, ctl & ~RTIT_CTL_TRACEEN, PATTERN, n);
		uint64_t t1 = rdtsc();
		wrmsr_safe(IA32_RTIT_STATUS, 0);
		wrmsr_safe(IA32_RTIT_OUTPUT_MASK_PTRS, t->mask_msr);
		uint64_t t2 = rdtsc();
		pt_run_cli(pt_wl, ctl, PATTERN, n);
		uint64_t t3 = rdtsc();
		if (t1 - t0 < best_off)
			best_off = t1 - t0;
		if (t3 - t2 < best_on)
			best_on = t3 - t2;
	}
	pt_collect(t, "409");
	pt_scan(t);
	uint64_t ratio100 = best_off ? best_on * 100 / best_off : 0;
	diag("%llu loop iterations (%llu conditional branches): %llu TSC cycles without PT, "
	     "%llu with PT, ratio %llu.%02llu", (unsigned long long)n, (unsigned long long)(2 * n),
	     (unsigned long long)best_off, (unsigned long long)best_on,
	     (unsigned long long)(ratio100 / 100), (unsigned long long)(ratio100 % 100));
	diag("OVF packets in the last 64 KiB: %u", pt_lg.novf);
	pt_check_status_clean(t);
	check(t->wrapped, "%llu TNT bits overflowed the 64 KiB range: wrapped=%d",
	      (unsigned long long)(2 * n), t->wrapped);
	pt_check_decoded_clean();
	pt_check_tail(PATTERN, n);
}

static void exp_pt_cost(void)
{
	pt_scenario(G_SINGLE, ctl_os, sc_cost);
}
EXPERIMENT(409, "pt-cost", "", "Intel PT, single-range output",
	   "TSC cycles of an 800000-branch loop with and without PT; the traced tail is exact",
	   exp_pt_cost);
