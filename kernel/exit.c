/* Ending the run: QEMU's isa-debug-exit, Bochs's shutdown port, or halt.
 * Under QEMU the process exit status becomes (value << 1) | 1: 1 = all passed,
 * 3 = something failed (run-qemu.sh maps them to 0 and 1). */
#include "cmdline.h"
#include "console.h"
#include "report.h"
#include "exit.h"
#include "x86.h"

extern struct cmdline kcmdline;

static void qemu_exit(bool ok)
{
	outl(0xf4, ok ? 0 : 1);
}

static void bochs_shutdown(void)
{
	/* Bochs's BIOS-debug device quits the simulator on this string (iodev/biosdev.cc). */
	for (const char *s = "Shutdown"; *s; s++)
		outb(0x8900, (uint8_t)*s);
}

void kernel_exit(bool ok)
{
	enum exit_mode m = kcmdline.exit_mode;
	report_final(ok, kcmdline.cpu_report_only);
	if (m == EXIT_AUTO || m == EXIT_QEMU)
		qemu_exit(ok);
	if (m == EXIT_AUTO || m == EXIT_BOCHS)
		bochs_shutdown();
	kprintf("# tracelab: run finished, halted (%s)\n", ok ? "all passed" : "FAILURES");
	cli();
	for (;;)
		hlt();
}
