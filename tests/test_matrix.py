#!/usr/bin/env python3
"""Tests of the matrix harness itself: the KTAP parser and the comparison must
catch every kind of difference, an unexpected PASS included."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import expectations  # noqa: E402
import ktap  # noqa: E402
import matrix  # noqa: E402
import xml.etree.ElementTree as ET  # noqa: E402
import platforms  # noqa: E402

LOG = """# tracelab: x86 debug ... kernel
KTAP version 1
1..4
    KTAP version 1
    # Subtest: 101 int3
    1..1
    ok 1 BP deliveries: 2 (expected 2)
ok 1 101 int3\r
not ok 2 102 int1-icebp
ok 3 201 bts-circular # SKIP CPUID.01H:EDX.DS[21]=0
ok 4 501 mode-journey cpu=1 rep=2
# tracelab: pass:2 fail:1 skip:1 total:4
"""

EXPECT = {101: ("PASS", ""), 102: ("FAIL", "QEMU: #UD"), 201: ("SKIP", "CPUID.01H:EDX.DS[21]=0"),
          501: ("PASS", "")}


class Parse(unittest.TestCase):
    def test_results_and_summary(self):
        r, s = matrix.parse(LOG)
        self.assertEqual(s, (2, 1, 1, 4))
        self.assertEqual(r[101], ("int3", "PASS", ""))
        self.assertEqual(r[102], ("int1-icebp", "FAIL", ""))
        self.assertEqual(r[201], ("bts-circular", "SKIP", "CPUID.01H:EDX.DS[21]=0"))
        self.assertEqual(r[501][1], "PASS")
        self.assertNotIn(1, r)  # subtest lines are not top-level results

    def test_no_summary_is_a_boot_failure(self):
        r, s = matrix.parse(LOG.split("# tracelab: pass")[0])
        self.assertIsNone(s)
        self.assertTrue(any("summary" in d for d in matrix.compare("p", r, s, EXPECT)))


class ProtectedMode(unittest.TestCase):
    """Runs in 32-bit protected mode: "104 dr-exec pm32" is the cell 104@pm32."""
    LOG32 = ("KTAP version 1\n1..3\nok 1 104 dr-exec\nok 2 104 dr-exec pm32\n"
             "not ok 3 190 task-switch-trap pm32pae\n# tracelab: pass:2 fail:1 skip:0 total:3\n")

    def test_mode_is_part_of_the_key(self):
        r, s = matrix.parse(self.LOG32)
        self.assertEqual(r[104], ("dr-exec", "PASS", ""))
        self.assertEqual(r["104@pm32"], ("dr-exec pm32", "PASS", ""))
        self.assertEqual(r["190@pm32pae"][1], "FAIL")
        self.assertEqual(sorted(r, key=matrix.order), [104, "104@pm32", "190@pm32pae"])

    def test_rules_per_mode(self):
        t = ("110 qemu-tcg FAIL long.c f()\n110@pm32* qemu-tcg FAIL pm.c g()\n"
             "190@pm32pae all FAIL ts.c h()\n")
        rules, problems = table(t)
        self.assertEqual(problems, [])
        keys = [110, "110@pm32", "110@pm32pg", 190, "190@pm32", "190@pm32pae"]
        exp, conflicts = expectations.expect(rules, "qemu-tcg", keys)
        self.assertEqual(conflicts, [])
        self.assertEqual(exp[110][1], "long.c f()")             # a plain term: long mode only
        self.assertEqual(exp["110@pm32"][1], "pm.c g()")         # @pm32*: every paging variant
        self.assertEqual(exp["110@pm32pg"][1], "pm.c g()")
        self.assertEqual(exp["190@pm32"][0], "PASS")
        self.assertEqual(exp["190@pm32pae"][0], "FAIL")
        r, s = matrix.parse(self.LOG32)
        exp, _ = expectations.expect(rules, "qemu-tcg", [104, "104@pm32", "190@pm32pae"])
        self.assertEqual(matrix.compare("qemu-tcg", r, s, exp), [])
        r, s = matrix.parse(self.LOG32.replace("ok 2 104 dr-exec pm32", "not ok 2 104 dr-exec pm32"))
        self.assertEqual(len(matrix.compare("qemu-tcg", r, s, exp)), 1)
        self.assertEqual(len(table("101@pm64 all PASS\n")[1]), 1)   # no such mode
        self.assertEqual(len(expectations.stale(rules, [110, "110@pm32"])), 1)   # 190@pm32pae

    def test_run_only_by_number(self):
        self.assertEqual(matrix.run_only("run=all mode=pm32", ["104@pm32", 101]), "run=101,104 mode=pm32")


class Compare(unittest.TestCase):
    def diffs(self, log, exp=EXPECT):
        r, s = matrix.parse(log)
        return matrix.compare("p", r, s, exp)

    def test_as_expected(self):
        self.assertEqual(self.diffs(LOG), [])

    def test_unexpected_pass(self):
        d = self.diffs(LOG.replace("not ok 2 102", "ok 2 102"))
        self.assertEqual(len(d), 1)
        self.assertIn("got PASS, expected FAIL", d[0])

    def test_unexpected_fail(self):
        d = self.diffs(LOG.replace("ok 1 101 int3", "not ok 1 101 int3"))
        self.assertIn("got FAIL, expected PASS", d[0])

    def test_skip_reason_must_match(self):
        d = self.diffs(LOG.replace("DS[21]=0", "DS[21]=0 (other)"))
        self.assertIn("SKIP reason", d[0])

    def test_missing_and_extra(self):
        d = self.diffs(LOG.replace("ok 4 501 mode-journey cpu=1 rep=2\n", "ok 4 999 new\n"))
        self.assertEqual(len(d), 2)
        self.assertTrue(any("501: expected PASS, not run" in x for x in d))
        self.assertTrue(any("999 new: PASS but the command line does not select it" in x for x in d))


    def test_cpus_must_agree(self):
        log = LOG.replace("ok 4 501 mode-journey cpu=1 rep=2\n",
                          "ok 4 501 mode-journey cpu=0\nnot ok 5 501 mode-journey cpu=1\n")
        d = self.diffs(log)
        self.assertEqual(len(d), 1)
        self.assertIn("got MIXED", d[0])


class BootFailure(unittest.TestCase):
    """An emulator that never ran the kernel is told apart from a kernel that did
    not finish, and the emulator's own last words are quoted."""

    def test_emulator_died(self):
        b = matrix.Boot("bochs", "", -6, 0.21, "*** buffer overflow detected ***: terminated")
        f = matrix.boot_failure(b)
        self.assertEqual(f, "bochs exited after 0.2 s (status -6) before the kernel printed "
                            "anything: *** buffer overflow detected ***: terminated")
        d = matrix.compare("p", {}, None, EXPECT, f)
        self.assertEqual(d[0], f)

    def test_kernel_stopped(self):
        out = LOG.split("# tracelab: pass")[0] + "ok 5 502 lvt-plumbing\n"
        f = matrix.boot_failure(matrix.Boot("qemu", out, None, 60.0, "(no message)", True))
        self.assertIn("the kernel did not reach its KTAP summary (qemu timed out after 60.0 s)", f)
        self.assertIn("last serial line: ok 5 502 lvt-plumbing", f)

    def test_complete_run(self):
        self.assertIsNone(matrix.boot_failure(matrix.Boot("qemu", LOG, 3, 1.0, "")))

    def test_bochs_has_no_sound(self):
        # Debian's Bochs 2.7 aborts in its ALSA mixer thread on a machine without
        # a sound card under LANG=C.UTF-8 (issue 13): the config must not use it.
        cfg = platforms.bochsrc(platforms.get("bochs-ryzen-smp2"), "x.iso", "com1.txt")
        self.assertIn("sound: driver=dummy", cfg)
        self.assertIn("speaker: enabled=0", cfg)


class LinuxKtapParser(unittest.TestCase):
    """tests/ktap.py: the Linux parser (build/kunit, tools/ktap-parser.sh) reads a
    good log with no error and the verdicts of tracelab's own report, and fails a
    log in the old layout; JUnit XML is well formed and counts right."""
    GOOD = LOG.replace("# tracelab: pass:2 fail:1 skip:1 total:4\n",
                       "# tracelab: pass:2 fail:1 skip:1 total:4\n"
                       "# result: 101P 102F\n# result: 201S\n# result: 501P\n")

    def check(self, text, **kw):
        with tempfile.NamedTemporaryFile("w", suffix=".log") as f:
            f.write(text)
            f.flush()
            return ktap.check(f.name, **kw)

    def test_good_log(self):
        problems, r = self.check(self.GOOD)
        self.assertEqual(problems, [])
        self.assertEqual(r["nerrors"], 0)

    def test_verdicts_must_agree_with_the_report(self):
        problems, _ = self.check(self.GOOD.replace("# result: 501P", "# result: 501F"))
        self.assertTrue(any(p.startswith("501:") for p in problems), problems)

    def test_old_layout_fails(self):
        old = self.GOOD.replace("    1..1\n    ok 1 BP deliveries: 2 (expected 2)\n",
                                "    ok 1 #BP deliveries: 2 (expected 2)\n    1..1\n")
        problems, _ = self.check(old)
        self.assertTrue(problems)

    def test_refusal(self):
        refused = ("# boot\nKTAP version 1\n# tracelab: command line error: bad reps=: 'reps=0'\n"
                   "# accepted: ...\n1..0\n# tracelab: command line rejected, nothing run\n")
        self.assertEqual(self.check(refused, refused=True)[0], [])
        self.assertTrue(self.check(refused.replace("KTAP version 1\n", ""), refused=True)[0])

    def test_limit_is_a_failure(self):
        block = "    KTAP version 1\n    # Subtest: {n} x\n    ok 1 a\n    1..1\nok {n} {n} x\n"
        text = "KTAP version 1\n1..400\n" + "".join(block.format(n=i) for i in range(1, 401))
        old = ktap.TIME_LIMIT
        ktap.TIME_LIMIT = 2
        try:
            problems, r = self.check(text)
        finally:
            ktap.TIME_LIMIT = old
        self.assertIn("limit", r)
        self.assertTrue(problems)

    def test_junit(self):
        results, _ = matrix.parse(self.GOOD)
        tree = ktap.junit("p", "a platform", results, ktap.failed_checks(self.GOOD), 1.5)
        with tempfile.NamedTemporaryFile(suffix=".xml") as f:
            tree.write(f.name, encoding="utf-8", xml_declaration=True)
            self.assertEqual(ktap.junit_problems(f.name, results), [])
            root = ET.parse(f.name).getroot()
        self.assertEqual((root.get("tests"), root.get("failures"), root.get("skipped")), ("4", "1", "1"))
        self.assertEqual(root.find("testcase[@name='201 bts-circular']/skipped").get("message"),
                         "CPUID.01H:EDX.DS[21]=0")
        self.assertIsNotNone(root.find("testcase[@name='102 int1-icebp']/failure"))


class Ktap(unittest.TestCase):
    def test_clean(self):
        self.assertEqual(matrix.ktap_problems(LOG), [])

    def test_hash_in_description(self):
        p = matrix.ktap_problems(LOG.replace("ok 1 BP deliveries", "ok 1 #BP deliveries"))
        self.assertEqual(len(p), 1)
        self.assertIn("'#' in a description", p[0])

    def test_skip_reason_may_follow_the_directive(self):
        self.assertEqual(matrix.ktap_problems("ok 1 201 bts # SKIP WRMSR 0x1d9 #GP\n"), [])

    def test_plan_last(self):
        log = LOG.replace("    1..1\n    ok 1 BP deliveries: 2 (expected 2)\n",
                          "    ok 1 BP deliveries: 2 (expected 2)\n    1..1\n")
        self.assertTrue(any("no plan" in p for p in matrix.ktap_problems(log)))

    def test_names_must_match(self):
        p = matrix.ktap_problems(LOG.replace("ok 1 101 int3\r", "ok 1 101 int3 cpu=0\r"))
        self.assertEqual(len(p), 1)
        self.assertIn("for block '101 int3'", p[0])


NAMES = ["qemu-tcg", "qemu-tcg-max", "qemu-ovmf-iso", "bochs-haswell", "bochs-ryzen"]
GROUPS = {"tcg": ["qemu-tcg", "qemu-tcg-max", "qemu-ovmf-iso"], "bochs": ["bochs-haswell", "bochs-ryzen"]}


def table(text):
    return expectations.parse(text, os.path.join(expectations.ROOT, "t.txt"), NAMES, GROUPS)


class Table(unittest.TestCase):
    """The expectation table's parser and its precedence rule."""

    def cells(self, text, platform, nums):
        rules, problems = table(text)
        self.assertEqual(problems, [])
        exp, conflicts = expectations.expect(rules, platform, nums)
        self.assertEqual(conflicts, [])
        return {n: exp[n][:2] for n in nums}

    def test_default_is_pass(self):
        self.assertEqual(self.cells("# nothing\n\n", "qemu-tcg", [101]), {101: ("PASS", "")})

    def test_numbers_ranges_lists_families(self):
        c = self.cells("101,103-104 all SKIP no X\npt qemu-tcg SKIP no PT\n", "qemu-tcg",
                       [101, 102, 103, 104, 105, 401, 499])
        self.assertEqual(c[101], ("SKIP", "no X"))
        self.assertEqual(c[102], ("PASS", ""))
        self.assertEqual(c[104], ("SKIP", "no X"))
        self.assertEqual(c[105], ("PASS", ""))
        self.assertEqual(c[401], ("SKIP", "no PT"))
        self.assertEqual(c[499], ("SKIP", "no PT"))

    def test_globs_and_groups(self):
        t = "102 qemu-tcg* FAIL a.c f()\n112 bochs FAIL cpu/msr.cc rdmsr\n"
        self.assertEqual(self.cells(t, "qemu-tcg-max", [102, 112])[102][0], "FAIL")
        self.assertEqual(self.cells(t, "qemu-ovmf-iso", [102])[102][0], "PASS")
        self.assertEqual(self.cells(t, "bochs-ryzen", [102, 112]), {102: ("PASS", ""), 112: ("FAIL", "cpu/msr.cc rdmsr")})

    def test_reason_keeps_its_spaces(self):
        c = self.cells('310  bochs-haswell   SKIP   CPUID.0H vendor "GenuineIntel" is  not AMD\n', "bochs-haswell", [310])
        self.assertEqual(c[310], ("SKIP", 'CPUID.0H vendor "GenuineIntel" is  not AMD'))

    def test_the_most_specific_platform_wins_then_experiment(self):
        t = ("bts all SKIP no DS\n204 all SKIP no DS-CPL\n"
             "201-206 bochs-haswell SKIP DS_AREA\n201-206 bochs SKIP group\n201-206 qemu* SKIP glob\n")
        self.assertEqual(self.cells(t, "bochs-haswell", [204])[204], ("SKIP", "DS_AREA"))   # name > group
        self.assertEqual(self.cells(t, "bochs-ryzen", [204])[204], ("SKIP", "group"))       # group > all
        self.assertEqual(self.cells(t, "qemu-tcg", [201, 204]), {201: ("SKIP", "glob"), 204: ("SKIP", "glob")})
        t2 = "bts all SKIP no DS\n204 all SKIP no DS-CPL\n201-209 all SKIP range\n"
        self.assertEqual(self.cells(t2, "qemu-tcg", [201, 204, 210]),   # number > range > family
                         {201: ("SKIP", "range"), 204: ("SKIP", "no DS-CPL"), 210: ("SKIP", "no DS")})

    def test_order_does_not_matter(self):
        a = "511 all SKIP one CPU\n511 bochs-ryzen PASS\n"
        b = "511 bochs-ryzen PASS\n511 all SKIP one CPU\n"
        for t in (a, b):
            self.assertEqual(self.cells(t, "bochs-ryzen", [511])[511], ("PASS", ""))
            self.assertEqual(self.cells(t, "qemu-tcg", [511])[511], ("SKIP", "one CPU"))

    def test_equally_specific_rules_that_disagree(self):
        rules, problems = table("101 qemu-tcg SKIP a\n101,102 qemu-tcg,bochs-haswell SKIP b\n")
        self.assertEqual(problems, [])
        _, conflicts = expectations.expect(rules, "qemu-tcg", [101, 102])
        self.assertEqual(len(conflicts), 1)
        self.assertIn("t.txt:1", conflicts[0])
        self.assertIn("t.txt:2", conflicts[0])
        _, conflicts = expectations.expect(rules, "bochs-haswell", [101])
        self.assertEqual(conflicts, [])

    def test_malformed_lines(self):
        bad = ["101 qemu-tcg", "101 qemu-tcg MAYBE x", "10 all PASS", "1000 all PASS", "105-101 all PASS",
               "1x all PASS", "foo all PASS", "101, all PASS", "101 qemu-tcg,, PASS"]
        for line in bad:
            rules, problems = table(line + "\n")
            self.assertEqual(len(problems), 1, line)
            self.assertEqual(rules, [], line)
            self.assertIn("t.txt:1", problems[0])

    def test_reasons_required(self):
        for line in ["101 all FAIL", "101 all SKIP", "101 all FAIL UNEXPLAINED: x",
                     "101 all SKIP UNEXPLAINED", "101 all FAIL QEMU gets it wrong (no source named)"]:
            _, problems = table(line + "\n")
            self.assertEqual(len(problems), 1, line)
        for line in ["101 all FAIL QEMU: translate.c disas_insn()", "101 all FAIL deliberate: self-test",
                     "101 all PASS", "101 all SKIP CPUID.01H:EDX.DS[21]=0"]:
            _, problems = table(line + "\n")
            self.assertEqual(problems, [], line)

    def test_unknown_platform_group_or_empty_glob(self):
        for line in ["101 qemu-tgc PASS", "101 bochs2.8 PASS", "101 kvm* PASS", "101 qemu-tcg,nosuch PASS"]:
            _, problems = table(line + "\n")
            self.assertEqual(len(problems), 1, line)
            self.assertIn("platform", problems[0])

    def test_stale_rules(self):
        rules, _ = table("101 all PASS\n119 all SKIP gone\npt all SKIP x\n")
        self.assertEqual(len(expectations.stale(rules, [101, 401])), 1)

    def test_update_adds_rules_for_changed_cells_only(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "e.txt")
            open(path, "w").write("# head\n102 tcg FAIL translate.c f()\n113 all SKIP no LBR\n"
                                  "511 qemu-tcg SKIP one CPU\n")
            rules, problems = expectations.parse(open(path).read(), path, NAMES, GROUPS)
            self.assertEqual(problems, [])
            exp, _ = expectations.expect(rules, "qemu-tcg", [101, 102, 113, 114, 511])
            results = {101: ("a", "PASS", ""), 102: ("b", "FAIL", ""), 113: ("c", "PASS", ""),
                       114: ("d", "FAIL", ""), 511: ("e", "SKIP", "two CPUs now")}
            changes = expectations.update(path, "qemu-tcg", exp, results)
            self.assertEqual(len(changes), 3)
            text = open(path).read()
            self.assertIn("102 tcg FAIL translate.c f()", text)       # kept
            self.assertIn("113 all SKIP no LBR", text)                # kept: a new rule goes over it
            self.assertNotIn("SKIP    one CPU", text)
            lines = text.splitlines()
            self.assertTrue(lines[3].startswith("511") and lines[3].endswith("two CPUs now"))  # replaced in place
            self.assertTrue(any(l.startswith("113") and "qemu-tcg" in l and "PASS" in l for l in lines[4:]))
            self.assertTrue(any(l.startswith("114") and "UNEXPLAINED" in l for l in lines[4:]))
            rules, problems = expectations.parse(text, path, NAMES, GROUPS)
            self.assertEqual(len(problems), 1)        # the UNEXPLAINED FAIL wants its source
            # --exp: only that cell
            open(path, "w").write("# head\n")
            self.assertEqual(len(expectations.update(path, "qemu-tcg", exp, results, {114})), 1)

    def test_run_only(self):
        self.assertEqual(matrix.run_only("run=debug,platform cpu=all", [104, 101]), "run=101,104 cpu=all")


class TheTable(unittest.TestCase):
    """tests/expect/expect.txt and tests/platforms.py themselves."""

    def test_the_table_is_well_formed_and_unambiguous(self):
        names = list(platforms.BY_NAME)
        rules, problems = expectations.load(names, platforms.groups(), [expectations.TABLE])
        self.assertEqual(problems, [])
        self.assertTrue(rules)
        for p in names:
            keys = list(range(100, 1000)) + [f"{n}@{m}" for n in range(100, 1000)
                                               for m in expectations.PM32_MODES]
            _, conflicts = expectations.expect(rules, p, keys)
            self.assertEqual(conflicts, [], p)

    def test_platform_command_lines(self):
        for p in platforms.PLATFORMS:
            if p.emulator == "qemu":
                q = platforms.qemu_argv(p, vars_file="/tmp/vars", net_script="s.ipxe")
                # the exit device exactly where the kernel's exit=qemu needs it
                self.assertEqual("isa-debug-exit,iobase=0xf4,iosize=4" in q, p.exit_device, p.name)
                self.assertEqual(q[q.index("-smp") + 1], str(p.smp))
            else:
                self.assertIn(f"count={p.smp}, model={p.cpu}", platforms.bochsrc(p, "x.iso", "com1"))
        q = platforms.qemu_argv(platforms.override(platforms.get("qemu-tcg"), ["cpu=max", "smp=2"]),
                                append="run=101")
        self.assertEqual(q[-4:], ["-kernel", platforms.ELF, "-append", "run=101"])
        self.assertIn("max", q)
        priv = platforms.dataclasses.replace(platforms.get("qemu-tcg"), binary="/opt/q/bin/qemu", firmware_dir="/opt/q/share")
        self.assertEqual(platforms.qemu_argv(priv)[:3], ["/opt/q/bin/qemu", "-L", "/opt/q/share"])
        with self.assertRaises(KeyError):
            platforms.get("nosuch")
        with self.assertRaises(ValueError):
            platforms.qemu_argv(platforms.get("qemu-ovmf-iso"))


if __name__ == "__main__":
    unittest.main(verbosity=1)
