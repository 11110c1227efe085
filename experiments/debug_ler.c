/* 155 ler, 156 btm-no-bts: the two DEBUGCTL facilities of the seed's sections 5.4
 * and 5.8.2 not built before: the last-exception record and branch trace messages. */
#include "cpu.h"
#include "cr.h"
#include "debug_common.h"
#include "debug_seq.h"
#include "experiment.h"
#include "msr.h"
#include "ds_area.h"
#include "x86.h"

extern char trap_entries[];

static uint64_t canon48(uint64_t v)
{
	v &= (1ULL << 48) - 1;
	return (v & (1ULL << 47)) ? v | ~((1ULL << 48) - 1) : v;
}

/* ---- 155 last-exception record --------------------------------------------------
 * With DEBUGCTL.LBR on, the processor records the last exception or interrupt taken:
 * Intel MSR_LER_FROM_LIP (1DDH) / MSR_LER_TO_LIP (1DEH) (SDM vol.3 18.4.8.1 and the
 * per-family LBR sections), AMD LastExceptionFromIP / LastExceptionToIP (1DDH/1DEH,
 * APM vol.2 13.1.1.4).  A DIV by zero with LBR on: FROM = the DIV (where the #DE was
 * taken), TO = the first instruction of the #DE handler.  Gated like 113: where the
 * CPU claims LBR, a DEBUGCTL.LBR that does not stick is a FAIL. */
static void exp_ler(void)
{
	const char *why = 0;

	if (!dbg_lbr_claimed(&why)) {
		exp_skip("%s", why);
		return;
	}
	if (!dbg_lbr_sticks())
		return;
	uint64_t flags = read_rflags();
	dbg_begin(0);
	dbg_catch(0, dq_xf_2);
	cli();          /* an interrupt would be the last event instead */
	wrmsr(IA32_DEBUGCTL, DEBUGCTL_LBR);
	dq_xf();
	wrmsr(IA32_DEBUGCTL, 0);
	uint64_t from = 0, to = 0;
	bool ok = rdmsr_safe(MSR_LER_FROM_LIP, &from) && rdmsr_safe(MSR_LER_TO_LIP, &to);
	write_rflags(flags);
	dbg_check_count("DE taken with LBR on", 1);
	if (!check(ok, "RDMSR 1DDH/1DEH (last exception from/to) without GP"))
		return;
	check_eq("last exception FROM: the faulting DIV", canon48(from), (uint64_t)(uintptr_t)dq_xf_1);
	check_eq("last exception TO: the DE handler entry", canon48(to), (uint64_t)(uintptr_t)trap_entries);
}
EXPERIMENT(155, "ler", "", "LBR (Intel LER MSRs, AMD LastException MSRs)",
	   "last-exception record after a DE with LBR on: FROM the DIV, TO the handler entry",
	   exp_ler);

/* ---- 156 branch trace messages without BTS -------------------------------------------------
 * SDM vol.3 18.4.5/18.4.6 (17.4.5): DEBUGCTL.TR[6]=1 sends branch trace messages to
 * the system bus; only with BTS[7]=1 as well are they stored in the BTS buffer.  With
 * TR=1, BTS=0 and a valid DS area, taken branches leave the BTS index at its base. */
extern void dbg_lbr_run(uint32_t msr, uint64_t on, uint64_t off);

static void exp_btm(void)
{
	const char *why = ds_bts_unavailable();
	struct ds_area d;

	if (why) {
		exp_skip("%s", why);
		return;
	}
	if (ds_create(&d, 64, 64 + 1, 0, 0, 0)) {         /* threshold records + 1: circular, no PMI */
		exp_fail("DS area could not be laid out");
		return;
	}
	why = ds_install(&d);
	if (why) {
		exp_skip("%s", why);
		return;
	}
	uint64_t base = ds_read(&d, DS_BTS_BASE), v = 0;
	if (!wrmsr_safe(IA32_DEBUGCTL, DEBUGCTL_TR) || !rdmsr_safe(IA32_DEBUGCTL, &v) ||
	    !(v & DEBUGCTL_TR)) {
		wrmsr_safe(IA32_DEBUGCTL, 0);
		ds_uninstall(&d);
		check(false, "IA32_DEBUGCTL.TR[6] takes a 1 (DS present): DEBUGCTL %#lx", (unsigned long)v);
		return;
	}
	uint64_t flags = read_rflags();
	cli();
	dbg_lbr_run(IA32_DEBUGCTL, DEBUGCTL_TR, 0);     /* three taken JMPs with TR=1 */
	write_rflags(flags);
	uint64_t index = ds_read(&d, DS_BTS_INDEX);
	ds_uninstall(&d);
	check_eq("BTS index after branches with TR=1, BTS=0: still the base", index, base);
}
EXPERIMENT(156, "btm-no-bts", "", "DS, IA32_DEBUGCTL.TR",
	   "DEBUGCTL.TR without BTS: branch messages go to the bus, the BTS index does not move",
	   exp_btm);
