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
/* A 32-bit protected-mode experiment (kernel/pm32.h): it runs in the modes
 * pm32, pm32pg and pm32pae (mode= on the command line), and its result line
 * names the mode ("ok 5 104 dr-exec pm32").  It may share its number with the
 * long-mode experiment it mirrors; numbers keep their meaning across modes. */
#define EXP_PM32        0x2

/* The families, by the hundreds digit of the number: the names the kernel prints
 * and run= accepts.  The family is derived from the number, never spelled twice. */
#define EXP_FAMILIES(X, n)						\
	X(n, 1, "debug") X(n, 2, "bts") X(n, 3, "pmu") X(n, 4, "pt")	\
	X(n, 5, "platform") X(n, 9, "selftest")
#define EXP__NAME_IF(n, d, s)   (n) / 100 == (d) ? (s) :
#define EXP__IS(n, d, s)        || (n) / 100 == (d)
#define EXP__RANGE(n, d, s)     " " #d "xx " s
/* The family name of experiment number n, or NULL: a constant expression. */
#define EXP_FAMILY_NAME(n)      (EXP_FAMILIES(EXP__NAME_IF, n) (const char *)0)
/* n is a number in a known family's range (100..999, hundreds digit a family). */
#define EXP_NUMBER_OK(n)        ((n) >= 100 && (n) <= 999 && (0 EXP_FAMILIES(EXP__IS, n)))
#define EXP_FAMILY_RANGES       EXP_FAMILIES(EXP__RANGE, 0)

/* The record.  tools/mkmenu reads it from the ELF through this same header (the
 * pointers are kernel addresses there, resolved through the section headers). */
struct experiment {
	uint64_t num;
	const char *name;
	const char *family;     /* EXP_FAMILY_NAME(num) */
	const char *book;       /* book experiment it reproduces ("ex14-9") or "" */
	const char *needs;      /* CPU features, human readable */
	const char *summary;    /* one line: what it shows */
	void (*run)(void);
	uint64_t flags;
	const char *file;       /* the source file that registers it */
};

/* Checked when the file compiles: a number in a known family's range, a name and a
 * one-line summary given as string literals.  Checked when the kernel links: a
 * number registered twice is a multiple definition of experiment_number_N (the
 * record is a global symbol for that reason).  tools/mkmenu checks the same on
 * the linked ELF, and that the summary is one line. */
#define EXPERIMENT(num_, name_, book_, needs_, summary_, fn_, ...)		\
	_Static_assert(EXP_NUMBER_OK(num_), "experiment " #num_			\
		       ": number outside all family ranges (families:" EXP_FAMILY_RANGES ")"); \
	_Static_assert(sizeof("" name_) > 1, "experiment " #num_ ": empty name"); \
	_Static_assert(sizeof("" summary_) > 1,					\
		       "experiment " #num_ ": no one-line summary");		\
	const struct experiment experiment_number_##num_			\
	__attribute__((used, section(".experiments"), aligned(8))) = {		\
		.num = (num_), .name = (name_), .family = EXP_FAMILY_NAME(num_), \
		.book = (book_), .needs = (needs_), .summary = (summary_),	\
		.run = (fn_), .file = __FILE__, __VA_ARGS__ }

/* A 32-bit protected-mode experiment (EXP_PM32, kernel/pm32.h) may carry the
 * number of the long-mode experiment it mirrors: its record is the global symbol
 * experiment_number_N_pm32, so each number is still registered at most once per
 * mode.  flags_: more EXP_* bits (EXP_SELFTEST), or 0. */
#define EXPERIMENT_PM32(num_, name_, book_, needs_, summary_, fn_, flags_)	\
	_Static_assert(EXP_NUMBER_OK(num_), "experiment " #num_			\
		       ": number outside all family ranges (families:" EXP_FAMILY_RANGES ")"); \
	_Static_assert(sizeof("" name_) > 1, "experiment " #num_ ": empty name"); \
	_Static_assert(sizeof("" summary_) > 1,					\
		       "experiment " #num_ ": no one-line summary");		\
	const struct experiment experiment_number_##num_##_pm32		\
	__attribute__((used, section(".experiments"), aligned(8))) = {		\
		.num = (num_), .name = (name_), .family = EXP_FAMILY_NAME(num_), \
		.book = (book_), .needs = (needs_), .summary = (summary_),	\
		.run = (fn_), .file = __FILE__, .flags = EXP_PM32 | (flags_) }

/* Results only get worse within an experiment: PASS < SKIP < FAIL.  TIMEOUT is
 * the runner's, for a CPU that never came back from an experiment. */
enum verdict { V_PASS, V_SKIP, V_FAIL, V_TIMEOUT, V_NVERDICTS };

/* The checks below are kernel/results.c's: the one owner of results. */

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
/* For an experiment that prints more than the console holds back (fuzz=debug):
 * it will make nchecks checks in all, so the block's plan line is printed now
 * and the rest streams out as it is printed. */
void exp_stream(int nchecks);
/* Current verdict of the running experiment. */
enum verdict exp_verdict(void);
/* The CPU mode the experiment runs in: one CMD_MODE_* bit (lib/cmdline.h). */
unsigned exp_mode(void);
int exp_verbosity(void);
/* Context for the checks that follow: each pushed prefix starts their
 * descriptions ("DR2: len 4: ..."), until popped. */
void prefix_push(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void prefix_pop(void);

#endif
