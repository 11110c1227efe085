/* Single-step (RFLAGS.TF) across the instructions that are special for it, at CPL 0
 * (119-128) and again at CPL 3 (150-154, 162): the same sequences (debug_seq.S),
 * the same expected #DB list, only the saved CS.RPL differs.
 *
 * The rule every list follows (SDM vol.3 18.3.1.4, APM vol.2 13.1.5): with TF=1 at
 * the start of an instruction, a trap-class #DB with DR6.BS follows it, saved RIP =
 * the next instruction; the instruction that sets TF (POPF, IRET) is not followed
 * by one; the handler runs with TF=0 and its IRET, setting TF again, is not either. */
#include "apic.h"
#include "apicdef.h"
#include "cr.h"
#include "debug_common.h"
#include "debug_seq.h"
#include "experiment.h"
#include "fmt.h"
#include "msr.h"
#include "seg.h"
#include "user.h"
#include "x86.h"

#define BS(l, cpl)      { 1, (l), dr6_with(DR6_BS), (cpl) }
#define TFOFF(p, cpl)   BS(p##_off1, cpl), BS(p##_off2, cpl), BS(p##_off3, cpl)

/* Runs fn at the CPL asked for; CPL 3 with IOPL 3 so that IN/OUT/CLI/STI work
 * there as at CPL 0 (SDM vol.1 3.4.3.3). */
static void at_cpl(unsigned cpl, void (*fn)(void *), void *arg)
{
	if (cpl == 0)
		fn(arg);
	else
		run_user_flags(fn, arg, RFLAGS_IF | RFLAGS_IOPL3);
}

/* ---- STI ---------------------------------------------------------------------
 * SDM vol.3 6.8.3 / the STI description: STI delays the recognition of maskable
 * interrupts by one instruction; it does not block debug exceptions, so the
 * single-step trap after STI comes as usual (DR6.BS, saved RIP after STI). */
static void call_sti(void *a) { dq_sti(); }

static void story_sti(unsigned cpl)
{
	const struct dbg_expect x[] = { BS(dq_sti_1, cpl), BS(dq_sti_2, cpl), TFOFF(dq_sti, cpl) };
	dbg_begin(0);
	at_cpl(cpl, call_sti, 0);
	dbg_check_seq("TF across STI", x, 5);
}

static void exp_step_sti(void) { story_sti(0); }
EXPERIMENT(119, "step-sti", "", "none",
	   "TF across STI: the STI shadow blocks interrupts, not the single-step trap after STI",
	   exp_step_sti);
static void exp_user_step_sti(void) { story_sti(3); }
EXPERIMENT(150, "user-step-sti", "", "none",
	   "TF across STI at CPL 3 (IOPL 3): the same single-step traps as at CPL 0",
	   exp_user_step_sti);

/* ---- STI;HLT -----------------------------------------------------------------
 * STI;HLT with TF: the trap after STI arrives at the HLT (saved RIP = HLT, not
 * blocked by the STI shadow); HLT then waits for the timer interrupt, and once
 * the processor resumes, HLT has completed: its single-step trap has saved RIP =
 * the instruction after HLT, and so has the timer interrupt (SDM vol.2 HLT: "the
 * saved instruction pointer points to the instruction following the HLT").  The
 * #DB list is exact; a timer interrupt with saved RIP after HLT must be among the
 * interrupts, whose number and place in the order are reported.
 * The timer is periodic (200 us): the #DB handler for the STI trap runs with IF=0
 * and its IRET may deliver a tick that fell due meanwhile before HLT executes, and
 * only a later tick can then end the HLT (a one-shot timer would leave the CPU
 * halted for ever). */
#define VEC_STEP_TIMER 0xe0

static void exp_step_hlt(void)
{
	uint64_t per_ms = apic_ticks_per_ms();
	const struct dbg_expect x[] = { BS(dq_hlt_at, 0), BS(dq_hlt_next, 0), BS(dq_hlt_2, 0),
					TFOFF(dq_hlt, 0) };

	dbg_begin(0);
	dbg_catch(VEC_STEP_TIMER, 0);
	cli();
	apic_write(APIC_TIMER_DCR, APIC_TIMER_DIV_16);
	apic_write(APIC_LVT_TIMER, LVT_TIMER_PERIODIC | VEC_STEP_TIMER);
	apic_write(APIC_TIMER_ICR, per_ms ? (uint32_t)(per_ms / 5 + 1) : 20000);
	dq_hlt();
	cli();
	apic_watchdog_arm(3000);        /* the timer was the watchdog's: give it back */
	sti();

	/* Split the log: #DBs in order, and the interrupts. */
	int nirq = 0, woke = -1, ndb = 0;
	struct dbg_event db[DBG_MAX_EVENTS];
	for (int i = 0; i < dbg_nrec(); i++) {
		if (dbg_log.ev[i].vector == VEC_STEP_TIMER) {
			nirq++;
			if (woke < 0 && dbg_log.ev[i].rip == (uint64_t)(uintptr_t)dq_hlt_next)
				woke = i;
		} else {
			db[ndb++] = dbg_log.ev[i];
		}
	}
	check(woke >= 0, "a timer interrupt with saved RIP after HLT: event %d (expected one, RIP %#lx)",
	      woke, (unsigned long)(uintptr_t)dq_hlt_next);
	diag("%d timer interrupts in %d events; the one after HLT was event %d", nirq, dbg_log.n, woke);
	/* the #DB list alone, exactly */
	for (int i = 0; i < ndb; i++)
		dbg_log.ev[i] = db[i];
	dbg_log.n = ndb;
	dbg_check_seq("TF across STI;HLT, the DBs", x, 6);
}
EXPERIMENT(120, "step-sti-hlt", "", "APIC timer",
	   "TF across STI;HLT woken by a timer: DB at HLT and after it, interrupt RIP after HLT",
	   exp_step_hlt);

/* ---- CPUID, RDTSC, IN, OUT ---------------------------------------------------
 * No exception to the rule for instructions an emulator or hypervisor implements
 * out of line: each is followed by its single-step trap. */
static void call_emul(void *a) { dq_emul(); }

static void story_emul(unsigned cpl)
{
	const struct dbg_expect x[] = { BS(dq_emul_1, cpl), BS(dq_emul_2, cpl), BS(dq_emul_3, cpl),
					BS(dq_emul_4, cpl), BS(dq_emul_5, cpl), BS(dq_emul_6, cpl),
					TFOFF(dq_emul, cpl) };
	dbg_begin(0);
	at_cpl(cpl, call_emul, 0);
	dbg_check_seq("TF over CPUID RDTSC IN OUT", x, 9);
}

static void exp_step_emul(void) { story_emul(0); }
EXPERIMENT(121, "step-cpuid-io", "", "none",
	   "TF over CPUID, RDTSC, IN and OUT: one DB.BS after each, RIP the next instruction",
	   exp_step_emul);
static void exp_user_step_emul(void) { story_emul(3); }
EXPERIMENT(151, "user-step-cpuid-io", "", "none",
	   "TF over CPUID, RDTSC, IN and OUT at CPL 3 (IOPL 3): one DB.BS after each",
	   exp_user_step_emul);

/* ---- far transfers -----------------------------------------------------------
 * JMP m16:32 and RETF to the same code segment: the trap follows the transfer, so
 * its saved RIP is the target and its saved CS the (same) new CS. */
static void call_far(void *a) { dq_far((uint64_t)(uintptr_t)a); }

static void story_far(unsigned cpl)
{
	const struct dbg_expect x[] = { BS(dq_far_0, cpl), BS(dq_far_1, cpl), BS(dq_far_2, cpl),
					BS(dq_far_3, cpl), BS(dq_far_4, cpl), BS(dq_far_5, cpl),
					TFOFF(dq_far, cpl) };
	uint64_t cs = cpl ? (SEL_UCODE64 | RPL3) : SEL_KCODE64;
	dbg_begin(0);
	at_cpl(cpl, call_far, (void *)(uintptr_t)cs);
	dbg_check_seq("TF over far JMP and RETF", x, 9);
}

static void exp_step_far(void) { story_far(0); }
EXPERIMENT(123, "step-far", "", "none",
	   "TF over a far JMP m16:32 and a RETF: the trap lands on the target, saved CS the new CS",
	   exp_step_far);
static void exp_user_step_far(void) { story_far(3); }
EXPERIMENT(152, "user-step-far", "", "none",
	   "TF over a far JMP and a RETF at CPL 3: the trap lands on the target",
	   exp_user_step_far);

/* ---- SYSCALL / SYSRET ----------------------------------------------------------
 * The experiment enables SYSCALL itself (EFER.SCE, STAR with tracelab's selectors,
 * LSTAR, FMASK = IF only, so TF survives the entry) and restores all four.  TF is
 * 1 at the start of SYSCALL and stays 1, so the trap follows it: saved RIP = LSTAR,
 * CPL 0 (SDM vol.2 SYSCALL; vol.3 18.3.1.4).  Likewise SYSRET: its trap has saved
 * RIP = the user's next instruction, CPL 3. */
static void call_sysc(void *a) { dq_sysc(); }

static void exp_step_syscall(void)
{
	uint64_t efer, star, lstar, fmask;
	const struct dbg_expect x[] = { BS(dq_sysc_1, 3), BS(dq_sysc_entry, 0), BS(dq_sysc_k1, 0),
					BS(dq_sysc_2, 3), BS(dq_sysc_3, 3), TFOFF(dq_sysc, 3) };

	if (!rdmsr_safe(IA32_EFER, &efer) || !rdmsr_safe(IA32_STAR, &star) ||
	    !rdmsr_safe(IA32_LSTAR, &lstar) || !rdmsr_safe(IA32_FMASK, &fmask)) {
		exp_skip("RDMSR of EFER/STAR/LSTAR/FMASK faults");
		return;
	}
	/* SYSCALL: CS = STAR[47:32], SS = +8; SYSRET to 64-bit: CS = STAR[63:48] + 16,
	 * SS = STAR[63:48] + 8 (SDM vol.2 SYSRET), hence KDATA|3 in the high half. */
	wrmsr(IA32_STAR, (uint64_t)(SEL_KDATA | RPL3) << 48 | (uint64_t)SEL_KCODE64 << 32);
	wrmsr(IA32_LSTAR, (uint64_t)(uintptr_t)dq_sysc_entry);
	wrmsr(IA32_FMASK, RFLAGS_IF);
	wrmsr(IA32_EFER, efer | EFER_SCE);
	dbg_begin(0);
	run_user(call_sysc, 0);
	wrmsr(IA32_EFER, efer);
	wrmsr(IA32_FMASK, fmask);
	wrmsr(IA32_LSTAR, lstar);
	wrmsr(IA32_STAR, star);
	dbg_check_seq("TF over SYSCALL and SYSRET", x, 8);
}
EXPERIMENT(124, "step-syscall", "", "SYSCALL in long mode",
	   "TF over SYSCALL and SYSRET from CPL 3: traps at LSTAR (CPL 0) and after SYSRET (CPL 3)",
	   exp_step_syscall);

/* ---- an instruction that faults --------------------------------------------------
 * A DIV by zero begun with TF=1: #DE, a fault, is delivered instead of completing
 * the instruction, so no single-step #DB follows it (SDM vol.3 18.3.1.4: the trap
 * comes after an instruction completes).  The EFLAGS image the #DE pushes has RF=1:
 * the processor sets RF in the image of every fault except an instruction-breakpoint
 * #DB, so that the restarted instruction does not break again (SDM vol.3 18.3.1.1,
 * on RF).  The handler resumes after the DIV with
 * TF still 1 in the frame: its IRET sets TF, the next trap follows the NOP. */
static void call_fault(void *a) { dq_fault(); }

static void story_fault(unsigned cpl)
{
	const struct dbg_expect x[] = { BS(dq_fault_1, cpl), { 0, dq_fault_1, DBG_ANY, (int)cpl },
					BS(dq_fault_3, cpl), TFOFF(dq_fault, cpl) };
	dbg_begin(0);
	dbg_catch(0, dq_fault_2);
	at_cpl(cpl, call_fault, 0);
	dbg_check_seq("TF onto a faulting DIV", x, 6);
	if (dbg_nrec() >= 2 && dbg_log.ev[1].vector == 0)
		check_eq("DE frame: saved RFLAGS.RF (set for a fault)", dbg_log.ev[1].rflags & RFLAGS_RF,
			 RFLAGS_RF);
}

static void exp_step_fault(void) { story_fault(0); }
EXPERIMENT(125, "step-fault", "", "none",
	   "TF onto a DIV that faults: DE, no DB for it, RF=1 in the DE frame, stepping goes on",
	   exp_step_fault);
static void exp_user_step_fault(void) { story_fault(3); }
EXPERIMENT(153, "user-step-fault", "", "none",
	   "TF onto a DIV that faults at CPL 3: DE, no DB for it, RF=1 in the DE frame",
	   exp_user_step_fault);

/* ---- REP MOVS --------------------------------------------------------------------
 * A REP string instruction is executed one iteration at a time, and each iteration
 * ends at an instruction boundary where RCX/RSI/RDI are up to date and RIP still
 * points at the REP instruction (SDM vol.2 REP: "a repeating string operation can
 * be suspended by an exception or interrupt"; vol.3 18.3.1.4 / APM vol.2 13.1.5:
 * single-step traps after each iteration).  3 iterations: traps at the REP with
 * RCX 2 and 1, then after it with RCX 0.
 * A data breakpoint hit by an iteration is a trap after that iteration (SDM vol.3
 * 18.3.1.2, "repeated string instructions"): a write watch on the second destination
 * byte gives one #DB at the REP with RCX 1 and RSI at the third source byte. */
static uint8_t rep_src[8] __attribute__((aligned(8))) = { 1, 2, 3, 4 };
static uint8_t rep_dst[8] __attribute__((aligned(8)));

static void call_rep(void *a) { dq_rep(rep_dst, rep_src); }
static void call_repd(void *a) { dq_repd(rep_dst, rep_src); }

static void story_rep(unsigned cpl)
{
	const struct dbg_expect x[] = { BS(dq_rep_1, cpl), BS(dq_rep_1, cpl), BS(dq_rep_1, cpl),
					BS(dq_rep_2, cpl), TFOFF(dq_rep, cpl) };
	static const uint64_t rcx[] = { 3, 2, 1, 0 };

	dbg_begin(0);
	at_cpl(cpl, call_rep, 0);
	dbg_check_seq("TF over REP MOVSB of 3", x, 7);
	/* RCX and RSI at the four traps: one check, the first difference printed */
	int bad = -1;
	for (int i = 0; i < 4 && bad < 0; i++)
		if (i >= dbg_nrec() || dbg_log.ev[i].rcx != rcx[i] ||
		    dbg_log.ev[i].rsi != (uint64_t)(uintptr_t)rep_src + 3 - rcx[i])
			bad = i;
	int b = bad < 0 ? 3 : bad;
	check(bad < 0, "REP traps 0-3: RCX 3 2 1 0, RSI advanced; trap %d: rcx %lu rsi %#lx (expected %lu %#lx)",
	      b, b < dbg_nrec() ? (unsigned long)dbg_log.ev[b].rcx : 0UL,
	      b < dbg_nrec() ? (unsigned long)dbg_log.ev[b].rsi : 0UL, (unsigned long)rcx[b],
	      (unsigned long)((uint64_t)(uintptr_t)rep_src + 3 - rcx[b]));

	const struct dbg_expect y[] = { { 1, dq_repd_1, dr6_with(DR6_B0), (int)cpl } };
	dbg_begin(0);
	write_dr0((uint64_t)(uintptr_t)(rep_dst + 1));
	write_dr7(dr7_bp(0, DR7_RW_WRITE, DR7_LEN_1));
	at_cpl(cpl, call_repd, 0);
	dbg_end();
	dbg_check_seq("data watch on the 2nd byte of a REP MOVSB", y, 1);
	if (dbg_nrec() >= 1)
		check(dbg_log.ev[0].rcx == 1 && dbg_log.ev[0].rsi == (uint64_t)(uintptr_t)rep_src + 2,
		      "data hit mid-REP: rcx %lu rsi %#lx (expected 1 %#lx)",
		      (unsigned long)dbg_log.ev[0].rcx, (unsigned long)dbg_log.ev[0].rsi,
		      (unsigned long)((uint64_t)(uintptr_t)rep_src + 2));
	check_eqd("REP completed: third byte copied", rep_dst[2], 3);
}

static void exp_step_rep(void) { story_rep(0); }
EXPERIMENT(126, "step-rep-movs", "", "none",
	   "TF and a data watch on a REP MOVSB: traps per iteration at the REP, RCX and RSI exact",
	   exp_step_rep);
static void exp_user_step_rep(void) { story_rep(3); }
EXPERIMENT(154, "user-step-rep-movs", "", "none",
	   "TF and a data watch on a REP MOVSB at CPL 3: traps per iteration, RCX and RSI exact",
	   exp_user_step_rep);

/* ---- POPF setting TF inside a MOV SS shadow ----------------------------------------
 * The POPF sets TF (no trap after it) and sits in the shadow (none after it either):
 * the first trap follows the instruction after the POPF (SDM vol.3 6.8.3, 18.3.1.4). */
static void call_pm(void *a) { dq_pm(); }

static void story_pm(unsigned cpl)
{
	const struct dbg_expect x[] = { BS(dq_pm_2, cpl), TFOFF(dq_pm, cpl) };
	dbg_begin(0);
	at_cpl(cpl, call_pm, 0);
	dbg_check_seq("TF set by POPF in a MOV SS shadow", x, 4);
}

static void exp_step_popf_movss(void) { story_pm(0); }
EXPERIMENT(128, "step-popf-movss", "", "none",
	   "TF set by a POPF inside a MOV SS shadow: the first trap after the next instruction",
	   exp_step_popf_movss);
static void exp_user_step_popf_movss(void) { story_pm(3); }
EXPERIMENT(162, "user-step-popf-movss", "", "none",
	   "TF set by a POPF inside a MOV SS shadow at CPL 3: the first trap after the next instruction",
	   exp_user_step_popf_movss);
