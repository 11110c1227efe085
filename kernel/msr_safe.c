/* #GP-safe MSR access: each RDMSR/WRMSR has an entry in __ex_table, and the
 * trap dispatcher (kernel/trap.c) resumes a faulting one at its fixup, which
 * reports the failure.  Below the trap layer: anything may probe an MSR. */
#include "msr_safe.h"

/* INSN at label 1, an __ex_table entry sending a fault at it to a fixup that
 * sets operand %[f] and resumes after it. */
#define SAFE_INSN(insn)							\
	"1: " insn "\n"							\
	"2:\n"								\
	".pushsection .text.fixup, \"ax\"\n"				\
	"3: movl $1, %[f]\n"						\
	"   jmp 2b\n"							\
	".popsection\n"							\
	".pushsection __ex_table, \"a\"\n"				\
	".balign 8\n"							\
	".quad 1b, 3b\n"							\
	".popsection\n"

bool rdmsr_safe(uint32_t msr, uint64_t *v)
{
	uint32_t lo = 0, hi = 0;
	int failed = 0;
	__asm__ volatile(SAFE_INSN("rdmsr")
			 : "+a"(lo), "+d"(hi), [f] "+r"(failed) : "c"(msr));
	if (failed)
		return false;
	*v = (uint64_t)hi << 32 | lo;
	return true;
}

bool wrmsr_safe(uint32_t msr, uint64_t v)
{
	int failed = 0;
	__asm__ volatile(SAFE_INSN("wrmsr")
			 : [f] "+r"(failed)
			 : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)) : "memory");
	return !failed;
}
