/* Application processors: found in the ACPI MADT, started one at a time with
 * INIT-SIPI-SIPI through the same 16-bit trampoline the boot CPU came up
 * through (boot/trampoline.S), then parked halted until given work.
 *
 * One AP at a time, because the trampoline's journey log, its variables and its
 * real-mode stack are shared.  The boot CPU copies a fresh trampoline image
 * before each start (so the log starts zeroed), points `stack` at the AP's
 * kernel stack in its struct percpu, `target` at ap_entry and `cr3` at the
 * kernel's own page tables, and waits for the AP to say it is alive. */
#include "acpi.h"
#include "apic.h"
#include "console.h"
#include "cr.h"
#include "mem.h"
#include "smp.h"
#include "trap.h"
#include "x86.h"

extern const char __tramp_image[], __tramp_image_end[];
extern char TROFF_cr3[], TROFF_stack[], TROFF_target[];

/* INIT to the AP's C entry: the SDM's sequence needs ~10.4 ms, a real AP a little
 * more; an emulator's vCPU thread may wait for a host core much longer.  Only an
 * AP that is not there takes this long (the time taken is reported). */
#define AP_ANSWER_MS    1000

static struct acpi_found acpi;
static bool have_madt;
static bool online[MAX_CPUS];
static struct smp_boot boot[MAX_CPUS];
static uint32_t failed_ids[MADT_MAX_CPUS];
static int nfailed;
static uint64_t tsc_ms;

/* One mailbox per CPU.  posted/done count work items; wakes counts the wake
 * IPIs the CPU has taken.  A CPU serves item k only once it has taken wake IPI
 * k, so no wake IPI is ever left pending to arrive in the middle of the work
 * (where the runner may already have reset the handler for its vector). */
struct mailbox {
	void (*fn)(void *);
	void *arg;
	uint32_t posted, done, wakes;
	bool busy;              /* serving an item: a wait inside it must not serve it again */
};
static volatile struct mailbox mbox[MAX_CPUS];
static volatile uint32_t ap_index, ap_alive;

bool smp_cpu_online(int cpu) { return cpu >= 0 && cpu < MAX_CPUS && online[cpu]; }
const struct madt_info *smp_madt(void) { return have_madt ? &acpi.madt : 0; }
const struct smp_boot *smp_boot_info(int cpu) { return smp_cpu_online(cpu) ? &boot[cpu] : 0; }
uint64_t smp_tsc_per_ms(void) { return tsc_ms; }

int smp_failed(uint32_t *ids, int max)
{
	for (int i = 0; i < nfailed && i < max; i++)
		ids[i] = failed_ids[i];
	return nfailed;
}

/* Trampoline memory below 1 MiB, as a pointer the compiler cannot see through. */
static void *tramp(uintptr_t off)
{
	uintptr_t p = TRAMP_BASE + off;
	__asm__("" : "+r"(p));
	return (void *)p;
}

/* SDM vol.3 11.12.3: a WRMSR to an x2APIC register (the ICR included) is not
 * serializing, so stores before it may not yet be visible to the CPU the IPI
 * wakes; MFENCE first.  (Harmless for the xAPIC's uncached MMIO write.) */
static void send_ipi(uint32_t apic, uint32_t icr_low)
{
	__asm__ volatile("mfence" ::: "memory");
	apic_icr_send(apic, icr_low);
}

/* ---- work on other CPUs --------------------------------------------------- */

static void wake_isr(struct trap_frame *tf)
{
	mbox[this_cpu()->index].wakes++;
	apic_eoi();
}

/* Runs this CPU's posted item if its wake IPI has arrived.  The item may enable
 * interrupts (the runner does); they are off again before `done` is published,
 * so the next wake IPI cannot be taken before the loop looks for it. */
static bool serve(uint32_t me)
{
	volatile struct mailbox *m = &mbox[me];
	uint32_t p = m->posted;
	if (p == m->done || m->wakes != p || m->busy)
		return false;
	m->busy = true;
	barrier();
	m->fn(m->arg);
	cli();
	barrier();
	m->busy = false;
	m->done = p;
	return true;
}

static void park(int cpu)
{
	send_ipi(cpus[cpu].apic_id, ICR_INIT | ICR_LEVEL_ASSERT);
	online[cpu] = false;
	ncpus_online--;
	kprintf("# smp: cpu%d (APIC ID %u) did not return; sent INIT (wait-for-SIPI), now offline\n",
		cpu, cpus[cpu].apic_id);
}

bool smp_post(int cpu, void (*fn)(void *), void *arg)
{
	volatile struct mailbox *m = &mbox[cpu];
	if (!smp_cpu_online(cpu) || (uint32_t)cpu == this_cpu()->index || m->posted != m->done)
		return false;
	trap_set_handler(VEC_SMP_WAKE, wake_isr);
	m->fn = fn;
	m->arg = arg;
	barrier();
	m->posted = m->posted + 1;
	/* fixed delivery, physical destination; the level bit is 1 for every
	 * delivery mode but INIT de-assert (SDM vol.3 11.6.1) */
	send_ipi(cpus[cpu].apic_id, ICR_LEVEL_ASSERT | VEC_SMP_WAKE);
	return true;
}

bool smp_wait(int cpu, uint32_t timeout_ms)
{
	volatile struct mailbox *m = &mbox[cpu];
	uint32_t me = this_cpu()->index;
	uint64_t flags = read_rflags();
	uint64_t end = rdtsc() + (uint64_t)timeout_ms * tsc_ms;
	bool ok = true;
	while (m->done != m->posted) {
		if ((int64_t)(rdtsc() - end) > 0) {
			ok = false;
			break;
		}
		sti();                  /* our own wake IPI may be on its way */
		serve(me);
		cpu_relax();
	}
	write_rflags(flags);
	if (!ok)
		park(cpu);
	return ok;
}

bool smp_call(int cpu, void (*fn)(void *), void *arg, uint32_t timeout_ms)
{
	if ((uint32_t)cpu == this_cpu()->index) {
		fn(arg);
		return true;
	}
	/* an earlier item may still be running (e.g. a helper whose experiment was
	 * aborted): let it finish first, under the same limit */
	return smp_cpu_online(cpu) && smp_wait(cpu, timeout_ms) && smp_post(cpu, fn, arg) &&
	       smp_wait(cpu, timeout_ms);
}

/* An AP's life after start-up: halted until a wake IPI, then the work.  STI
 * shadows the next instruction (SDM vol.3 6.8.3), so an IPI that arrives after
 * the check is still taken after HLT, not lost before it. */
static __attribute__((noreturn)) void ap_idle(uint32_t me)
{
	for (;;) {
		cli();
		if (serve(me))
			continue;
		__asm__ volatile("sti; hlt" ::: "memory");
	}
}

/* The trampoline jumps here in long mode on this AP's kernel stack. */
static __attribute__((noreturn)) void ap_entry(void)
{
	uint32_t idx = ap_index;
	struct percpu *c = &cpus[idx];
	journey_save(c);
	c->index = idx;
	cpu_tables_init(c);
	idt_load();
	apic_init();
	c->apic_id = apic_id();
	barrier();
	ap_alive = 1;
	ap_idle(idx);
}

/* ---- start-up --------------------------------------------------------------- */

/* SDM vol.3 9.4.4.1 (typical BSP sequence) and 9.4.4.2 (AP): INIT, 10 ms, STARTUP
 * with the trampoline's page number as vector (CS = vector << 8, IP = 0), 200 us,
 * a second STARTUP (ignored by an AP that already left wait-for-SIPI), 200 us.
 * INIT is sent with level assert and edge trigger; the INIT level de-assert of
 * the 82489DX is not supported by Pentium 4 and later, nor by the x2APIC. */
static bool start_ap(uint32_t idx, uint32_t id)
{
	struct percpu *c = &cpus[idx];
	memcpy(tramp(0), __tramp_image, (size_t)(__tramp_image_end - __tramp_image));
	*(volatile uint32_t *)tramp((uintptr_t)TROFF_cr3) = (uint32_t)read_cr3();
	/* a return address' worth below the top: the ABI's alignment at a call */
	*(volatile uint64_t *)tramp((uintptr_t)TROFF_stack) = (uintptr_t)(c->kstack + KSTACK_SIZE - 8);
	*(volatile uint64_t *)tramp((uintptr_t)TROFF_target) = (uintptr_t)ap_entry;
	ap_index = idx;
	ap_alive = 0;
	mbox[idx].posted = mbox[idx].done = mbox[idx].wakes = 0;
	mbox[idx].busy = false;

	apic_write(APIC_ESR, 0);
	uint64_t t0 = rdtsc();
	send_ipi(id, ICR_INIT | ICR_LEVEL_ASSERT);
	delay_us(10000);
	send_ipi(id, ICR_STARTUP | ICR_LEVEL_ASSERT | TRAMP_SIPI_VECTOR);
	delay_us(200);
	send_ipi(id, ICR_STARTUP | ICR_LEVEL_ASSERT | TRAMP_SIPI_VECTOR);
	delay_us(200);
	while (!ap_alive && rdtsc() - t0 < AP_ANSWER_MS * tsc_ms)
		cpu_relax();
	uint64_t t1 = rdtsc();
	/* SDM vol.3 11.5.3: writing ESR latches the errors since the last write */
	apic_write(APIC_ESR, 0);
	uint32_t esr = apic_read(APIC_ESR);

	if (!ap_alive) {
		kprintf("# smp: APIC ID %u did not answer within %u ms of INIT (ESR 0x%x); "
			"sent INIT again to park it, going on without it\n", id, AP_ANSWER_MS, esr);
		send_ipi(id, ICR_INIT | ICR_LEVEL_ASSERT);
		if (nfailed < MADT_MAX_CPUS)
			failed_ids[nfailed++] = id;
		return false;
	}
	boot[idx] = (struct smp_boot){ .madt_id = id, .up_us = (t1 - t0) * 1000 / tsc_ms, .esr = esr };
	online[idx] = true;
	ncpus_online++;
	journey_report(c);
	kprintf("# smp: cpu%u up: APIC ID %u (MADT %u), INIT to C entry %llu us%s\n", idx, c->apic_id,
		id, (unsigned long long)boot[idx].up_us, esr ? ", APIC error status set" : "");
	return true;
}

void smp_init(void)
{
	struct percpu *bsp = this_cpu();
	online[0] = true;
	ncpus_online = 1;
	boot[0].madt_id = bsp->apic_id;
	/* the PIT calibration (kernel/apic.c); a 1 ms delay measured by itself
	 * only when there was none (its guess of 1 GHz), and never 0 */
	tsc_ms = tsc_ticks_per_ms();
	if (!tsc_ms) {
		uint64_t t = rdtsc();
		delay_us(1000);
		tsc_ms = rdtsc() - t;
	}
	if (!tsc_ms)
		tsc_ms = 1;

	if (!apic_present()) {
		kprintf("# smp: no local APIC (%s): no INIT/SIPI can be sent, only the boot CPU runs\n",
			apic_absent_reason());
		return;
	}
	if (tramp_skipped) {
		kprintf("# smp: the trampoline pages are not usable RAM: only the boot CPU runs\n");
		return;
	}
	char why[160];
	if (!acpi_find_madt(&acpi, why, sizeof why)) {
		kprintf("# smp: %s: only the boot CPU runs\n", why);
		return;
	}
	have_madt = true;
	const struct madt_info *m = &acpi.madt;
	kprintf("# acpi: RSDP rev %d \"%s\" from the %s; %s; MADT at 0x%llx: %d processor entries, "
		"%d enabled%s, local APIC 0x%llx\n", acpi.rsdp.revision, acpi.rsdp.oem,
		acpi.rsdp_source, acpi.rsdp.revision >= 2 && acpi.rsdp.xsdt ? "XSDT" : "RSDT",
		(unsigned long long)acpi.madt_addr, m->ncpu, m->nenabled,
		m->truncated ? " (list truncated)" : "", (unsigned long long)m->lapic_addr);
	if (m->nproblems)
		kprintf("# acpi: MADT: %d problem(s); first: %s\n", m->nproblems, m->problem);

	uint64_t cr3 = read_cr3();
	if (cr3 >> 32) {
		kprintf("# smp: CR3 0x%llx is beyond the trampoline's 32-bit reach: only the boot CPU runs\n",
			(unsigned long long)cr3);
		return;
	}
	bool listed = false;
	for (int i = 0; i < m->ncpu; i++)
		listed |= m->cpu[i].apic_id == bsp->apic_id;
	if (!listed)
		kprintf("# smp: warning: the boot CPU's APIC ID %u is not in the MADT\n", bsp->apic_id);

	uint32_t idx = 1;
	for (int i = 0; i < m->ncpu; i++) {
		const struct madt_cpu *p = &m->cpu[i];
		if (!(p->flags & MADT_F_ENABLED) || p->apic_id == bsp->apic_id)
			continue;
		if (idx == MAX_CPUS) {
			kprintf("# smp: more than %d CPUs: APIC ID %u and later not started\n", MAX_CPUS,
				p->apic_id);
			break;
		}
		if (!apic_x2apic() && p->apic_id >= 0xff) {
			/* the xAPIC destination field is 8 bits, 0xff being broadcast */
			kprintf("# smp: APIC ID %u needs x2APIC mode; not started\n", p->apic_id);
			continue;
		}
		if (start_ap(idx, p->apic_id))
			idx++;
	}
}
