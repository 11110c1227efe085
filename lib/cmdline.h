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
 *   mode=LIST       long | pm32 | pm32pg | pm32pae | all, comma-separated: the CPU
 *                   modes to run experiments in (pm32: 32-bit protected mode,
 *                   paging off; pm32pg: 32-bit paging; pm32pae: PAE paging)
 *                                                                       (default long)
 *
 * Who passed the line decides whether it starts with the image's path: QEMU's
 * -kernel loader (multiboot v1, loader name "qemu") passes "PATH APPEND"
 * (hw/i386/multiboot.c: snprintf "%s %s" of kernel_filename and kernel_cmdline);
 * GRUB passes only the words after the file name, for multiboot and multiboot2
 * alike (grub-core/loader/multiboot.c: "Skip filename", init_mbi(argc - 1,
 * argv + 1)); iPXE's multiboot (v1) passes "URI ARGS" (src/arch/x86/image/
 * multiboot.c, multiboot_add_cmdline: the image URI, a space, its command line).
 * Any other loader: the whole line is arguments. */
#ifndef LIB_CMDLINE_H
#define LIB_CMDLINE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CMD_MAX_SEL     32
#define CMD_FAMILY_LEN  16
#define CMD_CPU_ALL     (-1)
#define CMD_MAX_LINE    4095    /* longer lines are refused as a whole */

/* CPU modes an experiment runs in (mode=), one bit each, in run order. */
#define CMD_MODE_LONG           0x1
#define CMD_MODE_PM32           0x2
#define CMD_MODE_PM32PG         0x4
#define CMD_MODE_PM32PAE        0x8
#define CMD_MODES_PM32          (CMD_MODE_PM32 | CMD_MODE_PM32PG | CMD_MODE_PM32PAE)
#define CMD_MODES_ALL           (CMD_MODE_LONG | CMD_MODES_PM32)

enum sel_kind { SEL_ALL, SEL_NUM, SEL_RANGE, SEL_FAMILY };
enum exit_mode { EXIT_AUTO, EXIT_QEMU, EXIT_BOCHS, EXIT_HALT };
enum cmd_loader { CMD_LOADER_OTHER, CMD_LOADER_QEMU, CMD_LOADER_GRUB, CMD_LOADER_IPXE };

struct sel_item {
	/* CPU modes an experiment runs in (mode=), one bit each, in run order. */
#define CMD_MODE_LONG           0x1
#define CMD_MODE_PM32           0x2
#define CMD_MODE_PM32PG         0x4
#define CMD_MODE_PM32PAE        0x8
#define CMD_MODES_PM32          (CMD_MODE_PM32 | CMD_MODE_PM32PG | CMD_MODE_PM32PAE)
#define CMD_MODES_ALL           (CMD_MODE_LONG | CMD_MODES_PM32)

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
	unsigned modes;         /* CMD_MODE_* bits */
	bool fuzz_debug;        /* fuzz=debug */
	bool run_given;         /* run= appeared (refused with fuzz=) */
	uint64_t fuzz_seed;
	uint32_t fuzz_count;
	int64_t fuzz_index;     /* -1: scenarios 0..fuzz_count-1 */
	uint32_t fuzz_drop;
	bool fuzz_shrink;
	unsigned fuzz_words;    /* which of seed count index drop shrink appeared (bits 0-4) */
	size_t args_off;        /* where the arguments start in the loader's line */
	char error[240];
};

/* One experiment as the selection sees it. */
struct cmd_exp {
	uint32_t num;
	const char *family;
	bool selftest;
	bool pm32;              /* EXP_PM32: runs in the protected modes only */
};

extern const char cmdline_usage[];

/* The loader, from the multiboot version (1 or 2) and the loader's name. */
enum cmd_loader cmdline_loader(int multiboot_version, const char *loader_name);
const char *cmdline_loader_name(enum cmd_loader l);

/* The argument words alone.  false on any unknown or malformed word; c->error
 * then says which and why (the word escaped). */
bool cmdline_parse(const char *s, struct cmdline *c);

/* The line as the loader passed it: `line` holds what was kept of it and
 * `full_len` is its whole length as the loader gave it; a line longer than
 * CMD_MAX_LINE (or than what was kept) is refused as a whole.  With QEMU's
 * loader the image path comes first and is skipped; a path with spaces is
 * recognised by its last word containing '/'.  c->args_off says where the
 * arguments start. */
bool cmdline_parse_boot(const char *line, size_t full_len, enum cmd_loader loader,
			struct cmdline *c);

/* The modes (CMD_MODE_* bits) an experiment runs in under this command line: a
 * protected-mode experiment (EXP_PM32) in the selected pm32 modes, any other in
 * long mode if selected.  0: not at all. */
unsigned cmdline_modes_for(const struct cmdline *c, bool pm32);
/* "long", "pm32", "pm32pg", "pm32pae" for one CMD_MODE_* bit, "?" otherwise. */
const char *cmdline_mode_name(unsigned mode);
bool cmdline_selects(const struct cmdline *c, uint32_t num, const char *family);
/* What the runner runs: as cmdline_selects, and a self-test (selftest: the
 * experiment's EXP_SELFTEST flag) only with selftest=1.  tools/mkmenu --list
 * answers "which experiments does this command line run" with it. */
bool cmdline_selects_experiment(const struct cmdline *c, uint32_t num, const char *family, bool selftest);
/* Every run= item must name something that runs: an item that names nothing,
 * or only self-tests without selftest=1, and a selection that runs nothing at
 * all, are refused.  false with the reason in err. */
bool cmdline_validate(const struct cmdline *c, const struct cmd_exp *reg, int n, char *err,
		      size_t errn);

/* cpu=N must name an online CPU (online[i] for i < n); false with the list of
 * what is accepted in err. */
bool cmdline_check_cpu(const struct cmdline *c, const bool *online, int n, char *err,
		       size_t errn);

#endif
