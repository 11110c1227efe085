/* The one owner of results (see results.h).  A check's verdict only ever makes
 * the experiment's worse (PASS < SKIP < FAIL), so no later check can hide an
 * earlier failure; a skipped experiment holds no passing check of the runner's
 * (verify() in kernel/runner.c). */
#include <stdarg.h>
#include "fmt.h"
#include "results.h"
#include "str.h"

#define MAX_SINKS       4
#define MAX_RECORDS     256
#define MAX_PREFIX      4

static const struct results_sink *sinks[MAX_SINKS];
static int nsinks;

static struct results_block blk;
static bool open;
static int verbose;
static char prefix[MAX_PREFIX][48];
static int nprefix;

static struct results_record records[MAX_RECORDS];
static int nrecords;
static struct results_totals tot;
static int test_no;

#define EACH_SINK(hook, ...)						\
	do {								\
		for (int i_ = 0; i_ < nsinks; i_++)			\
			if (sinks[i_]->hook)				\
				sinks[i_]->hook(__VA_ARGS__);		\
	} while (0)

void results_add_sink(const struct results_sink *s)
{
	if (nsinks < MAX_SINKS)
		sinks[nsinks++] = s;
}

const char *verdict_name(enum verdict v)
{
	static const char *const names[V_NVERDICTS] = { "PASS", "SKIP", "FAIL", "TIMEOUT" };
	return v < V_NVERDICTS ? names[v] : "?";
}

/* ---- checks ---------------------------------------------------------------- */

static void worsen(enum verdict v)
{
	if (v > blk.v)
		blk.v = v;
}

/* KTAP: a description "can be any string of words (can't include #)"; a '#'
 * starts the directive, so a reader would take the rest of the line for one.
 * Write "vector 3 (BP)", "DB", "GP".  A '#' that slips into a description or a
 * SKIP reason is a bug of the experiment: it is replaced and the experiment
 * fails, so the matrix shows it (self-test 905). */
static bool unhash(char *s)
{
	bool found = false;
	for (; *s; s++)
		if (*s == '#') {
			*s = '?';
			found = true;
		}
	return found;
}

static int with_prefix(char *buf, size_t n)
{
	int k = 0;
	for (int i = 0; i < nprefix && k < (int)n; i++)
		k += tl_snprintf(buf + k, n - (size_t)k, "%s: ", prefix[i]);
	return k < (int)n ? k : (int)n - 1;
}

static bool report(bool ok, const char *fmt, va_list ap)
{
	char buf[400];
	int k = with_prefix(buf, sizeof buf);
	tl_vsnprintf(buf + k, sizeof buf - (size_t)k, fmt, ap);
	bool hashed = unhash(buf);
	if (hashed)
		tl_snprintf(buf + tl_strlen(buf), sizeof buf - tl_strlen(buf),
			    " [runner error: '?' was a hash sign, which KTAP forbids in a description]");
	ok = ok && !hashed;
	blk.nchecks++;
	if (!ok) {
		blk.nfailed++;
		worsen(V_FAIL);
	}
	EACH_SINK(line, &blk, RL_CHECK, ok, buf);
	return ok;
}

bool check(bool cond, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	bool r = report(cond, fmt, ap);
	va_end(ap);
	return r;
}

static bool check_fmt(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool check_fmt(bool cond, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	bool r = report(cond, fmt, ap);
	va_end(ap);
	return r;
}

bool check_eq(const char *what, uint64_t observed, uint64_t expected)
{
	return check_fmt(observed == expected, "%s: 0x%llx (expected 0x%llx)", what,
			 (unsigned long long)observed, (unsigned long long)expected);
}

bool check_eqd(const char *what, uint64_t observed, uint64_t expected)
{
	return check_fmt(observed == expected, "%s: %llu (expected %llu)", what,
			 (unsigned long long)observed, (unsigned long long)expected);
}

static void say(const char *fmt, va_list ap)
{
	char buf[400];
	int k = with_prefix(buf, sizeof buf);
	tl_vsnprintf(buf + k, sizeof buf - (size_t)k, fmt, ap);
	EACH_SINK(line, &blk, RL_DIAG, true, buf);
}

static void say_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say_fmt(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
}

void exp_skip(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (blk.v == V_PASS)
		tl_vsnprintf(blk.reason, sizeof blk.reason, fmt, ap);
	va_end(ap);
	if (blk.v == V_PASS && unhash(blk.reason)) {
		say_fmt("runner error: a hash sign in the SKIP reason (shown as '?'): %s", blk.reason);
		worsen(V_FAIL);
	}
	worsen(V_SKIP);
}

void exp_fail(const char *fmt, ...)
{
	char buf[300];
	va_list ap;
	va_start(ap, fmt);
	tl_vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	say_fmt("FAIL: %s", buf);
	worsen(V_FAIL);
}

void diag(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
}

void vdiag(const char *fmt, ...)
{
	if (verbose < 1)
		return;
	va_list ap;
	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
}

void prefix_push(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (nprefix < MAX_PREFIX)
		tl_vsnprintf(prefix[nprefix], sizeof prefix[0], fmt, ap);
	nprefix++;
	va_end(ap);
}

void prefix_pop(void)
{
	if (nprefix > 0)
		nprefix--;
}

enum verdict exp_verdict(void) { return blk.v; }
int exp_verbosity(void) { return verbose; }

/* ---- the run ------------------------------------------------------------------ */

void results_set_verbosity(int v)
{
	verbose = v;
}

void results_plan(int planned)
{
	tot.planned = planned;
	tot.started = true;
	EACH_SINK(plan, planned);
}

void results_open(uint32_t num, const char *name, const char *label)
{
	blk = (struct results_block){ .num = num, .name = name, .test_no = ++test_no };
	tl_strlcpy(blk.label, label, sizeof blk.label);
	nprefix = 0;
	open = true;
	EACH_SINK(open, &blk);
}

bool results_block_open(void)
{
	return open;
}

void results_flush(int more)
{
	if (open)
		EACH_SINK(flush, &blk, more);
}

void exp_stream(int nchecks)
{
	results_flush(nchecks - blk.nchecks + 1);      /* + the runner's state check */
}

static void record(void)
{
	struct results_record *r = 0;
	for (int i = 0; i < nrecords; i++)
		if (records[i].num == blk.num)
			r = &records[i];
	if (!r && nrecords < MAX_RECORDS) {
		r = &records[nrecords++];
		*r = (struct results_record){ .num = blk.num, .name = blk.name };
	}
	if (r)
		r->n[blk.v]++;
	else
		tot.dropped++;
	tot.done++;
	tot.n[blk.v]++;
}

enum verdict results_close(void)
{
	open = false;
	nprefix = 0;
	record();
	EACH_SINK(close, &blk);
	return blk.v;
}

void results_unrun(uint32_t num, const char *name, const char *label, enum verdict v,
		   const char *reason)
{
	results_flush(0);
	open = false;
	blk = (struct results_block){ .num = num, .name = name, .test_no = ++test_no, .v = v };
	tl_strlcpy(blk.label, label, sizeof blk.label);
	tl_strlcpy(blk.reason, reason, sizeof blk.reason);
	unhash(blk.reason);
	record();
	EACH_SINK(close, &blk);
}

void results_finish(void)
{
	tot.finished = true;
	EACH_SINK(finish, &tot);
}

const struct results_totals *results_totals(void)
{
	return &tot;
}

const struct results_record *results_records(int *n)
{
	*n = nrecords;
	return records;
}
