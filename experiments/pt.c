/* 4xx: Intel Processor Trace with single-range output (SDM vol.3 chapter 32).
 *
 * Output goes to one naturally aligned power-of-two buffer: IA32_RTIT_OUTPUT_BASE
 * holds its physical base, IA32_RTIT_OUTPUT_MASK_PTRS the mask (size-1, bits 6:0
 * always 1) and the write offset (bits 63:32); the range is circular (32.2.7.1).
 * Memory is identity-mapped, so exp_alloc() addresses are physical addresses.
 *
 * The workloads are assembly with global labels.  Each one enables tracing with
 * its own WRMSR and disables it with another, so every packet between is known:
 *   TraceEn 0->1 with PacketByteCnt=0: PSB+, then TIP.PGE(NLIP of the WRMSR);
 *   each Jcc: one TNT bit, oldest first; WRMSR TraceEn 1->0 with PacketEn=1:
 *   FUP(CLIP of the WRMSR), TIP.PGD() with IPBytes=0 (SDM table "Packet
 *   Generation under Different Enable Conditions", cases 2e and 3b).
 * The loop: `ror $1,%r8; jc` (taken iff bit i%64 of the pattern is set) then
 * `dec; jnz` (taken except on the last iteration): 2 TNT bits per iteration.
 *
 * MSR discipline (32.2.8.1): configuration MSRs are written only with TraceEn=0,
 * TraceEn last; STATUS is read after disabling; all RTIT MSRs are restored as
 * found.  With verbosity >= 1 each trace is dumped for tools/ptflow:
 *   # pt-dump begin NAME base=0x... size=N offset=O wrapped=W bytes=M
 *   # pt: 0000: 02 82 ...
 *   # pt-dump end NAME */
#include "console.h"
#include "cpu.h"
#include "cpuid.h"
#include "cr.h"
#include "experiment.h"
#include "fmt.h"
#include "mem.h"
#include "msr.h"
#include "pt.h"
#include "trap.h"
#include "user.h"
#include "x86.h"

#define A(sym) ((uint64_t)(uintptr_t)(sym))

/* WRMSR IA32_RTIT_CTL = reg (a 64-bit register other than rax/rcx/rdx) */
#define WR_CTL(reg)							\
	"	mov " reg ", %rax\n"					\
	"	mov " reg ", %rdx\n"					\
	"	shr $32, %rdx\n"					\
	"	mov $0x570, %ecx\n"					\
	"	wrmsr\n"
/* rdi = CTL with TraceEn clear (for the disabling WRMSR) */
#define CTL_OFF_IN_RDI "	and $-2, %rdi\n"
/* The pattern loop: r8 = pattern, r9 = iterations (>= 1) */
#define PT_LOOP								\
	"1:	ror $1, %r8\n"						\
	"	jc 2f\n"						\
	"	nop\n"							\
	"2:	dec %r9\n"						\
	"	jnz 1b\n"

__asm__(
	".pushsection .text\n"
	/* pt_wl(ctl, pattern, n): CTL=ctl; loop; CTL=ctl&~TraceEn */
	".global pt_wl, pt_wl_pge, pt_wl_dis\n"
	"pt_wl:\n"
	"	mov %rsi, %r8\n"
	"	mov %rdx, %r9\n"
	WR_CTL("%rdi")
	"pt_wl_pge:\n"
	PT_LOOP
	CTL_OFF_IN_RDI
	"	mov %rdi, %rax\n"
	"	mov %rdi, %rdx\n"
	"	shr $32, %rdx\n"
	"	mov $0x570, %ecx\n"
	"pt_wl_dis:\n"
	"	wrmsr\n"
	"	ret\n"
	/* pt_wlf: the loop inside an IP-filter range [pt_wlf_in, pt_wlf_last],
	 * entered and left by direct JMPs; branches outside are not traced */
	".global pt_wlf, pt_wlf_in, pt_wlf_last, pt_wlf_out\n"
	"pt_wlf:\n"
	"	mov %rsi, %r8\n"
	"	mov %rdx, %r9\n"
	WR_CTL("%rdi")
	"	test %r9, %r9\n"
	"	jz pt_wlf_out\n"
	"	jmp pt_wlf_in\n"
	"pt_wlf_in:\n"
	PT_LOOP
	"pt_wlf_last:\n"
	"	jmp pt_wlf_out\n"
	"pt_wlf_out:\n"
	"	test %r9, %r9\n"
	"	jnz 3f\n"
	"	nop\n"
	"3:\n"
	CTL_OFF_IN_RDI
	WR_CTL("%rdi")
	"	ret\n"
	/* pt_wls(ctl, pattern, n, status[2]): the loop, RDMSR IA32_RTIT_STATUS
	 * into status[0] (tracing), a direct JMP into the TraceStop range
	 * [pt_wls_stop, pt_wls_stop_end], RDMSR STATUS into status[1] (stopped,
	 * TraceEn still 1), then TraceEn off.  RDMSR is no branch: no packet. */
	".global pt_wls, pt_wls_pge, pt_wls_stop, pt_wls_stop_end\n"
	"pt_wls:\n"
	"	mov %rcx, %r10\n"
	"	mov %rsi, %r8\n"
	"	mov %rdx, %r9\n"
	WR_CTL("%rdi")
	"pt_wls_pge:\n"
	PT_LOOP
	"	mov $0x571, %ecx\n"
	"	rdmsr\n"
	"	mov %eax, (%r10)\n"
	"	mov %edx, 4(%r10)\n"
	"	jmp pt_wls_stop\n"
	"pt_wls_stop:\n"
	"	nop\n"
	"pt_wls_stop_end:\n"
	"	nop\n"
	"	mov $0x571, %ecx\n"
	"	rdmsr\n"
	"	mov %eax, 8(%r10)\n"
	"	mov %edx, 12(%r10)\n"
	CTL_OFF_IN_RDI
	WR_CTL("%rdi")
	"	ret\n"
	/* pt_uwl(&{pattern, n}): the loop at CPL 3 (called by run_user) */
	".global pt_uwl, pt_uwl_end\n"
	"pt_uwl:\n"
	"	mov (%rdi), %r8\n"
	"	mov 8(%rdi), %r9\n"
	PT_LOOP
	"	ret\n"
	"pt_uwl_end:\n"
	".popsection\n");

void pt_wl(uint64_t ctl, uint64_t pattern, uint64_t n);
void pt_wlf(uint64_t ctl, uint64_t pattern, uint64_t n);
void pt_wls(uint64_t ctl, uint64_t pattern, uint64_t n, uint64_t *status);
void pt_uwl(void *arg);
extern char pt_wl_pge[], pt_wl_dis[], pt_wlf_in[], pt_wlf_last[], pt_wlf_out[];
extern char pt_wls_pge[], pt_wls_stop[], pt_wls_stop_end[], pt_uwl_end[];

#define PATTERN 0x9b5d3a61c2e4f017ULL

/* Bit j (0 = oldest) of the TNT sequence the loop produces in n iterations. */
static bool loop_bit(uint64_t pattern, uint64_t n, uint64_t j)
{
	uint64_t i = j / 2;
	return (j & 1) ? i + 1 < n : (pattern >> (i % 64)) & 1;
}

/* ---- feature gate, save / restore ------------------------------------------ */

enum { G_SINGLE = 1, G_IPFILT = 2, G_CR3 = 4 };

static unsigned maxphyaddr(void)
{
	if (cpu.max_ext_leaf >= 0x80000008)
		return cpuid(0x80000008, 0).eax & 0xff;
	return 36;
}

static bool pt_gate(struct ptcaps *caps, unsigned need)
{
	uint64_t v;
	if (!(cpu.leaf7_ebx & CPUID_7_EBX_INTEL_PT)) {
		exp_skip("CPUID.(EAX=07H,ECX=0):EBX.INTEL_PT[25]=0");
		return false;
	}
	if (cpu.max_leaf < 0x14) {
		exp_skip("CPUID.00H:EAX.MAX_LEAF=%#x < 14H", cpu.max_leaf);
		return false;
	}
	struct cpuid_regs r0 = cpuid(0x14, 0), r1 = { 0, 0, 0, 0 };
	if (r0.eax >= 1)
		r1 = cpuid(0x14, 1);
	ptcaps_parse(caps, r0.eax, r0.ebx, r0.ecx, r1.eax, r1.ebx);
	if ((need & G_SINGLE) && !caps->single_range) {
		exp_skip("CPUID.(EAX=14H,ECX=0):ECX.SINGLE_RANGE[2]=0");
		return false;
	}
	if ((need & G_IPFILT) && !caps->ip_filter) {
		exp_skip("CPUID.(EAX=14H,ECX=0):EBX.IP_FILTER[2]=0");
		return false;
	}
	if ((need & G_IPFILT) && caps->nranges == 0) {
		exp_skip("CPUID.(EAX=14H,ECX=1):EAX.RANGECNT[2:0]=0");
		return false;
	}
	if ((need & G_CR3) && !caps->cr3_filter) {
		exp_skip("CPUID.(EAX=14H,ECX=0):EBX.CR3_FILTER[0]=0");
		return false;
	}
	if (!rdmsr_safe(IA32_RTIT_CTL, &v)) {
		exp_skip("RDMSR IA32_RTIT_CTL (0x570) GP");
		return false;
	}
	return true;
}

struct pt_saved {
	uint64_t ctl, status, base, mask, cr3;
	uint64_t addr[8];
	bool have_out, have_cr3;
	unsigned nranges;
};

static void pt_save(struct pt_saved *s, const struct ptcaps *c)
{
	rdmsr_safe(IA32_RTIT_CTL, &s->ctl);
	rdmsr_safe(IA32_RTIT_STATUS, &s->status);
	s->have_out = (c->topa || c->single_range) &&
		      rdmsr_safe(IA32_RTIT_OUTPUT_BASE, &s->base) &&
		      rdmsr_safe(IA32_RTIT_OUTPUT_MASK_PTRS, &s->mask);
	s->have_cr3 = c->cr3_filter && rdmsr_safe(IA32_RTIT_CR3_MATCH, &s->cr3);
	s->nranges = c->ip_filter ? (c->nranges > 4 ? 4 : c->nranges) : 0;
	for (unsigned i = 0; i < 2 * s->nranges; i++)
		rdmsr_safe(IA32_RTIT_ADDR0_A + i, &s->addr[i]);
	if (s->ctl & RTIT_CTL_TRACEEN)
		diag("IA32_RTIT_CTL was %#llx (TraceEn=1): tracing paused for this experiment",
		     (unsigned long long)s->ctl);
}

/* TraceEn off first, then the configuration, then CTL as found (TraceEn last). */
static void pt_restore(const struct pt_saved *s)
{
	wrmsr_safe(IA32_RTIT_CTL, s->ctl & ~RTIT_CTL_TRACEEN);
	wrmsr_safe(IA32_RTIT_STATUS, s->status);
	if (s->have_out) {
		wrmsr_safe(IA32_RTIT_OUTPUT_BASE, s->base);
		wrmsr_safe(IA32_RTIT_OUTPUT_MASK_PTRS, s->mask);
	}
	if (s->have_cr3)
		wrmsr_safe(IA32_RTIT_CR3_MATCH, s->cr3);
	for (unsigned i = 0; i < 2 * s->nranges; i++)
		wrmsr_safe(IA32_RTIT_ADDR0_A + i, s->addr[i]);
	if (s->ctl & RTIT_CTL_TRACEEN)
		wrmsr_safe(IA32_RTIT_CTL, s->ctl);
}

/* ---- one single-range trace --------------------------------------------------- */

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
static bool pt_arm(struct trace *t, uint64_t size)
{
	t->size = size;
	t->buf = exp_alloc(size, size < 4096 ? 4096 : size);
	t->lin = exp_alloc(size, 4096);
	if (!t->buf || !t->lin) {
		exp_fail("exp_alloc(%llu) failed", (unsigned long long)size);
		return false;
	}
	for (uint64_t i = 0; i < size; i++)
		t->buf[i] = CANARY;
	enum ptrange_err e = ptrange_setup(A(t->buf), size, 0, maxphyaddr(),
					   &t->base_msr, &t->mask_msr);
	if (e != PTRANGE_OK) {
		exp_fail("single range %#llx+%llu: %s", (unsigned long long)A(t->buf),
			 (unsigned long long)size, ptrange_err_name(e));
		return false;
	}
	/* PacketByteCnt=0 in STATUS makes the enable start with a full PSB+. */
	if (!wrmsr_safe(IA32_RTIT_CTL, 0) || !wrmsr_safe(IA32_RTIT_STATUS, 0) ||
	    !wrmsr_safe(IA32_RTIT_OUTPUT_BASE, t->base_msr) ||
	    !wrmsr_safe(IA32_RTIT_OUTPUT_MASK_PTRS, t->mask_msr)) {
		exp_fail("WRMSR to an RTIT configuration MSR GP with TraceEn=0");
		return false;
	}
	return true;
}

static void pt_dump(const char *name, const struct trace *t)
{
	char line[80];
	if (exp_verbosity() < 1)
		return;
	diag("pt-dump begin %s base=%#llx size=%llu offset=%llu wrapped=%d bytes=%zu", name,
	     (unsigned long long)t->base_msr, (unsigned long long)t->size,
	     (unsigned long long)t->offset, t->wrapped, t->len);
	for (size_t off = 0; off < t->len; off += 16) {
		int n = tl_snprintf(line, sizeof line, "%04zx:", off);
		for (size_t i = off; i < t->len && i < off + 16; i++)
			n += tl_snprintf(line + n, sizeof line - (size_t)n, " %02x", t->lin[i]);
		diag("pt: %s", line);
	}
	diag("pt-dump end %s", name);
}

/* After the workload disabled tracing: read the MSRs back, linearise, dump. */
static void pt_collect(struct trace *t, const char *name)
{
	/* Clearing TraceEn flushed the packets; WRMSR is serializing, the fence
	 * orders our reads after the stores (32.2.8.2 "Disabling Packet Generation"). */
	__asm__ volatile("mfence" ::: "memory");
	rdmsr_safe(IA32_RTIT_OUTPUT_MASK_PTRS, &t->mask_after);
	rdmsr_safe(IA32_RTIT_STATUS, &t->status);
	t->offset = ptrange_offset(t->mask_after);
	t->wrapped = false;
	for (uint64_t i = t->offset; i < t->size; i++)
		if (t->buf[i] != CANARY)
			t->wrapped = true;
	t->len = ptrange_linearize(t->buf, t->size, t->offset, t->wrapped, t->lin);
	pt_dump(name, t);
	struct ptstatus s;
	ptstatus_parse(t->status, &s);
	diag("%s: MASK_PTRS=%#llx offset=%llu wrapped=%d STATUS=%#llx (Error=%d Stopped=%d "
	     "TriggerEn=%d ContextEn=%d FilterEn=%d)", name, (unsigned long long)t->mask_after,
	     (unsigned long long)t->offset, t->wrapped, (unsigned long long)t->status,
	     s.error, s.stopped, s.trigger_en, s.context_en, s.filter_en);
}

/* ---- what the decoder saw --------------------------------------------------- */

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
static struct pt_log lg;
static uint8_t tnt_bits[MAX_BITS / 8];

static bool bit_at(uint32_t i) { return tnt_bits[i / 8] >> (i % 8) & 1; }

static void pt_scan(const struct trace *t)
{
	struct ptd_decoder d;
	struct ptd_packet p;
	int r;
	lg.nev = lg.nerr = lg.npkt = lg.novf = 0;
	lg.nbits = 0;
	ptd_init(&d, t->lin, t->len);
	if (t->wrapped)         /* the oldest bytes are a cut packet: start at a PSB */
		ptd_sync_forward(&d);
	lg.start = d.pos;
	while ((r = ptd_next(&d, &p)) != PTD_EOS) {
		if (r != PTD_OK) {
			if (!lg.nerr++)
				lg.first_err = p.offset;
			continue;
		}
		lg.npkt++;
		if (p.type == PTD_TNT8 || p.type == PTD_TNT64) {
			for (unsigned i = 0; i < p.u.tnt.count && lg.nbits < MAX_BITS; i++, lg.nbits++) {
				if (ptd_tnt_taken(&p, i))
					tnt_bits[lg.nbits / 8] |= (uint8_t)(1u << (lg.nbits % 8));
				else
					tnt_bits[lg.nbits / 8] &= (uint8_t)~(1u << (lg.nbits % 8));
			}
			continue;
		}
		if (p.type == PTD_OVF)
			lg.novf++;
		switch (p.type) {
		case PTD_PSB: case PTD_PSBEND: case PTD_TIP: case PTD_TIP_PGE:
		case PTD_TIP_PGD: case PTD_FUP: case PTD_STOP: case PTD_OVF:
			break;
		default:
			continue;
		}
		if (lg.nev == MAX_EV)
			lg.nev--;       /* keep the last event in the last slot */
		struct ev *e = &lg.ev[lg.nev++];
		e->type = p.type;
		e->off = p.offset;
		e->tnt_pos = lg.nbits;
		e->supp = ptd_is_ip_packet(p.type) && p.u.ip.suppressed;
		e->ip = ptd_is_ip_packet(p.type) ? p.u.ip.ip : 0;
	}
	vdiag("decoded %u packets, %u TNT bits, %u events, %u errors", lg.npkt, lg.nbits,
	      lg.nev, lg.nerr);
}

static int find_ev(enum ptd_type type, int from)
{
	for (int i = from < 0 ? 0 : from; i < (int)lg.nev; i++)
		if (lg.ev[i].type == type)
			return i;
	return -1;
}

static unsigned count_ev(enum ptd_type type)
{
	unsigned n = 0;
	for (unsigned i = 0; i < lg.nev; i++)
		n += lg.ev[i].type == type;
	return n;
}

/* Observed bits [from, from+n) against the loop's bits [efrom, efrom+n). */
static void check_bits(const char *what, uint32_t from, uint32_t n, uint64_t pattern,
		       uint64_t iters, uint64_t efrom, uint64_t expected_n)
{
	char obs[41], exp[41];
	uint32_t bad = n;
	for (uint32_t i = 0; i < n && i < expected_n; i++)
		if (bit_at(from + i) != loop_bit(pattern, iters, efrom + i)) {
			bad = i;
			break;
		}
	for (unsigned i = 0; i < 40; i++) {
		obs[i] = i < n ? (bit_at(from + i) ? 'T' : 'N') : 0;
		exp[i] = i < expected_n ? (loop_bit(pattern, iters, efrom + i) ? 'T' : 'N') : 0;
	}
	obs[40] = exp[40] = 0;
	bool same = n == expected_n && bad == n;
	check(same, "%s: %u TNT bits %s%s, first differing bit %d (-1: none) (expected %llu: %s%s)",
	      what, n, obs, n > 40 ? "..." : "", same ? -1 : (int)bad,
	      (unsigned long long)expected_n, exp, expected_n > 40 ? "..." : "");
}

static void check_ip(const char *what, int i, uint64_t expected)
{
	if (i < 0) {
		check(false, "%s: packet missing (expected IP %#llx)", what,
		      (unsigned long long)expected);
		return;
	}
	if (lg.ev[i].supp)
		check(false, "%s at 0x%llx: IP suppressed (expected %#llx)", what,
		      (unsigned long long)lg.ev[i].off, (unsigned long long)expected);
	else
		check(lg.ev[i].ip == expected, "%s at 0x%llx: IP %#llx (expected %#llx)", what,
		      (unsigned long long)lg.ev[i].off, (unsigned long long)lg.ev[i].ip,
		      (unsigned long long)expected);
}

static void check_status_clean(const struct trace *t)
{
	struct ptstatus s;
	ptstatus_parse(t->status, &s);
	check(!s.error, "IA32_RTIT_STATUS.Error=%d (expected 0)", s.error);
	check(!s.stopped, "IA32_RTIT_STATUS.Stopped=%d (expected 0)", s.stopped);
}

static void check_decoded_clean(void)
{
	check(lg.nerr == 0, "decode errors: %u (expected 0)%s", lg.nerr,
	      lg.nerr ? " (see the first one in the dump)" : "");
	if (lg.nerr)
		diag("first decode error at offset %#llx", (unsigned long long)lg.first_err);
}

/* The start of a trace whose enable was 0 -> 1 with PacketByteCnt=0. */
static void check_psb_start(void)
{
	int psb = find_ev(PTD_PSB, 0);
	check(psb == 0 && lg.ev[0].off == 0, "first packet: %s at offset %llu (expected psb at 0)",
	      lg.nev ? ptd_type_name(lg.ev[0].type) : "none",
	      (unsigned long long)(lg.nev ? lg.ev[0].off : 0));
	int end = find_ev(PTD_PSBEND, psb);
	check(end > psb, "psbend after the first psb: %s (expected found)", end > psb ? "found" : "missing");
}

static uint64_t ctl_of(bool os, bool user)
{
	struct ptctl c = { .trace_en = true, .os = os, .user = user, .branch_en = true };
	return ptctl_build(&c);
}

static bool ctl_ok(uint64_t ctl, const struct ptcaps *caps)
{
	const char *why = ptctl_check(ctl, caps);
	if (why)
		exp_fail("IA32_RTIT_CTL=%#llx not valid on this CPU: %s", (unsigned long long)ctl, why);
	return !why;
}

static void run_cli(void (*wl)(uint64_t, uint64_t, uint64_t), uint64_t ctl, uint64_t pat,
		    uint64_t n)
{
	uint64_t fl = read_rflags();
	cli();
	wl(ctl, pat, n);
	if (fl & RFLAGS_IF)
		sti();
}

/* ---- 401 ------------------------------------------------------------------ */

static void exp_pt_enum(void)
{
	struct ptcaps c;
	if (!pt_gate(&c, 0))
		return;
	struct cpuid_regs r0 = cpuid(0x14, 0);
	for (uint32_t s = 0; s <= r0.eax && s < 16; s++) {
		struct cpuid_regs r = cpuid(0x14, s);
		diag("CPUID.(EAX=14H,ECX=%u): EAX=%#010x EBX=%#010x ECX=%#010x EDX=%#010x",
		     s, r.eax, r.ebx, r.ecx, r.edx);
	}
	diag("CR3Filter=%d PSB/CYC=%d IPFilter=%d MTC=%d PTWRITE=%d PowerEvt=%d ToPA=%d "
	     "ToPAMulti=%d SingleRange=%d Transport=%d LIP=%d ranges=%u MTCperiods=%#x "
	     "CYCthresh=%#x PSBfreq=%#x", c.cr3_filter, c.psb_cyc, c.ip_filter, c.mtc,
	     c.ptwrite, c.power_evt, c.topa, c.topa_multi, c.single_range, c.transport, c.lip,
	     c.nranges, c.mtc_periods, c.cyc_thresholds, c.psb_freqs);
	check(c.topa || c.single_range || c.transport,
	      "an output scheme: ToPA=%d SingleRange=%d Transport=%d (expected one set)",
	      c.topa, c.single_range, c.transport);
	check(!c.topa_multi || c.topa, "ToPA multiple entries (%d) implies ToPA (%d)",
	      c.topa_multi, c.topa);
	if (c.ip_filter || c.mtc || c.psb_cyc)
		check(r0.eax >= 1, "max subleaf %u (expected >= 1: subleaf 1 describes the "
		      "ranges/MTC/CYC/PSB encodings)", r0.eax);
	if (c.ip_filter)
		check(c.nranges >= 1, "IP filtering: %u address ranges (expected >= 1)", c.nranges);
	if (c.mtc)
		check(c.mtc_periods != 0, "MTC: period bitmap %#x (expected non-zero)", c.mtc_periods);
	if (c.psb_cyc)
		check(c.cyc_thresholds != 0 && c.psb_freqs != 0,
		      "PSB/CYC configurable: CYC thresholds %#x, PSB frequencies %#x (expected non-zero)",
		      c.cyc_thresholds, c.psb_freqs);
	uint64_t v = 0;
	rdmsr_safe(IA32_RTIT_CTL, &v);
	check(!(v & RTIT_CTL_TRACEEN), "IA32_RTIT_CTL=%#llx: TraceEn=0 at start",
	      (unsigned long long)v);
	bool out = c.topa || c.single_range;
	bool b = rdmsr_safe(IA32_RTIT_OUTPUT_BASE, &v);
	check(b == out, "RDMSR IA32_RTIT_OUTPUT_BASE %s (expected %s: ToPA or single range)",
	      b ? "ok" : "GP", out ? "ok" : "GP");
	b = rdmsr_safe(IA32_RTIT_OUTPUT_MASK_PTRS, &v);
	check(b == out, "RDMSR IA32_RTIT_OUTPUT_MASK_PTRS %s (expected %s)", b ? "ok" : "GP",
	      out ? "ok" : "GP");
	if (b)
		check((v & PTRANGE_LOWER_MASK) == PTRANGE_LOWER_MASK,
		      "OUTPUT_MASK_PTRS[6:0]=%#llx (expected 0x7f: forced to 1)",
		      (unsigned long long)(v & 0x7f));
	b = rdmsr_safe(IA32_RTIT_STATUS, &v);
	check(b, "RDMSR IA32_RTIT_STATUS %s (expected ok)", b ? "ok" : "GP");
	if (c.cr3_filter) {
		b = rdmsr_safe(IA32_RTIT_CR3_MATCH, &v);
		check(b, "RDMSR IA32_RTIT_CR3_MATCH %s (expected ok: CR3 filtering)", b ? "ok" : "GP");
	}
	for (unsigned n = 0; c.ip_filter && n < c.nranges && n < 4; n++) {
		uint64_t a = 0, z = 0;
		bool ok = rdmsr_safe(IA32_RTIT_ADDR0_A + 2 * n, &a) &&
			  rdmsr_safe(IA32_RTIT_ADDR0_B + 2 * n, &z);
		check(ok, "RDMSR IA32_RTIT_ADDR%u_A/B %s (expected ok: %u ranges)", n,
		      ok ? "ok" : "GP", c.nranges);
	}
	diag("MAXPHYADDR=%u", maxphyaddr());
}
EXPERIMENT(401, "pt-enum", "", "Intel PT",
	   "CPUID leaf 14H, every subleaf; consistency of the capability bits and the RTIT MSRs",
	   exp_pt_enum);

/* ---- 402 ------------------------------------------------------------------ */

static void exp_pt_single_range(void)
{
	struct ptcaps c;
	struct pt_saved sv;
	struct trace t;
	const uint64_t n = 24;
	if (!pt_gate(&c, G_SINGLE))
		return;
	uint64_t ctl = ctl_of(true, false);
	if (!ctl_ok(ctl, &c))
		return;
	pt_save(&sv, &c);
	if (!pt_arm(&t, 4096))
		goto out;
	run_cli(pt_wl, ctl, PATTERN, n);
	pt_collect(&t, "402");
	pt_scan(&t);
	check_status_clean(&t);
	check(!t.wrapped, "4 KiB range did not wrap: offset %llu", (unsigned long long)t.offset);
	check_decoded_clean();
	check_psb_start();
	int pge = find_ev(PTD_TIP_PGE, 0);
	check_eqd("tip.pge packets", count_ev(PTD_TIP_PGE), 1);
	check_ip("tip.pge (next IP of the enabling WRMSR)", pge, A(pt_wl_pge));
	check(pge < 0 || lg.ev[pge].tnt_pos == 0, "TNT bits before tip.pge: %u (expected 0)",
	      pge < 0 ? 0 : lg.ev[pge].tnt_pos);
	int pgd = find_ev(PTD_TIP_PGD, pge);
	check(pgd > 0 && lg.ev[pgd].supp, "tip.pgd after the disabling WRMSR: %s (expected "
	      "IPBytes=0)", pgd < 0 ? "missing" : lg.ev[pgd].supp ? "IP suppressed" : "has an IP");
	check(pgd < 0 || pgd + 1 == (int)lg.nev, "tip.pgd is event %d of %u (expected the last one)",
	      pgd, lg.nev);
	int fup = pgd > 0 ? pgd - 1 : -1;
	if (fup >= 0 && lg.ev[fup].type != PTD_FUP)
		fup = -1;
	check_ip("fup before tip.pgd (the disabling WRMSR)", fup, A(pt_wl_dis));
	check_eqd("tip packets between tip.pge and tip.pgd", count_ev(PTD_TIP), 0);
	if (pge >= 0 && pgd > pge)
		check_bits("loop branches", lg.ev[pge].tnt_pos,
			   lg.ev[pgd].tnt_pos - lg.ev[pge].tnt_pos, PATTERN, n, 0, 2 * n);
	check_eqd("TNT bits after tip.pgd", pgd < 0 ? 0 : lg.nbits - lg.ev[pgd].tnt_pos, 0);
out:
	pt_restore(&sv);
}
EXPERIMENT(402, "pt-single-range", "", "Intel PT, single-range output",
	   "a known loop traced into one 4 KiB range: PSB+, TIP.PGE IP, the exact TNT bits, FUP+TIP.PGD",
	   exp_pt_single_range);

/* ---- 403 ------------------------------------------------------------------ */

/* After a wrap: the bits seen since decoding could start (the first PSB) must
 * be the last bits the loop produced, with FUP(CLIP)+TIP.PGD() at the end. */
static void check_tail(uint64_t pattern, uint64_t n)
{
	uint64_t total = 2 * n;
	int ovf = -1;
	for (int i = 0; i < (int)lg.nev; i++)
		if (lg.ev[i].type == PTD_OVF)
			ovf = i;
	uint32_t from = ovf >= 0 ? lg.ev[ovf].tnt_pos : 0;
	int pgd = find_ev(PTD_TIP_PGD, ovf);
	uint32_t to = pgd >= 0 ? lg.ev[pgd].tnt_pos : lg.nbits;
	if (ovf >= 0)
		diag("OVF at offset %#llx: comparing only the bits after it",
		     (unsigned long long)lg.ev[ovf].off);
	check(to - from > 0 && to - from <= total, "TNT bits after resync: %u (expected 1..%llu)",
	      to - from, (unsigned long long)total);
	if (to - from > 0 && to - from <= total)
		check_bits("tail of the loop's branches", from, to - from, pattern, n,
			   total - (to - from), to - from);
	check(pgd >= 0 && lg.ev[pgd].supp, "tip.pgd at the end: %s (expected IPBytes=0)",
	      pgd < 0 ? "missing" : lg.ev[pgd].supp ? "IP suppressed" : "has an IP");
	int fup = pgd > 0 && lg.ev[pgd - 1].type == PTD_FUP ? pgd - 1 : -1;
	check_ip("fup before tip.pgd", fup, A(pt_wl_dis));
}

static void exp_pt_wrap(void)
{
	struct ptcaps c;
	struct pt_saved sv;
	struct trace t;
	const uint64_t n = 60000;       /* ~120000 TNT bits: about 25 KB of trace */
	if (!pt_gate(&c, G_SINGLE))
		return;
	struct ptctl f = { .trace_en = true, .os = true, .branch_en = true };
	if (c.psb_cyc && (c.psb_freqs & 1))
		f.psb_freq = 0;         /* PSB every 2 KiB of output */
	uint64_t ctl = ptctl_build(&f);
	if (!ctl_ok(ctl, &c))
		return;
	pt_save(&sv, &c);
	if (!pt_arm(&t, 8192))
		goto out;
	run_cli(pt_wl, ctl, PATTERN, n);
	pt_collect(&t, "403");
	pt_scan(&t);
	check_status_clean(&t);
	check(t.wrapped, "8 KiB range wrapped: %s (offset %llu)", t.wrapped ? "yes" : "no",
	      (unsigned long long)t.offset);
	check(lg.start < t.len, "a PSB to resync at in the wrapped range: offset %llu of %zu",
	      (unsigned long long)lg.start, t.len);
	check_decoded_clean();
	check(count_ev(PTD_PSB) >= 1, "psb packets after the wrap: %u (expected >= 1)",
	      count_ev(PTD_PSB));
	check_eqd("tip.pge after the wrap (the enable was overwritten)", count_ev(PTD_TIP_PGE), 0);
	check_tail(PATTERN, n);
out:
	pt_restore(&sv);
}
EXPERIMENT(403, "pt-wrap", "", "Intel PT, single-range output",
	   "a long loop into an 8 KiB range: the range wraps, decoding resyncs at a PSB, the tail is exact",
	   exp_pt_wrap);

/* ---- 404 ------------------------------------------------------------------ */

struct uwl_arg { uint64_t pattern, n; };

static void exp_pt_cpl_filter(void)
{
	struct ptcaps c;
	struct pt_saved sv;
	struct trace t;
	static struct uwl_arg arg = { PATTERN, 20 };
	if (!pt_gate(&c, G_SINGLE))
		return;
	/* DisRETC: the RET out of the workload gives a TIP, not a compressed T bit */
	uint64_t ctl_user = ctl_of(false, true) | RTIT_CTL_DISRETC;
	uint64_t ctl_os = ctl_of(true, false) | RTIT_CTL_DISRETC;
	if (!ctl_ok(ctl_user, &c) || !ctl_ok(ctl_os, &c))
		return;
	pt_save(&sv, &c);

	/* User=1, OS=0: only ring 3 (ContextEn, 32.2.6.3) */
	if (!pt_arm(&t, 16384))
		goto out;
	if (!wrmsr_safe(IA32_RTIT_CTL, ctl_user)) {
		exp_fail("WRMSR IA32_RTIT_CTL=%#llx GP", (unsigned long long)ctl_user);
		goto out;
	}
	run_user(pt_uwl, &arg);
	wrmsr_safe(IA32_RTIT_CTL, ctl_user & ~RTIT_CTL_TRACEEN);
	pt_collect(&t, "404-user");
	pt_scan(&t);
	check_status_clean(&t);
	check_decoded_clean();
	check_psb_start();
	int pge = find_ev(PTD_TIP_PGE, 0);
	check(pge >= 0, "tip.pge on the way to CPL 3: %s (expected found)", pge >= 0 ? "found" : "missing");
	check(pge < 0 || lg.ev[pge].tnt_pos == 0,
	      "TNT bits before the first tip.pge (CPL 0 code): %u (expected 0)",
	      pge < 0 ? 0 : lg.ev[pge].tnt_pos);
	int in = -1;
	for (int i = 0; i < (int)lg.nev && in < 0; i++)
		if ((lg.ev[i].type == PTD_TIP || lg.ev[i].type == PTD_TIP_PGE) &&
		    !lg.ev[i].supp && lg.ev[i].ip == A(pt_uwl))
			in = i;
	check_ip("tip into the ring-3 workload", in, A(pt_uwl));
	int ret = in >= 0 ? find_ev(PTD_TIP, in + 1) : -1;
	check(ret > in && in >= 0, "tip of the workload's RET (DisRETC=1): %s (expected found)",
	      ret > in && in >= 0 ? "found" : "missing");
	if (in >= 0 && ret > in)
		check_bits("ring-3 loop branches", lg.ev[in].tnt_pos,
			   lg.ev[ret].tnt_pos - lg.ev[in].tnt_pos, arg.pattern, arg.n, 0, 2 * arg.n);
	int pgd = find_ev(PTD_TIP_PGD, in);
	check(pgd > in && lg.ev[pgd].supp, "tip.pgd on the return to CPL 0: %s (expected IPBytes=0)",
	      pgd < 0 ? "missing" : lg.ev[pgd].supp ? "IP suppressed" : "has an IP");

	/* OS=1, User=0: the ring-3 workload must be invisible */
	if (!pt_arm(&t, 65536))
		goto out;
	if (!wrmsr_safe(IA32_RTIT_CTL, ctl_os)) {
		exp_fail("WRMSR IA32_RTIT_CTL=%#llx GP", (unsigned long long)ctl_os);
		goto out;
	}
	run_user(pt_uwl, &arg);
	wrmsr_safe(IA32_RTIT_CTL, ctl_os & ~RTIT_CTL_TRACEEN);
	pt_collect(&t, "404-os");
	pt_scan(&t);
	check_status_clean(&t);
	check_decoded_clean();
	unsigned inside = 0;
	for (unsigned i = 0; i < lg.nev; i++)
		if (ptd_is_ip_packet(lg.ev[i].type) && !lg.ev[i].supp &&
		    lg.ev[i].ip >= A(pt_uwl) && lg.ev[i].ip < A(pt_uwl_end))
			inside++;
	check_eqd("OS only: IP packets inside the ring-3 workload", inside, 0);
	int pgd_os = find_ev(PTD_TIP_PGD, 0);
	check(pgd_os >= 0 && lg.ev[pgd_os].supp,
	      "OS only: tip.pgd entering CPL 3: %s (expected IPBytes=0)",
	      pgd_os < 0 ? "missing" : lg.ev[pgd_os].supp ? "IP suppressed" : "has an IP");
	int back = find_ev(PTD_TIP_PGE, pgd_os);
	check(back > pgd_os, "OS only: tip.pge back at CPL 0: %s (expected found)", back > pgd_os ? "found" : "missing");
out:
	pt_restore(&sv);
}
EXPERIMENT(404, "pt-cpl-filter", "", "Intel PT, single-range output, ring 3",
	   "User=1/OS=0 traces only the ring-3 loop (exact TNT bits); OS=1/User=0 hides it",
	   exp_pt_cpl_filter);

/* ---- 405 ------------------------------------------------------------------ */

static void exp_pt_ip_filter(void)
{
	struct ptcaps c;
	struct pt_saved sv;
	struct trace t;
	const uint64_t n = 16;
	if (!pt_gate(&c, G_SINGLE | G_IPFILT))
		return;
	uint64_t ctl = ctl_of(true, false) |
		       ((uint64_t)RTIT_ADDR_CFG_FILTER << RTIT_CTL_ADDR_CFG_SHIFT(0));
	if (!ctl_ok(ctl, &c))
		return;
	pt_save(&sv, &c);
	if (!pt_arm(&t, 4096))
		goto out;
	/* The range is inclusive: [first byte of the loop, first byte of the JMP out] */
	if (!wrmsr_safe(IA32_RTIT_ADDR0_A, A(pt_wlf_in)) ||
	    !wrmsr_safe(IA32_RTIT_ADDR0_B, A(pt_wlf_last))) {
		exp_fail("WRMSR IA32_RTIT_ADDR0_A/B GP");
		goto out;
	}
	diag("ADDR0 = [%#llx, %#llx], ADDR0_CFG=1 (FilterEn)", (unsigned long long)A(pt_wlf_in),
	     (unsigned long long)A(pt_wlf_last));
	run_cli(pt_wlf, ctl, PATTERN, n);
	pt_collect(&t, "405");
	pt_scan(&t);
	check_status_clean(&t);
	check_decoded_clean();
	check_psb_start();
	check_eqd("tip.pge packets", count_ev(PTD_TIP_PGE), 1);
	int pge = find_ev(PTD_TIP_PGE, 0);
	check_ip("tip.pge (target of the JMP into the range)", pge, A(pt_wlf_in));
	check(pge < 0 || lg.ev[pge].tnt_pos == 0, "TNT bits before tip.pge: %u (expected 0)",
	      pge < 0 ? 0 : lg.ev[pge].tnt_pos);
	int pgd = find_ev(PTD_TIP_PGD, pge);
	/* 32.2.6.5: leaving by a direct unconditional branch: PGD carries its target */
	check_ip("tip.pgd (target of the JMP out of the range)", pgd, A(pt_wlf_out));
	if (pge >= 0 && pgd > pge)
		check_bits("in-range loop branches", lg.ev[pge].tnt_pos,
			   lg.ev[pgd].tnt_pos - lg.ev[pge].tnt_pos, PATTERN, n, 0, 2 * n);
	check_eqd("TNT bits after tip.pgd (outside the range)",
		  pgd < 0 ? 0 : lg.nbits - lg.ev[pgd].tnt_pos, 0);
	check_eqd("fup packets (disable with PacketEn=0 makes none)", count_ev(PTD_FUP), 0);
out:
	pt_restore(&sv);
}
EXPERIMENT(405, "pt-ip-filter", "", "Intel PT, single-range output, IP filtering",
	   "ADDR0_CFG=1 around the loop: TIP.PGE/TIP.PGD at the range edges, only the loop's TNT bits",
	   exp_pt_ip_filter);

/* ---- 406 ------------------------------------------------------------------ */

static void exp_pt_tracestop(void)
{
	struct ptcaps c;
	struct pt_saved sv;
	struct trace t;
	const uint64_t n = 12;
	if (!pt_gate(&c, G_SINGLE | G_IPFILT))
		return;
	uint64_t ctl = ctl_of(true, false) |
		       ((uint64_t)RTIT_ADDR_CFG_STOP << RTIT_CTL_ADDR_CFG_SHIFT(0));
	if (!ctl_ok(ctl, &c))
		return;
	pt_save(&sv, &c);
	if (!pt_arm(&t, 4096))
		goto out;
	if (!wrmsr_safe(IA32_RTIT_ADDR0_A, A(pt_wls_stop)) ||
	    !wrmsr_safe(IA32_RTIT_ADDR0_B, A(pt_wls_stop_end))) {
		exp_fail("WRMSR IA32_RTIT_ADDR0_A/B GP");
		goto out;
	}
	static uint64_t live[2];
	live[0] = live[1] = ~0ULL;
	uint64_t fl = read_rflags();
	cli();
	pt_wls(ctl, PATTERN, n, live);
	if (fl & RFLAGS_IF)
		sti();
	pt_collect(&t, "406");
	pt_scan(&t);
	struct ptstatus s, before, after;
	ptstatus_parse(t.status, &s);
	ptstatus_parse(live[0], &before);
	ptstatus_parse(live[1], &after);
	diag("IA32_RTIT_STATUS while tracing 0x%llx, after the JMP into the TraceStop range 0x%llx",
	     (unsigned long long)live[0], (unsigned long long)live[1]);
	/* 32.2.5.3 TraceStop: a branch into the range sets STATUS.Stopped, which
	 * clears TriggerEn (TriggerEn = TraceEn && !Stopped, 32.2.8.3): read it
	 * while TraceEn is still 1, before and after; after TraceEn=0 it is 0
	 * whatever happened.  TIP.PGD(target) then a TraceStop packet. */
	check(before.trigger_en && !before.stopped, "STATUS before the stop: TriggerEn=%d Stopped=%d "
	      "(expected 1, 0)", before.trigger_en, before.stopped);
	check(after.stopped && !after.trigger_en, "STATUS after the stop, TraceEn=1: Stopped=%d TriggerEn=%d "
	      "(expected 1, 0)", after.stopped, after.trigger_en);
	check(s.stopped, "IA32_RTIT_STATUS.Stopped=%d after TraceEn=0 (expected 1: sticky)", s.stopped);
	check(!s.error, "IA32_RTIT_STATUS.Error=%d (expected 0)", s.error);
	check_decoded_clean();
	check_psb_start();
	int pge = find_ev(PTD_TIP_PGE, 0);
	check_ip("tip.pge", pge, A(pt_wls_pge));
	int pgd = find_ev(PTD_TIP_PGD, pge);
	check_ip("tip.pgd (target of the JMP into the TraceStop range)", pgd, A(pt_wls_stop));
	int stop = find_ev(PTD_STOP, pgd);
	check(stop > pgd && pgd >= 0, "stop packet after tip.pgd: %s (expected found)",
	      stop > pgd && pgd >= 0 ? "found" : "missing");
	if (pge >= 0 && pgd > pge)
		check_bits("loop branches", lg.ev[pge].tnt_pos,
			   lg.ev[pgd].tnt_pos - lg.ev[pge].tnt_pos, PATTERN, n, 0, 2 * n);
	check_eqd("fup packets (tracing already stopped at the disabling WRMSR)",
		  count_ev(PTD_FUP), 0);
	/* Resuming needs TraceEn=0 then Stopped cleared by software. */
	bool w = wrmsr_safe(IA32_RTIT_STATUS, 0);
	uint64_t st = ~0ULL;
	rdmsr_safe(IA32_RTIT_STATUS, &st);
	check(w && !(st & RTIT_STATUS_STOPPED), "WRMSR STATUS=0 with TraceEn=0 clears Stopped: "
	      "%s, STATUS=%#llx", w ? "ok" : "GP", (unsigned long long)st);
out:
	pt_restore(&sv);
}
EXPERIMENT(406, "pt-tracestop", "", "Intel PT, single-range output, IP filtering",
	   "ADDR0_CFG=2: a JMP into the range sets Stopped, TIP.PGD(target) then a TraceStop packet",
	   exp_pt_tracestop);

/* ---- 407 ------------------------------------------------------------------ */

static void exp_pt_cr3_filter(void)
{
	struct ptcaps c;
	struct pt_saved sv;
	struct trace t;
	const uint64_t n = 10;
	if (!pt_gate(&c, G_SINGLE | G_CR3))
		return;
	uint64_t ctl = ctl_of(true, false) | RTIT_CTL_CR3FILTER;
	if (!ctl_ok(ctl, &c))
		return;
	pt_save(&sv, &c);
	/* IA32_RTIT_CR3_MATCH[4:0] are reserved; in 4-level paging CR3[63:12] is
	 * compared (32.2.5.2) */
	uint64_t cr3 = read_cr3() & ~0x1fULL;
	for (int run = 0; run < 2; run++) {
		uint64_t match = run == 0 ? cr3 : cr3 ^ 0x1000;
		if (!pt_arm(&t, 4096))
			goto out;
		if (!wrmsr_safe(IA32_RTIT_CR3_MATCH, match)) {
			exp_fail("WRMSR IA32_RTIT_CR3_MATCH=%#llx GP", (unsigned long long)match);
			goto out;
		}
		diag("CR3=%#llx CR3_MATCH=%#llx", (unsigned long long)cr3, (unsigned long long)match);
		run_cli(pt_wl, ctl, PATTERN, n);
		pt_collect(&t, run == 0 ? "407-match" : "407-nomatch");
		pt_scan(&t);
		check_status_clean(&t);
		check_decoded_clean();
		check_psb_start();
		if (run == 0) {
			int pge = find_ev(PTD_TIP_PGE, 0);
			check_ip("CR3 matches: tip.pge", pge, A(pt_wl_pge));
			int pgd = find_ev(PTD_TIP_PGD, pge);
			check(pgd > pge && pge >= 0, "CR3 matches: tip.pgd %s (expected found)",
			      pgd > pge && pge >= 0 ? "found" : "missing");
			if (pge >= 0 && pgd > pge)
				check_bits("CR3 matches: loop branches", lg.ev[pge].tnt_pos,
					   lg.ev[pgd].tnt_pos - lg.ev[pge].tnt_pos, PATTERN, n, 0, 2 * n);
		} else {
			/* ContextEn=0: no control-flow packet at all (32.2.6.3) */
			check_eqd("CR3 differs: TNT bits", lg.nbits, 0);
			check_eqd("CR3 differs: tip.pge", count_ev(PTD_TIP_PGE), 0);
			check_eqd("CR3 differs: tip.pgd", count_ev(PTD_TIP_PGD), 0);
			check_eqd("CR3 differs: fup", count_ev(PTD_FUP), 0);
			check(!(t.status & RTIT_STATUS_CONTEXTEN),
			      "CR3 differs: STATUS.ContextEn=%d (expected 0)",
			      !!(t.status & RTIT_STATUS_CONTEXTEN));
		}
	}
out:
	pt_restore(&sv);
}
EXPERIMENT(407, "pt-cr3-filter", "", "Intel PT, single-range output, CR3 filtering",
	   "CR3Filter=1: CR3_MATCH=CR3 traces the loop exactly; another value traces nothing",
	   exp_pt_cr3_filter);

/* ---- 408 ------------------------------------------------------------------ */

/* Program BASE/MASK_PTRS, set TraceEn, see whether the CPU objects: #GP on a
 * WRMSR, or an operational error (STATUS.Error, 32.3.10). */
static void bad_range(const char *what, uint64_t base, uint64_t mask_ptrs, uint64_t ctl,
		      enum ptrange_err want)
{
	/* tracelab's own validator, not the hardware: a disagreement is a set-up
	 * bug, not a result, so it fails the experiment without a PASS line */
	enum ptrange_err e = ptrange_check(base, mask_ptrs, maxphyaddr());
	if (e != want)
		exp_fail("%s: tracelab's ptrange_check says %s (expected %s)", what,
			 ptrange_err_name(e), ptrange_err_name(want));
	wrmsr_safe(IA32_RTIT_CTL, 0);
	wrmsr_safe(IA32_RTIT_STATUS, 0);
	const char *how = NULL;
	if (!wrmsr_safe(IA32_RTIT_OUTPUT_BASE, base))
		how = "GP on WRMSR OUTPUT_BASE";
	else if (!wrmsr_safe(IA32_RTIT_OUTPUT_MASK_PTRS, mask_ptrs))
		how = "GP on WRMSR OUTPUT_MASK_PTRS";
	else if (!wrmsr_safe(IA32_RTIT_CTL, ctl))
		how = "GP on WRMSR CTL.TraceEn=1";
	else {
		wrmsr_safe(IA32_RTIT_CTL, ctl & ~RTIT_CTL_TRACEEN);
		uint64_t st = 0;
		rdmsr_safe(IA32_RTIT_STATUS, &st);
		if (st & RTIT_STATUS_ERROR)
			how = "IA32_RTIT_STATUS.Error=1";
		else
			diag("%s: STATUS=%#llx after enable/disable", what, (unsigned long long)st);
	}
	check(how != NULL, "%s (BASE=%#llx MASK_PTRS=%#llx): %s (expected GP or STATUS.Error)",
	      what, (unsigned long long)base, (unsigned long long)mask_ptrs,
	      how ? how : "not detected");
	wrmsr_safe(IA32_RTIT_CTL, 0);
	wrmsr_safe(IA32_RTIT_STATUS, 0);
}

static void exp_pt_config_errors(void)
{
	struct ptcaps c;
	struct pt_saved sv;
	struct trace t;
	if (!pt_gate(&c, G_SINGLE))
		return;
	uint64_t ctl = ctl_of(true, false);
	if (!ctl_ok(ctl, &c))
		return;
	pt_save(&sv, &c);
	/* 8 KiB aligned: should the CPU not flag an error, every store the bad
	 * settings could address still lands inside this buffer. */
	if (!pt_arm(&t, 8192))
		goto out;
	uint64_t b = A(t.buf);
	bad_range("mask non-contiguous (bit 7 clear below bit 11)", b, 0xf7f, ctl,
		  PTRANGE_ERR_MASK_NONCONTIG);
	bad_range("base overlaps the mask (base+0x100, 4 KiB mask)", b + 0x100, 0xfff, ctl,
		  PTRANGE_ERR_BASE_MISALIGNED);
	bad_range("offset beyond the mask (offset == size)", b, (0x1000ULL << 32) | 0xfff, ctl,
		  PTRANGE_ERR_OFFSET_BEYOND_MASK);
	/* Reserved OUTPUT_BASE bits must #GP at the WRMSR; never enable with them. */
	unsigned mp = maxphyaddr();
	static const struct { const char *what; int shift; enum ptrange_err e; } rsv[] = {
		{ "base beyond MAXPHYADDR", -1, PTRANGE_ERR_BASE_MAXPHYADDR },
		{ "base bits 6:0 set", 6, PTRANGE_ERR_BASE_RESERVED },
	};
	for (unsigned i = 0; i < 2; i++) {
		uint64_t bad = rsv[i].shift < 0 ? (mp < 64 ? b | (1ULL << mp) : b) : b | (1ULL << rsv[i].shift);
		if (rsv[i].shift < 0 && mp >= 64)
			continue;
		enum ptrange_err e = ptrange_check(bad, 0xfff, mp);
		if (e != rsv[i].e)
			exp_fail("%s: tracelab's ptrange_check says %s (expected %s)", rsv[i].what,
				 ptrange_err_name(e), ptrange_err_name(rsv[i].e));
		wrmsr_safe(IA32_RTIT_CTL, 0);
		bool ok = wrmsr_safe(IA32_RTIT_OUTPUT_BASE, bad);
		check(!ok, "%s: WRMSR OUTPUT_BASE=%#llx %s (expected GP)", rsv[i].what,
		      (unsigned long long)bad, ok ? "accepted" : "GP");
		wrmsr_safe(IA32_RTIT_OUTPUT_BASE, t.base_msr);
	}
	/* 32.2.8.1: with TraceEn=1, WRMSR to any configuration MSR #GPs, except
	 * writing IA32_RTIT_CTL with its current value. */
	wrmsr_safe(IA32_RTIT_STATUS, 0);
	wrmsr_safe(IA32_RTIT_OUTPUT_BASE, t.base_msr);
	wrmsr_safe(IA32_RTIT_OUTPUT_MASK_PTRS, t.mask_msr);
	if (!wrmsr_safe(IA32_RTIT_CTL, ctl)) {
		check(false, "valid configuration: WRMSR CTL=%#llx GP", (unsigned long long)ctl);
		goto out;
	}
	bool g_base = !wrmsr_safe(IA32_RTIT_OUTPUT_BASE, t.base_msr);
	bool g_mask = !wrmsr_safe(IA32_RTIT_OUTPUT_MASK_PTRS, t.mask_msr);
	bool g_stat = !wrmsr_safe(IA32_RTIT_STATUS, 0);
	bool g_ctl = !wrmsr_safe(IA32_RTIT_CTL, ctl ^ RTIT_CTL_DISRETC);
	bool g_same = !wrmsr_safe(IA32_RTIT_CTL, ctl);
	bool g_addr = false, g_cr3 = false;
	uint64_t a0 = 0;
	if (c.ip_filter && c.nranges) {
		rdmsr_safe(IA32_RTIT_ADDR0_A, &a0);
		g_addr = !wrmsr_safe(IA32_RTIT_ADDR0_A, a0);
	}
	if (c.cr3_filter)
		g_cr3 = !wrmsr_safe(IA32_RTIT_CR3_MATCH, sv.have_cr3 ? sv.cr3 : 0);
	bool g_off = !wrmsr_safe(IA32_RTIT_CTL, ctl & ~RTIT_CTL_TRACEEN);
	check(g_base, "TraceEn=1: WRMSR OUTPUT_BASE %s (expected GP)", g_base ? "GP" : "accepted");
	check(g_mask, "TraceEn=1: WRMSR OUTPUT_MASK_PTRS %s (expected GP)", g_mask ? "GP" : "accepted");
	check(g_stat, "TraceEn=1: WRMSR STATUS %s (expected GP)", g_stat ? "GP" : "accepted");
	check(g_ctl, "TraceEn=1: WRMSR CTL changing DisRETC %s (expected GP)",
	      g_ctl ? "GP" : "accepted");
	check(!g_same, "TraceEn=1: WRMSR CTL with the same value %s (expected accepted)",
	      g_same ? "GP" : "accepted");
	if (c.ip_filter && c.nranges)
		check(g_addr, "TraceEn=1: WRMSR ADDR0_A %s (expected GP)", g_addr ? "GP" : "accepted");
	if (c.cr3_filter)
		check(g_cr3, "TraceEn=1: WRMSR CR3_MATCH %s (expected GP)", g_cr3 ? "GP" : "accepted");
	check(!g_off, "WRMSR CTL clearing TraceEn %s (expected accepted)", g_off ? "GP" : "accepted");
	if (g_off)
		wrmsr_safe(IA32_RTIT_CTL, 0);
	pt_collect(&t, "408");
out:
	pt_restore(&sv);
}
EXPERIMENT(408, "pt-config-errors", "", "Intel PT, single-range output",
	   "each single-range error condition and WRMSR with TraceEn=1: caught (GP / STATUS.Error), not fatal",
	   exp_pt_config_errors);

/* ---- 409 ------------------------------------------------------------------ */

static void exp_pt_cost(void)
{
	struct ptcaps c;
	struct pt_saved sv;
	struct trace t;
	const uint64_t n = 400000;      /* ~135 KB of trace: wraps 64 KiB twice */
	if (!pt_gate(&c, G_SINGLE))
		return;
	uint64_t ctl = ctl_of(true, false);
	if (!ctl_ok(ctl, &c))
		return;
	pt_save(&sv, &c);
	if (!pt_arm(&t, 65536))
		goto out;
	uint64_t best_off = ~0ULL, best_on = ~0ULL;
	for (int rep = 0; rep < 3; rep++) {
		uint64_t t0 = rdtsc();
		run_cli(pt_wl, ctl & ~RTIT_CTL_TRACEEN, PATTERN, n);
		uint64_t t1 = rdtsc();
		wrmsr_safe(IA32_RTIT_STATUS, 0);
		wrmsr_safe(IA32_RTIT_OUTPUT_MASK_PTRS, t.mask_msr);
		uint64_t t2 = rdtsc();
		run_cli(pt_wl, ctl, PATTERN, n);
		uint64_t t3 = rdtsc();
		if (t1 - t0 < best_off)
			best_off = t1 - t0;
		if (t3 - t2 < best_on)
			best_on = t3 - t2;
	}
	pt_collect(&t, "409");
	pt_scan(&t);
	uint64_t ratio100 = best_off ? best_on * 100 / best_off : 0;
	diag("%llu loop iterations (%llu conditional branches): %llu TSC cycles without PT, "
	     "%llu with PT, ratio %llu.%02llu", (unsigned long long)n, (unsigned long long)(2 * n),
	     (unsigned long long)best_off, (unsigned long long)best_on,
	     (unsigned long long)(ratio100 / 100), (unsigned long long)(ratio100 % 100));
	diag("OVF packets in the last 64 KiB: %u", lg.novf);
	check_status_clean(&t);
	check(t.wrapped, "%llu TNT bits overflowed the 64 KiB range: wrapped=%d",
	      (unsigned long long)(2 * n), t.wrapped);
	check_decoded_clean();
	check_tail(PATTERN, n);
out:
	pt_restore(&sv);
}
EXPERIMENT(409, "pt-cost", "", "Intel PT, single-range output",
	   "TSC cycles of an 800000-branch loop with and without PT; the traced tail is exact",
	   exp_pt_cost);
