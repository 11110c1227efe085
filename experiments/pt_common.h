/* What the 4xx Intel PT experiments share (experiments/pt_common.c), the way the
 * debug family shares debug_common.c: the workloads, the feature gate, RTIT MSR
 * save/restore, one single-range trace, its decoding, and the checks every
 * scenario uses.  A scenario (experiments/pt.c) runs inside pt_scenario(): the
 * gate and the MSRs are taken care of, it traces with pt_trace() and checks
 * pt_lg, the decoded events. */
#ifndef EXPERIMENTS_PT_COMMON_H
#define EXPERIMENTS_PT_COMMON_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "pt_decode.h"
#include "pt_range.h"

#define A(sym) ((uint64_t)(uintptr_t)(sym))

/* ---- the workloads (assembly, global labels: every packet between the
 * enabling and the disabling WRMSR is known) ---------------------------------- */

/* pt_wl(ctl, pattern, n): CTL=ctl; the loop; CTL=ctl&~TraceEn */
void pt_wl(uint64_t ctl, uint64_t pattern, uint64_t n);
/* pt_wlf: the loop inside an IP-filter range [pt_wlf_in, pt_wlf_last] */
void pt_wlf(uint64_t ctl, uint64_t pattern, uint64_t n);
/* pt_wls: the loop, STATUS read into status[0], a JMP into the TraceStop range
 * [pt_wls_stop, pt_wls_stop_end], STATUS into status[1], TraceEn off */
void pt_wls(uint64_t ctl, uint64_t pattern, uint64_t n, uint64_t *status);
/* pt_uwl(&{pattern, n}): the loop at CPL 3 (run_user) */
void pt_uwl(void *arg);
extern char pt_wl_pge[], pt_wl_dis[], pt_wlf_in[], pt_wlf_last[], pt_wlf_out[];
extern char pt_wls_pge[], pt_wls_stop[], pt_wls_stop_end[], pt_uwl_end[];

#define PATTERN 0x9b5d3a61c2e4f017ULL

/* Bit j (0 = oldest) of the TNT sequence the loop produces in n iterations. */
bool pt_loop_bit(uint64_t pattern, uint64_t n, uint64_t j);
/* Run a workload with interrupts off. */
void pt_run_cli(void (*wl)(uint64_t, uint64_t, uint64_t), uint64_t ctl, uint64_t pat, uint64_t n);

/* ---- the gate, the MSRs --------------------------------------------------------- */

enum { G_SINGLE = 1, G_IPFILT = 2, G_CR3 = 4 };

unsigned pt_maxphyaddr(void);
/* False after exp_skip() with the exact CPUID/MSR reason. */
bool pt_gate(struct ptcaps *caps, unsigned need);

struct pt_saved {
	uint64_t ctl, status, base, mask, cr3;
	uint64_t addr[8];
	bool have_out, have_cr3;
	unsigned nranges;
};
void pt_save(struct pt_saved *s, const struct ptcaps *c);
/* TraceEn off first, then the configuration, then CTL as found (TraceEn last). */
void pt_restore(const struct pt_saved *s);
/* IA32_RTIT_CTL with TraceEn, BranchEn and the given OS/User. */
uint64_t pt_ctl_of(bool os, bool user);

/* ---- one single-range trace ------------------------------------------------------ */

#define CANARY 0x55     /* an undefined PT opcode: shows which bytes were written */

struct trace {
	uint8_t *buf;
	uint64_t size;
	uint64_t base_msr, mask_msr;    /* as programmed */
	uint64_t mask_after, status;    /* read back after TraceEn=0 */
	uint64_t offset;
	bool wrapped;
	uint8_t *lin;                   /* oldest byte first */
	size_t len;
};

/* Allocate and program the output range; CTL is left at 0 (TraceEn=0). */
bool pt_arm(struct trace *t, uint64_t size);
/* After the workload disabled tracing: read the MSRs back, linearise, dump. */
void pt_collect(struct trace *t, const char *name);

/* ---- what the decoder saw ------------------------------------------------------- */

#define MAX_EV 512
#define MAX_BITS (1u << 20)
struct ev {
	enum ptd_type type;
	uint64_t off, ip;
	bool supp;
	uint32_t tnt_pos;               /* TNT bits seen before this packet */
};
struct pt_log {
	struct ev ev[MAX_EV];
	unsigned nev, nerr, npkt, novf;
	uint64_t first_err;
	uint32_t nbits;
	uint64_t start;                 /* where decoding started (first PSB if wrapped) */
};
extern struct pt_log pt_lg;

/* Decode the linearised trace into pt_lg. */
void pt_scan(const struct trace *t);
int pt_find_ev(enum ptd_type type, int from);
unsigned pt_count_ev(enum ptd_type type);

/* ---- checks ------------------------------------------------------------------------ */

/* Observed bits [from, from+n) against the loop's bits [efrom, efrom+n). */
void pt_check_bits(const char *what, uint32_t from, uint32_t n, uint64_t pattern,
		   uint64_t iters, uint64_t efrom, uint64_t expected_n);
/* The loop's 2n bits between events pge and pgd, when both were found. */
void pt_check_loop_between(const char *what, int pge, int pgd, uint64_t pattern, uint64_t n);
void pt_check_ip(const char *what, int i, uint64_t expected);
void pt_check_status_clean(const struct trace *t);
void pt_check_decoded_clean(void);
/* The start of a trace whose enable was 0 -> 1 with PacketByteCnt=0. */
void pt_check_psb_start(void);
/* After a wrap: the bits seen since decoding could start (the first PSB) must
 * be the last bits the loop produced, with FUP(CLIP)+TIP.PGD() at the end. */
void pt_check_tail(uint64_t pattern, uint64_t n);

/* ---- the shared setup ------------------------------------------------------------ */

struct pt_exp {
	struct ptcaps c;
	struct pt_saved sv;
	struct trace t;
	uint64_t ctl, ctl2;             /* the scenario's IA32_RTIT_CTL value(s) */
};

/* The scenario's IA32_RTIT_CTL values from the capabilities: ctl[1] may stay 0. */
typedef void (*pt_ctl_fn)(const struct ptcaps *c, uint64_t ctl[2]);

/* The setup every scenario runs in: the gate (need: G_ bits), each IA32_RTIT_CTL
 * value checked against the capabilities (exp_fail when the CPU cannot take it),
 * the RTIT MSRs saved; the scenario; the MSRs restored as found. */
void pt_scenario(unsigned need, pt_ctl_fn ctls, void (*scenario)(struct pt_exp *x));

/* One trace: arm a `size`-byte output range (CTL=0); `run` programs what else it
 * needs and runs a workload that enables and disables tracing itself (false: it
 * failed the experiment); then the MSRs are read back, the trace dumped
 * (verbose=1, as `name`) and decoded into pt_lg.  False: nothing to check. */
bool pt_trace(struct pt_exp *x, const char *name, uint64_t size,
	      bool (*run)(struct pt_exp *x, const void *arg), const void *arg);

#endif
