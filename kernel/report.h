/* The hardware report: every result of the run in one compact block, with the
 * CPU's identification and feature bits, for a person to photograph from the
 * screen or copy from serial and submit (docs/real-hardware.md). */
#ifndef KERNEL_REPORT_H
#define KERNEL_REPORT_H
#include <stdbool.h>
#include <stdint.h>

/* Verdict letters of the report: P pass, F fail, S skip, T timeout (a CPU that
 * did not come back), E error.  A result counts as failed for F, T and E. */
#define REPORT_VERDICTS "PFSTE"

/* One line of console output, as the screen saw it (without the newline).  The
 * results are taken from the KTAP itself: the plan line "1..N", each top-level
 * "ok N NUM name ..." / "not ok N NUM name ..." line and each "# Subtest:" line
 * (for the status bar).  So the report says exactly what the log says, and the
 * runner needs no hook. */
void report_line(const char *line);
/* One result, for a caller that has it first-hand (verdict: one of REPORT_VERDICTS). */
void report_record(uint32_t num, const char *name, char verdict);
/* The end of the run (kernel_exit): the report block to the console; then, when
 * the run reached its summary (or cpu_only: report=cpu), the screen is cleared
 * and shows the summary and the report where a person sees them without
 * scrolling.  A run that ended early (crash, command-line error) keeps its
 * screen, with the block printed below. */
void report_final(bool all_passed, bool cpu_only);

#endif
