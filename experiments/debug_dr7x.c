/* 140-143, 146: DR7's enable bits, and the debug features that extend DR6/DR7 or
 * DEBUGCTL where CPUID enumerates them (RTM, bus-lock detection, split-lock #AC),
 * and the one R/W encoding the SDM leaves undefined (I/O with CR4.DE=0). */
#include "cpu.h"
#include "cpuid.h"
#include "cr.h"
#include "debug_common.h"
#include "debug_seq.h"
#include "experiment.h"
#include "msr.h"
#include "user.h"
#include "x86.h"

static uint8_t slots[128] __attribute__((aligned(64)));

/* ---- 140 DR7 enables ------------------------------------------------------------
 * SDM 18.2.4, APM 13.1.1.4: L0-L3, G0-G3, LE and GE are read/write; a breakpoint
 * with neither Ln nor Gn set raises no #DB even when its address matches (its Bn
 * "may" still be set: reported). */
static void exp_dr7_enables(void)
{
	uint64_t dr7 = DR7_INIT | 0xff | DR7_LE | DR7_GE;

	for (int n = 0; n < 4; n++) {
		write_dr(n, (uint64_t)(uintptr_t)(slots + 8 * n));
		dr7 |= DR7_RW_WRITE << DR7_RW_SHIFT(n) | DR7_LEN_1 << DR7_LEN_SHIFT(n);
	}
	dbg_begin(0);
	write_dr7(dr7);
	uint64_t got = read_dr7();
	write_dr7(DR7_INIT);
	check_eq("DR7 with L0-L3, G0-G3, LE, GE set reads back", got, dr7);

	write_dr7(dr7 & ~(uint64_t)0xff);       /* conditions programmed, none enabled */
	slots[0] = 1;
	slots[8] = 2;
	uint64_t dr6 = read_dr6();
	write_dr7(DR7_INIT);
	dbg_end();
	dbg_check_count("writes to the addresses of disabled breakpoints: DB count", 0);
	diag("DR6 after hitting disabled breakpoints 0 and 1: %#lx (B0-B3 may be set, SDM 18.2.3)",
	     (unsigned long)dr6);
}
EXPERIMENT(140, "dr7-enables", "", "none",
	   "DR7 L0-L3, G0-G3, LE, GE read back; a disabled breakpoint that matches raises no DB",
	   exp_dr7_enables);

/* ---- 141 RTM debugging ------------------------------------------------------------
 * SDM vol.1 16.3.7 (RTM-enabled debugger support): with DR7.RTM[11] and
 * IA32_DEBUGCTL.RTM[15] set, a debug exception inside a transaction aborts it and
 * is delivered as if it occurred at the fallback address, with DR6.RTM[16] cleared
 * (active low) and the usual Bn; without them the transaction just aborts and no
 * #DB is delivered. */
static void exp_rtm_debug(void)
{
	if (!(cpu.leaf7_ebx & CPUID_7_EBX_RTM)) {
		exp_skip("CPUID.(EAX=07H,ECX=0):EBX.RTM[11]=0");
		return;
	}
	uint64_t v = 0;
	if (!wrmsr_safe(IA32_DEBUGCTL, DEBUGCTL_RTM_DEBUG) || !rdmsr_safe(IA32_DEBUGCTL, &v) ||
	    !(v & DEBUGCTL_RTM_DEBUG)) {
		wrmsr_safe(IA32_DEBUGCTL, 0);
		check(false, "IA32_DEBUGCTL.RTM[15] takes a 1: DEBUGCTL %#lx", (unsigned long)v);
		return;
	}
	dbg_begin(0);
	write_dr0((uint64_t)(uintptr_t)slots);
	write_dr7(dr7_bp(0, DR7_RW_WRITE, DR7_LEN_1) | DR7_RTM);
	check_eq("DR7.RTM[11] reads back", read_dr7() & DR7_RTM, DR7_RTM);
	uint64_t aborted = dq_rtm(slots);
	write_dr7(DR7_INIT);
	wrmsr(IA32_DEBUGCTL, 0);
	check_eqd("transaction aborted by the breakpoint", aborted, 1);
	const struct dbg_expect x[] = { { 1, dq_rtm_fb, dr6_with(DR6_B0) & ~DR6_RTM, 0 } };
	dbg_check_seq("data breakpoint inside a transaction, RTM debugging on", x, 1);

	dbg_begin(0);
	write_dr7(dr7_bp(0, DR7_RW_WRITE, DR7_LEN_1));
	aborted = dq_rtm(slots);
	dbg_end();
	check_eqd("RTM debugging off: transaction aborted", aborted, 1);
	dbg_check_count("RTM debugging off: DB count", 0);
}
EXPERIMENT(141, "rtm-debug", "", "RTM",
	   "DR7.RTM and DEBUGCTL.RTM: a breakpoint in a transaction gives DB at the fallback, DR6.RTM=0",
	   exp_rtm_debug);

/* ---- 142 bus-lock detection ---------------------------------------------------------
 * SDM vol.3 18.3.1.6: with IA32_DEBUGCTL.BLD[2] set, an instruction at CPL > 0 that
 * takes a bus lock (here a LOCKed access split across two cache lines) is followed
 * by a trap-class #DB, saved RIP = the next instruction, DR6.BLD[11] cleared (active
 * low).  Enumerated by CPUID.(EAX=07H,ECX=0):ECX.BUS_LOCK_DETECT[24]. */
static void call_lock(void *p) { dq_lock(p); }

static void exp_bus_lock(void)
{
	if (!(cpu.leaf7_ecx & CPUID_7_ECX_BUS_LOCK_DETECT)) {
		exp_skip("CPUID.(EAX=07H,ECX=0):ECX.BUS_LOCK_DETECT[24]=0");
		return;
	}
	uint64_t v = 0;
	if (!wrmsr_safe(IA32_DEBUGCTL, DEBUGCTL_BUS_LOCK_DETECT) || !rdmsr_safe(IA32_DEBUGCTL, &v) ||
	    !(v & DEBUGCTL_BUS_LOCK_DETECT)) {
		wrmsr_safe(IA32_DEBUGCTL, 0);
		check(false, "IA32_DEBUGCTL.BLD[2] takes a 1: DEBUGCTL %#lx", (unsigned long)v);
		return;
	}
	volatile uint32_t *split = (volatile uint32_t *)(slots + 62);
	dbg_begin(0);
	run_user(call_lock, (void *)split);
	wrmsr(IA32_DEBUGCTL, 0);
	const struct dbg_expect x[] = { { 1, dq_lock_1, DR6_INIT & ~DR6_BLD, 3 } };
	dbg_check_seq("split-locked increment at CPL 3 with DEBUGCTL.BLD", x, 1);
}
EXPERIMENT(142, "bus-lock-db", "", "bus-lock detection",
	   "DEBUGCTL.BLD: a split-locked access at CPL 3 traps with DB after it, DR6.BLD cleared",
	   exp_bus_lock);

/* ---- 143 split-lock #AC ----------------------------------------------------------------
 * SDM vol.3 (split-lock detection; vol.4 MSR_TEST_CTRL 33H): where
 * IA32_CORE_CAPABILITIES[5] enumerates it, TEST_CTRL[29] makes a LOCKed access that
 * splits a cache line raise #AC(0), a fault: saved RIP = the instruction, memory
 * not written, at any CPL. */
static void exp_split_lock_ac(void)
{
	uint64_t caps = 0, old = 0, v = 0;

	if (!(cpu.leaf7_edx & CPUID_7_EDX_CORE_CAPABILITIES)) {
		exp_skip("CPUID.(EAX=07H,ECX=0):EDX.CORE_CAPABILITIES[30]=0");
		return;
	}
	if (!rdmsr_safe(IA32_CORE_CAPABILITIES, &caps) || !(caps & CORE_CAP_SPLIT_LOCK_DETECT)) {
		exp_skip("IA32_CORE_CAPABILITIES (0xcf) SPLIT_LOCK_DETECT[5]=0");
		return;
	}
	if (!rdmsr_safe(MSR_TEST_CTRL, &old) || !wrmsr_safe(MSR_TEST_CTRL, old | TEST_CTRL_SPLIT_LOCK_DETECT) ||
	    !rdmsr_safe(MSR_TEST_CTRL, &v) || !(v & TEST_CTRL_SPLIT_LOCK_DETECT)) {
		wrmsr_safe(MSR_TEST_CTRL, old);
		check(false, "MSR_TEST_CTRL.SPLIT_LOCK_DETECT[29] takes a 1: %#lx", (unsigned long)v);
		return;
	}
	volatile uint32_t *split = (volatile uint32_t *)(slots + 62);
	*split = 7;
	dbg_begin(0);
	dbg_catch(17, dq_lock_1);
	dq_lock(split);
	wrmsr(MSR_TEST_CTRL, old);
	dbg_check_fault("split-locked increment with TEST_CTRL.SPLIT_LOCK_DETECT", 0, 17,
			(uint64_t)(uintptr_t)dq_lock_0, 0);
	check_eqd("memory not written", *split, 7);
}
EXPERIMENT(143, "split-lock-ac", "", "split-lock detection",
	   "TEST_CTRL split-lock detect: a split-locked access faults with AC(0) before it writes",
	   exp_split_lock_ac);

/* ---- 146 I/O breakpoint with CR4.DE=0 -------------------------------------------------------
 * SDM 18.2.4: R/W=10 with CR4.DE=0 is undefined.  What the CPU does is recorded as a
 * diagnostic and not judged: the number of #DB for an OUT to the watched port, and
 * DR6 if one came. */
static void exp_io_bp_de0(void)
{
	uint64_t cr4 = read_cr4();

	write_cr4(cr4 & ~(uint64_t)CR4_DE);
	dbg_begin(0);
	write_dr0(0x80);
	write_dr7(dr7_bp(0, DR7_RW_IO, DR7_LEN_1));
	outb(0x80, 0);
	write_dr7(DR7_INIT);
	dbg_end();
	write_cr4(cr4);
	diag("CR4.DE=0, R/W=10 on port 0x80, OUT 0x80: %d DB (undefined, SDM 18.2.4)", dbg_log.n);
	if (dbg_nrec() >= 1)
		diag("that DB: rip %#lx dr6 %#lx", (unsigned long)dbg_log.ev[0].rip,
		     (unsigned long)dbg_log.ev[0].dr6);
}
EXPERIMENT(146, "io-bp-de0", "", "none",
	   "R/W=10 with CR4.DE=0 (undefined): what an OUT to the port does is reported, not judged",
	   exp_io_bp_de0);
