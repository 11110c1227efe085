/* 9xx self-tests of the runner itself, registered only with selftest=1: each
 * must be reported `not ok` while the run goes on with the next experiment. */
#include "dr.h"
#include "experiment.h"
#include "x86.h"

static void deliberate_fail(void)
{
	check_eqd("1 + 1, deliberately compared with 3", 1 + 1, 3);
}
EXPERIMENT(901, "selftest-fail", "", "-", "a check that fails on purpose",
	   deliberate_fail, .flags = EXP_SELFTEST);

static void deliberate_fault(void)
{
	/* non-canonical address: #GP on every x86-64 CPU */
	volatile uint64_t *p = (volatile uint64_t *)0x8000000000000000ULL;
	diag("reading a non-canonical address: GP expected, the runner must catch it");
	(void)*p;
	check(false, "execution continued past the faulting read");
}
EXPERIMENT(902, "selftest-fault", "", "-", "an unexpected GP inside an experiment",
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
