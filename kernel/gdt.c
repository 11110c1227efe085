/* Each CPU's GDT and TSS.  The layout (inc/seg.h) is the trampoline's, plus the
 * ring-3 segments and the 16-byte TSS descriptor. */
#include "mem.h"
#include "msr.h"
#include "percpu.h"
#include "x86.h"

struct percpu cpus[MAX_CPUS] __attribute__((aligned(4096)));
uint32_t ncpus_online = 1;

static const uint64_t gdt_template[GDT_ENTRIES - 2] = {
	[SEL_NULL / 8] = 0,
	[SEL_CODE16 / 8] = DESC_CODE16,
	[SEL_DATA16 / 8] = DESC_DATA16,
	[SEL_CODE32 / 8] = DESC_CODE32,
	[SEL_DATA32 / 8] = DESC_DATA32,
	[SEL_KCODE64 / 8] = DESC_KCODE64,
	[SEL_KDATA / 8] = DESC_KDATA,
	[SEL_UDATA / 8] = DESC_UDATA,        /* DPL 3 */
	[SEL_UCODE64 / 8] = DESC_UCODE64,      /* DPL 3, L=1 */
};

static void tss_descriptor(uint64_t *d, const struct tss64 *tss)
{
	uint64_t base = (uint64_t)(uintptr_t)tss, limit = sizeof *tss - 1;
	d[0] = (limit & 0xffff) | (base & 0xffffff) << 16 | 0x89ULL << 40 |
	       ((limit >> 16) & 0xf) << 48 | ((base >> 24) & 0xff) << 56;
	d[1] = base >> 32;
}

void cpu_tables_init(struct percpu *c)
{
	c->self = c;
	memcpy(c->gdt, gdt_template, sizeof gdt_template);
	memset(&c->tss, 0, sizeof c->tss);
	c->tss.rsp[0] = (uint64_t)(uintptr_t)(c->rsp0_stack + KSTACK_SIZE);
	for (int i = 0; i < 4; i++)
		c->tss.ist[i] = (uint64_t)(uintptr_t)(c->ist_stack[i] + IST_SIZE);
	c->tss.iomap_base = sizeof c->tss;      /* no I/O bitmap: CPL 3 I/O faults */
	tss_descriptor(&c->gdt[SEL_TSS / 8], &c->tss);

	struct dtr g = { sizeof c->gdt[0] * (GDT_ENTRIES + 1) - 1, (uint64_t)(uintptr_t)c->gdt };
	lgdt(&g);
	__asm__ volatile(
		"pushq %[cs]\n\t"
		"leaq 1f(%%rip), %%rax\n\t"
		"pushq %%rax\n\t"
		"lretq\n"
		"1:\n\t"
		"movw %[ds], %%ax\n\t"
		"movw %%ax, %%ds\n\t"
		"movw %%ax, %%es\n\t"
		"movw %%ax, %%ss\n\t"
		"xorl %%eax, %%eax\n\t"
		"movw %%ax, %%fs\n\t"
		"movw %%ax, %%gs\n\t"
		: : [cs] "i"(SEL_KCODE64), [ds] "i"(SEL_KDATA) : "rax", "memory");
	ltr(SEL_TSS);
	wrmsr(IA32_GS_BASE, (uint64_t)(uintptr_t)c);
}
