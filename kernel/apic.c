/* Local APIC in xAPIC (MMIO) or x2APIC (MSR) mode; x2APIC whenever the CPU has it
 * (CPUID.01H:ECX.x2APIC[21]), and always when firmware already turned it on. */
#include "apic.h"
#include "console.h"
#include "cpuid.h"
#include "fmt.h"
#include "msr.h"
#include "msr_safe.h"
#include "percpu.h"
#include "timer.h"
#include "x86.h"

/* Without a local APIC — CPUID.01H:EDX.APIC[9]=0, or IA32_APIC_BASE.EN[11]=0,
 * which makes the processor "functionally equivalent to an IA-32 processor
 * without an on-chip APIC" (SDM vol.3 11.4.3) — nothing is written to APIC
 * registers (their MMIO page would be whatever sits at that address; with the
 * MSR reading 0, the real-mode IVT), no IPI is sent, and the watchdog is the
 * PIT's channel 0 through the 8259. */
static bool detected, present;
static char absent_why[96];
static uint64_t base_msr;

static bool x2;
static volatile uint8_t *mmio;
static uint64_t ticks_per_ms, tsc_per_ms;

static void detect(void)
{
	if (detected)
		return;
	detected = true;
	if (!(cpuid(1, 0).edx & CPUID_1_EDX_APIC))
		tl_snprintf(absent_why, sizeof absent_why, "CPUID.01H:EDX.APIC[9]=0 (no local APIC)");
	else if (!rdmsr_safe(IA32_APIC_BASE, &base_msr))
		tl_snprintf(absent_why, sizeof absent_why, "RDMSR IA32_APIC_BASE (0x%x) GP", IA32_APIC_BASE);
	else if (!(base_msr & APIC_BASE_EN))
		tl_snprintf(absent_why, sizeof absent_why,
			    "IA32_APIC_BASE.EN[11]=0 (local APIC disabled, MSR 0x%llx)",
			    (unsigned long long)base_msr);
	else
		present = true;
}

bool apic_present(void) { detect(); return present; }
const char *apic_absent_reason(void) { detect(); return present ? "" : absent_why; }
uint64_t apic_phys_base(void) { detect(); return present ? base_msr & APIC_BASE_ADDR_MASK : 0; }
bool apic_x2apic(void) { return x2; }
uint64_t apic_ticks_per_ms(void) { return ticks_per_ms; }
uint64_t tsc_ticks_per_ms(void) { return tsc_per_ms; }

uint32_t apic_read(uint32_t reg)
{
	if (!present)
		return 0;
	if (x2)
		return (uint32_t)rdmsr(X2APIC_MSR(reg));
	return *(volatile uint32_t *)(mmio + reg);
}

void apic_write(uint32_t reg, uint32_t v)
{
	if (!present)
		return;
	if (x2)
		wrmsr(X2APIC_MSR(reg), v);
	else
		*(volatile uint32_t *)(mmio + reg) = v;
}

bool apic_read_safe(uint32_t reg, uint32_t *v)
{
	if (!present)
		return false;
	if (x2) {
		uint64_t m;
		if (!rdmsr_safe(X2APIC_MSR(reg), &m))
			return false;
		*v = (uint32_t)m;
		return true;
	}
	*v = *(volatile uint32_t *)(mmio + reg);
	return true;
}

int apic_isr_highest(void)
{
	for (int n = 7; n >= 0; n--) {
		uint32_t isr = apic_read(APIC_ISR0 + 0x10 * (uint32_t)n);
		if (isr)
			return 32 * n + 31 - __builtin_clz(isr);
	}
	return -1;
}

uint32_t apic_id(void)
{
	uint32_t id = apic_read(APIC_ID);
	return x2 ? id : id >> 24;
}

void apic_eoi(void)
{
	apic_write(APIC_EOI, 0);
}

uint32_t apic_lvt_pmi(void)
{
	return apic_read(APIC_LVT_PERFMON);
}

void apic_lvt_pmi_unmask(void)
{
	apic_write(APIC_LVT_PERFMON, VEC_PMI);
}

void apic_icr_send(uint32_t dest, uint32_t low)
{
	if (!present)
		return;
	if (x2) {
		/* one 64-bit write, destination in 63:32, no delivery status to poll (SDM 11.12.9) */
		wrmsr(X2APIC_MSR(APIC_ICR_LOW), (uint64_t)dest << X2APIC_ICR_DEST_SHIFT | low);
		return;
	}
	apic_write(APIC_ICR_HIGH, dest << 24);
	apic_write(APIC_ICR_LOW, low);
	for (int i = 0; i < 1000000 && (apic_read(APIC_ICR_LOW) & ICR_BUSY); i++)
		cpu_relax();
}

/* PIT channel 2 as the time reference: count down CAL_MS in mode 0 and watch
 * OUT2 in port 0x61; the TSC (and the APIC timer, when there is one) are read
 * across it.  Bounded: a machine without a PIT gets 0.
 *
 * The gate is raised before the count is written, so that counting starts with
 * the count's second byte on a real 8254 and in QEMU alike (QEMU's i8254 ignores
 * the gate in mode 0 and counts from the write), and the TSC is read right
 * after that byte.  Under an emulator the CPU may still be descheduled in the
 * window — it then sees OUT2 late (a long window) or, rarely, reads the TSC late
 * (a short one); seen: 2.6 to 17 GHz "TSC" from single 5 ms windows on a loaded
 * 2.6 GHz host, and most windows long.  Of CAL_RUNS windows the shortest that
 * another one confirms (within 2%) is the undisturbed one; a lone short window
 * is a late TSC read.  The TSC and the APIC timer are chosen each so.  On a
 * quiet host the first three windows agree and the rest are skipped (7 x 2 ms
 * of waiting was a twentieth of a whole run=all under QEMU TCG). */
#define CAL_MS          2
#define CAL_RUNS        7

static bool calibrate_once(uint64_t *tsc, uint64_t *apic)
{
	const uint32_t count = PIT_HZ * CAL_MS / 1000;
	uint8_t p61 = inb(0x61);
	outb(0x61, (p61 & ~0x02) | 0x01);                /* gate high, speaker off */
	outb(0x43, 0xb0);                                /* ch2, lo/hi, mode 0, binary: OUT2 low */
	apic_write(APIC_TIMER_DCR, APIC_TIMER_DIV_16);
	apic_write(APIC_LVT_TIMER, LVT_MASKED | VEC_TIMER);
	outb(0x42, count & 0xff);
	apic_write(APIC_TIMER_ICR, 0xffffffff);
	outb(0x42, count >> 8);                          /* counting starts */
	uint64_t t0 = rdtsc();
	uint32_t i;
	for (i = 0; i < 50000000 && !(inb(0x61) & 0x20); i++)
		;
	uint32_t left = apic_read(APIC_TIMER_CCR);
	uint64_t t1 = rdtsc();
	apic_write(APIC_TIMER_ICR, 0);
	outb(0x61, p61);
	*tsc = t1 - t0;
	*apic = 0xffffffffULL - left;
	return i < 50000000;
}

static uint64_t shortest_confirmed(uint64_t *v, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			uint64_t t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	for (int i = 0; i + 1 < n; i++)
		if (v[i + 1] - v[i] <= v[i] / 50)
			return v[i];
	return v[n / 2];
}

/* Three of the first N windows within 2% of each other: the host left them
 * alone (a descheduling lengthens a window by a random amount, so disturbed
 * windows do not agree).  Then the remaining windows, all waiting, are not run. */
static bool three_agree(const uint64_t *v, int n)
{
	uint64_t s[CAL_RUNS];
	for (int i = 0; i < n; i++)
		s[i] = v[i];
	shortest_confirmed(s, n);               /* sorts s */
	for (int i = 0; i + 2 < n; i++)
		if (s[i + 2] - s[i] <= s[i] / 50)
			return true;
	return false;
}

static void calibrate(void)
{
	uint64_t t[CAL_RUNS], a[CAL_RUNS];
	int n = 0;
	while (n < CAL_RUNS) {
		if (!calibrate_once(&t[n], &a[n]))
			return;
		n++;
		if (n >= 3 && three_agree(t, n) && (!present || three_agree(a, n)))
			break;
	}
	if (present)
		ticks_per_ms = shortest_confirmed(a, n) / CAL_MS;
	tsc_per_ms = shortest_confirmed(t, n) / CAL_MS;
}

void apic_init(void)
{
	detect();
	if (!present) {
		if (!tsc_per_ms)
			calibrate();
		return;
	}
	uint64_t base = rdmsr(IA32_APIC_BASE);
	x2 = (cpuid(1, 0).ecx & CPUID_1_ECX_X2APIC) || (base & APIC_BASE_EXTD);
	/* SDM 11.12.5, figure 11-27: from disabled (EN=0, EXTD=0) straight to x2APIC
	 * (EN=1, EXTD=1) is an invalid transition (#GP); go through xAPIC mode first. */
	if (!(base & APIC_BASE_EN)) {
		base |= APIC_BASE_EN;
		wrmsr(IA32_APIC_BASE, base);
	}
	if (x2 && !(base & APIC_BASE_EXTD))
		wrmsr(IA32_APIC_BASE, base | APIC_BASE_EXTD);
	mmio = (volatile uint8_t *)(uintptr_t)(base & APIC_BASE_ADDR_MASK);

	apic_write(APIC_TPR, 0);
	apic_write(APIC_SVR, APIC_SVR_ENABLE | VEC_SPURIOUS);
	apic_write(APIC_LVT_LINT0, LVT_MASKED);
	apic_write(APIC_LVT_LINT1, LVT_DM_NMI);
	apic_write(APIC_LVT_ERROR, VEC_ERROR);
	apic_write(APIC_LVT_PERFMON, VEC_PMI);
	apic_write(APIC_LVT_TIMER, LVT_MASKED | VEC_TIMER);
	if (!ticks_per_ms)
		calibrate();
	apic_write(APIC_ESR, 0);
}

/* ---- the watchdog ------------------------------------------------------------
 * With an APIC: its timer, one-shot, divide by 16.  Its current-count register
 * is 32 bits (SDM vol.3 11.5.4), which at QEMU's 1 GHz APIC clock is 68.7 s:
 * a longer watchdog is a chain of armings, the interrupt re-arming for what is
 * left until all of it has passed.  Without an APIC: PIT channel 0 in mode 2
 * (rate generator) every 10 ms on IRQ0; the watchdog fires on the first tick
 * at which the TSC says the time has passed (or, should ticks be the only
 * clock, when enough of them have come). */

#define PIT_TICK_MS     10
static struct {
	uint64_t left;          /* APIC ticks, or PIT periods, still to come */
	uint64_t t0;            /* TSC at arming */
	uint32_t ms;
	bool armed;
} wd[MAX_CPUS];

const char *watchdog_describe(void)
{
	static char d[120];
	if (present && ticks_per_ms)
		tl_snprintf(d, sizeof d, "local APIC timer, %llu ticks/ms (divide by 16), chained past "
			    "2^32 ticks (%llu ms)", (unsigned long long)ticks_per_ms,
			    (unsigned long long)(0xffffffffULL / ticks_per_ms));
	else if (present)
		tl_snprintf(d, sizeof d, "local APIC timer, NOT calibrated (the PIT did not count): "
			    "it fires after 2^32 ticks, whatever time that is");
	else if (tsc_per_ms)
		tl_snprintf(d, sizeof d, "PIT channel 0, IRQ0 through the 8259 every %d ms (no local "
			    "APIC)", PIT_TICK_MS);
	else
		tl_snprintf(d, sizeof d, "NONE: no local APIC and the PIT did not count: the run is "
			    "unguarded, a hang hangs");
	return d;
}

static void pit_periodic(bool on)
{
	if (on) {
		uint32_t count = PIT_HZ / 1000 * PIT_TICK_MS;
		outb(0x43, 0x34);               /* ch0, lo/hi, mode 2, binary */
		outb(0x40, count & 0xff);
		outb(0x40, count >> 8);
		outb(0x21, 0xfe);               /* master 8259: IRQ0 only */
	} else {
		outb(0x21, 0xff);
		outb(0x43, 0x30);               /* ch0, mode 0, no count written: stops */
	}
}

static void apic_arm_ticks(uint32_t t)
{
	apic_write(APIC_TIMER_DCR, APIC_TIMER_DIV_16);
	apic_write(APIC_LVT_TIMER, LVT_TIMER_ONESHOT | VEC_TIMER);
	apic_write(APIC_TIMER_ICR, t);
}

void apic_watchdog_arm(uint32_t ms)
{
	uint32_t me = this_cpu()->index;
	wd[me].armed = ms != 0;
	wd[me].ms = ms;
	wd[me].t0 = rdtsc();
	if (!present) {
		wd[me].left = (ms + PIT_TICK_MS - 1) / PIT_TICK_MS;
		if (tsc_per_ms)
			pit_periodic(ms != 0);
		return;
	}
	if (!ms) {
		apic_write(APIC_TIMER_ICR, 0);
		apic_write(APIC_LVT_TIMER, LVT_MASKED | VEC_TIMER);
		return;
	}
	wd[me].left = ticks_per_ms ? ticks_per_ms * ms : 0xffffffffULL;
	apic_arm_ticks(timer_chain_next(&wd[me].left));
}

bool apic_watchdog_expired(void)
{
	uint32_t me = this_cpu()->index;
	if (!wd[me].armed)
		return false;
	if (wd[me].left) {              /* lib/timer.c: the next link of the chain */
		apic_arm_ticks(timer_chain_next(&wd[me].left));
		return false;
	}
	wd[me].armed = false;
	return true;
}

bool pit_watchdog_tick(void)
{
	outb(0x20, 0x20);                       /* non-specific EOI to the master 8259 */
	uint32_t me = this_cpu()->index;
	if (!wd[me].armed || present)
		return false;
	/* Ticks can come late or merge under an emulator: the TSC says how much
	 * time has passed, the tick only says when to look. */
	if (wd[me].left > 1 && rdtsc() - wd[me].t0 < (uint64_t)wd[me].ms * tsc_per_ms) {
		wd[me].left--;
		return false;
	}
	wd[me].armed = false;
	pit_periodic(false);
	return true;
}

uint64_t apic_watchdog_elapsed_ms(void)
{
	uint32_t me = this_cpu()->index;
	return tsc_per_ms ? (rdtsc() - wd[me].t0) / tsc_per_ms : 0;
}

void delay_us(uint32_t us)
{
	uint64_t per_ms = tsc_per_ms ? tsc_per_ms : 1000000;
	uint64_t end = rdtsc() + per_ms * us / 1000;
	while ((int64_t)(rdtsc() - end) < 0)
		cpu_relax();
}

/* The legacy 8259 pair: firmware may leave IRQ0 (the PIT) pending and routed to
 * vector 8.  Re-base both PICs to 0x20-0x2f, out of the exception range, then
 * mask every line: only the local APIC interrupts us. */
void pic_disable(void)
{
	outb(0x20, 0x11);       /* ICW1: edge, cascade, ICW4 follows */
	outb(0xa0, 0x11);
	outb(0x21, 0x20);       /* ICW2: vector base */
	outb(0xa1, 0x28);
	outb(0x21, 0x04);       /* ICW3: slave on IRQ2 */
	outb(0xa1, 0x02);
	outb(0x21, 0x01);       /* ICW4: 8086 mode */
	outb(0xa1, 0x01);
	outb(0x21, 0xff);
	outb(0xa1, 0xff);
}
