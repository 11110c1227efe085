/* The kernel command line: what to run, how often, where, how loudly.
 *
 *   run=LIST        comma-separated: all | FAMILY | N | A-B     (default: all)
 *   reps=N          repetitions of each selected experiment, 1..1000   (default 1)
 *   cpu=N|all       run on CPU number N (0 = boot CPU) or on every CPU  (default 0)
 *   verbose=0|1|2   0: results, 1: + tables and dumps, 2: + everything  (default 0)
 *   selftest=0|1    also register the runner's self-test experiments (9xx)
 *   watchdog=MS     per-experiment watchdog in milliseconds, 10..600000 (default 3000)
 *   exit=auto|qemu|bochs|halt   how the run ends                        (default auto)
 *   pause=MS        pause after each experiment, for reading the screen (default 0)
 *   report=full|cpu cpu: print the CPU report and run nothing           (default full)
 *
 * A first word without '=' is the image's path (QEMU and GRUB put it there). */
#ifndef LIB_CMDLINE_H
#define LIB_CMDLINE_H
#include <stdbool.h>
#include <stdint.h>

#define CMD_MAX_SEL     32
#define CMD_FAMILY_LEN  16
#define CMD_CPU_ALL     (-1)

enum sel_kind { SEL_ALL, SEL_NUM, SEL_RANGE, SEL_FAMILY };
enum exit_mode { EXIT_AUTO, EXIT_QEMU, EXIT_BOCHS, EXIT_HALT };

struct sel_item {
	enum sel_kind kind;
	uint32_t lo, hi;
	char family[CMD_FAMILY_LEN];
};

struct cmdline {
	struct sel_item sel[CMD_MAX_SEL];
	int nsel;
	uint32_t reps;
	int cpu;
	int verbose;
	bool selftest;
	uint32_t watchdog_ms;
	enum exit_mode exit_mode;
	uint32_t pause_ms;
	bool cpu_report_only;
	char error[160];
};

extern const char cmdline_usage[];

/* false on any unknown or malformed word; c->error then says which and why. */
bool cmdline_parse(const char *s, struct cmdline *c);
bool cmdline_selects(const struct cmdline *c, uint32_t num, const char *family);
/* What the runner runs: as cmdline_selects, and a self-test (selftest: the
 * experiment's EXP_SELFTEST flag) only with selftest=1.  tools/mkmenu --list
 * answers "which experiments does this command line run" with it. */
bool cmdline_selects_experiment(const struct cmdline *c, uint32_t num, const char *family, bool selftest);

#endif
