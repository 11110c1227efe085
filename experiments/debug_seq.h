/* The shared debug sequences of experiments/debug_seq.S: the functions and the
 * labels of their instruction boundaries (see the comments there). */
#ifndef EXPERIMENTS_DEBUG_SEQ_H
#define EXPERIMENTS_DEBUG_SEQ_H
#include <stdint.h>

extern void dq_sti(void);
extern void dq_hlt(void);
extern void dq_emul(void);
extern void dq_far(uint64_t cs);
extern void dq_sysc(void);
extern void dq_fault(void);
extern void dq_rep(void *dst, const void *src);
extern void dq_repd(void *dst, const void *src);
extern void dq_pm(void);
extern void dq_mi(void);
extern void dq_mg(uint64_t dr7);
extern void dq_mb(void);
extern void dq_md3(volatile uint16_t *ss_word);
extern void dq_md1(volatile uint16_t *ss_word);
extern void dq_mdi(volatile uint16_t *ss_word);
extern void dq_tfst(volatile uint8_t *p);
extern void dq_xf(void);
extern void dq_xb(void);
extern uint64_t dq_sb(void);
extern uint64_t dq_gx(uint64_t dr7);
extern uint64_t dq_gs(uint64_t dr7);
extern void dq_int1(void);
extern void dq_out80(void);
extern void dq_movdr(void);
extern void dq_pfx(void);
extern void dq_rf(volatile uint8_t *p);
extern void dq_push(uint64_t dr7);
extern uint64_t dq_rtm(volatile uint8_t *p);
extern void dq_lock(volatile uint32_t *p);

extern const char dq_rtm_fb[], dq_lock_0[], dq_lock_1[];
extern const char dq_sti_1[],
	dq_sti_2[],
	dq_hlt_at[],
	dq_hlt_next[],
	dq_hlt_2[],
	dq_emul_1[],
	dq_emul_2[],
	dq_emul_3[],
	dq_emul_4[],
	dq_emul_5[],
	dq_emul_6[],
	dq_far_0[],
	dq_far_1[],
	dq_far_2[],
	dq_far_3[],
	dq_far_4[],
	dq_far_5[],
	dq_sysc_1[],
	dq_sysc_2[],
	dq_sysc_3[],
	dq_sysc_entry[],
	dq_sysc_k1[],
	dq_fault_1[],
	dq_fault_2[],
	dq_fault_3[],
	dq_rep_1[],
	dq_rep_2[],
	dq_repd_1[],
	dq_repd_2[],
	dq_pm_1[],
	dq_pm_2[],
	dq_mi_0[],
	dq_mi_1[],
	dq_mi_2[],
	dq_mi_3[],
	dq_mg_1[],
	dq_mg_2[],
	dq_mg_3[],
	dq_mb_0[],
	dq_mb_1[],
	dq_mb_2[],
	dq_mb_end[],
	dq_md3_0[],
	dq_md3_1[],
	dq_md1_0[],
	dq_md1_1[],
	dq_mdi_0[],
	dq_mdi_1[],
	dq_tfst_1[],
	dq_tfst_2[],
	dq_xf_1[],
	dq_xf_2[],
	dq_xb_1[],
	dq_xb_2[],
	dq_sb_1[],
	dq_sb_2[],
	dq_gx_1[],
	dq_gx_2[],
	dq_gs_1[],
	dq_gs_2[],
	dq_gs_3[],
	dq_int1_1[],
	dq_out80_1[],
	dq_movdr_1[],
	dq_pfx_0[],
	dq_pfx_1[],
	dq_pfx_2[],
	dq_rf_1[],
	dq_rf_2[],
	dq_push_ret[],
	dq_push_callee[],
	p_off1[],
	p_off2[],
	p_off3[],
	p_off1[],
	p_off2[],
	p_off3[],
	dq_sti_off1[],
	dq_sti_off2[],
	dq_sti_off3[],
	dq_hlt_off1[],
	dq_hlt_off2[],
	dq_hlt_off3[],
	dq_emul_off1[],
	dq_emul_off2[],
	dq_emul_off3[],
	dq_far_off1[],
	dq_far_off2[],
	dq_far_off3[],
	dq_sysc_off1[],
	dq_sysc_off2[],
	dq_sysc_off3[],
	dq_fault_off1[],
	dq_fault_off2[],
	dq_fault_off3[],
	dq_rep_off1[],
	dq_rep_off2[],
	dq_rep_off3[],
	dq_pm_off1[],
	dq_pm_off2[],
	dq_pm_off3[],
	dq_mi_off1[],
	dq_mi_off2[],
	dq_mi_off3[],
	dq_mg_off1[],
	dq_mg_off2[],
	dq_mg_off3[],
	dq_mb_off1[],
	dq_mb_off2[],
	dq_mb_off3[],
	dq_tfst_off1[],
	dq_tfst_off2[],
	dq_tfst_off3[],
	dq_sb_off1[],
	dq_sb_off2[],
	dq_sb_off3[],
	dq_gs_off1[],
	dq_gs_off2[],
	dq_gs_off3[];

#endif
