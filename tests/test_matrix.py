#!/usr/bin/env python3
"""Tests of the matrix harness itself: the KTAP parser and the comparison must
catch every kind of difference, an unexpected PASS included."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import matrix  # noqa: E402

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
        self.assertTrue(any("999 new: PASS but no expectation" in x for x in d))


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
        cfg = matrix.bochs_cfg("ryzen", "x.iso", "com1.txt", 2)
        self.assertIn("sound: driver=dummy", cfg)
        self.assertIn("speaker: enabled=0", cfg)


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


class ExpectFiles(unittest.TestCase):
    def test_reasons_required(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "tests", "expect"))
            open(os.path.join(d, "tests", "expect", "x.txt"), "w").write(
                "# comment\n101 PASS\n102 FAIL\n201 SKIP\n202 MAYBE\n203 SKIP UNEXPLAINED\n")
            old = matrix.ROOT
            matrix.ROOT = d
            try:
                exp, problems = matrix.load_expect("x")
            finally:
                matrix.ROOT = old
            self.assertEqual(exp[101], ("PASS", ""))
            self.assertEqual(len(problems), 4)

    def test_every_platform_file_is_well_formed(self):
        for name, *_ in matrix.PLATFORMS:
            path = os.path.join(matrix.ROOT, "tests", "expect", name + ".txt")
            if os.path.exists(path):
                exp, problems = matrix.load_expect(name)
                self.assertEqual(problems, [], name)
                self.assertTrue(exp, name)


if __name__ == "__main__":
    unittest.main(verbosity=1)
