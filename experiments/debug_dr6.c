/* 111 dr6-discipline: what DR6 and DR7 hold, and who clears DR6.
 *
 * SDM vol.3 18.2.3: DR6 bits 4-10 and 17-31 are reserved and read as 1, bit 12
 * reads as 0; bit 11 (BLD) and bit 16 (RTM) are active-low and read as 1 on a
 * processor without bus-lock detection / RTM (CPUID.(7,0):ECX[24] / EBX[11]).  The
 * processor sets DR6 bits on a #DB but never clears BD, BS or BT: "debug handlers
 * should clear the register before returning", or the next #DB appears to have the
 * old cause too.  18.2.4: DR7 bit 10 reads as 1.  MOV DR (SDM vol.2): writing a 1 to
 * bits 63:32 of DR6 or DR7 raises #GP(0).
 *
 * The scenario: TF steps a few instructions (BS), then, TF off, an instruction
 * breakpoint fires (B0).  A handler that leaves DR6 alone sees BS still set at the
 * breakpoint; one that clears DR6 after reading sees B0 alone. */
#include "cpu.h"
#include "cr.h"
#include "debug_common.h"
#include "experiment.h"
#include "x86.h"

/* Sequences from debug_step.c (TF over six instructions) and debug_exec.c. */
extern void dbg_ss_popf(void);
extern uint64_t dbg_exec_fn(void);
extern const char dbg_exec_target[];

static int gp_count;

/* #GP from MOV to DR6/DR7: note it and step over the 3-byte MOV. */
static void gp_skip(struct trap_frame *tf)
{
	gp_count++;
	tf->rip += 3;
}

static void mov_to_dr6(uint64_t v)
{
	__asm__ volatile("mov %0, %%db6" : : "a"(v) : "memory");   /* 0F 23 F0 */
}

static void mov_to_dr7(uint64_t v)
{
	__asm__ volatile("mov %0, %%db7" : : "a"(v) : "memory");   /* 0F 23 F8 */
}

/* Steps six instructions (BS), then, with TF off, hits an instruction breakpoint. */
static void run_bs_then_b0(bool keep)
{
	dbg_begin(0);
	dbg_log.keep_dr6 = keep;
	dbg_ss_popf();
	write_dr0((uint64_t)dbg_exec_target);
	write_dr7(dr7_bp(0, DR7_RW_EXEC, DR7_LEN_1));
	dbg_exec_fn();
	dbg_end();
}

static void exp_dr6(void)
{
	struct cpuid_regs l7 = cpu.max_leaf >= 7 ? cpuid(7, 0) : (struct cpuid_regs){ 0 };
	bool rtm = l7.ebx & (1u << 11), bld = l7.ecx & (1u << 24);
	uint64_t fixed = DR6_FIXED1 | (rtm ? 0 : DR6_RTM) | (bld ? 0 : DR6_BLD);

	write_dr6(0);
	check_eq("DR6 after writing 0: reserved bits read as 1", read_dr6(), fixed);
	write_dr6(DR6_INIT);
	write_dr7(0);
	check_eq("DR7 after writing 0: bit 10 reads as 1", read_dr7(), DR7_INIT);

	gp_count = 0;
	trap_set_handler(13, gp_skip);
	mov_to_dr6(DR6_INIT | 1ULL << 32);
	check_eqd("MOV to DR6 with bit 32 set: GP", (uint64_t)gp_count, 1);
	mov_to_dr7(DR7_INIT | 1ULL << 32);
	check_eqd("MOV to DR7 with bit 32 set: GP", (uint64_t)gp_count, 2);
	check_eq("DR6 upper half still 0", read_dr6() >> 32, 0);
	check_eq("DR7 upper half still 0", read_dr7() >> 32, 0);
	write_dr6(DR6_INIT);
	write_dr7(DR7_INIT);

	/* The processor never clears BS: without the handler's help it leaks. */
	run_bs_then_b0(true);
	dbg_check_count("DR6 kept: DB count (6 steps, 1 breakpoint)", 7);
	dbg_check_event("DR6 kept: breakpoint shows the stale BS too", 6, 1,
			(uint64_t)dbg_exec_target, dr6_with(DR6_BS | DR6_B0));

	/* Read, then clear: each #DB shows its own cause only. */
	run_bs_then_b0(false);
	dbg_check_count("DR6 cleared: DB count (6 steps, 1 breakpoint)", 7);
	dbg_check_event("DR6 cleared: breakpoint shows B0 alone", 6, 1,
			(uint64_t)dbg_exec_target, dr6_with(DR6_B0));
	dbg_end();
}
EXPERIMENT(111, "dr6-discipline", "", "none",
	   "DR6/DR7 fixed bits, GP on high bits, BS sticky unless the handler clears DR6", exp_dr6);
