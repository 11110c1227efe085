/* The hardware report (see report.h).  Results are grouped per experiment
 * number in the order they ran: "101P" for one pass, "101P*3" for three (reps=,
 * cpu=all), "101P2F1" for a mix.  Format v1, described in docs/reports/README.md;
 * a change to it bumps the version in the first line. */
#include <stdarg.h>
#include "apic.h"
#include "bootinfo.h"
#include "console.h"
#include "cpu.h"
#include "cpuid.h"
#include "fmt.h"
#include "report.h"
#include "screen.h"
#include "smp.h"
#include "str.h"
#include "trap.h"
#include "x86.h"

extern struct boot_info bootinfo;

#define MAX_ENTRIES 256
#define NAME_LEN 28

static struct entry {
	uint32_t num;
	char name[NAME_LEN];
	uint16_t n[sizeof REPORT_VERDICTS - 1];     /* per verdict letter */
} entries[MAX_ENTRIES];
static int nentries, dropped;
static int planned, done_results, npass, nfail, nskip;
static bool run_started, run_summarized;
static char now[NAME_LEN + 12];

/* ---- collecting ---------------------------------------------------------- */

static bool is_failure(int v)
{
	return REPORT_VERDICTS[v] == 'F' || REPORT_VERDICTS[v] == 'T' || REPORT_VERDICTS[v] == 'E';
}

static void update_status(void)
{
	char s[160];
	if (!run_started)
		return;
	tl_snprintf(s, sizeof s, " tracelab  %d/%d done   pass %d  fail %d  skip %d   %s%s", done_results,
		    planned, npass, nfail, nskip, now[0] ? "running: " : "", now);
	screen_status(s);
}

void report_record(uint32_t num, const char *name, char verdict)
{
	int v = 0;
	while (REPORT_VERDICTS[v] && REPORT_VERDICTS[v] != verdict)
		v++;
	if (!REPORT_VERDICTS[v])
		v = 1;                          /* unknown: count it as a failure */
	struct entry *e = 0;
	for (int i = 0; i < nentries; i++)
		if (entries[i].num == num)
			e = &entries[i];
	if (!e && nentries < MAX_ENTRIES) {
		e = &entries[nentries++];
		e->num = num;
		tl_strlcpy(e->name, name, sizeof e->name);
	}
	if (e)
		e->n[v]++;
	else
		dropped++;
	done_results++;
	if (is_failure(v))
		nfail++;
	else if (REPORT_VERDICTS[v] == 'S')
		nskip++;
	else
		npass++;
	now[0] = 0;
	update_status();
}

static bool starts(const char *s, const char *prefix)
{
	return !tl_strncmp(s, prefix, tl_strlen(prefix));
}

static const char *number(const char *s, uint32_t *out)
{
	uint32_t v = 0;
	const char *p = s;
	while (*p >= '0' && *p <= '9')
		v = v * 10 + (uint32_t)(*p++ - '0');
	*out = v;
	return p == s ? 0 : p;
}

static const char *word(const char *s, char *dst, size_t n)
{
	size_t i = 0;
	while (*s && *s != ' ') {
		if (i + 1 < n)
			dst[i++] = *s;
		s++;
	}
	dst[i] = 0;
	return s;
}

static const char *find(const char *s, const char *what)
{
	size_t n = tl_strlen(what);
	for (; *s; s++)
		if (!tl_strncmp(s, what, n))
			return s;
	return 0;
}

void report_line(const char *s)
{
	uint32_t test_no, num, n;
	char name[NAME_LEN];
	if (starts(s, "1..")) {                 /* the top-level plan (subtest plans are indented) */
		if (number(s + 3, &n) && n > 0) {
			planned = (int)n;
			run_started = true;
			update_status();
		}
		return;
	}
	if (starts(s, "# tracelab: pass:")) {
		run_summarized = true;
		return;
	}
	if (starts(s, "    # Subtest: ")) {
		const char *p = number(s + 15, &num);
		if (p && *p == ' ') {
			word(p + 1, name, sizeof name);
			tl_snprintf(now, sizeof now, "%u %s", num, name);
			update_status();
		}
		return;
	}
	bool ok = starts(s, "ok ");
	if (!ok && !starts(s, "not ok "))
		return;
	const char *p = number(s + (ok ? 3 : 7), &test_no);
	if (!p || *p != ' ' || !(p = number(p + 1, &num)) || *p != ' ')
		return;                         /* not "ok N NUM name": not an experiment result */
	word(p + 1, name, sizeof name);
	char v = 'P';
	if (!ok)
		v = find(p, " # TIMEOUT") ? 'T' : find(p, " # ERROR") ? 'E' : 'F';
	else if (find(p, " # SKIP"))
		v = 'S';
	report_record(num, name, v);
}

/* ---- the block ----------------------------------------------------------- */

/* The block goes twice through one writer: to the console (serial and screen)
 * and, after the screen is cleared, to the screen alone. */
typedef void (*sink_fn)(const char *s, int color);

static void to_console(const char *s, int color)
{
	console_color(color);
	kprintf("%s", s);
	console_color(0);
}

static void to_screen(const char *s, int color)
{
	screen_puts(s, color);
}

static void out_line(sink_fn out, int color, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void out_line(sink_fn out, int color, const char *fmt, ...)
{
	char b[256];
	va_list ap;
	va_start(ap, fmt);
	tl_vsnprintf(b, sizeof b, fmt, ap);
	va_end(ap);
	out(b, color);
}

static void token(const struct entry *e, char *b, size_t n, int *color)
{
	int kinds = 0, last = 0, total = 0;
	for (int v = 0; REPORT_VERDICTS[v]; v++)
		if (e->n[v]) {
			kinds++;
			last = v;
			total += e->n[v];
		}
	*color = is_failure(last) ? SC_FAIL : REPORT_VERDICTS[last] == 'S' ? SC_SKIP : SC_PASS;
	if (kinds == 1 && total == 1) {
		tl_snprintf(b, n, "%u%c", e->num, REPORT_VERDICTS[last]);
		return;
	}
	if (kinds == 1) {
		tl_snprintf(b, n, "%u%c*%d", e->num, REPORT_VERDICTS[last], total);
		return;
	}
	int k = tl_snprintf(b, n, "%u", e->num);
	for (int v = 0; REPORT_VERDICTS[v] && k < (int)n; v++) {
		if (e->n[v])
			k += tl_snprintf(b + k, n - (size_t)k, "%c%u", REPORT_VERDICTS[v], e->n[v]);
		if (e->n[v] && is_failure(v))
			*color = SC_FAIL;
	}
}

static const char *yn(uint32_t bit)
{
	return bit ? "1" : "0";
}

static void block(sink_fn out)
{
	const char *brand = cpu.brand;
	while (*brand == ' ')
		brand++;
	uint32_t ucode = 0;
	char ucode_s[24] = "?";
	if (cpu_microcode(&ucode))
		tl_snprintf(ucode_s, sizeof ucode_s, "0x%x", ucode);
	char hv[16] = "none";
	if (cpu.leaf1_ecx & CPUID_1_ECX_HYPERVISOR) {
		struct cpuid_regs r = cpuid(0x40000000, 0);
		uint32_t w[3] = { r.ebx, r.ecx, r.edx };
		for (int i = 0; i < 12; i++) {
			char c = (char)(w[i / 4] >> (8 * (i % 4)));
			hv[i] = c >= ' ' && c < 127 ? c : '.';
		}
		hv[12] = 0;
	}

	/* every line under 80 columns: the block must fit an 80x25 text screen */
	out("# ---- tracelab hardware report v1: copy from here ----\n", SC_HEAD);
	out_line(out, SC_BRIGHT, "# cpu: %s family 0x%x model 0x%x stepping %u microcode %s\n",
		 cpu.vendor_str, cpu.family, cpu.model, cpu.stepping, ucode_s);
	out_line(out, SC_BRIGHT, "# cpu: \"%s\"\n", brand);
	out_line(out, SC_NORMAL, "# feat: ds=%s dtes64=%s ds-cpl=%s pdcm=%s pt=%s arch-lbr=%s invtsc=%s rdtscp=%s\n",
		 yn(cpu.leaf1_edx & CPUID_1_EDX_DS), yn(cpu.leaf1_ecx & CPUID_1_ECX_DTES64),
		 yn(cpu.leaf1_ecx & CPUID_1_ECX_DSCPL), yn(cpu.leaf1_ecx & CPUID_1_ECX_PDCM),
		 yn(cpu.leaf7_ebx & CPUID_7_EBX_INTEL_PT), yn(cpu.leaf7_edx & CPUID_7_EDX_ARCH_LBR),
		 yn(cpu.invariant_tsc), yn(cpu.ext1_edx & CPUID_80000001_EDX_RDTSCP));
	char caps[24] = "none", misc[24] = "none";
	if (cpu.has_perf_caps)
		tl_snprintf(caps, sizeof caps, "0x%llx", (unsigned long long)cpu.perf_caps);
	if (cpu.has_misc_enable)
		tl_snprintf(misc, sizeof misc, "0x%llx", (unsigned long long)cpu.misc_enable);
	out_line(out, SC_NORMAL, "# pmu: v%u gp %ux%u fixed %ux%u perf-caps %s misc-enable %s\n",
		 cpu.perfmon_version, cpu.n_gp, cpu.gp_width, cpu.n_fixed, cpu.fixed_width, caps, misc);
	if ((cpu.leaf7_ebx & CPUID_7_EBX_INTEL_PT) && cpu.max_leaf >= 0x14) {
		struct cpuid_regs p = cpuid(0x14, 0);
		out_line(out, SC_NORMAL, "# pt: leaf 14H.0 ebx 0x%x ecx 0x%x\n", p.ebx, p.ecx);
	}
	if (cpu.vendor == VENDOR_AMD)
		out_line(out, SC_NORMAL, "# amd: perfctr-core=%s ibs=%s max-ext-leaf 0x%x\n",
			 yn(cpu.ext1_ecx & CPUID_80000001_ECX_PERFCTR_CORE),
			 yn(cpu.ext1_ecx & CPUID_80000001_ECX_IBS), cpu.max_ext_leaf);
	out_line(out, SC_NORMAL, "# sys: hypervisor %s, %u cpus, %s, %s\n", hv, ncpus_online,
		 apic_x2apic() ? "x2APIC" : "xAPIC", screen_brief());
	const char *args = bootinfo.cmdline;
	if (*args == '/') {                     /* QEMU -kernel puts the image's path first */
		while (*args && *args != ' ')
			args++;
		while (*args == ' ')
			args++;
	}
	out_line(out, SC_NORMAL, "# boot: \"%.30s\" cmdline \"%.36s\"\n", bootinfo.loader_name, args);

	/* results: a line per family (hundreds), wrapped to stay under 72 columns */
	int used = 0;
	uint32_t fam = ~0u;
	for (int i = 0; i < nentries; i++) {
		char t[40];
		int color;
		token(&entries[i], t, sizeof t, &color);
		int len = (int)tl_strlen(t);
		if (entries[i].num / 100 != fam || used + 1 + len > 72) {
			if (i)
				out("\n", SC_NORMAL);
			out("# result:", SC_NORMAL);
			used = 9;
			fam = entries[i].num / 100;
		}
		out(" ", SC_NORMAL);
		out(t, color);
		used += 1 + len;
	}
	if (nentries)
		out("\n", SC_NORMAL);
	if (dropped)
		out_line(out, SC_FAIL, "# result: %d more results not recorded (report full)\n", dropped);
	out_line(out, nfail ? SC_FAIL : SC_PASS, "# sum: pass:%d fail:%d skip:%d total:%d planned:%d\n",
		 npass, nfail, nskip, done_results, planned);
	out("# ---- end of tracelab hardware report ----\n", SC_HEAD);
}

static bool failed(const struct entry *e)
{
	for (int v = 0; REPORT_VERDICTS[v]; v++)
		if (e->n[v] && is_failure(v))
			return true;
	return false;
}

/* The experiments that failed, by name, so the screen says what to look at:
 * at most two lines of them. */
static void failures(void)
{
	int nbad = 0, shown = 0, w = (int)screen_cols(), lines = 1;
	for (int i = 0; i < nentries; i++)
		nbad += failed(&entries[i]);
	if (!nbad)
		return;
	screen_puts("not passed:", SC_FAIL);
	int used = 11;
	for (int i = 0; i < nentries; i++) {
		if (!failed(&entries[i]))
			continue;
		char b[48];
		int len = tl_snprintf(b, sizeof b, " %u %s%s", entries[i].num, entries[i].name,
				      shown + 1 < nbad ? "," : "");
		if (used + len > w - 10 && lines == 2) {
			tl_snprintf(b, sizeof b, " +%d more", nbad - shown);
			screen_puts(b, SC_FAIL);
			break;
		}
		if (used + len > w) {
			screen_puts("\n", SC_NORMAL);
			used = 0;
			lines++;
		}
		screen_puts(b, SC_FAIL);
		used += len;
		shown++;
	}
	screen_puts("\n", SC_NORMAL);
}

void report_final(bool all_passed, bool cpu_only)
{
	bool ran = run_started && run_summarized;
	if (!ran && !cpu_only && !nentries)
		return;                 /* nothing ran (command-line error): the screen says why */
	block(to_console);
	if (!ran && !cpu_only) {
		screen_status(" tracelab: run ended early; see above. Machine halted.");
		return;
	}

	screen_clear();
	if (cpu_only) {
		screen_puts("tracelab: CPU report (report=cpu, no experiments run)\n\n", SC_HEAD);
	} else {
		char b[160];
		tl_snprintf(b, sizeof b, "tracelab: %s  -  %d passed, %d failed, %d skipped, %d of %d run\n",
			    nfail ? "SOME EXPERIMENTS FAILED" : "all experiments passed or skipped",
			    npass, nfail, nskip, done_results, planned);
		screen_puts(b, nfail ? SC_FAIL : SC_PASS);
		failures();
	}
	block(to_screen);
	screen_puts("Photograph this screen or copy the block from serial: docs/real-hardware.md\n",
		    SC_NORMAL);
	screen_status(all_passed ? " tracelab: finished. The machine is halted: power off or reset."
				 : " tracelab: finished with failures. The machine is halted: power off or reset.");
}
