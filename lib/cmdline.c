#include "cmdline.h"
#include "fmt.h"
#include "str.h"

const char cmdline_usage[] =
	"accepted: run=LIST (all | FAMILY | N | A-B, comma-separated; families: debug bts pmu pt platform selftest)"
	" reps=1..1000 cpu=N|all verbose=0..2 selftest=0|1 watchdog=10..600000 exit=auto|qemu|bochs|halt"
	" pause=0..60000 report=full|cpu";

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool fail(struct cmdline *c, const char *what, const char *w, size_t n)
{
	tl_snprintf(c->error, sizeof c->error, "%s: '%.*s'", what, (int)(n > 60 ? 60 : n), w);
	return false;
}

static bool eq(const char *w, size_t n, const char *lit)
{
	return tl_strlen(lit) == n && !tl_strncmp(w, lit, n);
}

static bool number_in(const char *s, size_t n, uint64_t lo, uint64_t hi, uint64_t *out)
{
	return tl_parse_u64(s, n, out) && *out >= lo && *out <= hi;
}

static bool parse_item(struct cmdline *c, const char *s, size_t n)
{
	if (!n)
		return fail(c, "empty item in run=", s, 0);
	if (c->nsel == CMD_MAX_SEL)
		return fail(c, "too many items in run=", s, n);
	struct sel_item *it = &c->sel[c->nsel];
	uint64_t a, b;
	if (eq(s, n, "all")) {
		it->kind = SEL_ALL;
	} else if (s[0] >= '0' && s[0] <= '9') {
		size_t dash = 0;
		while (dash < n && s[dash] != '-')
			dash++;
		if (dash == n) {
			if (!number_in(s, n, 1, 999, &a))
				return fail(c, "bad experiment number in run=", s, n);
			it->kind = SEL_NUM;
			it->lo = it->hi = (uint32_t)a;
		} else {
			if (!number_in(s, dash, 1, 999, &a) ||
			    !number_in(s + dash + 1, n - dash - 1, 1, 999, &b) || b < a)
				return fail(c, "bad range in run= (want A-B with A<=B)", s, n);
			it->kind = SEL_RANGE;
			it->lo = (uint32_t)a;
			it->hi = (uint32_t)b;
		}
	} else {
		if (n >= CMD_FAMILY_LEN)
			return fail(c, "unknown family in run=", s, n);
		for (size_t i = 0; i < n; i++)
			if (!(s[i] >= 'a' && s[i] <= 'z'))
				return fail(c, "unknown item in run=", s, n);
		it->kind = SEL_FAMILY;
		for (size_t i = 0; i < n; i++)
			it->family[i] = s[i];
		it->family[n] = 0;
	}
	c->nsel++;
	return true;
}

static bool parse_run(struct cmdline *c, const char *v, size_t n)
{
	c->nsel = 0;
	size_t start = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i == n || v[i] == ',') {
			if (!parse_item(c, v + start, i - start))
				return false;
			start = i + 1;
		}
	}
	return true;
}

static bool parse_word(struct cmdline *c, const char *w, size_t n)
{
	size_t eqpos = 0;
	while (eqpos < n && w[eqpos] != '=')
		eqpos++;
	if (eqpos == n)
		return fail(c, "unknown word (expected key=value)", w, n);
	const char *v = w + eqpos + 1;
	size_t vn = n - eqpos - 1;
	uint64_t x;
	if (eq(w, eqpos, "run"))
		return parse_run(c, v, vn);
	if (eq(w, eqpos, "reps")) {
		if (!number_in(v, vn, 1, 1000, &x))
			return fail(c, "bad reps=", w, n);
		c->reps = (uint32_t)x;
	} else if (eq(w, eqpos, "cpu")) {
		if (eq(v, vn, "all"))
			c->cpu = CMD_CPU_ALL;
		else if (number_in(v, vn, 0, 255, &x))
			c->cpu = (int)x;
		else
			return fail(c, "bad cpu=", w, n);
	} else if (eq(w, eqpos, "verbose")) {
		if (!number_in(v, vn, 0, 2, &x))
			return fail(c, "bad verbose=", w, n);
		c->verbose = (int)x;
	} else if (eq(w, eqpos, "selftest")) {
		if (!number_in(v, vn, 0, 1, &x))
			return fail(c, "bad selftest=", w, n);
		c->selftest = x;
	} else if (eq(w, eqpos, "watchdog")) {
		if (!number_in(v, vn, 10, 600000, &x))
			return fail(c, "bad watchdog=", w, n);
		c->watchdog_ms = (uint32_t)x;
	} else if (eq(w, eqpos, "pause")) {
		if (!number_in(v, vn, 0, 60000, &x))
			return fail(c, "bad pause=", w, n);
		c->pause_ms = (uint32_t)x;
	} else if (eq(w, eqpos, "exit")) {
		if (eq(v, vn, "auto")) c->exit_mode = EXIT_AUTO;
		else if (eq(v, vn, "qemu")) c->exit_mode = EXIT_QEMU;
		else if (eq(v, vn, "bochs")) c->exit_mode = EXIT_BOCHS;
		else if (eq(v, vn, "halt")) c->exit_mode = EXIT_HALT;
		else return fail(c, "bad exit=", w, n);
	} else if (eq(w, eqpos, "report")) {
		if (eq(v, vn, "full")) c->cpu_report_only = false;
		else if (eq(v, vn, "cpu")) c->cpu_report_only = true;
		else return fail(c, "bad report=", w, n);
	} else {
		return fail(c, "unknown option", w, eqpos);
	}
	return true;
}

bool cmdline_parse(const char *s, struct cmdline *c)
{
	*c = (struct cmdline){ .reps = 1, .watchdog_ms = 3000, .nsel = 1,
			       .sel = { { .kind = SEL_ALL } } };
	bool first = true;
	while (s && *s) {
		while (is_space(*s))
			s++;
		if (!*s)
			break;
		const char *w = s;
		while (*s && !is_space(*s))
			s++;
		size_t n = (size_t)(s - w);
		bool has_eq = false;
		for (size_t i = 0; i < n; i++)
			has_eq |= w[i] == '=';
		if (first && !has_eq) {         /* the image path */
			first = false;
			continue;
		}
		first = false;
		if (!parse_word(c, w, n))
			return false;
	}
	return true;
}

bool cmdline_selects(const struct cmdline *c, uint32_t num, const char *family)
{
	for (int i = 0; i < c->nsel; i++) {
		const struct sel_item *it = &c->sel[i];
		switch (it->kind) {
		case SEL_ALL:
			if (tl_strcmp(family, "selftest"))
				return true;
			break;
		case SEL_NUM:
		case SEL_RANGE:
			if (num >= it->lo && num <= it->hi)
				return true;
			break;
		case SEL_FAMILY:
			if (!tl_strcmp(family, it->family))
				return true;
			break;
		}
	}
	return false;
}

bool cmdline_selects_experiment(const struct cmdline *c, uint32_t num, const char *family, bool selftest)
{
	if (selftest && !c->selftest)
		return false;
	/* run=all with selftest=1 includes the self-tests */
	return cmdline_selects(c, num, family) ||
	       (selftest && c->nsel == 1 && c->sel[0].kind == SEL_ALL);
}
