/* 110 movss-shadow: what a MOV to SS does to debug exceptions.
 *
 * SDM vol.3 6.8.3 and 18.3.1: a MOV or POP that loads SS blocks interrupts and
 * debug exceptions until the instruction after it has completed, so that a stack
 * switch (SS then RSP) cannot be split.
 *  - single-step (18.3.1.4): with TF=1 there is no #DB after the MOV SS; the next
 *    #DB comes after the following instruction (saved RIP after it, DR6.BS).
 *  - data breakpoint (18.3.1.2): a data breakpoint hit by the MOV SS itself (here,
 *    the read of its memory operand) is delivered after the next instruction.
 *  - instruction breakpoint: here the vendors differ.  Intel (SDM 6.8.3, 18.3.1.1):
 *    a breakpoint on the instruction right after the MOV SS is suppressed as if
 *    RFLAGS.RF were 1: no #DB at all.  AMD's APM vol.2 (13.1) describes no such
 *    suppression and AMD CPUs take the breakpoint: the fault-class #DB comes before
 *    the instruction, saved RIP = it, DR6.B1.  The expected value
 *    follows the vendor CPUID reports, never the platform.
 * POP SS is #UD in 64-bit mode (SDM POP), so tracelab, running in 64-bit mode, can
 * only exercise MOV SS. */
#include "cpu.h"
#include "cr.h"
#include "debug_common.h"
#include "experiment.h"
#include "fmt.h"
#include "x86.h"

__asm__(
	".pushsection .text\n"
	".global dbg_sh_tf, dbg_sh_a2, dbg_sh_a4, dbg_sh_a5, dbg_sh_a6, dbg_sh_a7\n"
	"dbg_sh_tf:\n"
	"	mov %ss, %eax\n"
	"	pushfq\n"
	"	orq $0x100, (%rsp)\n"
	"	popfq\n"
	"dbg_sh_a1: nop\n"
	"dbg_sh_a2: mov %eax, %ss\n"            /* no trap after this one */
	"dbg_sh_a3: nop\n"
	"dbg_sh_a4: pushfq\n"
	"dbg_sh_a5: andq $-0x101, (%rsp)\n"
	"dbg_sh_a6: popfq\n"
	"dbg_sh_a7: ret\n"
	/* rdi = address of a word holding the current SS selector */
	".global dbg_sh_data, dbg_sh_b2, dbg_sh_b3\n"
	"dbg_sh_data:\n"
	"	mov (%rdi), %ss\n"              /* hits the read watch: #DB deferred */
	"dbg_sh_b2: nop\n"
	"dbg_sh_b3: ret\n"
	".global dbg_sh_exec, dbg_sh_c2\n"
	"dbg_sh_exec:\n"
	"	xor %edx, %edx\n"
	"	mov %ss, %eax\n"
	"	mov %eax, %ss\n"
	"dbg_sh_c2: inc %edx\n"                 /* instruction breakpoint here: suppressed */
	"	mov %edx, %eax\n"
	"	ret\n"
	".popsection\n");

extern void dbg_sh_tf(void), dbg_sh_data(volatile uint16_t *sel);
extern uint64_t dbg_sh_exec(void);
extern const char dbg_sh_a2[], dbg_sh_a4[], dbg_sh_a5[], dbg_sh_a6[], dbg_sh_a7[];
extern const char dbg_sh_b2[], dbg_sh_b3[], dbg_sh_c2[];

static volatile uint16_t ss_word __attribute__((aligned(8)));

static void exp_movss(void)
{
	char what[64];

	/* Single-step across MOV SS: 5 traps, none after the MOV SS. */
	static const char *const a[] = { dbg_sh_a2, dbg_sh_a4, dbg_sh_a5, dbg_sh_a6, dbg_sh_a7 };
	dbg_begin(0);
	dbg_sh_tf();
	dbg_check_count("TF: DB count (none after MOV SS)", 5);
	for (int i = 0; i < 5; i++) {
		tl_snprintf(what, sizeof what, "TF step %d", i + 1);
		dbg_check_event(what, i, 1, (uint64_t)a[i], dr6_with(DR6_BS));
	}

	/* Data breakpoint on MOV SS's memory operand: delivered after the next one. */
	uint16_t ss;
	__asm__ volatile("mov %%ss, %0" : "=r"(ss));
	ss_word = ss;
	dbg_begin(0);
	write_dr0((uint64_t)&ss_word);
	write_dr7(dr7_bp(0, DR7_RW_RDWR, DR7_LEN_2));
	dbg_sh_data(&ss_word);
	write_dr7(DR7_INIT);
	dbg_check_count("data: DB count", 1);
	dbg_check_event("data: DB deferred past the next instruction", 0, 1, (uint64_t)dbg_sh_b3,
			dr6_with(DR6_B0));
	if (dbg_log.n >= 1 && dbg_log.ev[0].rip == (uint64_t)dbg_sh_b2)
		diag("data: delivered right after MOV SS (no shadow)");

	/* Instruction breakpoint right after MOV SS: Intel suppresses it, AMD takes it
	 * (a fault before the instruction; the recorder resumes it with RF=1). */
	bool amd = cpu.vendor == VENDOR_AMD;
	dbg_begin(0);
	write_dr1((uint64_t)dbg_sh_c2);
	write_dr7(dr7_bp(1, DR7_RW_EXEC, DR7_LEN_1));
	uint64_t ran = dbg_sh_exec();
	write_dr7(DR7_INIT);
	if (amd) {
		dbg_check_count("exec: DB count for a breakpoint after MOV SS (AMD: taken)", 1);
		dbg_check_event("exec: AMD fault before the instruction", 0, 1, (uint64_t)dbg_sh_c2,
				dr6_with(DR6_B1));
	} else {
		dbg_check_count("exec: DB count for a breakpoint after MOV SS (Intel: suppressed)", 0);
	}
	check_eqd("exec: the instruction ran once", ran, 1);
	dbg_end();
}
EXPERIMENT(110, "movss-shadow", "", "none",
	   "MOV SS: single-step and data DB deferred past the next instruction, exec bp Intel suppressed, AMD taken",
	   exp_movss);
