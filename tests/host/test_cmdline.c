/* lib/cmdline.c: what is accepted, what is refused, and that a refusal says why. */
#include <string.h>
#include "cmdline.h"
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
	/* QEMU and GRUB put the image path first */
	CHECK(cmdline_parse("/boot/tracelab.elf run=101", &c));
	CHECK_EQ(c.sel[0].kind, SEL_NUM);
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
