/* lib/cmdline.c: what is accepted, what is refused, and that a refusal says why. */
#include <string.h>
#include "cmdline.h"
#include "str.h"
#include "tl_test.h"

TEST(cmdline_defaults)
{
	struct cmdline c;
	CHECK(cmdline_parse("", &c));
	CHECK_EQ(c.nsel, 1);
	CHECK_EQ(c.sel[0].kind, SEL_ALL);
	CHECK_EQ(c.reps, 1);
	CHECK_EQ(c.cpu, 0);
	CHECK_EQ(c.watchdog_ms, 3000);
	CHECK(cmdline_selects(&c, 101, "debug"));
	CHECK(!cmdline_selects(&c, 901, "selftest"));
	CHECK(cmdline_parse(NULL, &c));
	/* the argument words alone: a path is not an argument */
	CHECK(!cmdline_parse("/boot/tracelab.elf run=101", &c));
}

TEST(cmdline_run_list)
{
	struct cmdline c;
	CHECK(cmdline_parse("run=101,200-299,pt reps=3 cpu=all verbose=2 selftest=1 exit=halt pause=100 watchdog=50", &c));
	CHECK_EQ(c.nsel, 3);
	CHECK(cmdline_selects(&c, 101, "debug"));
	CHECK(!cmdline_selects(&c, 102, "debug"));
	CHECK(cmdline_selects(&c, 200, "bts"));
	CHECK(cmdline_selects(&c, 299, "x"));
	CHECK(!cmdline_selects(&c, 300, "pmu"));
	CHECK(cmdline_selects(&c, 450, "pt"));
	CHECK_EQ(c.reps, 3);
	CHECK_EQ(c.cpu, CMD_CPU_ALL);
	CHECK_EQ(c.verbose, 2);
	CHECK(c.selftest);
	CHECK_EQ(c.exit_mode, EXIT_HALT);
	CHECK_EQ(c.pause_ms, 100);
	CHECK_EQ(c.watchdog_ms, 50);
	CHECK(cmdline_parse("run=0x65 cpu=3 report=cpu", &c));
	CHECK(cmdline_selects(&c, 101, "debug"));
	CHECK_EQ(c.cpu, 3);
	CHECK(c.cpu_report_only);
}

TEST(cmdline_refusals)
{
	static const char *const bad[] = {
		"run=", "run=101,", "run=,101", "run=1000", "run=0", "run=5-3", "run=1-", "run=-3",
		"run=Debug", "run=deb-ug", "run=averyveryverylongfamilyname", "reps=0", "reps=1001",
		"reps=x", "cpu=256", "cpu=-1", "verbose=3", "selftest=2", "watchdog=5",
		"exit=reboot", "report=all", "frobnicate=1", "run=101 junk", "=1", "pause=60001",
		"run=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33",
		"reps=99999999999999999999999",
	};
	for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct cmdline c;
		bool ok = cmdline_parse(bad[i], &c);
		if (!CHECK(!ok) || !CHECK(c.error[0]))
			printf("#   accepted: '%s'\n", bad[i]);
	}
	struct cmdline c;
	CHECK(!cmdline_parse("run=101 bogus=1", &c));
	CHECK(strstr(c.error, "bogus") != NULL);
}

/* What the runner (and mkmenu --list, for the matrix) runs: self-tests only with selftest=1. */
TEST(cmdline_selection_of_experiments)
{
	struct cmdline c;
	CHECK(cmdline_parse("run=all", &c));
	CHECK(cmdline_selects_experiment(&c, 101, "debug", false));
	CHECK(!cmdline_selects_experiment(&c, 901, "selftest", true));
	CHECK(cmdline_parse("run=all selftest=1", &c));
	CHECK(cmdline_selects_experiment(&c, 901, "selftest", true));
	CHECK(cmdline_parse("run=901-904,501 selftest=1", &c));
	CHECK(cmdline_selects_experiment(&c, 902, "selftest", true));
	CHECK(cmdline_selects_experiment(&c, 501, "platform", false));
	CHECK(!cmdline_selects_experiment(&c, 101, "debug", false));
	CHECK(cmdline_parse("run=901-904", &c));
	CHECK(!cmdline_selects_experiment(&c, 902, "selftest", true));
	CHECK(cmdline_parse("run=debug,platform cpu=all", &c));
	CHECK(cmdline_selects_experiment(&c, 513, "platform", false));
	CHECK(!cmdline_selects_experiment(&c, 201, "bts", false));
}

static bool boot(const char *line, enum cmd_loader l, struct cmdline *c)
{
	return cmdline_parse_boot(line, strlen(line), l, c);
}

/* Issue 13.4: the loader decides whether the line starts with the image path. */
TEST(cmdline_loader_path)
{
	struct cmdline c;
	CHECK_EQ(cmdline_loader(1, "qemu"), CMD_LOADER_QEMU);
	CHECK_EQ(cmdline_loader(2, "GRUB 2.06-13+deb12u2"), CMD_LOADER_GRUB);
	CHECK_EQ(cmdline_loader(1, "GRUB 2.06"), CMD_LOADER_GRUB);
	CHECK_EQ(cmdline_loader(2, "qemu"), CMD_LOADER_OTHER);
	CHECK_EQ(cmdline_loader(1, ""), CMD_LOADER_OTHER);
	CHECK_EQ(cmdline_loader(1, "iPXE 1.0.0+git-20190125.36a4c85"), CMD_LOADER_IPXE);
	/* iPXE: the image URI first */
	CHECK(boot("tftp://10.0.2.2/tracelab.elf run=debug", CMD_LOADER_IPXE, &c));
	CHECK_EQ(c.sel[0].kind, SEL_FAMILY);
	CHECK(!boot("tftp://10.0.2.2/tracelab.elf run101", CMD_LOADER_IPXE, &c));

	/* QEMU: "PATH APPEND" */
	CHECK(boot("/boot/tracelab.elf run=101", CMD_LOADER_QEMU, &c));
	CHECK_EQ(c.sel[0].kind, SEL_NUM);
	CHECK_EQ(c.args_off, 19);
	CHECK(boot("build/tracelab.elf ", CMD_LOADER_QEMU, &c));        /* -append "" */
	CHECK_EQ(c.sel[0].kind, SEL_ALL);
	CHECK(boot("tracelab.elf", CMD_LOADER_QEMU, &c));               /* no space at all */
	CHECK_EQ(c.args_off, 12);
	/* a path with '=' is still the path */
	CHECK(boot("/tmp/a=b/tracelab.elf run=102", CMD_LOADER_QEMU, &c));
	CHECK_EQ(c.sel[0].lo, 102);
	/* a path with spaces: the split whose path ends in a word with '/' */
	CHECK(boot("/home/me/My Projects/tracelab/build/tracelab.elf run=103 verbose=1",
		   CMD_LOADER_QEMU, &c));
	CHECK_EQ(c.sel[0].lo, 103);
	CHECK_EQ(c.verbose, 1);
	CHECK_EQ(c.args_off, 49);
	/* but a bad first argument is not swallowed as part of the path */
	CHECK(!boot("/boot/tracelab.elf bogus run=101", CMD_LOADER_QEMU, &c));
	CHECK(strstr(c.error, "'bogus'") != NULL);
	CHECK(!boot("/boot/tracelab.elf run101", CMD_LOADER_QEMU, &c));

	/* GRUB passes the arguments only: a first bare word is an error, not a path */
	CHECK(!boot("run101", CMD_LOADER_GRUB, &c));
	CHECK(strstr(c.error, "run101") != NULL);
	CHECK(!boot("bogus run=101", CMD_LOADER_GRUB, &c));
	CHECK(boot("run=101", CMD_LOADER_GRUB, &c));
	CHECK_EQ(c.sel[0].lo, 101);
	CHECK_EQ(c.args_off, 0);
	CHECK(!boot("/boot/tracelab.elf run=101", CMD_LOADER_OTHER, &c));
}

/* Issue 13.5: a line is taken whole or refused whole, never cut. */
TEST(cmdline_length)
{
	static char line[CMD_MAX_LINE + 64];
	struct cmdline c;
	/* run=101, spaces up to the limit, run=102 as the last word: the last word counts */
	size_t n = CMD_MAX_LINE;
	memset(line, ' ', n);
	memcpy(line, "run=101", 7);
	memcpy(line + n - 7, "run=102", 7);
	line[n] = 0;
	CHECK(cmdline_parse_boot(line, n, CMD_LOADER_GRUB, &c));
	CHECK_EQ(c.sel[0].lo, 102);
	/* one byte more than the kernel reads: refused, saying so */
	CHECK(!cmdline_parse_boot(line, n + 1, CMD_LOADER_GRUB, &c));
	CHECK(strstr(c.error, "refused as a whole") != NULL);
	CHECK(strstr(c.error, "4096 bytes") != NULL);
	/* the loader's length beyond what was kept */
	CHECK(!cmdline_parse_boot("run=101", 600, CMD_LOADER_QEMU, &c));
	/* the 511-byte cut of the old kernel would have made this "unknown word 'ver'" */
	memset(line, ' ', 600);
	memcpy(line, "run=101", 7);
	memcpy(line + 508, "verbose=1", 9);
	line[600] = 0;
	CHECK(cmdline_parse_boot(line, 600, CMD_LOADER_GRUB, &c));
	CHECK_EQ(c.verbose, 1);
}

/* Issue 13.10: the refused word is quoted escaped, never raw. */
TEST(cmdline_escaped)
{
	struct cmdline c;
	CHECK(!cmdline_parse("run=101\nnot ok 1 fake", &c));
	CHECK(strchr(c.error, '\n') == NULL);
	CHECK(!cmdline_parse("a\x1b[2J=1", &c));
	CHECK(strchr(c.error, 0x1b) == NULL);
	CHECK(strstr(c.error, "\\x1b[2J") != NULL);
	char buf[64];
	CHECK_EQ(tl_escape(buf, sizeof buf, "a\n\"\\\x7f\xff", 6), 15);
	CHECK(!strcmp(buf, "a\\n\\\"\\\\\\x7f\\xff"));
	CHECK_EQ(tl_escape(buf, 5, "ab\ncd", 5), 4);            /* no half escape */
	CHECK(!strcmp(buf, "ab\\n"));
	CHECK_EQ(tl_escape(buf, 4, "ab\ncd", 5), 2);
	CHECK(!strcmp(buf, "ab"));
}

static const struct cmd_exp reg[] = {
	{ 101, "debug", false, false }, { 102, "debug", false, false }, { 201, "bts", false, false },
	{ 501, "platform", false, false }, { 901, "selftest", true, false }, { 902, "selftest", true, false },
	{ 903, "selftest", true, false }, { 904, "selftest", true, false },
	{ 101, "debug", false, true }, { 190, "debug", false, true }, { 910, "selftest", true, true },
};
#define NREG ((int)(sizeof reg / sizeof reg[0]))

static bool valid(const char *args, char *err)
{
	struct cmdline c;
	if (!cmdline_parse(args, &c)) {
		strcpy(err, c.error);
		return false;
	}
	return cmdline_validate(&c, reg, NREG, err, 200);
}

/* Issue 13.7: an empty selection is an error. */
TEST(cmdline_validate_selection)
{
	char err[200];
	CHECK(valid("run=101", err));
	CHECK(valid("", err));
	CHECK(valid("run=901-904 selftest=1", err));
	CHECK(valid("run=selftest selftest=1", err));
	CHECK(valid("run=all selftest=1", err));
	/* every item must run something, as run=901 alone must */
	CHECK(!valid("run=101,901-904", err));
	CHECK(valid("run=101,901-904 selftest=1", err));
	CHECK(!valid("run=901-904", err));
	CHECK(strstr(err, "run=901-904 names only self-tests: add selftest=1") != NULL);
	CHECK(!valid("run=selftest", err));
	CHECK(strstr(err, "run=selftest names only self-tests") != NULL);
	CHECK(!valid("run=901", err));
	CHECK(strstr(err, "experiment 901 is a self-test") != NULL);
	CHECK(!valid("run=300-399", err));
	CHECK(strstr(err, "no experiment numbered 300-399") != NULL);
	CHECK(!valid("run=pmu", err));
	CHECK(strstr(err, "no experiment family 'pmu'") != NULL);
	struct cmdline c;
	CHECK(cmdline_parse("run=all", &c));
	CHECK(!cmdline_validate(&c, reg + 4, 4, err, sizeof err));   /* only self-tests exist */
}

/* Issue 13.11: a CPU that is not online is refused with what is accepted. */
TEST(cmdline_cpu_list)
{
	struct cmdline c;
	char err[200];
	bool on[16] = { true, true, true, true };
	CHECK(cmdline_parse("cpu=3", &c));
	CHECK(cmdline_check_cpu(&c, on, 16, err, sizeof err));
	CHECK(cmdline_parse("cpu=99", &c));
	CHECK(!cmdline_check_cpu(&c, on, 16, err, sizeof err));
	CHECK(!strcmp(err, "cpu=99: no such CPU online (4 online); accepted: cpu=0-3 or cpu=all"));
	bool one[16] = { true };
	CHECK(cmdline_parse("cpu=1", &c));
	CHECK(!cmdline_check_cpu(&c, one, 16, err, sizeof err));
	CHECK(!strcmp(err, "cpu=1: no such CPU online (1 online); accepted: cpu=0 or cpu=all"));
	bool gap[16] = { true, false, true, true, false, true };
	CHECK(!cmdline_check_cpu(&c, gap, 16, err, sizeof err));
	CHECK(strstr(err, "accepted: cpu=0,2-3,5 or cpu=all") != NULL);
	CHECK(cmdline_parse("cpu=all", &c));
	CHECK(cmdline_check_cpu(&c, one, 16, err, sizeof err));
}

TEST(cmdline_modes)
{
	struct cmdline c;
	CHECK(cmdline_parse("run=101", &c));
	CHECK_EQ(c.modes, CMD_MODE_LONG);
	CHECK(cmdline_parse("mode=pm32", &c));
	CHECK_EQ(c.modes, CMD_MODE_PM32);
	CHECK(cmdline_parse("mode=long,pm32pae", &c));
	CHECK_EQ(c.modes, CMD_MODE_LONG | CMD_MODE_PM32PAE);
	CHECK(cmdline_parse("mode=all", &c));
	CHECK_EQ(c.modes, CMD_MODES_ALL);
	CHECK(cmdline_parse("mode=pm32,pm32pg,pm32pae", &c));
	CHECK_EQ(c.modes, CMD_MODES_PM32);
	CHECK(!cmdline_parse("mode=pm16", &c));
	CHECK(strstr(c.error, "mode=") != NULL);
	CHECK(!cmdline_parse("mode=", &c));
	CHECK(!cmdline_parse("mode=pm32,", &c));
	CHECK(!strcmp(cmdline_mode_name(CMD_MODE_PM32PG), "pm32pg"));
	CHECK(!strcmp(cmdline_mode_name(CMD_MODE_LONG), "long"));
	CHECK(!strcmp(cmdline_mode_name(CMD_MODES_PM32), "?"));
	/* validation by mode: 190 exists only in protected mode */
	char err[200];
	CHECK(!valid("run=190", err));
	CHECK(strstr(err, "mode=") != NULL);
	CHECK(valid("run=190 mode=pm32", err));
	CHECK(valid("run=101,190 mode=long,pm32", err));
	CHECK(!valid("run=102 mode=pm32", err));
	CHECK(!valid("run=910 mode=pm32", err));                 /* a self-test */
	CHECK(valid("run=910 mode=pm32 selftest=1", err));
	CHECK(cmdline_parse("mode=long,pm32", &c));
	CHECK_EQ(cmdline_modes_for(&c, false), CMD_MODE_LONG);
	CHECK_EQ(cmdline_modes_for(&c, true), CMD_MODE_PM32);
	CHECK(cmdline_parse("mode=pm32pg", &c));
	CHECK_EQ(cmdline_modes_for(&c, false), 0);
}

TEST(cmdline_fuzz_debug)
{
	struct cmdline c;
	CHECK(cmdline_parse("fuzz=debug", &c));
	CHECK(c.fuzz_debug);
	CHECK_EQ(c.fuzz_seed, 1);
	CHECK_EQ(c.fuzz_count, 1000);
	CHECK_EQ(c.fuzz_index, -1);
	CHECK(cmdline_parse("fuzz=debug seed=0xdeadbeefcafe count=10000 exit=qemu", &c));
	CHECK_EQ(c.fuzz_seed, 0xdeadbeefcafeULL);
	CHECK_EQ(c.fuzz_count, 10000);
	CHECK(cmdline_parse("fuzz=debug seed=3 index=4294967295 drop=0x1000003 shrink=1", &c));
	CHECK_EQ(c.fuzz_index, 4294967295LL);
	CHECK_EQ(c.fuzz_drop, 0x1000003);
	CHECK(c.fuzz_shrink);
	CHECK(cmdline_parse("fuzz=debug seed=5", &c));
	CHECK_EQ(c.fuzz_count, 1000);
	CHECK(!c.fuzz_shrink);
}

TEST(cmdline_fuzz_refusals)
{
	struct cmdline c;
	static const char *const bad[] = {
		"fuzz=pmu", "fuzz=", "fuzz=debug seed=", "fuzz=debug seed=x1", "fuzz=debug seed=-1",
		"fuzz=debug seed=18446744073709551616", "fuzz=debug count=0", "fuzz=debug count=1000001",
		"fuzz=debug count=12x", "fuzz=debug index=4294967296", "fuzz=debug index=1 drop=0x100000000",
		"fuzz=debug index=1 shrink=2", "seed=1", "count=10", "index=3", "drop=1", "shrink=1",
		"fuzz=debug run=101", "run=101 fuzz=debug", "fuzz=debug count=5 index=3",
		"fuzz=debug drop=1", "fuzz=debug shrink=1", "fuzz=debug count=5 drop=1",
	};
	for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		bool ok = cmdline_parse(bad[i], &c);
		if (!CHECK(!ok))
			printf("#   accepted: %s\n", bad[i]);
		CHECK(c.error[0] != 0);
		CHECK(!strchr(c.error, '#'));
	}
}
