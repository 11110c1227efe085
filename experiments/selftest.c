/* 9xx self-tests of the runner itself, registered only with selftest=1: each
 * must be reported `not ok` while the run goes on with the next experiment. */
#include "apic.h"
#include "dr.h"
#include "experiment.h"
#include "trap.h"
#include "x86.h"

static void deliberate_fail(void)
{
	check_eqd("1 + 1, deliberately compared with 3", 1 + 1, 3);
}
EXPERIMENT(901, "selftest-fail", "", "-", "a check that fails on purpose",
	   deliberate_fail, .flags = EXP_SELFTEST);

/* The #GP is raised inside an interrupt handler on the PMI vector, delivered as
 * a self-IPI (so its In-Service bit is set, as for a real PMI): the runner must
 * end it (EOI) when it abandons the handler, or 903's watchdog, in the same
 * priority class, would never fire (issue 15, item 2). */
static void fault_in_pmi(struct trap_frame *tf)
{
	/* non-canonical address: #GP on every x86-64 CPU */
	volatile uint64_t *p = (volatile uint64_t *)0x8000000000000000ULL;
	(void)*p;
}

static void deliberate_fault(void)
{
	diag("a GP inside the PMI-vector handler (self-IPI): the runner must catch it and EOI");
	trap_set_handler(VEC_PMI, fault_in_pmi);
	apic_icr_send(apic_id(), VEC_PMI);
	for (int i = 0; i < 1000; i++)
		cpu_relax();
	check(false, "execution continued: no GP from the PMI-vector handler");
}
EXPERIMENT(902, "selftest-fault", "", "-",
	   "an unexpected GP inside an interrupt handler on the PMI vector",
	   deliberate_fault, .flags = EXP_SELFTEST);

static void deliberate_hang(void)
{
	diag("spinning with interrupts enabled until the watchdog fires");
	for (;;)
		cpu_relax();
}
EXPERIMENT(903, "selftest-hang", "", "-", "a hang cut off by the watchdog",
	   deliberate_hang, .flags = EXP_SELFTEST);

static int leak_target;
static void deliberate_leak(void)
{
	write_dr0((uintptr_t)&leak_target);
	write_dr7(read_dr7() | DR7_L(0) | DR7_RW_WRITE << DR7_RW_SHIFT(0) | DR7_LEN_4 << DR7_LEN_SHIFT(0));
	diag("DR0/DR7 left armed on purpose: the runner must report the leak");
}
EXPERIMENT(904, "selftest-leak", "", "-", "debug registers left armed: a leak",
	   deliberate_leak, .flags = EXP_SELFTEST);

static void deliberate_hash(void)
{
	/* KTAP forbids '#' in a description (it starts a directive): the runner
	 * must turn this passing check into a failure that names the problem. */
	check(true, "a description with a %c in it", '#');
}
EXPERIMENT(905, "selftest-hash", "", "-", "a check description with a hash sign",
	   deliberate_hash, .flags = EXP_SELFTEST);

/* Lines, one after another, until the watchdog ends the experiment: the
 * watchdog's own lines must come between two of them, never inside one
 * (kernel/console.c: every write is whole).  tests/hostile.py checks it. */
static void deliberate_chatter(void)
{
	static char line[401];
	for (int i = 0; i < 400; i++)
		line[i] = (char)('a' + i % 26);
	for (uint64_t i = 0;; i++) {
		diag("chatter %llu %s", (unsigned long long)i, line);
		delay_us(5);
	}
}
EXPERIMENT(906, "selftest-chatter", "", "-", "lines written until the watchdog cuts in",
	   deliberate_chatter, .flags = EXP_SELFTEST);
