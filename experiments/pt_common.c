/* What the 4xx Intel PT experiments share (SDM vol.3 chapter 32): the workloads, the
 * feature gate, RTIT MSR save/restore, one single-range trace, its decoding and the
 * checks every scenario uses.  The scenarios themselves are in experiments/pt.c.
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
#include "pt_decode.h"
#include "pt_range.h"
#include "pt_common.h"
#include "trap.h"
#include "user.h"
#include "x86.h"


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



/* Bit j (0 = oldest) of the TNT sequence the loop produces in n iterations. */
bool pt_loop_bit(uint64_t pattern, uint64_t n, uint64_t j)
{
	uint64_t i = j / 2;
	return (j & 1) ? i + 1 < n : (pattern >> (i % 64)) & 1;
}

/* ---- feature gate, save / restore ------------------------------------------ */


unsigned pt_maxphyaddr(void)
{
	if (cpu.max_ext_leaf >= 0x80000008)
		return cpuid(0x80000008, 0).eax & 0xff;
	return 36;
}

bool pt_gate(struct ptcaps *caps, unsigned need)
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


void pt_save(struct pt_saved *s, const struct ptcaps *c)
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
void pt_restore(const struct pt_saved *s)
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



/* Allocate and program the output range; CTL is left at 0 (TraceEn=0). */
bool pt_arm(struct trace *t, uint64_t size)
{
	t->size = size;
	t->buf = exp_alloc(size, ptrange_alignment(size));
	t->lin = exp_alloc(size, 4096);
	if (!t->buf || !t->lin) {
		exp_fail("exp_alloc(%llu) failed", (unsigned long long)size);
		return false;
	}
	for (uint64_t i = 0; i < size; i++)
		t->buf[i] = CANARY;
	enum ptrange_err e = ptrange_setup(A(t->buf), size, 0, pt_maxphyaddr(),
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
void pt_collect(struct trace *t, const char *name)
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

struct pt_log pt_lg;
static uint8_t tnt_bits[MAX_BITS / 8];

static bool bit_at(uint32_t i) { return tnt_bits[i / 8] >> (i % 8) & 1; }

void pt_scan(const struct trace *t)
{
	struct ptd_decoder d;
	struct ptd_packet p;
	int r;
	pt_lg.nev = pt_lg.nerr = pt_lg.npkt = pt_lg.novf = 0;
	pt_lg.nbits = 0;
	ptd_init(&d, t->lin, t->len);
	if (t->wrapped)         /* the oldest bytes are a cut packet: start at a PSB */
		ptd_sync_forward(&d);
	pt_lg.start = d.pos;
	while ((r = ptd_next(&d, &p)) != PTD_EOS) {
		if (r != PTD_OK) {
			if (!pt_lg.nerr++)
				pt_lg.first_err = p.offset;
			continue;
		}
		pt_lg.npkt++;
		if (p.type == PTD_TNT8 || p.type == PTD_TNT64) {
			for (unsigned i = 0; i < p.u.tnt.count && pt_lg.nbits < MAX_BITS; i++, pt_lg.nbits++) {
				if (ptd_tnt_taken(&p, i))
					tnt_bits[pt_lg.nbits / 8] |= (uint8_t)(1u << (pt_lg.nbits % 8));
				else
					tnt_bits[pt_lg.nbits / 8] &= (uint8_t)~(1u << (pt_lg.nbits % 8));
			}
			continue;
		}
		if (p.type == PTD_OVF)
			pt_lg.novf++;
		switch (p.type) {
		case PTD_PSB: case PTD_PSBEND: case PTD_TIP: case PTD_TIP_PGE:
		case PTD_TIP_PGD: case PTD_FUP: case PTD_STOP: case PTD_OVF:
			break;
		default:
			continue;
		}
		if (pt_lg.nev == MAX_EV)
			pt_lg.nev--;       /* keep the last event in the last slot */
		struct ev *e = &pt_lg.ev[pt_lg.nev++];
		e->type = p.type;
		e->off = p.offset;
		e->tnt_pos = pt_lg.nbits;
		e->supp = ptd_is_ip_packet(p.type) && p.u.ip.suppressed;
		e->ip = ptd_is_ip_packet(p.type) ? p.u.ip.ip : 0;
	}
	vdiag("decoded %u packets, %u TNT bits, %u events, %u errors", pt_lg.npkt, pt_lg.nbits,
	      pt_lg.nev, pt_lg.nerr);
}

int pt_find_ev(enum ptd_type type, int from)
{
	for (int i = from < 0 ? 0 : from; i < (int)pt_lg.nev; i++)
		if (pt_lg.ev[i].type == type)
			return i;
	return -1;
}

unsigned pt_count_ev(enum ptd_type type)
{
	unsigned n = 0;
	for (unsigned i = 0; i < pt_lg.nev; i++)
		n += pt_lg.ev[i].type == type;
	return n;
}

/* Observed bits [from, from+n) against the loop's bits [efrom, efrom+n). */
void pt_check_bits(const char *what, uint32_t from, uint32_t n, uint64_t pattern,
		       uint64_t iters, uint64_t efrom, uint64_t expected_n)
{
	char obs[41], exp[41];
	uint32_t bad = n;
	for (uint32_t i = 0; i < n && i < expected_n; i++)
		if (bit_at(from + i) != pt_loop_bit(pattern, iters, efrom + i)) {
			bad = i;
			break;
		}
	for (unsigned i = 0; i < 40; i++) {
		obs[i] = i < n ? (bit_at(from + i) ? 'T' : 'N') : 0;
		exp[i] = i < expected_n ? (pt_loop_bit(pattern, iters, efrom + i) ? 'T' : 'N') : 0;
	}
	obs[40] = exp[40] = 0;
	bool same = n == expected_n && bad == n;
	check(same, "%s: %u TNT bits %s%s, first differing bit %d (-1: none) (expected %llu: %s%s)",
	      what, n, obs, n > 40 ? "..." : "", same ? -1 : (int)bad,
	      (unsigned long long)expected_n, exp, expected_n > 40 ? "..." : "");
}

void pt_check_ip(const char *what, int i, uint64_t expected)
{
	if (i < 0) {
		check(false, "%s: packet missing (expected IP %#llx)", what,
		      (unsigned long long)expected);
		return;
	}
	if (pt_lg.ev[i].supp)
		check(false, "%s at 0x%llx: IP suppressed (expected %#llx)", what,
		      (unsigned long long)pt_lg.ev[i].off, (unsigned long long)expected);
	else
		check(pt_lg.ev[i].ip == expected, "%s at 0x%llx: IP %#llx (expected %#llx)", what,
		      (unsigned long long)pt_lg.ev[i].off, (unsigned long long)pt_lg.ev[i].ip,
		      (unsigned long long)expected);
}

void pt_check_status_clean(const struct trace *t)
{
	struct ptstatus s;
	ptstatus_parse(t->status, &s);
	check(!s.error, "IA32_RTIT_STATUS.Error=%d (expected 0)", s.error);
	check(!s.stopped, "IA32_RTIT_STATUS.Stopped=%d (expected 0)", s.stopped);
}

void pt_check_decoded_clean(void)
{
	check(pt_lg.nerr == 0, "decode errors: %u (expected 0)%s", pt_lg.nerr,
	      pt_lg.nerr ? " (see the first one in the dump)" : "");
	if (pt_lg.nerr)
		diag("first decode error at offset %#llx", (unsigned long long)pt_lg.first_err);
}

/* The start of a trace whose enable was 0 -> 1 with PacketByteCnt=0. */
void pt_check_psb_start(void)
{
	int psb = pt_find_ev(PTD_PSB, 0);
	check(psb == 0 && pt_lg.ev[0].off == 0, "first packet: %s at offset %llu (expected psb at 0)",
	      pt_lg.nev ? ptd_type_name(pt_lg.ev[0].type) : "none",
	      (unsigned long long)(pt_lg.nev ? pt_lg.ev[0].off : 0));
	int end = pt_find_ev(PTD_PSBEND, psb);
	check(end > psb, "psbend after the first psb: %s (expected found)", end > psb ? "found" : "missing");
}

uint64_t pt_ctl_of(bool os, bool user)
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

void pt_run_cli(void (*wl)(uint64_t, uint64_t, uint64_t), uint64_t ctl, uint64_t pat,
		    uint64_t n)
{
	uint64_t fl = read_rflags();
	cli();
	wl(ctl, pat, n);
	if (fl & RFLAGS_IF)
		sti();
}

/* ---- checks the scenarios share -------------------------------------------- */

void pt_check_loop_between(const char *what, int pge, int pgd, uint64_t pattern, uint64_t n)
{
	if (pge >= 0 && pgd > pge)
		pt_check_bits(what, pt_lg.ev[pge].tnt_pos, pt_lg.ev[pgd].tnt_pos - pt_lg.ev[pge].tnt_pos,
			      pattern, n, 0, 2 * n);
}

void pt_check_tail(uint64_t pattern, uint64_t n)
{
	uint64_t total = 2 * n;
	int ovf = -1;
	for (int i = 0; i < (int)pt_lg.nev; i++)
		if (pt_lg.ev[i].type == PTD_OVF)
			ovf = i;
	uint32_t from = ovf >= 0 ? pt_lg.ev[ovf].tnt_pos : 0;
	int pgd = pt_find_ev(PTD_TIP_PGD, ovf);
	uint32_t to = pgd >= 0 ? pt_lg.ev[pgd].tnt_pos : pt_lg.nbits;
	if (ovf >= 0)
		diag("OVF at offset %#llx: comparing only the bits after it",
		     (unsigned long long)pt_lg.ev[ovf].off);
	check(to - from > 0 && to - from <= total, "TNT bits after resync: %u (expected 1..%llu)",
	      to - from, (unsigned long long)total);
	if (to - from > 0 && to - from <= total)
		pt_check_bits("tail of the loop's branches", from, to - from, pattern, n,
			      total - (to - from), to - from);
	check(pgd >= 0 && pt_lg.ev[pgd].supp, "tip.pgd at the end: %s (expected IPBytes=0)",
	      pgd < 0 ? "missing" : pt_lg.ev[pgd].supp ? "IP suppressed" : "has an IP");
	int fup = pgd > 0 && pt_lg.ev[pgd - 1].type == PTD_FUP ? pgd - 1 : -1;
	pt_check_ip("fup before tip.pgd", fup, A(pt_wl_dis));
}

/* ---- the shared setup -------------------------------------------------------- */

void pt_scenario(unsigned need, pt_ctl_fn ctls, void (*scenario)(struct pt_exp *x))
{
	struct pt_exp x = { 0 };
	uint64_t ctl[2] = { 0, 0 };
	if (!pt_gate(&x.c, need))
		return;
	ctls(&x.c, ctl);
	if (!ctl_ok(ctl[0], &x.c) || (ctl[1] && !ctl_ok(ctl[1], &x.c)))
		return;
	x.ctl = ctl[0];
	x.ctl2 = ctl[1];
	pt_save(&x.sv, &x.c);
	scenario(&x);
	pt_restore(&x.sv);
}

bool pt_trace(struct pt_exp *x, const char *name, uint64_t size,
	      bool (*run)(struct pt_exp *x, const void *arg), const void *arg)
{
	if (!pt_arm(&x->t, size) || !run(x, arg))
		return false;
	pt_collect(&x->t, name);
	pt_scan(&x->t);
	return true;
}
