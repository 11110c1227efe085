/* Per-CPU state: descriptor tables, stacks, the journey this CPU made. */
#ifndef KERNEL_PERCPU_H
#define KERNEL_PERCPU_H
#include <stdint.h>
#include "boot.h"
#include "seg.h"

#define MAX_CPUS        16
#define KSTACK_SIZE     0x4000
#define IST_SIZE        0x2000
#define IST_DB          1
#define IST_NMI         2
#define IST_DF          3
#define IST_MC          4

struct __attribute__((packed)) tss64 {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
};

struct journey_rec {
	uint32_t mode, cs, cr0, cr4, efer, bp_hits, bp_ip, bp_expect;
};

struct percpu {
	struct percpu *self;            /* at %gs:0 */
	uint32_t index;                 /* 0 = boot CPU */
	uint32_t apic_id;
	uint64_t gdt[GDT_ENTRIES + 1];
	struct tss64 tss;
	struct journey_rec journey[JSTEPS];
	uint8_t kstack[KSTACK_SIZE] __attribute__((aligned(16)));
	uint8_t rsp0_stack[KSTACK_SIZE] __attribute__((aligned(16)));
	uint8_t user_stack[KSTACK_SIZE] __attribute__((aligned(16)));
	uint8_t ist_stack[4][IST_SIZE] __attribute__((aligned(16)));
};

extern struct percpu cpus[MAX_CPUS];
extern uint32_t ncpus_online;
/* boot/entry32.S: 1 when the trampoline pages were not usable RAM (no journey, no APs) */
extern uint32_t tramp_skipped;

static inline struct percpu *this_cpu(void)
{
	struct percpu *p;
	__asm__ volatile("movq %%gs:0, %0" : "=r"(p));
	return p;
}

/* Loads this CPU's GDT, TSS (with IST stacks), the shared IDT and GS base. */
void cpu_tables_init(struct percpu *c);
void idt_init(void);
/* Copies the trampoline's journey log into c->journey. */
void journey_save(struct percpu *c);
void journey_report(const struct percpu *c);

#endif
