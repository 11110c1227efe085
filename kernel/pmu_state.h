/* PMU MSR state: experiments leave it as they found it (kernel/pmu_state.c). */
#ifndef KERNEL_PMU_STATE_H
#define KERNEL_PMU_STATE_H
#include <stdint.h>

struct pmu_msrs {
	uint32_t present;               /* bit per group below that could be read */
	uint64_t debugctl, ds_area, pebs_enable, global_ctrl, global_status;
	uint64_t fixed_ctrl, ld_lat, data_cfg;
	uint64_t evtsel[8], pmc[8], fixed[4];
	uint64_t amd_ctl[6], amd_ctr[6], amd_global_ctl;
	uint64_t ibs_fetch_ctl, ibs_op_ctl;
};
void pmu_msrs_save(struct pmu_msrs *s);
/* Disable first, restore values, enables last (GLOBAL_CTRL, DEBUGCTL). */
void pmu_msrs_restore(const struct pmu_msrs *s);

/* Status bits that IA32_PERF_GLOBAL_OVF_CTRL / GLOBAL_STATUS_RESET accepts on
 * this processor (its counters, and the version 4 freeze and ASCI bits). */
uint64_t pmu_status_clearable(void);

#endif
