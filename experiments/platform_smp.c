/* 510-511 platform: the application processors.
 *
 * 510 smp-bringup: every processor the ACPI MADT lists as enabled is online
 * (kernel/smp.c started it with INIT-SIPI-SIPI, SDM vol.3 9.4.4), its APIC ID
 * (read by itself) is the MADT's and unique, it answers a call now, and its
 * journey through the shared trampoline looks like the boot CPU's: real mode at
 * CS = SIPI vector << 8 (SDM vol.3 9.4.4.2 / 11.6.1: the STARTUP IPI's vector VV
 * starts the AP at 000VV000H), INT3 through the IVT and through the 32-bit IDT
 * taken once with the IP of the next instruction pushed (trap class, SDM vol.3
 * 6.5), and long mode with EFER.LMA set by the processor (SDM vol.3 10.8.5).
 *
 * 511 dr-isolation: DR0-DR7 and EFLAGS.TF are per logical processor (SDM vol.3
 * 18.2: "each logical processor has its own set of debug registers").  A write
 * watchpoint armed on one CPU must not fire when another CPU writes the watched
 * dword, must leave the other CPU's DR7 alone, and must fire on the arming CPU;
 * a single-step on one CPU must not step a CPU running alongside it. */
#include "apic.h"
#include "cr.h"
#include "dr.h"
#include "experiment.h"
#include "msr.h"
#include "percpu.h"
#include "smp.h"
#include "trap.h"
#include "x86.h"

#define CALL_MS 2000

/* ---- 510 ------------------------------------------------------------------ */

static void read_apic_id(void *arg)
{
	*(uint32_t *)arg = apic_id();
}

static void check_journey(uint32_t c, const struct journey_rec *j)
{
	const struct journey_rec *r = &j[JSTEP_REAL], *p = &j[JSTEP_PROT], *l = &j[JSTEP_LONG];
	check(r->cs == TRAMP_SEG && !(r->cr0 & CR0_PE),
	      "cpu%u real mode: CS=0x%04x CR0.PE=%u (expected CS=0x%04x PE=0)", c, r->cs,
	      r->cr0 & CR0_PE, TRAMP_SEG);
	check(r->bp_hits == 1 && r->bp_ip == r->bp_expect,
	      "cpu%u real mode INT3 via the IVT: hits=%u ip=0x%x (expected 1 at 0x%x)", c,
	      r->bp_hits, r->bp_ip, r->bp_expect);
	check(p->cs == SEL_CODE32 && (p->cr0 & (CR0_PE | CR0_PG)) == CR0_PE,
	      "cpu%u protected mode: CS=0x%x CR0.PE|PG=0x%x (expected CS=0x%x, PE only)", c, p->cs,
	      p->cr0 & (CR0_PE | CR0_PG), SEL_CODE32);
	check(p->bp_hits == 1 && p->bp_ip == p->bp_expect,
	      "cpu%u protected mode INT3 via the IDT32: hits=%u eip=0x%x (expected 1 at 0x%x)", c,
	      p->bp_hits, p->bp_ip, p->bp_expect);
	check(l->cs == SEL_KCODE64 && (l->efer & (EFER_LME | EFER_LMA)) == (EFER_LME | EFER_LMA) &&
	      (l->cr0 & CR0_PG) && (l->cr4 & CR4_PAE),
	      "cpu%u long mode: CS=0x%x EFER=0x%x CR0.PG=%u CR4.PAE=%u (expected CS=0x%x, LME|LMA, PG, PAE)",
	      c, l->cs, l->efer, !!(l->cr0 & CR0_PG), !!(l->cr4 & CR4_PAE), SEL_KCODE64);
}

static void smp_bringup(void)
{
	if (!apic_present()) {          /* no IPI to start anything with, no ID to compare */
		exp_skip("%s", apic_absent_reason());
		return;
	}
	const struct madt_info *m = smp_madt();
	uint32_t failed[8];
	int nfailed = smp_failed(failed, 8);
	diag("%u CPU(s) online; running on cpu%u", ncpus_online, this_cpu()->index);
	for (int i = 0; i < nfailed && i < 8; i++)
		diag("APIC ID %u listed enabled in the MADT but never answered", failed[i]);

	uint64_t total_us = 0;
	for (int c = 0; c < MAX_CPUS; c++) {
		if (!smp_cpu_online(c))
			continue;
		const struct percpu *p = &cpus[c];
		const struct smp_boot *b = smp_boot_info(c);
		uint32_t live = 0xffffffff;
		bool answered = smp_call(c, read_apic_id, &live, CALL_MS);
		check(answered && live == p->apic_id,
		      "cpu%d answers a call: APIC ID read on it now 0x%x (expected 0x%x)", c, live, p->apic_id);
		bool unique = true;
		for (int d = 0; d < c; d++)
			if (smp_cpu_online(d) && cpus[d].apic_id == p->apic_id)
				unique = false;
		check(unique, "cpu%d APIC ID 0x%x unique among the online CPUs", c, p->apic_id);
		if (m) {
			bool listed = false;
			for (int i = 0; i < m->ncpu; i++)
				if (m->cpu[i].apic_id == p->apic_id && (m->cpu[i].flags & MADT_F_ENABLED))
					listed = true;
			check(listed && p->apic_id == b->madt_id,
			      "cpu%d APIC ID 0x%x is the MADT's (started as 0x%x, listed enabled: %d)", c,
			      p->apic_id, b->madt_id, listed);
		}
		if (c == 0)
			continue;       /* the boot CPU's journey is 501's */
		check_journey((uint32_t)c, p->journey);
		diag("cpu%d: INIT to C entry %llu us, APIC error status 0x%x", c,
		     (unsigned long long)b->up_us, b->esr);
		total_us += b->up_us;
	}
	if (ncpus_online > 1)
		diag("bring-up of %u AP(s): %llu us in all, %llu us each on average (10.4 ms of it the "
		     "SDM's INIT-SIPI-SIPI waits)", ncpus_online - 1, (unsigned long long)total_us,
		     (unsigned long long)(total_us / (ncpus_online - 1)));
	if (tramp_skipped) {
		exp_skip("no trampoline: 0x%x-0x%x is not usable RAM in the memory map", TRAMP_BASE,
			 TRAMP_BASE + TRAMP_SIZE - 1);
		return;
	}
	if (!m) {
		exp_skip("no ACPI MADT: only the boot CPU was started");
		return;
	}
	int want = m->nenabled < MAX_CPUS ? m->nenabled : MAX_CPUS;
	check_eqd("CPUs online (MADT enabled entries, at most MAX_CPUS)", ncpus_online, (uint64_t)want);
	check_eqd("enabled CPUs that never answered INIT-SIPI-SIPI", (uint64_t)nfailed, 0);
}
EXPERIMENT(510, "smp-bringup", "", "ACPI MADT, local APIC",
	   "every MADT processor up through real/protected/long mode, APIC IDs unique and as listed",
	   smp_bringup);

/* ---- 511 ------------------------------------------------------------------ */

static volatile uint32_t watched __attribute__((aligned(8)));
static volatile uint32_t db_hits[MAX_CPUS];
static volatile uint64_t db_dr6[MAX_CPUS], db_first_rip[MAX_CPUS], db_last_rip[MAX_CPUS];
extern char iso_step_begin[], iso_step_end[];

static void iso_db(struct trap_frame *tf)
{
	uint32_t c = this_cpu()->index;
	if (!db_hits[c])
		db_first_rip[c] = tf->rip;
	db_hits[c]++;
	db_last_rip[c] = tf->rip;
	db_dr6[c] |= read_dr6();
	write_dr6(DR6_INIT);    /* DR6 is sticky: the processor never clears it (SDM 18.2.3) */
	if (tf->rip == (uintptr_t)iso_step_end)
		tf->rflags &= ~(uint64_t)RFLAGS_TF;
}

struct dr_state { uint64_t dr0, dr6, dr7; };

static const uint64_t watch_dr7 = DR7_FIXED1 | DR7_L(0) | DR7_RW_WRITE << DR7_RW_SHIFT(0) |
				  DR7_LEN_4 << DR7_LEN_SHIFT(0);

static void dr_read(void *arg)
{
	struct dr_state *s = arg;
	s->dr0 = read_dr0();
	s->dr6 = read_dr6();
	s->dr7 = read_dr7();
}

static void dr_arm(void *arg)
{
	dr_read(arg);
	write_dr0((uintptr_t)&watched);
	write_dr6(DR6_INIT);
	write_dr7(watch_dr7);
}

/* DR7 first, so no breakpoint is live while DR0 changes. */
static void dr_restore(void *arg)
{
	const struct dr_state *s = arg;
	write_dr7(DR7_INIT);
	write_dr0(s->dr0);
	write_dr6(s->dr6);
	write_dr7(s->dr7);
}

static void poke(void *arg)
{
	watched = watched + 1;
}

struct spinner {
	volatile uint32_t started, stop;
	volatile uint64_t iterations, rflags, dr6;
};

/* Runs on the other CPU while this one single-steps. */
static void spin(void *arg)
{
	struct spinner *s = arg;
	uint64_t dr6 = read_dr6();
	write_dr6(DR6_INIT);
	s->started = 1;
	/* ended by s->stop; this bound only keeps a lost caller from pinning the CPU,
	 * and is longer than all the caller's waits together (each CALL_MS) */
	uint64_t t_end = rdtsc() + 3 * CALL_MS * smp_tsc_per_ms();
	while (!s->stop && (int64_t)(rdtsc() - t_end) < 0)
		s->iterations = s->iterations + 1;
	s->rflags = read_rflags();
	s->dr6 = read_dr6();
	write_dr6(dr6);
}

static void dr_isolation(void)
{
	uint32_t me = this_cpu()->index;
	int other = -1;
	for (int c = 0; c < MAX_CPUS && other < 0; c++)
		if (c != (int)me && smp_cpu_online(c))
			other = c;
	if (other < 0) {
		exp_skip("only 1 CPU online");
		return;
	}
	diag("cpu%u arms and steps; cpu%d is the other CPU", me, other);
	for (int c = 0; c < MAX_CPUS; c++)
		db_hits[c] = 0, db_dr6[c] = 0;
	trap_set_handler(1, iso_db);

	/* A: watchpoint armed here, the other CPU writes, then we do. */
	struct dr_state o_before, o_after, o_saved;
	if (!smp_call(other, dr_read, &o_before, CALL_MS)) {
		exp_fail("cpu%d did not answer", other);
		return;
	}
	uint64_t my_dr0 = read_dr0();
	write_dr0((uintptr_t)&watched);
	write_dr6(DR6_INIT);
	write_dr7(watch_dr7);
	/* "no #DB there" means something only if the other CPU did write the dword */
	uint32_t w0 = watched;
	bool poked = smp_call(other, poke, 0, CALL_MS);
	check(poked && watched == w0 + 1, "A: other CPU answered and wrote the watched dword: "
	      "answered=%d value %u (expected 1, %u)", poked, watched, w0 + 1);
	check_eqd("A: other CPU writes the dword watched by our DR0/DR7: DB there", db_hits[other], 0);
	check_eqd("A: ... and DB here", db_hits[me], 0);
	o_after = (struct dr_state){ ~0ULL, ~0ULL, ~0ULL };
	bool read_back = smp_call(other, dr_read, &o_after, CALL_MS);
	check(read_back && o_after.dr7 == o_before.dr7 && o_after.dr0 == o_before.dr0,
	      "A: other CPU's DR7=0x%llx DR0=0x%llx unchanged by our arming (expected 0x%llx 0x%llx)",
	      (unsigned long long)o_after.dr7, (unsigned long long)o_after.dr0,
	      (unsigned long long)o_before.dr7, (unsigned long long)o_before.dr0);
	poke(0);
	check_eqd("A: our own write: DB here", db_hits[me], 1);
	check_eq("A: DR6.B0 of that DB", db_dr6[me] & DR6_B0, DR6_B0);
	write_dr7(DR7_INIT);
	write_dr0(my_dr0);

	/* B: the other way round. */
	db_hits[me] = 0, db_dr6[me] = 0;
	/* "no #DB here" below means something only with the other CPU armed */
	bool armed = smp_call(other, dr_arm, &o_saved, CALL_MS);
	check(armed, "B: cpu%d answered the call that arms its DR0/DR7: %d (expected 1)", other, armed);
	poke(0);
	check_eqd("B: our write to the dword the other CPU watches: DB here", db_hits[me], 0);
	check_eq("B: our DR7 untouched by the other CPU's arming", read_dr7(), DR7_INIT);
	smp_call(other, poke, 0, CALL_MS);
	check_eqd("B: the other CPU's own write: DB there", db_hits[other], 1);
	check_eq("B: DR6.B0 there", db_dr6[other] & DR6_B0, DR6_B0);
	smp_call(other, dr_restore, &o_saved, CALL_MS);

	/* C: four single-steps here (POPF sets TF: the first trap follows the
	 * instruction after it, SDM 18.3.1.4) while the other CPU spins. */
	static struct spinner sp;
	sp = (struct spinner){ 0 };
	db_hits[me] = 0, db_dr6[me] = 0, db_hits[other] = 0;
	if (!smp_post(other, spin, &sp)) {
		exp_fail("could not post work to cpu%d", other);
		return;
	}
	uint64_t t_end = rdtsc() + CALL_MS * smp_tsc_per_ms();
	while (sp.iterations < 100 && (int64_t)(rdtsc() - t_end) < 0)
		cpu_relax();
	uint64_t spun_before = sp.iterations;
	__asm__ volatile(
		"pushfq\n\t"
		"orq $0x100, (%%rsp)\n\t"
		"popfq\n"
		".globl iso_step_begin\n"
		"iso_step_begin:\n\t"
		"nop\n\tnop\n\tnop\n\tnop\n"
		".globl iso_step_end\n"
		"iso_step_end:\n" ::: "memory", "cc");
	/* let it go on a while after our steps: it must still be looping, untrapped */
	uint64_t spun_after = sp.iterations;
	t_end = rdtsc() + CALL_MS * smp_tsc_per_ms();
	while (sp.iterations < spun_after + 100 && (int64_t)(rdtsc() - t_end) < 0)
		cpu_relax();
	sp.stop = 1;
	bool back = smp_wait(other, CALL_MS);
	check(back && spun_before >= 100 && sp.iterations >= spun_after + 100,
	      "C: other CPU looping across our steps: %llu iterations before, %llu in all "
	      "(expected >= 100 before, >= 100 after), returned %d",
	      (unsigned long long)spun_before, (unsigned long long)sp.iterations, back);
	check_eqd("C: single-step traps here over 4 NOPs", db_hits[me], 4);
	check(db_first_rip[me] == (uintptr_t)iso_step_begin + 1 &&
	      db_last_rip[me] == (uintptr_t)iso_step_end,
	      "C: trap RIPs 0x%llx..0x%llx (expected 0x%llx..0x%llx)",
	      (unsigned long long)db_first_rip[me], (unsigned long long)db_last_rip[me],
	      (unsigned long long)(uintptr_t)iso_step_begin + 1,
	      (unsigned long long)(uintptr_t)iso_step_end);
	check_eq("C: DR6.BS here", db_dr6[me] & DR6_BS, DR6_BS);
	check_eqd("C: DB on the other CPU while we stepped", db_hits[other], 0);
	check(!(sp.rflags & RFLAGS_TF) && !(sp.dr6 & DR6_BS),
	      "C: other CPU's RFLAGS.TF=%u DR6.BS=%u after its loop (expected 0 0)",
	      !!(sp.rflags & RFLAGS_TF), !!(sp.dr6 & DR6_BS));
}
EXPERIMENT(511, "dr-isolation", "", "2 CPUs",
	   "DR0/DR7 watchpoints and TF single-step on one CPU do not reach another", dr_isolation);
