/* The experiment registry and the check helpers every experiment uses.
 *
 * Registering an experiment is one EXPERIMENT() definition in its own file: the
 * record lands in the .experiments section, which the runner walks (and which
 * tools/mkmenu reads from the ELF to generate the GRUB menu).  Nothing else to edit. */
#ifndef KERNEL_EXPERIMENT_H
#define KERNEL_EXPERIMENT_H
#include <stdbool.h>
#include <stdint.h>

#define EXP_SELFTEST    0x1     /* only runs with selftest=1 on the command line */

/* Layout is read by tools/mkmenu.c from the ELF: keep the two in step. */
struct experiment {
	uint64_t num;
	const char *name;
	const char *family;     /* "debug", "bts", "pmu", "pt", "platform", "selftest" */
	const char *book;       /* book experiment it reproduces ("ex14-9") or "" */
	const char *needs;      /* CPU features, human readable */
	const char *summary;    /* one line: what it shows */
	void (*run)(void);
	uint64_t flags;
};

#define EXPERIMENT(num_, name_, family_, book_, needs_, summary_, fn_, ...)	\
	static const struct experiment __exp_##num_				\
	__attribute__((used, section(".experiments"), aligned(8))) = {		\
		.num = (num_), .name = (name_), .family = (family_),		\
		.book = (book_), .needs = (needs_), .summary = (summary_),	\
		.run = (fn_), __VA_ARGS__ }

/* Results only get worse within an experiment: PASS < SKIP < FAIL. */
enum verdict { V_PASS, V_SKIP, V_FAIL };

/* One KTAP subtest line: "ok N what: observed=... expected=..." (printf format). */
bool check(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Equality of two values, printed in hex: "ok N what: 0x.. (expected 0x..)". */
bool check_eq(const char *what, uint64_t observed, uint64_t expected);
/* Equality printed in decimal. */
bool check_eqd(const char *what, uint64_t observed, uint64_t expected);
/* Mark the experiment SKIP with the exact reason (e.g. "CPUID.01H:EDX.DS[21]=0");
 * the experiment returns right after.  Ignored if a check already failed. */
void exp_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Fail without a specific check (e.g. a set-up step that went wrong). */
void exp_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Diagnostic line inside the experiment ("# ..."), indented with the subtests. */
void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Diagnostic only at verbose>=1 */
void vdiag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Current verdict of the running experiment. */
enum verdict exp_verdict(void);
int exp_verbosity(void);

#endif
