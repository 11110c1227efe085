/* 910-912: self-tests of the runner in 32-bit protected mode (kernel/pm32.h):
 * an exception inside a task reached by a task switch, a hang with interrupts
 * on, a double fault (through the DF task gate).  Each must end its scenario through the climb back to long
 * mode, fail the experiment with the vector and EIP, and let the run go on. */
#include "experiment.h"
#include "pm32.h"

extern char pm32_s_fault_in_task[], pm32_fault_task[], pm32_fault_ud[], pm32_s_hang[];

static struct pm32 pm;

static void pm32_fault(void)
{
	diag("UD2 in a second task, reached by a JMP through its TSS: the runner must catch it");
	pm32_prepare(&pm, (uint32_t)(uintptr_t)pm32_s_fault_in_task, (uint32_t)(uintptr_t)pm32_fault_task, 0);
	if (pm32_run(&pm, "UD2 in task A"))
		return;
	diag("ended at vector %u, EIP 0x%x (the UD2 at 0x%x), in %s", pm.cb->abort_vec, pm.cb->abort_eip,
	     (uint32_t)(uintptr_t)pm32_fault_ud, pm32_mode_name());
}
EXPERIMENT_PM32(910, "selftest-pm32-fault", "", "-",
	   "an unexpected UD inside a protected-mode task: caught, back to long mode",
	   pm32_fault, EXP_SELFTEST);

static void pm32_hang(void)
{
	diag("spinning in protected mode with interrupts enabled until the watchdog fires");
	pm32_prepare(&pm, (uint32_t)(uintptr_t)pm32_s_hang, 0, 0);
	pm32_run(&pm, "a hang");
	pm32_run(&pm, "a second part after the watchdog");
}
EXPERIMENT_PM32(911, "selftest-pm32-hang", "", "-",
	   "a hang in protected mode cut off by the watchdog",
	   pm32_hang, EXP_SELFTEST);

extern char pm32_s_double_fault[], pm32_df_ud[];

/* UD with its IDT gate not present raises NP, whose gate is not present either:
 * NP while delivering NP is a double fault (SDM vol.3 6.15, Table 6-5, both
 * contributory).  The DF task gate catches it on its own stack. */
static void pm32_double_fault(void)
{
	diag("UD with the UD and NP gates not present: a double fault, caught by the DF task");
	pm32_prepare(&pm, (uint32_t)(uintptr_t)pm32_s_double_fault, 0, 0);
	pm.idt[6] &= ~(1ULL << 47);
	pm.idt[11] &= ~(1ULL << 47);
	if (pm32_run(&pm, "a double fault"))
		return;
	diag("ended at vector %u, EIP 0x%x (the UD2 at 0x%x), in %s", pm.cb->abort_vec, pm.cb->abort_eip,
	     (uint32_t)(uintptr_t)pm32_df_ud, pm32_mode_name());
}
EXPERIMENT_PM32(912, "selftest-pm32-df", "", "-",
		"a double fault in protected mode, caught by a task gate with its own stack",
		pm32_double_fault, EXP_SELFTEST);
