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
    ok 1 #BP deliveries: 2 (expected 2)
    1..1
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
