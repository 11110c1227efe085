/* The one owner of results (kernel/results.c), in the spirit of kvm-unit-tests'
 * report(): every check, diagnostic and verdict of the running experiment goes
 * through it, it keeps the record of every experiment run, and the run's totals.
 * It prints nothing itself: writers register as sinks and are told each event
 * (the KTAP writer on the console, kernel/ktap.c; the screen's status bar,
 * kernel/report.c), and the final summary and the hardware report read the
 * records.  Nothing parses printed text. */
#ifndef KERNEL_RESULTS_H
#define KERNEL_RESULTS_H
#include <stdbool.h>
#include <stdint.h>
#include "experiment.h"

/* The block of one experiment run (one CPU, one repetition). */
struct results_block {
	uint32_t num;
	const char *name;               /* the registry's */
	char label[64];                 /* KTAP name of the block and its result line:
					 * "101 int3", "101 int3 cpu=1 rep=2" */
	int test_no;                    /* its number in the top-level plan */
	int nchecks, nfailed;
	enum verdict v;
	char reason[160];               /* SKIP or TIMEOUT reason */
};

/* One per experiment number, in the order they first ran: how many runs (CPUs,
 * repetitions) ended with each verdict. */
struct results_record {
	uint32_t num;
	const char *name;
	uint16_t n[V_NVERDICTS];
};

struct results_totals {
	int planned, done;
	int n[V_NVERDICTS];             /* done, by verdict */
	bool started;                   /* the plan was given */
	bool finished;                  /* the run reached its summary */
	int dropped;                    /* runs not recorded (more numbers than records) */
};

enum results_line { RL_CHECK, RL_DIAG };

/* A writer.  Each hook is optional. */
struct results_sink {
	void (*plan)(int planned);
	void (*open)(const struct results_block *b);
	void (*line)(const struct results_block *b, enum results_line kind, bool ok, const char *text);
	/* The block ends early (exception, watchdog, lost CPU): what it holds must
	 * be out now; `more` checks will still come before close(). */
	void (*flush)(const struct results_block *b, int more);
	void (*close)(const struct results_block *b);
	void (*finish)(const struct results_totals *t);
};
void results_add_sink(const struct results_sink *s);

/* ---- the runner's side ---------------------------------------------------- */
void results_set_verbosity(int verbose);
void results_plan(int planned);
void results_open(uint32_t num, const char *name, const char *label);
void results_flush(int more);
/* Ends the open block: its verdict is recorded and reported. */
enum verdict results_close(void);
/* A result with no block: the run never started or never came back (the open
 * block, if any, is flushed and abandoned).  v is V_SKIP or V_TIMEOUT. */
void results_unrun(uint32_t num, const char *name, const char *label, enum verdict v,
		   const char *reason);
void results_finish(void);
bool results_block_open(void);

/* ---- the readers' side ---------------------------------------------------- */
const struct results_totals *results_totals(void);
const struct results_record *results_records(int *n);
/* "PASS", "SKIP", "FAIL", "TIMEOUT" */
const char *verdict_name(enum verdict v);

#endif
