/* Application processors: discovery (ACPI MADT), start-up through the shared
 * trampoline (INIT-SIPI-SIPI), and running work on a chosen CPU.
 *
 * CPU numbers are indexes into cpus[]: 0 is the boot CPU, the APs follow in
 * MADT order.  An AP that came up waits halted for work; smp_call() hands it a
 * function and waits for it to return.  A CPU that waits in smp_wait() serves
 * its own mailbox meanwhile, so an experiment running on an AP may call back
 * into the boot CPU. */
#ifndef KERNEL_SMP_H
#define KERNEL_SMP_H
#include <stdbool.h>
#include <stdint.h>
#include "madt.h"
#include "percpu.h"

#define VEC_SMP_WAKE    0xe0    /* fixed IPI that wakes a halted AP for work */

struct smp_boot {
	uint32_t madt_id;               /* the APIC ID the MADT gave for this CPU */
	uint64_t up_us;                 /* INIT to the AP's C entry, microseconds */
	uint32_t esr;                   /* APIC error status after the IPIs (0: none) */
};

/* On the boot CPU after apic_init(): find and start every enabled AP. */
void smp_init(void);
bool smp_cpu_online(int cpu);
/* The MADT as parsed at boot, or 0 when ACPI gave none. */
const struct madt_info *smp_madt(void);
const struct smp_boot *smp_boot_info(int cpu);
/* APs that the MADT listed as enabled but that never answered. */
int smp_failed(uint32_t *apic_ids, int max);
/* TSC cycles per millisecond as delay_us() counts them. */
uint64_t smp_tsc_per_ms(void);

/* Runs fn(arg) on `cpu` (this CPU: directly) and waits up to timeout_ms for it to
 * return.  false: it did not; the CPU is then sent INIT, which parks it in
 * wait-for-SIPI (SDM vol.3 9.4.4), and it is no longer online. */
bool smp_call(int cpu, void (*fn)(void *), void *arg, uint32_t timeout_ms);
/* The two halves of smp_call, for work that must overlap with the caller's. */
bool smp_post(int cpu, void (*fn)(void *), void *arg);
bool smp_wait(int cpu, uint32_t timeout_ms);

#endif
