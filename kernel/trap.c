/* The IDT, the dispatcher behind every vector, exception fix-ups for probing
 * MSRs, and the register dump for the unexpected. */
#include <stddef.h>
#include "apic.h"
#include "console.h"
#include "dr.h"
#include "fmt.h"
#include "msr.h"
#include "percpu.h"
#include "trap.h"
#include "x86.h"

struct __attribute__((packed)) gate64 {
	uint16_t off0, sel;
	uint8_t ist, type;
	uint16_t off1;
	uint32_t off2, zero;
};

static struct gate64 idt[256] __attribute__((aligned(16)));
extern char trap_entries[];
static trap_handler_t handlers[256];     /* the experiment's */
static trap_handler_t defaults[256];     /* the owners' */
static trap_handler_t unexpected;

struct ex_entry { uint64_t fault, fixup; };
extern const struct ex_entry __ex_table_start[], __ex_table_end[];

static const char *const names[32] = {
	"DE", "DB", "NMI", "BP", "OF", "BR", "UD", "NM", "DF", "CSO", "TS", "NP",
	"SS", "GP", "PF", "reserved", "MF", "AC", "MC", "XM", "VE", "CP", "reserved", "reserved",
	"reserved", "reserved", "reserved", "reserved", "HV", "VC", "SX", "reserved",
};

const char *trap_name(int vector)
{
	if (vector < 32)
		return names[vector];
	if (vector == VEC_PMI) return "PMI";
	if (vector == VEC_TIMER) return "APIC timer";
	if (vector == VEC_SPURIOUS) return "spurious";
	return "interrupt";
}

static void set_gate(int v, int dpl, int ist)
{
	uint64_t off = (uint64_t)(uintptr_t)(trap_entries + 16 * v);
	idt[v] = (struct gate64){
		.off0 = off & 0xffff, .sel = SEL_KCODE64, .ist = ist,
		.type = 0x8e | dpl << 5, .off1 = (off >> 16) & 0xffff, .off2 = off >> 32,
	};
}

void idt_init(void)
{
	for (int v = 0; v < 256; v++)
		set_gate(v, 0, 0);
	set_gate(1, 0, IST_DB);
	set_gate(2, 0, IST_NMI);
	set_gate(8, 0, IST_DF);
	set_gate(18, 0, IST_MC);
	/* INT3 and INTO may be used at CPL 3 (SDM vol.3 6.12.1.1: DPL checked for INT n). */
	set_gate(3, 3, 0);
	set_gate(4, 3, 0);
	set_gate(VEC_USER_RETURN, 3, 0);
	set_gate(VEC_FUZZ_RING, 3, 0);
}

void trap_set_ist(int vector, int ist)
{
	idt[vector & 0xff].ist = (uint8_t)ist;
}

void idt_load(void)
{
	struct dtr d = { sizeof idt - 1, (uint64_t)(uintptr_t)idt };
	lidt(&d);
}

void trap_set_handler(int vector, trap_handler_t h)
{
	handlers[vector & 0xff] = h;
}

void trap_reset_handlers(void)
{
	for (int v = 0; v < 256; v++)
		handlers[v] = 0;
	idt[1].ist = IST_DB;    /* an experiment may have run #DB without IST */
}

void trap_set_default(int vector, trap_handler_t h)
{
	defaults[vector & 0xff] = h;
}

void trap_set_unexpected(trap_handler_t h)
{
	unexpected = h;
}

/* runner_unexpected() leaves trap context without an IRET.  Whatever interrupt
 * was being handled when this happened (this one, if it is an unexpected
 * interrupt; the PMI, if its handler or one of its hooks faulted) keeps its
 * In-Service bit until an EOI, and with it blocks every vector of its priority
 * class and below (SDM vol.3 11.8.3.1): the watchdog (0xf1) shares the PMI's
 * class.  End every in-service interrupt, highest first (one EOI clears the
 * highest ISR bit, 11.8.5), and give LVT perfmon back its unmasked state, which
 * the PMI handler would have restored as its last act (the processor masks it
 * on delivery, 20.6.3.5.8 / 11.5.1). */
static void abandon_in_service(void)
{
	bool pmi = false;
	int v;
	for (int n = 0; n < 256 && (v = apic_isr_highest()) >= 0; n++) {
		pmi |= v == VEC_PMI;
		apic_eoi();
	}
	if (pmi || (apic_lvt_pmi() & LVT_MASKED))
		apic_lvt_pmi_unmask();
}

/* An experiment is being abandoned (an exception nobody expected, or the
 * watchdog): branch tracing stops here, before the register dump and the
 * runner's report are printed, or each of their branches would be stored in
 * the experiment's BTS buffer (and, with BTINT and the threshold passed, raise
 * a PMI nobody drains) or traced by PT.  Only the enable bits, outermost first
 * (SDM vol.3 17.4.9: TR/BTS/BTINT off before anything else of the DS;
 * 32.2.8.2: a WRMSR to IA32_RTIT_CTL clearing TraceEn is always allowed); the
 * runner's restore puts back everything else. */
static void abandon_tracing(void)
{
	uint64_t v;
	const uint64_t dbg = DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_BTINT | DEBUGCTL_LBR | DEBUGCTL_BTF;
	if (rdmsr_safe(IA32_DEBUGCTL, &v) && (v & dbg)) {
		wrmsr_safe(IA32_DEBUGCTL, v & ~dbg);
		kprintf("# tracing stopped: IA32_DEBUGCTL was 0x%llx\n", (unsigned long long)v);
	}
	if (rdmsr_safe(IA32_RTIT_CTL, &v) && (v & RTIT_CTL_TRACEEN)) {
		wrmsr_safe(IA32_RTIT_CTL, v & ~RTIT_CTL_TRACEEN);
		kprintf("# tracing stopped: IA32_RTIT_CTL was 0x%llx\n", (unsigned long long)v);
	}
}

static bool fixup(struct trap_frame *tf)
{
	for (const struct ex_entry *e = __ex_table_start; e < __ex_table_end; e++) {
		if (e->fault == tf->rip) {
			tf->rip = e->fixup;
			return true;
		}
	}
	return false;
}

/* One line (kernel/console.c: every write is whole lines). */
static void stack_trace(uint64_t rbp)
{
	extern char __kernel_start[], __kernel_end[];
	char line[200];
	int n = tl_snprintf(line, sizeof line, "# stack:");
	for (int i = 0; i < 8 && rbp; i++) {
		if (rbp & 7 || rbp < (uint64_t)(uintptr_t)__kernel_start ||
		    rbp + 16 > (uint64_t)(uintptr_t)__kernel_end)
			break;
		uint64_t ret = ((uint64_t *)(uintptr_t)rbp)[1];
		n += tl_snprintf(line + n, sizeof line - (size_t)n, " 0x%llx", (unsigned long long)ret);
		rbp = ((uint64_t *)(uintptr_t)rbp)[0];
	}
	kprintf("%s\n", line);
}

void trap_dump(const struct trap_frame *tf)
{
	kprintf("# %s (vector %llu) error=0x%llx on cpu %u\n", trap_name((int)tf->vector),
		(unsigned long long)tf->vector, (unsigned long long)tf->error, this_cpu()->index);
	kprintf("# rip=0x%016llx cs=0x%llx rflags=0x%llx rsp=0x%016llx ss=0x%llx\n",
		(unsigned long long)tf->rip, (unsigned long long)tf->cs,
		(unsigned long long)tf->rflags, (unsigned long long)tf->rsp,
		(unsigned long long)tf->ss);
	kprintf("# rax=0x%016llx rbx=0x%016llx rcx=0x%016llx rdx=0x%016llx\n",
		(unsigned long long)tf->rax, (unsigned long long)tf->rbx,
		(unsigned long long)tf->rcx, (unsigned long long)tf->rdx);
	kprintf("# rsi=0x%016llx rdi=0x%016llx rbp=0x%016llx r8 =0x%016llx\n",
		(unsigned long long)tf->rsi, (unsigned long long)tf->rdi,
		(unsigned long long)tf->rbp, (unsigned long long)tf->r8);
	kprintf("# cr0=0x%llx cr2=0x%llx cr3=0x%llx cr4=0x%llx dr6=0x%llx dr7=0x%llx\n",
		(unsigned long long)read_cr0(), (unsigned long long)read_cr2(),
		(unsigned long long)read_cr3(), (unsigned long long)read_cr4(),
		(unsigned long long)read_dr6(), (unsigned long long)read_dr7());
	stack_trace(tf->rbp);
}

void trap_dispatch(struct trap_frame *tf)
{
	int v = (int)tf->vector;
	if (handlers[v]) {
		handlers[v](tf);
		return;
	}
	/* The timer is armed only as an experiment's watchdog: once all of it has
	 * passed (kernel/apic.c chains it past its 32-bit count), it ends one.
	 * Without an APIC the watchdog is the PIT on IRQ0, ended the same way. */
	if (v == VEC_TIMER && !apic_watchdog_expired()) {
		apic_eoi();
		return;
	}
	if (v == VEC_PIC_IRQ0) {
		if (!pit_watchdog_tick())       /* EOIs the 8259 */
			return;
		v = VEC_TIMER;
	}
	if (v == VEC_PIC_SPURIOUS)              /* 8259 IRQ7 without a request: no EOI */
		return;
	if (v == VEC_TIMER)
		abandon_tracing();
	if (defaults[v]) {
		defaults[v](tf);
		return;
	}
	switch (v) {
	case VEC_SPURIOUS:
		return;
	case VEC_TIMER:
	case VEC_ERROR:
		apic_eoi();
		return;
	}
	if ((v == 13 || v == 6) && fixup(tf))
		return;
	abandon_tracing();
	abandon_in_service();
	if (unexpected)
		unexpected(tf);
	kprintf("# unexpected exception or interrupt, nobody to recover:\n");
	trap_dump(tf);
	for (;;) {
		cli();
		hlt();
	}
}

uint64_t read_dr(int n)
{
	switch (n) {
	case 0: return read_dr0();
	case 1: return read_dr1();
	case 2: return read_dr2();
	case 3: return read_dr3();
	case 6: return read_dr6();
	default: return read_dr7();
	}
}

void write_dr(int n, uint64_t v)
{
	switch (n) {
	case 0: write_dr0(v); break;
	case 1: write_dr1(v); break;
	case 2: write_dr2(v); break;
	case 3: write_dr3(v); break;
	case 6: write_dr6(v); break;
	default: write_dr7(v); break;
	}
}
