/* The hardware report: every result of the run in one compact block, with the
 * CPU's identification and feature bits, for a person to photograph from the
 * screen or copy from serial and submit (docs/real-hardware.md). */
#ifndef KERNEL_REPORT_H
#define KERNEL_REPORT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Verdict letters of the report: P pass, F fail, S skip, T timeout (a CPU that
 * did not come back), E error (not produced by this kernel; kept in the format).
 * A result counts as failed for F, T and E.  The results are kernel/results.c's
 * records: the report reads them, it parses no text. */
#define REPORT_VERDICTS "PFSTE"

/* Registers the screen's status bar ("12/50 done  pass 9 ... running: 113 lbr")
 * as a writer of kernel/results.c. */
void report_init(void);
/* The hardware report block, exactly as report_final() prints it, into buf (NUL
 * terminated, cut to size); returns the length it needs. */
size_t report_text(char *buf, size_t size);
/* The end of the run (kernel_exit): the report block to the console; then, when
 * the run reached its summary (or cpu_only: report=cpu), the screen is cleared
 * and shows the summary and the report where a person sees them without
 * scrolling.  A run that ended early (crash, command-line error) keeps its
 * screen, with the block printed below. */
void report_final(bool all_passed, bool cpu_only);

#endif
