/* fuzz=debug: differential fuzzing of debug-exception delivery (issue 21). */
#ifndef KERNEL_DBFUZZ_H
#define KERNEL_DBFUZZ_H
#include "cmdline.h"
#include "experiment.h"

/* The fuzz run as the runner's one test (not in the registry: fuzz=debug runs
 * nothing else); it reads its seed/count/index/drop from dbfuzz_cmdline. */
extern const struct experiment dbfuzz_experiment;
extern const struct cmdline *dbfuzz_cmdline;

#endif
