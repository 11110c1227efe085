/* 103 single-step, 112 btf: EFLAGS.TF, alone and with IA32_DEBUGCTL.BTF.
 *
 * SDM vol.3 18.3.1.4: with TF set the processor delivers a trap-class #DB (DR6.BS)
 * after each instruction, i.e. the saved RIP is the next instruction.  It does not
 * trap after the instruction that sets TF (POPF, IRET): stepping starts one
 * instruction later.  An instruction that begins with TF set traps even if it clears
 * TF (POPF clearing TF is the last trap).  INT n / INT3 / INTO clear TF on delivery,
 * so the handler is not stepped; the IRET at its end restores TF, and being the
 * instruction that sets TF it does not trap either.
 *
 * SDM vol.3 17.4.3: with DEBUGCTL.BTF=1 as well, TF means "single-step on
 * branches": the trap comes only after taken branches (JMP, taken Jcc, CALL,
 * RET...), and the processor clears BTF when it delivers #DB, so the handler has
 * to set it again before resuming. */
#include "cpu.h"
#include "cr.h"
#include "debug_common.h"
#include "experiment.h"
#include "fmt.h"
#include "msr.h"
#include "x86.h"

/* Each label below is an instruction boundary the #DB handler must report. */
__asm__(
	".pushsection .text\n"
	/* A: TF set and cleared by POPF. */
	".global dbg_ss_popf, dbg_ss_a1, dbg_ss_a2, dbg_ss_a3, dbg_ss_a4, dbg_ss_a5, dbg_ss_a6, dbg_ss_a7\n"
	"dbg_ss_popf:\n"
	"	pushfq\n"
	"	orq $0x100, (%rsp)\n"
	"	popfq\n"                        /* sets TF: no trap after it */
	"dbg_ss_a1: nop\n"
	"dbg_ss_a2: mov $1, %eax\n"
	"dbg_ss_a3: add $2, %eax\n"
	"dbg_ss_a4: pushfq\n"
	"dbg_ss_a5: andq $-0x101, (%rsp)\n"
	"dbg_ss_a6: popfq\n"                    /* clears TF: still traps */
	"dbg_ss_a7: ret\n"
	/* B: TF set by IRETQ (a frame to the next label with TF=1). */
	".global dbg_ss_iret, dbg_ss_b1, dbg_ss_b2, dbg_ss_b3, dbg_ss_b4, dbg_ss_b5\n"
	"dbg_ss_iret:\n"
	"	mov %rsp, %rdx\n"
	"	mov %ss, %eax\n"
	"	push %rax\n"
	"	push %rdx\n"
	"	pushfq\n"
	"	orq $0x100, (%rsp)\n"
	"	mov %cs, %eax\n"
	"	push %rax\n"
	"	lea dbg_ss_b1(%rip), %rax\n"
	"	push %rax\n"
	"	iretq\n"                        /* sets TF: no trap after it */
	"dbg_ss_b1: nop\n"
	"dbg_ss_b2: pushfq\n"
	"dbg_ss_b3: andq $-0x101, (%rsp)\n"
	"dbg_ss_b4: popfq\n"
	"dbg_ss_b5: ret\n"
	/* C: INT3 while stepping. */
	".global dbg_ss_int, dbg_ss_c1, dbg_ss_c2, dbg_ss_c3, dbg_ss_c4, dbg_ss_c5, dbg_ss_c6, dbg_ss_int_end\n"
	"dbg_ss_int:\n"
	"	pushfq\n"
	"	orq $0x100, (%rsp)\n"
	"	popfq\n"
	"dbg_ss_c1: int3\n"                     /* #BP; its handler runs with TF=0 */
	"dbg_ss_c2: nop\n"                      /* the IRET back set TF: no trap before this ran */
	"dbg_ss_c3: pushfq\n"
	"dbg_ss_c4: andq $-0x101, (%rsp)\n"
	"dbg_ss_c5: popfq\n"
	"dbg_ss_c6: ret\n"
	"dbg_ss_int_end:\n"
	/* D: TF with DEBUGCTL.BTF: only taken branches trap. */
	".global dbg_btf_seq, dbg_btf_t1, dbg_btf_t2, dbg_btf_sub, dbg_btf_back\n"
	"dbg_btf_seq:\n"
	"	pushfq\n"
	"	orq $0x100, (%rsp)\n"
	"	popfq\n"
	"	nop\n"
	"	jmp dbg_btf_t1\n"               /* taken: trap at t1 */
	"	ud2\n"
	"dbg_btf_t1:\n"
	"	xor %eax, %eax\n"
	"	jnz dbg_btf_never\n"            /* not taken: no trap */
	"	jz dbg_btf_t2\n"                /* taken: trap at t2 */
	"	ud2\n"
	"dbg_btf_t2:\n"
	"	call dbg_btf_sub\n"             /* trap at sub */
	"dbg_btf_back:\n"
	"	pushfq\n"
	"	andq $-0x101, (%rsp)\n"
	"	popfq\n"                        /* not a branch: no trap */
	"	ret\n"
	"dbg_btf_sub:\n"
	"	ret\n"                          /* trap at back */
	"dbg_btf_never:\n"
	"	ud2\n"
	".popsection\n");

extern void dbg_ss_popf(void), dbg_ss_iret(void), dbg_ss_int(void), dbg_btf_seq(void);
extern const char dbg_ss_a1[], dbg_ss_a2[], dbg_ss_a3[], dbg_ss_a4[], dbg_ss_a5[],
	dbg_ss_a6[], dbg_ss_a7[];
extern const char dbg_ss_b1[], dbg_ss_b2[], dbg_ss_b3[], dbg_ss_b4[], dbg_ss_b5[];
extern const char dbg_ss_c1[], dbg_ss_c2[], dbg_ss_c3[], dbg_ss_c4[],
	dbg_ss_c5[], dbg_ss_c6[], dbg_ss_int_end[];
extern const char dbg_btf_t1[], dbg_btf_t2[], dbg_btf_sub[], dbg_btf_back[];

/* Checks log[first..] against the expected #DB/BS boundaries. */
static void check_steps(const char *part, int first, const char *const *rips, int n)
{
	char what[64];

	for (int i = 0; i < n; i++) {
		tl_snprintf(what, sizeof what, "%s step %d", part, i + 1);
		dbg_check_event(what, first + i, 1, (uint64_t)rips[i], dr6_with(DR6_BS));
	}
}

static void exp_single_step(void)
{
	/* A: POPF sets TF; six instructions traced, the POPF that clears TF included. */
	static const char *const a[] = { dbg_ss_a2, dbg_ss_a3, dbg_ss_a4, dbg_ss_a5, dbg_ss_a6, dbg_ss_a7 };
	dbg_begin(0);
	dbg_ss_popf();
	dbg_check_count("POPF: DB count (none after the POPF that set TF)", 6);
	check_steps("POPF", 0, a, 6);
	if (dbg_log.n >= 1)
		check_eq("POPF: saved RFLAGS.TF=1 in the trap frame", dbg_log.ev[0].rflags & RFLAGS_TF, RFLAGS_TF);
	if (dbg_log.n >= 1)
		check_eq("POPF: TF clear while the DB handler runs", dbg_log.ev[0].rflags_live & RFLAGS_TF, 0);

	/* B: IRETQ sets TF; the first trap is after the target's first instruction. */
	static const char *const b[] = { dbg_ss_b2, dbg_ss_b3, dbg_ss_b4, dbg_ss_b5 };
	dbg_begin(0);
	dbg_ss_iret();
	dbg_check_count("IRET: DB count (none after the IRET that set TF)", 4);
	check_steps("IRET", 0, b, 4);

	/* C: INT3 while stepping.  Events inside the sequence must be exactly:
	 * #BP after int3 (frame TF=1, handler TF=0), then #DB after each of the four
	 * instructions that follow.  A #DB delivered at the #BP handler's first
	 * instruction (the trap for the INT3 itself) lies outside the sequence;
	 * it is reported as a diagnostic, not judged. */
	static const char *const c[] = { dbg_ss_c3, dbg_ss_c4, dbg_ss_c5, dbg_ss_c6 };
	dbg_begin(0);
	dbg_ss_int();
	int in_seq[DBG_MAX_EVENTS], k = 0;
	for (int i = 0; i < dbg_log.n && i < DBG_MAX_EVENTS; i++) {
		uint64_t rip = dbg_log.ev[i].rip;
		if (rip > (uint64_t)(uintptr_t)dbg_ss_int && rip <= (uint64_t)dbg_ss_int_end)
			in_seq[k++] = i;
		else
			diag("INT3: event outside the sequence: vector %lu rip %#lx dr6 %#lx",
			     (unsigned long)dbg_log.ev[i].vector, (unsigned long)rip,
			     (unsigned long)dbg_log.ev[i].dr6);
	}
	check_eqd("INT3: events inside the sequence", (uint64_t)k, 5);
	if (k >= 1) {
		const struct dbg_event *e = &dbg_log.ev[in_seq[0]];
		check_eqd("INT3: first event is BP", e->vector, 3);
		check_eq("INT3: BP saved RIP", e->rip, (uint64_t)dbg_ss_c2);
		check_eq("INT3: BP frame has TF=1", e->rflags & RFLAGS_TF, RFLAGS_TF);
		check_eq("INT3: BP handler runs with TF=0", e->rflags_live & RFLAGS_TF, 0);
	}
	for (int i = 1; i < k && i <= 4; i++) {
		char what[48];
		tl_snprintf(what, sizeof what, "INT3 step %d", i);
		const struct dbg_event *e = &dbg_log.ev[in_seq[i]];
		check(e->vector == 1 && e->rip == (uint64_t)c[i - 1] && e->dr6 == dr6_with(DR6_BS),
		      "%s: vector %lu rip %#lx dr6 %#lx (expected 1 %#lx %#lx)", what,
		      (unsigned long)e->vector, (unsigned long)e->rip, (unsigned long)e->dr6,
		      (unsigned long)(uint64_t)c[i - 1], (unsigned long)dr6_with(DR6_BS));
	}
	check_eq("TF clear after the sequences", read_rflags() & RFLAGS_TF, 0);
}
EXPERIMENT(103, "single-step", "", "none",
	   "EFLAGS.TF: exact DB count and RIPs across POPF, IRET and INT3, DR6.BS", exp_single_step);

/* The processor cleared BTF on delivery (SDM 17.4.3): set it again to keep going. */
static void btf_rearm(struct trap_frame *tf, struct dbg_event *e, int n)
{
	wrmsr_safe(IA32_DEBUGCTL, DEBUGCTL_BTF);
}

static void exp_btf(void)
{
	uint64_t v;

	if (!rdmsr_safe(IA32_DEBUGCTL, &v)) {
		exp_skip("RDMSR IA32_DEBUGCTL (1D9H) faults");
		return;
	}
	if (!wrmsr_safe(IA32_DEBUGCTL, DEBUGCTL_BTF)) {
		exp_skip("WRMSR IA32_DEBUGCTL.BTF[1]=1 faults");
		return;
	}
	rdmsr_safe(IA32_DEBUGCTL, &v);
	wrmsr_safe(IA32_DEBUGCTL, 0);
	if (!check_eq("IA32_DEBUGCTL.BTF[1] reads back after WRMSR", v & DEBUGCTL_BTF, DEBUGCTL_BTF))
		return;         /* without BTF, TF would step every instruction: nothing to see */

	static const char *const t[] = { dbg_btf_t1, dbg_btf_t2, dbg_btf_sub, dbg_btf_back };
	dbg_begin(btf_rearm);
	dbg_log.read_debugctl = true;
	wrmsr(IA32_DEBUGCTL, DEBUGCTL_BTF);
	dbg_btf_seq();
	wrmsr(IA32_DEBUGCTL, 0);

	dbg_check_count("DB count: taken JMP, Jcc, CALL, RET only", 4);
	check_steps("branch", 0, t, 4);
	if (dbg_log.n >= 1) {
		if (cpu.vendor == VENDOR_INTEL)
			check_eq("DEBUGCTL.BTF cleared on DB delivery (SDM 17.4.3)",
				 dbg_log.ev[0].debugctl & DEBUGCTL_BTF, 0);
		else
			diag("DEBUGCTL in the DB handler: %#lx", (unsigned long)dbg_log.ev[0].debugctl);
	}
}
EXPERIMENT(112, "btf", "", "IA32_DEBUGCTL.BTF",
	   "TF + DEBUGCTL.BTF: DB only after taken branches, exact count and targets", exp_btf);
