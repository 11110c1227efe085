/* The boot CPU's life in long mode: tables, consoles, what the loader said, the
 * journey it made, the CPU it is, the APIC, then the experiments. */
#include "apic.h"
#include "boot.h"
#include "bootinfo.h"
#include "cmdline.h"
#include "console.h"
#include "cpu.h"
#include "fmt.h"
#include "kmem.h"
#include "percpu.h"
#include "ds_area.h"
#include "exit.h"
#include "ktap.h"
#include "pmi.h"
#include "report.h"
#include "results.h"
#include "runner.h"
#include "trap.h"
#include "user.h"
#include "screen.h"
#include "serial.h"
#include "smp.h"
#include "str.h"
#include "x86.h"

extern uint32_t boot_magic, boot_info, boot_info_size;
extern uint8_t boot_info_copy[];

struct boot_info bootinfo;
struct cmdline kcmdline;

static void read_boot_info(struct boot_info *bi)
{
	if (boot_magic == MB2_LOADER_MAGIC) {
		size_t n = boot_info_size < MBI_COPY_SIZE ? boot_info_size : MBI_COPY_SIZE;
		mb2_parse(boot_info_copy, n, bi);
	} else if (boot_magic == MB1_LOADER_MAGIC) {
		mb1_parse(boot_info, bi);
	} else {
		bi->nproblems = 1;
		tl_snprintf(bi->problem, sizeof bi->problem, "unknown loader magic 0x%x", boot_magic);
	}
}

/* The loader's strings are echoed escaped: a newline in the command line must not
 * start a line of its own in the KTAP stream, an escape sequence must not reach
 * the terminal. */
static void report_boot_info(const struct boot_info *bi)
{
	static char line[4 * BI_CMDLINE_SIZE], name[4 * sizeof bi->loader_name];
	tl_escape(line, sizeof line, bi->cmdline, tl_strlen(bi->cmdline));
	tl_escape(name, sizeof name, bi->loader_name, tl_strlen(bi->loader_name));
	kprintf("# boot: multiboot%s, loader \"%s\" (%s), command line \"%.300s%s\" (%zu bytes)\n",
		bi->loader == 2 ? "2" : bi->loader == 1 ? " v1" : " ?", name,
		cmdline_loader_name(cmdline_loader(bi->loader, bi->loader_name)), line,
		tl_strlen(line) > 300 ? "..." : "", bi->cmdline_len);
	uint64_t usable = 0;
	for (int i = 0; i < bi->nmmap; i++)
		if (bi->mmap[i].type == MEM_USABLE)
			usable += bi->mmap[i].len;
	kprintf("# boot: memory map %d regions%s, %llu MiB usable; console %s; ACPI RSDP %s\n",
		bi->nmmap, bi->mmap_truncated ? " (truncated)" : "",
		(unsigned long long)(usable >> 20), screen_describe(),
		bi->rsdp ? (bi->rsdp_version == 2 ? "v2" : "v1") : "none");
	if (bi->nproblems)
		kprintf("# boot: %d problem(s) in the boot information; first: %s\n", bi->nproblems,
			bi->problem);
	if (bi->nmmap && !bi_range_usable(bi, TRAMP_BASE, TRAMP_SIZE))
		kprintf("# boot: warning: trampoline 0x%x-0x%x is not usable RAM in the memory map\n",
			TRAMP_BASE, TRAMP_BASE + TRAMP_SIZE - 1);
}

void kernel_main64(void)
{
	struct percpu *c = &cpus[0];
	journey_save(c);
	c->index = 0;
	cpu_tables_init(c);
	idt_init();
	idt_load();
	/* Who handles what: each owner registered here, so the layers below call
	 * up into no one (trap.c knows no runner, ds.c no PMI handler). */
	trap_set_unexpected(runner_unexpected);
	trap_set_default(VEC_PMI, pmi_handler);
	trap_set_default(VEC_USER_RETURN, user_return);
	ds_set_install_hook(pmi_pebs_seen_set);
	ktap_init();
	report_init();
	serial_init();
	read_boot_info(&bootinfo);
	screen_init(&bootinfo);
	console_color(4);
	kprintf("# tracelab: x86 debug, branch-trace and performance-monitoring test kernel\n");
	console_color(0);
	report_boot_info(&bootinfo);
	journey_report(c);
	paging_init(&bootinfo);
	arena_init(&bootinfo);
	cpu_identify();
	cpu_report();
	pic_disable();
	apic_init();
	c->apic_id = apic_id();
	if (apic_present())
		kprintf("# apic: %s, id %u, timer %llu ticks/ms (divide by 16)\n",
			apic_x2apic() ? "x2APIC" : "xAPIC", c->apic_id,
			(unsigned long long)apic_ticks_per_ms());
	else
		kprintf("# apic: none: %s; no APIC register is touched, no IPI sent\n",
			apic_absent_reason());
	kprintf("# watchdog: %s\n", watchdog_describe());
	smp_init();
	kprintf("# cpus online: %u\n", ncpus_online);
	bool ok = cmdline_parse_boot(bootinfo.cmdline, bootinfo.cmdline_len,
				     cmdline_loader(bootinfo.loader, bootinfo.loader_name), &kcmdline);
	if (!ok) {
		kprintf("KTAP version 1\n# tracelab: command line error: %s\n# %s\n", kcmdline.error,
			cmdline_usage);
		kprintf("1..0\n# tracelab: command line rejected, nothing run\n");
		kcmdline.exit_mode = EXIT_AUTO;
		kernel_exit(false);
	}
	if (kcmdline.cpu_report_only) {
		kprintf("# tracelab: report=cpu: nothing run\n");
		kernel_exit(true);
	}
	runner_main(&kcmdline);
}
