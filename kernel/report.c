/* The hardware report (see report.h).  Results are grouped per experiment
 * number in the order they ran: "101P" for one pass, "101P*3" for three (reps=,
 * cpu=all), "101P2F1" for a mix.  Format v2, described in docs/reports/README.md
 * (v1 and the failed checks, one "# fail:" line each); a change to it bumps the
 * version in the first line.  The block printed on serial is, byte for byte,
 * the payload of the QR code(s) on the final screen. */
#include <stdarg.h>
#include "apic.h"
#include "bootinfo.h"
#include "cmdline.h"
#include "console.h"
#include "cpu.h"
#include "cpuid.h"
#include "fbuf.h"
#include "fmt.h"
#include "report.h"
#include "results.h"
#include "screen.h"
#include "serial.h"
#include "smp.h"
#include "str.h"
#include "trap.h"
#include "x86.h"

extern struct boot_info bootinfo;
extern struct cmdline kcmdline;

/* ---- the status bar: a writer of kernel/results.c -------------------------- */

static char now[80];

static void update_status(void)
{
	char s[160];
	const struct results_totals *t = results_totals();
	if (!t->started)
		return;
	tl_snprintf(s, sizeof s, " tracelab  %d/%d done   pass %d  fail %d  skip %d   %s%s", t->done,
		    t->planned, t->n[V_PASS], t->n[V_FAIL] + t->n[V_TIMEOUT], t->n[V_SKIP],
		    now[0] ? "running: " : "", now);
	screen_status(s);
}

static void status_plan(int planned)
{
	update_status();
}

static void status_open(const struct results_block *b)
{
	tl_strlcpy(now, b->label, sizeof now);
	update_status();
}

static void status_close(const struct results_block *b)
{
	now[0] = 0;
	update_status();
}

/* The failed checks, "NUM N description\n" each, for the "# fail:" lines: as
 * many as 1 KB holds, so that the report (about 1.4 KB without them for 110
 * experiments) stays within one QR code from about 1280x800 up; block() prints
 * fewer on small screens.  Serial has every one of them in the KTAP anyway. */
#define FAILS_BYTES 1024
#define FAIL_DESC_MAX 160
static char fails[FAILS_BYTES];
static struct fbuf failbuf = { fails, sizeof fails, 0, 0, false };
static int nfails, fails_dropped;

static void failed_check(const struct results_block *b, enum results_line kind, bool ok, const char *text)
{
	char l[FAIL_DESC_MAX + 24];
	if (kind != RL_CHECK || ok)
		return;
	int len = tl_snprintf(l, sizeof l, "%u %d %.*s\n", b->num, b->nchecks, FAIL_DESC_MAX, text);
	if (failbuf.len + (size_t)len + 1 < failbuf.cap) {
		fbuf_puts(&failbuf, l);
		nfails++;
	} else {
		fails_dropped++;
	}
}

static const struct results_sink status_bar = {
	.plan = status_plan, .open = status_open, .line = failed_check, .close = status_close,
};

/* The block as printed, for the QR code(s). */
static char payload[4096];
static struct fbuf paybuf = { payload, sizeof payload, 0, 0, false };

void report_init(void)
{
	results_add_sink(&status_bar);
}

/* ---- verdicts as the report's letters ------------------------------------------ */

static const char letter[V_NVERDICTS] = { 'P', 'S', 'F', 'T' };
/* the order the letters take in a mixed token: "PFSTE" */
static const enum verdict token_order[] = { V_PASS, V_FAIL, V_SKIP, V_TIMEOUT };

static bool is_failure(enum verdict v)
{
	return v == V_FAIL || v == V_TIMEOUT;
}

static int nfail(const struct results_totals *t)
{
	return t->n[V_FAIL] + t->n[V_TIMEOUT];
}

/* ---- the block ----------------------------------------------------------- */

/* The block goes twice through one writer: to the console (serial and screen)
 * and, after the screen is cleared, to the screen alone. */
typedef void (*sink_fn)(const char *s, int color);

static void to_console(const char *s, int color)
{
	fbuf_puts(&paybuf, s);
	console_color(color);
	kprintf("%s", s);
	console_color(0);
}

static void to_screen(const char *s, int color)
{
	screen_puts(s, color);
}

static bool for_screen(sink_fn out)
{
	return out == to_screen;
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

static void token(const struct results_record *e, char *b, size_t n, int *color)
{
	int kinds = 0, total = 0;
	enum verdict last = V_PASS;
	for (unsigned k = 0; k < sizeof token_order / sizeof token_order[0]; k++) {
		enum verdict v = token_order[k];
		if (e->n[v]) {
			kinds++;
			last = v;
			total += e->n[v];
		}
	}
	*color = is_failure(last) ? SC_FAIL : last == V_SKIP ? SC_SKIP : SC_PASS;
	if (kinds == 1 && total == 1) {
		tl_snprintf(b, n, "%u%c", e->num, letter[last]);
		return;
	}
	if (kinds == 1) {
		tl_snprintf(b, n, "%u%c*%d", e->num, letter[last], total);
		return;
	}
	int k = tl_snprintf(b, n, "%u", e->num);
	for (unsigned o = 0; o < sizeof token_order / sizeof token_order[0] && k < (int)n; o++) {
		enum verdict v = token_order[o];
		if (e->n[v])
			k += tl_snprintf(b + k, n - (size_t)k, "%c%u", letter[v], e->n[v]);
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
	out("# ---- tracelab hardware report v2: copy from here ----\n", SC_HEAD);
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
		 !apic_present() ? "no APIC" : apic_x2apic() ? "x2APIC" : "xAPIC", screen_brief());
	/* the arguments as the command-line parser found them (after QEMU's image
	 * path), escaped: lib/cmdline.c, lib/str.c */
	size_t off = kcmdline.args_off, len = tl_strlen(bootinfo.cmdline);
	char args[40], lname[40];
	tl_escape(args, sizeof args, bootinfo.cmdline + (off < len ? off : len), len - (off < len ? off : len));
	tl_escape(lname, sizeof lname, bootinfo.loader_name, tl_strlen(bootinfo.loader_name));
	out_line(out, SC_NORMAL, "# boot: \"%.30s\" cmdline \"%.36s\"\n", lname, args);

	/* results: a line per family (hundreds), wrapped to stay under 72 columns */
	int nentries, used = 0;
	const struct results_record *entries = results_records(&nentries);
	const struct results_totals *t = results_totals();
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
	if (t->dropped)
		out_line(out, SC_FAIL, "# result: %d more results not recorded (report full)\n", t->dropped);
	/* v2: every failed check; the screen has the QR code(s) for them */
	if (for_screen(out) && nfails + fails_dropped)
		out_line(out, SC_FAIL, "# fail: %d failed checks: in the QR code and on serial\n",
			 nfails + fails_dropped);
	/* A small screen has less room beside the text for the codes: it gets
	 * fewer of the lines (the serial log's KTAP has every check anyway). */
	size_t budget = screen_graphics_height() && screen_graphics_height() < 1000 ? 256 : sizeof fails;
	int more = fails_dropped;
	for (const char *f = fails; !for_screen(out) && *f;) {
		const char *e = f;
		while (*e && *e != '\n')
			e++;
		if ((size_t)(e + 1 - fails) > budget) {
			for (; *f; f++)
				more += *f == '\n';
			break;
		}
		out_line(out, SC_FAIL, "# fail: %.*s\n", (int)(e - f), f);
		f = *e ? e + 1 : e;
	}
	if (!for_screen(out) && more)
		out_line(out, SC_FAIL, "# fail: +%d more (the report's space is full; see serial)\n", more);
	out_line(out, nfail(t) ? SC_FAIL : SC_PASS, "# sum: pass:%d fail:%d skip:%d total:%d planned:%d\n",
		 t->n[V_PASS], nfail(t), t->n[V_SKIP], t->done, t->planned);
	out("# ---- end of tracelab hardware report ----\n", SC_HEAD);
}

static bool failed(const struct results_record *e)
{
	return e->n[V_FAIL] || e->n[V_TIMEOUT];
}

/* The experiments that failed, by name, so the screen says what to look at:
 * at most two lines of them. */
static void failures(void)
{
	int nentries, nbad = 0, shown = 0, w = (int)screen_cols(), lines = 1;
	const struct results_record *entries = results_records(&nentries);
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

/* The block as text, for a caller that draws it elsewhere (QR codes). */
static struct { char *buf; size_t size, len; } text_out;

static void to_text(const char *s, int color)
{
	for (; *s; s++) {
		if (text_out.len + 1 < text_out.size)
			text_out.buf[text_out.len] = *s;
		text_out.len++;
	}
	if (text_out.size)
		text_out.buf[text_out.len < text_out.size ? text_out.len : text_out.size - 1] = 0;
}

size_t report_text(char *buf, size_t size)
{
	text_out.buf = buf;
	text_out.size = size;
	text_out.len = 0;
	if (size)
		buf[0] = 0;
	block(to_text);
	return text_out.len;
}

/* What the screen cost the run, on serial only (the screen is full, and its
 * codes are drawn): TSC cycles in ms at the calibrated rate. */
static void screen_cost_line(int codes)
{
	uint64_t text, qr, up, bytes, per_ms = smp_tsc_per_ms();
	char b[240];
	screen_cost(&text, &qr, &up, &bytes);
	if (!per_ms)
		return;
	int n = tl_snprintf(b, sizeof b, "# screen: %s: drawing text %llu ms, QR codes %llu ms (%s), "
			    "of %llu ms since the screen came up; %llu KiB written to the screen\n",
			    screen_brief(), (unsigned long long)(text / per_ms),
			    (unsigned long long)(qr / per_ms), codes ? screen_qr_describe() : "none",
			    (unsigned long long)(up / per_ms), (unsigned long long)(bytes >> 10));
	for (int i = 0; i < n && b[i]; i++) {
		if (b[i] == '\n')
			serial_putc('\r');
		serial_putc(b[i]);
	}
}

void report_final(bool all_passed, bool cpu_only)
{
	const struct results_totals *t = results_totals();
	int nentries;
	(void)results_records(&nentries);
	bool ran = t->started && t->finished;
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
			    nfail(t) ? "SOME EXPERIMENTS FAILED" : "all experiments passed or skipped",
			    t->n[V_PASS], nfail(t), t->n[V_SKIP], t->done, t->planned);
		screen_puts(b, nfail(t) ? SC_FAIL : SC_PASS);
		failures();
	}
	block(to_screen);
	/* the codes go where the text leaves room, so the text comes first and
	 * nothing is printed after them (it could land on a code) */
	int codes = paybuf.overflow ? 0 : screen_qr((const uint8_t *)payload, paybuf.len);
	if (!codes)
		screen_puts("Photograph this screen or copy the block from serial: docs/real-hardware.md\n",
			    SC_NORMAL);
	screen_cost_line(codes);
	char st[160];
	tl_snprintf(st, sizeof st, " tracelab: finished%s.%s Halted: power off or reset.",
		    all_passed ? "" : " with failures",
		    codes == 1 ? " The QR code holds the report." : codes ? " The QR codes hold the report." : "");
	screen_status(st);
}
