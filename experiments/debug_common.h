/* What the 1xx debug experiments share: the exception recorder.
 *
 * A handler on #DB and #BP (and on any other vector an experiment asks for with
 * dbg_catch()) that appends one event per delivery, in delivery order, to a bounded
 * log: vector, error code, saved RIP/CS/RFLAGS (the CPL the event came from is the
 * saved CS's RPL), DR6 and DR7 as the handler found them, and the RCX/RSI of the
 * interrupted context (for string instructions).  For #DB it then clears DR6 the way
 * a debugger must (SDM vol.3 18.2.3: the processor never clears DR6; the handler
 * should) and returns; a caught fault resumes at the address the experiment gave.
 *
 * An experiment arms the hardware, runs a short sequence written in assembly with
 * global labels (the shared ones are in debug_seq.S / debug_seq.h), disarms, and
 * compares the log with the addresses the SDM/APM predict.  The recorder knows no
 * experiment: a differential fuzzer can drive it with generated sequences and
 * compare logs (dbg_log_dump() prints one in a fixed, parseable form). */
#ifndef EXPERIMENTS_DEBUG_COMMON_H
#define EXPERIMENTS_DEBUG_COMMON_H
#include <stdbool.h>
#include <stdint.h>
#include "dr.h"
#include "trap.h"

/* More deliveries than this means a runaway (an emulator ignoring RF, say): the
 * handler then disarms DR7, TF and DEBUGCTL so that the experiment can end. */
#define DBG_MAX_EVENTS  32

struct dbg_event {
	uint64_t vector;
	uint64_t error;                 /* error code (0 for vectors without one) */
	uint64_t rip, cs, rflags;       /* the frame the CPU pushed */
	uint64_t rcx, rsi;              /* of the interrupted context */
	uint64_t dr6, dr7;              /* read on handler entry */
	uint64_t rflags_live;           /* RFLAGS while the handler runs */
	uint64_t debugctl;              /* IA32_DEBUGCTL on entry, if asked for */
	uint64_t extra;                 /* for the experiment's hook */
};

struct dbg_log {
	int n;                          /* deliveries seen (may exceed DBG_MAX_EVENTS) */
	struct dbg_event ev[DBG_MAX_EVENTS];
	bool keep_dr6;                  /* don't clear DR6 in the handler (111) */
	bool read_debugctl;             /* record IA32_DEBUGCTL (112) */
};

extern struct dbg_log dbg_log;

/* Runs after an event is recorded and may edit the frame (rip, TF, RF).
 * n is the index of the event just recorded. */
typedef void (*dbg_hook_t)(struct trap_frame *tf, struct dbg_event *e, int n);

/* Empties the log, writes DR6 = its init value, and installs the recorder on
 * #DB (1) and #BP (3).  hook may be 0: then dbg_resume() is used. */
void dbg_begin(dbg_hook_t hook);

/* Disarms and clears what the experiment set: DR7 = init, DR0-DR3 = 0, DR6 = init.
 * The runner checks that an experiment leaves the debug registers as it found them. */
void dbg_end(void);

/* The default hook: sets RF in the saved RFLAGS when the #DB is the fault of an
 * enabled instruction breakpoint at the saved RIP, so that IRET resumes the
 * instruction without re-triggering (SDM 18.3.1.1).  Does nothing otherwise. */
void dbg_resume(struct trap_frame *tf, struct dbg_event *e, int n);

/* Also records deliveries of `vector` (an exception such as 0 #DE, 6 #UD, 13 #GP,
 * or an interrupt, which is EOId).  A fault resumes at `resume` (0: at the saved
 * RIP, i.e. a trap or an interrupt).  The runner restores the handlers after each
 * experiment. */
void dbg_catch(int vector, const void *resume);

/* The CPL an event came from: the RPL of the saved CS. */
static inline unsigned dbg_cpl(const struct dbg_event *e) { return (unsigned)(e->cs & 3); }

/* Number of recorded events (bounded by DBG_MAX_EVENTS). */
static inline int dbg_nrec(void) { return dbg_log.n < DBG_MAX_EVENTS ? dbg_log.n : DBG_MAX_EVENTS; }

/* One diagnostic line per recorded event:
 * "ev I: vec V err E rip R cpl C dr6 D rflags F". */
void dbg_log_dump(const char *what);

/* True if DR7 has breakpoint n enabled (L or G) as an instruction breakpoint at rip. */
bool dbg_is_exec_bp(uint64_t dr7, int n, uint64_t rip);

/* DR7 value enabling breakpoint n (local enable) with the given R/W and LEN codes. */
uint64_t dr7_bp(int n, uint64_t rw, uint64_t len);
/* LEN code for a length of 1, 2, 4 or 8 bytes. */
uint64_t dr7_len_code(int bytes);

/* One check per field of event i: it exists, its vector, RIP and DR6.  what names
 * the event in the KTAP line.  Returns true if all matched. */
bool dbg_check_event(const char *what, int i, int vector, uint64_t rip, uint64_t dr6);
/* Checks the number of deliveries. */
bool dbg_check_count(const char *what, int expected);
/* An expected event: vector, saved RIP, DR6 as the handler finds it (DBG_ANY: not
 * compared, e.g. for a vector other than #DB), CPL it came from (-1: not compared). */
#define DBG_ANY (~0ULL)
struct dbg_expect { int vector; const void *rip; uint64_t dr6; int cpl; };
/* The log must hold exactly these n events in this order: one check line, with the
 * count and the first event that differs (vector, RIP, DR6, CPL), observed and
 * expected; verbose=1 lists every event. */
bool dbg_check_seq(const char *what, const struct dbg_expect *x, int n);

/* One check of event i's vector and saved RIP, one of its error code. */
bool dbg_check_fault(const char *what, int i, int vector, uint64_t rip, uint64_t error);
/* Checks that event i came from CPL `cpl` (saved CS.RPL). */
bool dbg_check_cpl(const char *what, int i, unsigned cpl);

/* IA32_DEBUGCTL.LBR takes a 1 (a check: a claimed facility that does not stick
 * fails, debug_lbr.c).  Shared by 113 and 155. */
bool dbg_lbr_sticks(void);
/* The CPU claims LBR (AMD; Intel arch LBR or a known model); else false and *why. */
bool dbg_lbr_claimed(const char **why);

/* DR6 as a #DB handler should find it: the init value plus the cause bits. */
static inline uint64_t dr6_with(uint64_t bits) { return DR6_INIT | bits; }

#endif
