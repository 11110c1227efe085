/* The mode journey as the trampoline logged it (boot/trampoline.S). */
#include "console.h"
#include "fmt.h"
#include "mem.h"
#include "percpu.h"

extern char TROFF_jlog[];

static const char *const step_name[JSTEPS] = {
	"loader protected mode", "real mode", "protected mode", "long mode",
};

void journey_save(struct percpu *c)
{
	if (tramp_skipped && c->index == 0) {
		memset(c->journey, 0, sizeof c->journey);
		return;
	}
	memcpy(c->journey, (void *)(uintptr_t)(TRAMP_BASE + (uintptr_t)TROFF_jlog), sizeof c->journey);
}

void journey_report(const struct percpu *c)
{
	if (tramp_skipped && c->index == 0) {
		kprintf("# journey cpu0: skipped: the memory map does not give 0x%x-0x%x as usable RAM, "
			"so the boot CPU went straight from the loader's protected mode to long mode\n",
			TRAMP_BASE, TRAMP_BASE + TRAMP_SIZE - 1);
		return;
	}
	for (int i = 0; i < JSTEPS; i++) {
		const struct journey_rec *j = &c->journey[i];
		if (i == JSTEP_LOADER && c->index != 0)
			continue;       /* APs start in real mode */
		char int3[80] = "";
		if (i == JSTEP_REAL || i == JSTEP_PROT)
			tl_snprintf(int3, sizeof int3, " INT3 via %s: hits=%u ip=0x%x (expected 0x%x)",
				    i == JSTEP_REAL ? "IVT" : "IDT32", j->bp_hits, j->bp_ip, j->bp_expect);
		kprintf("# journey cpu%u: %-21s CS=0x%04x CR0=0x%08x CR4=0x%08x EFER=0x%x%s\n",
			c->index, step_name[i], j->cs, j->cr0, j->cr4, j->efer, int3);
	}
}
