/* Local APIC: xAPIC or x2APIC (chosen at boot), timer watchdog, LVT perfmon. */
#ifndef KERNEL_APIC_H
#define KERNEL_APIC_H
#include <stdbool.h>
#include <stdint.h>
#include "apicdef.h"

void apic_init(void);           /* this CPU: enable, SVR, LVTs; x2APIC if present */
/* Whether there is a local APIC to use (CPUID.01H:EDX.APIC and IA32_APIC_BASE.EN);
 * without one every APIC access below is a no-op and the reason says why. */
bool apic_present(void);
const char *apic_absent_reason(void);
uint64_t apic_phys_base(void);  /* 0 without an APIC */
bool apic_x2apic(void);
uint32_t apic_id(void);
uint32_t apic_read(uint32_t reg);
void apic_write(uint32_t reg, uint32_t v);
void apic_eoi(void);
/* Highest vector whose In-Service bit is set, or -1 (SDM vol.3 11.8.4). */
int apic_isr_highest(void);
/* Read an APIC register that may not exist (AMD extended space, CMCI): false
 * if it faults (x2APIC MSR #GP) or is outside what the version register says. */
bool apic_read_safe(uint32_t reg, uint32_t *v);
/* LVT perfmon: programmed to VEC_PMI (fixed delivery).  The CPU sets its mask bit
 * when it delivers a PMI (SDM 20.6.3.5.8 / 11.5.1); the handler clears it here. */
void apic_lvt_pmi_unmask(void);
uint32_t apic_lvt_pmi(void);
/* Watchdog for this CPU: the LVT timer one-shot (chained beyond its 32-bit
 * count), or the PIT without an APIC.  ms == 0 disarms.  The interrupt handlers
 * ask apic_watchdog_expired() / pit_watchdog_tick() whether all of it passed. */
void apic_watchdog_arm(uint32_t ms);
bool apic_watchdog_expired(void);
bool pit_watchdog_tick(void);
uint64_t apic_watchdog_elapsed_ms(void);        /* since arming, by the TSC */
const char *watchdog_describe(void);
uint64_t tsc_ticks_per_ms(void);                /* from the PIT calibration; 0 if unknown */
void apic_icr_send(uint32_t dest_apic_id, uint32_t icr_low);
/* APIC timer ticks per millisecond (calibrated against the PIT at boot; 0 if unknown) */
uint64_t apic_ticks_per_ms(void);
void delay_us(uint32_t us);
void pic_disable(void);

#endif
