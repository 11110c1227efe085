/* Local APIC: xAPIC or x2APIC (chosen at boot), timer watchdog, LVT perfmon. */
#ifndef KERNEL_APIC_H
#define KERNEL_APIC_H
#include <stdbool.h>
#include <stdint.h>
#include "apicdef.h"

void apic_init(void);           /* this CPU: enable, SVR, LVTs; x2APIC if present */
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
/* Watchdog: one-shot LVT timer.  ms == 0 disarms. */
void apic_watchdog_arm(uint32_t ms);
void apic_icr_send(uint32_t dest_apic_id, uint32_t icr_low);
/* APIC timer ticks per millisecond (calibrated against the PIT at boot; 0 if unknown) */
uint64_t apic_ticks_per_ms(void);
void delay_us(uint32_t us);
void pic_disable(void);

#endif
