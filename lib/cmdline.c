#include "cmdline.h"
#include "fmt.h"
#include "str.h"

const char cmdline_usage[] =
	"accepted: run=LIST (all | FAMILY | N | A-B, comma-separated; families: debug bts pmu pt platform selftest)"
	" reps=1..1000 cpu=N|all verbose=0..2 selftest=0|1 watchdog=10..600000 exit=auto|qemu|bochs|halt"
	" pause=0..60000 report=full|cpu mode=long|pm32|pm32pg|pm32pae|all (comma-separated)"
	" fuzz=debug [seed=S count=1..1000000 | index=I [drop=MASK] [shrink=1]]";

static const char *const mode_names[] = { "long", "pm32", "pm32pg", "pm32pae" };

unsigned cmdline_modes_for(const struct cmdline *c, bool pm32)
{
	return c->modes & (pm32 ? CMD_MODES_PM32 : CMD_MODE_LONG);
}

const char *cmdline_mode_name(unsigned mode)
{
	for (unsigned i = 0; i < sizeof mode_names / sizeof mode_names[0]; i++)
		if (mode == 1u << i)
			return mode_names[i];
	return "?";
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool fail(struct cmdline *c, const char *what, const char *w, size_t n)
{
	char q[100];
	tl_escape(q, sizeof q, w, n > 60 ? 60 : n);
	tl_snprintf(c->error, sizeof c->error, "%s: '%s%s'", what, q, n > 60 ? "..." : "");
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

static bool parse_modes(struct cmdline *c, const char *w, size_t n, const char *v, size_t vn)
{
	unsigned m = 0;
	size_t start = 0;
	for (size_t i = 0; i <= vn; i++) {
		if (i < vn && v[i] != ',')
			continue;
		const char *it = v + start;
		size_t len = i - start;
		unsigned bit = 0;
		if (eq(it, len, "all"))
			bit = CMD_MODES_ALL;
		for (unsigned k = 0; k < sizeof mode_names / sizeof mode_names[0]; k++)
			if (eq(it, len, mode_names[k]))
				bit = 1u << k;
		if (!bit)
			return fail(c, "bad mode= (long, pm32, pm32pg, pm32pae or all)", w, n);
		m |= bit;
		start = i + 1;
	}
	c->modes = m;
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
	if (eq(w, eqpos, "run")) {
		c->run_given = true;
		return parse_run(c, v, vn);
	}
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
	} else if (eq(w, eqpos, "mode")) {
		return parse_modes(c, w, n, v, vn);
	} else if (eq(w, eqpos, "report")) {
		if (eq(v, vn, "full")) c->cpu_report_only = false;
		else if (eq(v, vn, "cpu")) c->cpu_report_only = true;
		else return fail(c, "bad report=", w, n);
	} else if (eq(w, eqpos, "fuzz")) {
		if (!eq(v, vn, "debug"))
			return fail(c, "bad fuzz= (the one fuzzer is fuzz=debug)", w, n);
		c->fuzz_debug = true;
	} else if (eq(w, eqpos, "seed")) {
		if (!tl_parse_u64(v, vn, &c->fuzz_seed))
			return fail(c, "bad seed= (a number)", w, n);
		c->fuzz_words |= 1;
	} else if (eq(w, eqpos, "count")) {
		if (!number_in(v, vn, 1, 1000000, &x))
			return fail(c, "bad count= (1..1000000)", w, n);
		c->fuzz_count = (uint32_t)x;
		c->fuzz_words |= 2;
	} else if (eq(w, eqpos, "index")) {
		if (!number_in(v, vn, 0, 0xffffffffu, &x))
			return fail(c, "bad index= (0..4294967295)", w, n);
		c->fuzz_index = (int64_t)x;
		c->fuzz_words |= 4;
	} else if (eq(w, eqpos, "drop")) {
		if (!number_in(v, vn, 0, 0xffffffffu, &x))
			return fail(c, "bad drop= (a 32-bit mask)", w, n);
		c->fuzz_drop = (uint32_t)x;
		c->fuzz_words |= 8;
	} else if (eq(w, eqpos, "shrink")) {
		if (!number_in(v, vn, 0, 1, &x))
			return fail(c, "bad shrink= (0 or 1)", w, n);
		c->fuzz_shrink = x;
		c->fuzz_words |= 16;
	} else {
		return fail(c, "unknown option", w, eqpos);
	}
	return true;
}

static void defaults(struct cmdline *c)
{
	*c = (struct cmdline){ .reps = 1, .watchdog_ms = 3000, .nsel = 1, .modes = CMD_MODE_LONG,
			       .sel = { { .kind = SEL_ALL } }, .fuzz_seed = 1, .fuzz_count = 1000,
			       .fuzz_index = -1 };
}

bool cmdline_parse(const char *s, struct cmdline *c)
{
	defaults(c);
	while (s && *s) {
		while (is_space(*s))
			s++;
		if (!*s)
			break;
		const char *w = s;
		while (*s && !is_space(*s))
			s++;
		if (!parse_word(c, w, (size_t)(s - w)))
			return false;
	}
	/* The fuzzer's words make sense only together, and only with it. */
	if (c->fuzz_words && !c->fuzz_debug)
		return fail(c, "seed=, count=, index=, drop=, shrink= need fuzz=debug", "", 0);
	if (c->fuzz_debug && c->run_given)
		return fail(c, "fuzz=debug runs no experiments: drop run=", "", 0);
	if ((c->fuzz_words & 2) && (c->fuzz_words & 4))
		return fail(c, "count= and index= exclude each other", "", 0);
	if ((c->fuzz_words & 24) && !(c->fuzz_words & 4))
		return fail(c, "drop= and shrink= need index=", "", 0);
	return true;
}

enum cmd_loader cmdline_loader(int multiboot_version, const char *name)
{
	if (multiboot_version == 1 && name && !tl_strcmp(name, "qemu"))
		return CMD_LOADER_QEMU;
	if (name && !tl_strncmp(name, "GRUB", 4))
		return CMD_LOADER_GRUB;
	if (name && !tl_strncmp(name, "iPXE", 4))
		return CMD_LOADER_IPXE;
	return CMD_LOADER_OTHER;
}

const char *cmdline_loader_name(enum cmd_loader l)
{
	return l == CMD_LOADER_QEMU ? "QEMU -kernel: image path first" :
	       l == CMD_LOADER_IPXE ? "iPXE: image URI first" :
	       l == CMD_LOADER_GRUB ? "GRUB: arguments only" : "unknown loader: arguments only";
}

/* The path part [0, end) of a QEMU line ends in a word containing '/'. */
static bool path_like(const char *line, size_t end)
{
	size_t b = end;
	while (b > 0 && !is_space(line[b - 1]))
		b--;
	for (size_t i = b; i < end; i++)
		if (line[i] == '/')
			return true;
	return false;
}

bool cmdline_parse_boot(const char *line, size_t full_len, enum cmd_loader loader,
			struct cmdline *c)
{
	if (!line)
		line = "";
	size_t kept = tl_strlen(line);
	if (full_len > CMD_MAX_LINE || full_len > kept) {
		defaults(c);
		tl_snprintf(c->error, sizeof c->error,
			    "the command line is %zu bytes long, more than the %d this kernel reads: "
			    "refused as a whole", full_len, CMD_MAX_LINE);
		return false;
	}
	if (loader != CMD_LOADER_QEMU && loader != CMD_LOADER_IPXE) {
		bool ok = cmdline_parse(line, c);
		c->args_off = 0;
		return ok;
	}
	/* QEMU: "PATH APPEND", iPXE: "URI ARGS".  The first space ends the path unless the arguments
	 * after it do not parse and a later split does, with a path ending in a word
	 * that contains '/': "/my dir/tracelab.elf run=101". */
	size_t first = 0;
	while (first < kept && line[first] != ' ')
		first++;
	if (first == kept) {            /* the path alone */
		defaults(c);
		c->args_off = kept;
		return true;
	}
	if (cmdline_parse(line + first + 1, c)) {
		c->args_off = first + 1;
		return true;
	}
	struct cmdline firsterr = *c;
	for (size_t i = first + 1; i < kept; i++) {
		if (line[i] != ' ' || !path_like(line, i))
			continue;
		if (cmdline_parse(line + i + 1, c)) {
			c->args_off = i + 1;
			return true;
		}
	}
	*c = firsterr;
	c->args_off = first + 1;
	return false;
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

static bool item_matches(const struct sel_item *it, const struct cmd_exp *e)
{
	switch (it->kind) {
	case SEL_ALL:
		return true;
	case SEL_FAMILY:
		return !tl_strcmp(e->family, it->family);
	default:
		return e->num >= it->lo && e->num <= it->hi;
	}
}

static void describe_item(const struct sel_item *it, char *buf, size_t n)
{
	if (it->kind == SEL_FAMILY)
		tl_snprintf(buf, n, "%s", it->family);
	else if (it->kind == SEL_RANGE)
		tl_snprintf(buf, n, "%u-%u", it->lo, it->hi);
	else if (it->kind == SEL_NUM)
		tl_snprintf(buf, n, "%u", it->lo);
	else
		tl_snprintf(buf, n, "all");
}

bool cmdline_validate(const struct cmdline *c, const struct cmd_exp *reg, int n, char *err,
		      size_t errn)
{
	for (int s = 0; s < c->nsel; s++) {
		const struct sel_item *it = &c->sel[s];
		int matched = 0, runs = 0, in_modes = 0;
		for (int i = 0; i < n; i++) {
			if (!item_matches(it, &reg[i]))
				continue;
			matched++;
			bool m = cmdline_modes_for(c, reg[i].pm32) != 0;
			in_modes += m;
			runs += m && (!reg[i].selftest || c->selftest);
		}
		char what[40];
		describe_item(it, what, sizeof what);
		if (!matched && it->kind == SEL_FAMILY) {
			tl_snprintf(err, errn, "no experiment family '%s'", it->family);
			return false;
		}
		if (!matched) {
			tl_snprintf(err, errn, "no experiment numbered %s", what);
			return false;
		}
		if (!in_modes && it->kind != SEL_ALL) {
			tl_snprintf(err, errn, "run=%s: nothing of it runs in the modes of mode= "
				    "(protected-mode experiments: mode=pm32, pm32pg, pm32pae)", what);
			return false;
		}
		if (!runs && it->kind == SEL_NUM) {
			tl_snprintf(err, errn, "experiment %u is a self-test: add selftest=1", it->lo);
			return false;
		}
		if (!runs && it->kind != SEL_ALL) {
			tl_snprintf(err, errn, "run=%s names only self-tests: add selftest=1", what);
			return false;
		}
	}
	int planned = 0;
	for (int i = 0; i < n; i++)
		planned += cmdline_selects_experiment(c, reg[i].num, reg[i].family, reg[i].selftest) &&
			   cmdline_modes_for(c, reg[i].pm32);
	if (!planned) {
		tl_snprintf(err, errn, "the selection runs no experiment");
		return false;
	}
	return true;
}

bool cmdline_check_cpu(const struct cmdline *c, const bool *online, int n, char *err,
		       size_t errn)
{
	if (c->cpu == CMD_CPU_ALL || (c->cpu >= 0 && c->cpu < n && online[c->cpu]))
		return true;
	/* the online CPUs as ranges: "cpu=0-3", "cpu=0,2-3" */
	char list[120];
	size_t o = 0;
	list[0] = 0;
	for (int i = 0; i < n; i++) {
		if (!online[i] || (i > 0 && online[i - 1]))
			continue;
		int j = i;
		while (j + 1 < n && online[j + 1])
			j++;
		int k = j == i ? tl_snprintf(list + o, sizeof list - o, "%s%d", o ? "," : "", i)
			       : tl_snprintf(list + o, sizeof list - o, "%s%d-%d", o ? "," : "", i, j);
		if (k < 0 || (size_t)k >= sizeof list - o)
			break;
		o += (size_t)k;
	}
	int online_n = 0;
	for (int i = 0; i < n; i++)
		online_n += online[i];
	tl_snprintf(err, errn, "cpu=%d: no such CPU online (%d online); accepted: cpu=%s or cpu=all",
		    c->cpu, online_n, o ? list : "0");
	return false;
}
