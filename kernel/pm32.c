/* The 64-bit side of protected-mode scenarios (see pm32.h): the protected-mode
 * GDT, IDT, task-state segments and page tables, built fresh for every run, and
 * the verdict on how the run ended. */
#include <stddef.h>
#include "apic.h"
#include "apicdef.h"
#include "cmdline.h"
#include "console.h"
#include "cr.h"
#include "experiment.h"
#include "mem.h"
#include "pm32.h"
#include "seg.h"
#include "trap.h"
#include "vectors.h"
#include "x86.h"

_Static_assert(offsetof(struct pm32_cb, nevents) == PM32_CB_NEVENTS, "cb layout");
_Static_assert(offsetof(struct pm32_cb, gdt_base) == PM32_CB_GDT_BASE, "cb layout");
_Static_assert(offsetof(struct pm32_cb, gdtr_limit) == PM32_CB_GDTR, "cb layout");
_Static_assert(offsetof(struct pm32_cb, idtr_limit) == PM32_CB_IDTR, "cb layout");
_Static_assert(offsetof(struct pm32_cb, mark) == PM32_CB_MARK, "cb layout");
_Static_assert(offsetof(struct pm32_cb, action) == PM32_CB_ACTION, "cb layout");
_Static_assert(offsetof(struct pm32_cb, ev) == PM32_CB_EVENTS, "cb layout");
_Static_assert(sizeof(struct pm32_cb) == PM32_CB_SIZE, "cb layout");
_Static_assert(sizeof(struct pm32_event) == PM32_EV_SIZE, "event layout");

#define PM32_STACK      0x4000
#define TASK_STACK      0x1000

static struct pm32_cb cb __attribute__((aligned(64)));
static uint64_t gdt[PM32_GDT_ENTRIES] __attribute__((aligned(16)));
static uint64_t idt[256] __attribute__((aligned(16)));
static struct tss32 tss[PM32_NTASKS];
static uint8_t stack[PM32_STACK] __attribute__((aligned(16)));
static uint8_t task_stack[PM32_NTASKS][TASK_STACK] __attribute__((aligned(16)));
/* 32-bit paging: one page directory of 4 MiB pages; PAE: a PDPT and four page
 * directories of 2 MiB pages.  Both identity-map 4 GiB, the APIC page uncached. */
static uint32_t pd32[1024] __attribute__((aligned(4096)));
static uint64_t pdpt_pae[4] __attribute__((aligned(32)));
static uint64_t pd_pae[4][512] __attribute__((aligned(4096)));
static bool tables_built;
static bool dead;               /* the watchdog fired in this experiment */
static unsigned dead_owner;     /* ...counted by experiment start */
static unsigned exp_serial;

static const uint32_t task_sel[PM32_NTASKS] = {
	PM32_SEL_TSS_MAIN, PM32_SEL_TSS_A, PM32_SEL_TSS_B, PM32_SEL_TSS_DB, PM32_SEL_TSS_BP,
	PM32_SEL_TSS_DF,
};

static uint32_t low32(const void *p)
{
	return (uint32_t)(uintptr_t)p;
}

/* SDM vol.3 3.4.5, Figure 3-8 (segment descriptor), 6.11 (gate descriptors). */
static uint64_t sys_desc(uint32_t base, uint32_t limit, unsigned type)
{
	return (limit & 0xffff) | (uint64_t)(base & 0xffffff) << 16 | (uint64_t)type << 40 |
	       1ULL << 47 | (uint64_t)((limit >> 16) & 0xf) << 48 | (uint64_t)(base >> 24) << 56;
}

static uint64_t task_gate(uint32_t tss_sel)
{
	return (uint64_t)tss_sel << 16 | (uint64_t)DESC_TYPE_TASK_GATE << 40 | 1ULL << 47;
}

static uint64_t int_gate(uint32_t off, unsigned dpl)
{
	return (off & 0xffff) | (uint64_t)PM32_SEL_CS << 16 |
	       (uint64_t)(DESC_TYPE_INTGATE32 | dpl << 5 | 0x80) << 40 |
	       (uint64_t)(off >> 16) << 48;
}

static void build_page_tables(void)
{
	if (tables_built)
		return;
	for (uint32_t i = 0; i < 1024; i++) {
		pd32[i] = i << 22 | PTE_P | PTE_W | PTE_PS;
		if (i == (uint32_t)(APIC_DEFAULT_BASE >> 22))
			pd32[i] |= PTE_PCD | PTE_PWT;
	}
	for (int j = 0; j < 4; j++) {
		pdpt_pae[j] = (uint64_t)low32(pd_pae[j]) | PTE_P;      /* PDPTEs: P only (SDM 4.4.1) */
		for (int i = 0; i < 512; i++) {
			uint64_t pa = (uint64_t)j << 30 | (uint64_t)i << 21;
			pd_pae[j][i] = pa | PTE_P | PTE_W | PTE_PS;
			if (pa == (APIC_DEFAULT_BASE & ~0x1fffffULL))
				pd_pae[j][i] |= PTE_PCD | PTE_PWT;
		}
	}
	tables_built = true;
}

void pm32_tss_set(struct pm32 *p, int task, unsigned off, uint32_t v)
{
	uint8_t *b = p->tss[task]->b + off;
	if (off == TSS32_LINK || off >= TSS32_ES)
		memcpy(b, &v, 2);       /* selectors and T/iomap are 16-bit fields */
	else
		memcpy(b, &v, 4);
}

uint32_t pm32_tss_get(const struct pm32 *p, int task, unsigned off)
{
	uint32_t v = 0;
	memcpy(&v, p->tss[task]->b + off, (off == TSS32_LINK || off >= TSS32_ES) ? 2 : 4);
	return v;
}

static void init_task(struct pm32 *p, int t, uint32_t eip, uint32_t eflags)
{
	memset(p->tss[t], 0, sizeof *p->tss[t]);
	pm32_tss_set(p, t, TSS32_EIP, eip);
	pm32_tss_set(p, t, TSS32_EFLAGS, eflags);
	pm32_tss_set(p, t, TSS32_ESP, low32(task_stack[t] + TASK_STACK));
	pm32_tss_set(p, t, TSS32_ESP0, low32(task_stack[t] + TASK_STACK));
	pm32_tss_set(p, t, TSS32_SS0, PM32_SEL_DS);
	pm32_tss_set(p, t, TSS32_CR3, cb.cr3);
	pm32_tss_set(p, t, TSS32_CS, PM32_SEL_CS);
	pm32_tss_set(p, t, TSS32_SS, PM32_SEL_DS);
	pm32_tss_set(p, t, TSS32_DS, PM32_SEL_DS);
	pm32_tss_set(p, t, TSS32_ES, PM32_SEL_DS);
	pm32_tss_set(p, t, TSS32_FS, PM32_SEL_DS);
	pm32_tss_set(p, t, TSS32_GS, PM32_SEL_DS);
	pm32_tss_set(p, t, TSS32_IOMAP, TSS32_SIZE);    /* no I/O bitmap */
	gdt[task_sel[t] / 8] = sys_desc(low32(p->tss[t]), TSS32_SIZE - 1, DESC_TYPE_TSS32);
}

const char *pm32_mode_name(void)
{
	return cmdline_mode_name(exp_mode());
}

void pm32_prepare(struct pm32 *p, uint32_t scenario, uint32_t entry_a, uint32_t entry_b)
{
	unsigned mode = exp_mode();

	build_page_tables();
	p->cb = &cb;
	p->gdt = gdt;
	p->idt = idt;
	for (int t = 0; t < PM32_NTASKS; t++)
		p->tss[t] = &tss[t];

	memset(&cb, 0, sizeof cb);
	cb.scenario = scenario;
	cb.abort_vec = PM32_NO_ABORT;
	cb.paging = mode == CMD_MODE_PM32PG ? PM32_PAGING_32 :
		    mode == CMD_MODE_PM32PAE ? PM32_PAGING_PAE : PM32_PAGING_OFF;
	cb.cr3 = cb.paging == PM32_PAGING_32 ? low32(pd32) :
		 cb.paging == PM32_PAGING_PAE ? low32(pdpt_pae) : 0;
	cb.stack_top = low32(stack + PM32_STACK);
	cb.tr = PM32_SEL_TSS_MAIN;
	cb.sti = 1;             /* the APIC watchdog must reach us */
	cb.gdt_base = low32(gdt);
	cb.gdtr_limit = sizeof gdt - 1;
	cb.gdtr_base = low32(gdt);
	cb.idtr_limit = sizeof idt - 1;
	cb.idtr_base = low32(idt);
	cb.action[VEC_DB] = PM32_ACT_RECORD;
	cb.action[VEC_BP] = PM32_ACT_RECORD;
	cb.action[VEC_SPURIOUS] = PM32_ACT_IGNORE;

	memset(gdt, 0, sizeof gdt);
	gdt[SEL_CODE16 / 8] = DESC_CODE16;
	gdt[SEL_DATA16 / 8] = DESC_DATA16;
	gdt[SEL_CODE32 / 8] = DESC_CODE32;
	gdt[SEL_DATA32 / 8] = DESC_DATA32;
	gdt[SEL_KCODE64 / 8] = DESC_KCODE64;    /* the climb back jumps through it */
	gdt[SEL_KDATA / 8] = DESC_KDATA;
	init_task(p, PM32_TASK_MAIN, 0, RFLAGS_FIXED1);
	init_task(p, PM32_TASK_A, entry_a, RFLAGS_FIXED1 | RFLAGS_IF);
	init_task(p, PM32_TASK_B, entry_b, RFLAGS_FIXED1 | RFLAGS_IF);
	init_task(p, PM32_TASK_DB, low32(pm32_task_db), RFLAGS_FIXED1);
	init_task(p, PM32_TASK_BP, low32(pm32_task_bp), RFLAGS_FIXED1);
	init_task(p, PM32_TASK_DF, low32(pm32_task_df), RFLAGS_FIXED1);
	gdt[PM32_SEL_GATE_A / 8] = task_gate(PM32_SEL_TSS_A);
	gdt[PM32_SEL_GATE_B / 8] = task_gate(PM32_SEL_TSS_B);

	for (int v = 0; v < 256; v++)
		idt[v] = int_gate(low32(pm32_vectors + 16 * v), (v == VEC_BP || v == 4) ? 3 : 0);
	idt[VEC_DF] = task_gate(PM32_SEL_TSS_DF);
}

void pm32_task_gate_idt(struct pm32 *p, int vector, int task)
{
	p->idt[vector] = task_gate(task_sel[task]);
}

/* The vector's name without a '#' (KTAP descriptions must not hold one). */
static const char *vec_name(uint32_t v)
{
	const char *n = v < 256 ? trap_name((int)v) : "?";
	return n[0] == '#' ? n + 1 : n;
}

bool pm32_run(struct pm32 *p, const char *what)
{
	/* after the watchdog, nothing more runs in this experiment */
	if (dead && dead_owner == exp_serial)
		return check(false, "%s: not run, the watchdog ended an earlier part", what);
	pm32_call(p->cb);
	uint32_t v = p->cb->abort_vec;
	if (v == PM32_NO_ABORT)
		return true;
	if (v >= 32)
		apic_eoi();
	if (v == VEC_TIMER) {
		dead = true;
		dead_owner = exp_serial;
		return check(false, "%s: watchdog in %s at EIP 0x%x: scenario ran to its end", what,
			     pm32_mode_name(), p->cb->abort_eip);
	}
	return check(false, "%s: unexpected vector %u (%s) error 0x%x at CS:EIP 0x%x:0x%x in %s: "
		     "scenario ran to its end", what, v, vec_name(v),
		     p->cb->abort_err, p->cb->abort_cs, p->cb->abort_eip, pm32_mode_name());
}

/* Called by the runner before each experiment: a watchdog in the previous one
 * does not stop this one. */
void pm32_new_experiment(void)
{
	exp_serial++;
	dead = false;
}
