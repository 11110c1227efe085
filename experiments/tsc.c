/* 512-513 platform: the time-stamp counter on every CPU.
 *
 * 512 tsc: SDM vol.3 18.17 — the TSC increments monotonically; with the invariant
 * TSC (CPUID.80000007H:EDX[8], 18.17.1) it runs at a constant rate in every
 * ACPI P-, C- and T-state.  Checked: on each online CPU, many back-to-back RDTSCs
 * never go backwards.  Measured and reported: the offset between each pair of
 * CPUs, by a ping-pong in which each side reads its TSC right after seeing the
 * other side's value (the minimum of "mine minus theirs" in each direction is
 * offset + latency and -offset + latency; half their difference is the offset).
 * Only when the TSC is invariant is "never smaller than a value another CPU read
 * earlier" also a check: the SDM promises nothing across CPUs otherwise.
 * RDTSC is not ordered with earlier loads (SDM vol.2 RDTSC): LFENCE before it
 * keeps the read after the load that saw the other CPU's value.
 *
 * 513 rdtscp-aux: RDTSCP loads IA32_TSC_AUX[31:0] into ECX along with the TSC
 * (SDM vol.2 RDTSCP), and IA32_TSC_AUX is per logical processor: each CPU writes
 * its own number, and after every CPU has written, each still reads its own. */
#include "cpu.h"
#include "cpuid.h"
#include "experiment.h"
#include "msr.h"
#include "percpu.h"
#include "smp.h"
#include "trap.h"
#include "x86.h"

#define CALL_MS         5000
#define MONO_READS      100000
#define PP_ROUNDS       500

static inline uint64_t rdtsc_ordered(void)
{
	__asm__ volatile("lfence" ::: "memory");
	return rdtsc();
}

/* ---- 512 ------------------------------------------------------------------ */

struct mono { uint64_t backwards, first, last, max_step; };

static void tsc_mono(void *arg)
{
	struct mono *m = arg;
	uint64_t prev = rdtsc(), first = prev, back = 0, max_step = 0;
	for (int i = 0; i < MONO_READS; i++) {
		uint64_t t = rdtsc();
		if (t < prev)
			back++;
		else if (t - prev > max_step)
			max_step = t - prev;
		prev = t;
	}
	*m = (struct mono){ back, first, prev, max_step };
}

/* The ping-pong: even turns are ours, odd ones the peer's; `stamp` is the TSC
 * the side whose turn just ended read last.  It runs for PP_ROUNDS rounds or
 * the pair's time budget, whichever ends first (an emulator's vCPUs may share
 * host cores), and we end it by setting turn to PP_END on one of our turns.
 * The budget is PP_BUDGET_MS per pair but PP_TOTAL_MS for all pairs together:
 * the experiment's time must not grow with the number of CPUs past the
 * watchdog (3000 ms by default; 15 pairs at 200 ms each did, with -smp 16). */
#define PP_END          0xffffffffu
#define PP_BUDGET_MS    200
#define PP_TOTAL_MS     1000
#define PP_MIN_ROUNDS   1       /* a loaded emulator host may manage few */
static volatile uint64_t stamp;
static volatile uint32_t turn;
struct pp { int64_t min_d; uint32_t backwards, rounds; bool timed_out; };
static struct pp peer_pp;

static bool wait_turn(uint32_t t, uint64_t deadline)
{
	while (turn != t)
		if (turn == PP_END || (int64_t)(rdtsc() - deadline) > 0)
			return false;
	return true;
}

static uint32_t pp_budget_ms;

static void pp_side(struct pp *p, bool initiator)
{
	uint64_t budget = rdtsc() + pp_budget_ms * smp_tsc_per_ms();
	uint64_t deadline = budget + 1000 * smp_tsc_per_ms();
	*p = (struct pp){ .min_d = INT64_MAX };
	for (uint32_t i = 0;; i++) {
		uint32_t mine = 2 * i + !initiator;
		if (!wait_turn(mine, deadline)) {
			p->timed_out = turn != PP_END;
			return;
		}
		if (mine > 0) {         /* turn 0 has no earlier stamp to compare */
			int64_t d = (int64_t)(rdtsc_ordered() - stamp);
			if (d < 0)
				p->backwards++;
			if (d < p->min_d)
				p->min_d = d;
			p->rounds++;
		}
		/* The budget ends the ping-pong only after PP_MIN_ROUNDS: a vCPU
		 * descheduled right after reading `budget` (seen: 164 ms latencies on
		 * a loaded host, budgets of 200 ms and 1-3 rounds in them) would
		 * otherwise end it at round 0 and fail a pair nothing was wrong with;
		 * a peer that never answers still fails, by the deadline. */
		if (initiator && (i == PP_ROUNDS ||
				  (i >= PP_MIN_ROUNDS && (int64_t)(rdtsc() - budget) > 0))) {
			turn = PP_END;
			return;
		}
		stamp = rdtsc_ordered();
		turn = mine + 1;
	}
}

static void pp_peer(void *arg)
{
	pp_side(&peer_pp, false);
}

static void tsc(void)
{
	uint32_t me = this_cpu()->index;
	diag("CPUID.80000007H:EDX.InvariantTSC[8]=%u%s", cpu.invariant_tsc,
	     cpu.max_ext_leaf < 0x80000007 ? " (leaf absent)" : "");

	static struct mono mono[MAX_CPUS];
	for (int c = 0; c < MAX_CPUS; c++) {
		if (!smp_cpu_online(c))
			continue;
		if (!smp_call(c, tsc_mono, &mono[c], CALL_MS)) {
			exp_fail("cpu%d did not answer", c);
			continue;
		}
		check(mono[c].backwards == 0,
		      "cpu%d: %d back-to-back RDTSCs went backwards %llu times (expected 0)", c,
		      MONO_READS, (unsigned long long)mono[c].backwards);
		diag("cpu%d: %llu cycles for %d reads, largest step %llu", c,
		     (unsigned long long)(mono[c].last - mono[c].first), MONO_READS,
		     (unsigned long long)mono[c].max_step);
	}

	if (ncpus_online < 2) {
		diag("only 1 CPU online: no skew to measure");
		return;
	}
	/* The pairs share PP_TOTAL_MS: each gets an equal part of what is left (a
	 * round may take longer than planned on a loaded host); pairs for which
	 * nothing is left are reported, not measured. */
	uint64_t per_ms = smp_tsc_per_ms(), phase_end = rdtsc() + PP_TOTAL_MS * per_ms;
	uint32_t pairs_left = ncpus_online - 1, unmeasured = 0;
	for (int c = 0; c < MAX_CPUS; c++) {
		if (c == (int)me || !smp_cpu_online(c))
			continue;
		int64_t left_ms = (int64_t)(phase_end - rdtsc()) / (int64_t)per_ms;
		if (left_ms < (int64_t)pairs_left) {
			unmeasured++;
			pairs_left--;
			continue;
		}
		pp_budget_ms = (uint32_t)(left_ms / pairs_left);
		if (pp_budget_ms > PP_BUDGET_MS)
			pp_budget_ms = PP_BUDGET_MS;
		pairs_left--;
		struct pp mine;
		turn = 0;
		if (!smp_post(c, pp_peer, 0)) {
			exp_fail("could not post work to cpu%d", c);
			continue;
		}
		pp_side(&mine, true);
		bool back = smp_wait(c, CALL_MS);
		const struct pp *peer = &peer_pp;
		check(back && !mine.timed_out && !peer->timed_out && mine.rounds == peer->rounds &&
		      mine.rounds >= PP_MIN_ROUNDS,
		      "cpu%u<->cpu%d ping-pong: %u and %u rounds in at most %u ms (expected equal, %d..%d)",
		      me, c, mine.rounds, peer->rounds, pp_budget_ms, PP_MIN_ROUNDS, PP_ROUNDS);
		if (mine.timed_out || peer->timed_out || !back)
			continue;
		/* peer->min_d ~ offset(c - me) + latency, mine.min_d ~ -offset + latency */
		int64_t offset = (peer->min_d - mine.min_d) / 2, lat = (peer->min_d + mine.min_d) / 2;
		diag("cpu%d minus cpu%u: TSC offset %lld cycles, one-way latency %lld cycles "
		     "(min deltas %lld and %lld)", c, me, (long long)offset, (long long)lat,
		     (long long)peer->min_d, (long long)mine.min_d);
		if (cpu.invariant_tsc)
			check(mine.backwards == 0 && peer->backwards == 0,
			      "invariant TSC: a read after seeing the other CPU's earlier value was smaller "
			      "%u + %u times (expected 0)", mine.backwards, peer->backwards);
		else
			diag("no invariant TSC, so not checked: reads smaller than the other CPU's earlier "
			     "value: %u + %u", mine.backwards, peer->backwards);
	}
	if (unmeasured)
		diag("%u pair(s) not measured: the ping-pong's %d ms for all pairs were used up",
		     unmeasured, PP_TOTAL_MS);
}
EXPERIMENT(512, "tsc", "", "TSC",
	   "TSC monotonic on every CPU; invariant TSC and the skew between CPUs reported", tsc);

/* ---- 513 ------------------------------------------------------------------ */

struct aux { uint64_t saved, t0, t1, t2; uint32_t value; bool saved_ok, wrote; };
static struct aux auxes[MAX_CPUS];

static void aux_write(void *arg)
{
	struct aux *a = &auxes[this_cpu()->index];
	a->saved_ok = rdmsr_safe(IA32_TSC_AUX, &a->saved);
	a->wrote = wrmsr_safe(IA32_TSC_AUX, this_cpu()->index);
}

static void aux_read(void *arg)
{
	struct aux *a = &auxes[this_cpu()->index];
	a->t0 = rdtsc_ordered();
	a->t1 = rdtscp(&a->value);
	a->t2 = rdtsc_ordered();
}

static void aux_restore(void *arg)
{
	struct aux *a = &auxes[this_cpu()->index];
	if (a->saved_ok)
		wrmsr_safe(IA32_TSC_AUX, a->saved);
}

static void rdtscp_aux(void)
{
	if (!(cpu.ext1_edx & CPUID_80000001_EDX_RDTSCP)) {
		exp_skip("CPUID.80000001H:EDX.RDTSCP[27]=0");
		return;
	}
	for (int c = 0; c < MAX_CPUS; c++)
		if (smp_cpu_online(c) && !smp_call(c, aux_write, 0, CALL_MS))
			exp_fail("cpu%d did not answer", c);
	for (int c = 0; c < MAX_CPUS; c++) {
		if (!smp_cpu_online(c))
			continue;
		struct aux *a = &auxes[c];
		check(a->wrote, "cpu%d: WRMSR IA32_TSC_AUX (0x%x) <- %d accepted", c, IA32_TSC_AUX, c);
		if (!smp_call(c, aux_read, 0, CALL_MS))
			continue;
		check(a->value == (uint32_t)c,
		      "cpu%d: RDTSCP ECX (IA32_TSC_AUX) after every CPU wrote its own number: %u (expected %d)",
		      c, a->value, c);
		check(a->t0 <= a->t1 && a->t1 <= a->t2,
		      "cpu%d: RDTSCP's TSC between two RDTSCs: %llu <= %llu <= %llu", c,
		      (unsigned long long)a->t0, (unsigned long long)a->t1, (unsigned long long)a->t2);
	}
	for (int c = 0; c < MAX_CPUS; c++)
		if (smp_cpu_online(c))
			smp_call(c, aux_restore, 0, CALL_MS);
}
EXPERIMENT(513, "rdtscp-aux", "", "RDTSCP",
	   "RDTSCP returns each CPU's own IA32_TSC_AUX", rdtscp_aux);
