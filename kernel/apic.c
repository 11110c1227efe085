/* Local APIC in xAPIC (MMIO) or x2APIC (MSR) mode; x2APIC whenever the CPU has it
 * (CPUID.01H:ECX.x2APIC[21]), and always when firmware already turned it on. */
#include "apic.h"
#include "cpuid.h"
#include "msr.h"
#include "msr_safe.h"
#include "x86.h"

static bool x2;
static volatile uint8_t *mmio;
static uint64_t ticks_per_ms, tsc_per_ms;

bool apic_x2apic(void) { return x2; }
uint64_t apic_ticks_per_ms(void) { return ticks_per_ms; }

uint32_t apic_read(uint32_t reg)
{
	if (x2)
		return (uint32_t)rdmsr(X2APIC_MSR(reg));
	return *(volatile uint32_t *)(mmio + reg);
}

void apic_write(uint32_t reg, uint32_t v)
{
	if (x2)
		wrmsr(X2APIC_MSR(reg), v);
	else
		*(volatile uint32_t *)(mmio + reg) = v;
}

bool apic_read_safe(uint32_t reg, uint32_t *v)
{
	if (x2) {
		uint64_t m;
		if (!rdmsr_safe(0x800 + (reg >> 4), &m))
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

/* PIT channel 2 as the time reference: gate it through port 0x61, count down
 * 5 ms in mode 0 and watch OUT2.  Bounded: a machine without a PIT gets 0. */
static void calibrate(void)
{
	const uint32_t pit_hz = 1193182, ms = 5, count = pit_hz * ms / 1000;
	uint8_t p61 = inb(0x61);
	outb(0x61, (p61 & ~0x03) | 0x00);                /* gate low, speaker off */
	outb(0x43, 0xb0);                                /* ch2, lo/hi, mode 0, binary */
	outb(0x42, count & 0xff);
	outb(0x42, count >> 8);
	apic_write(APIC_TIMER_DCR, APIC_TIMER_DIV_16);
	apic_write(APIC_LVT_TIMER, LVT_MASKED | VEC_TIMER);
	outb(0x61, (p61 & ~0x02) | 0x01);                /* gate high: count */
	apic_write(APIC_TIMER_ICR, 0xffffffff);
	uint64_t t0 = rdtsc();
	uint32_t i;
	for (i = 0; i < 50000000 && !(inb(0x61) & 0x20); i++)
		;
	uint32_t left = apic_read(APIC_TIMER_CCR);
	uint64_t t1 = rdtsc();
	apic_write(APIC_TIMER_ICR, 0);
	outb(0x61, p61);
	if (i == 50000000)
		return;
	ticks_per_ms = (0xffffffffULL - left) / ms;
	tsc_per_ms = (t1 - t0) / ms;
}

void apic_init(void)
{
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

void apic_watchdog_arm(uint32_t ms)
{
	if (!ms) {
		apic_write(APIC_TIMER_ICR, 0);
		apic_write(APIC_LVT_TIMER, LVT_MASKED | VEC_TIMER);
		return;
	}
	uint64_t t = ticks_per_ms ? ticks_per_ms * ms : 0xffffffffULL;
	apic_write(APIC_TIMER_DCR, APIC_TIMER_DIV_16);
	apic_write(APIC_LVT_TIMER, LVT_TIMER_ONESHOT | VEC_TIMER);
	apic_write(APIC_TIMER_ICR, t > 0xffffffffULL ? 0xffffffffU : (uint32_t)t);
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
