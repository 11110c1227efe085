#!/usr/bin/env python3
"""tools/tlreport.py on made-up runs: extract, write, diff (python3 -m unittest)."""
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools"))
import tlreport  # noqa: E402

BLOCK = """# ---- tracelab hardware report v2: copy from here ----
# cpu: GenuineIntel family 0x6 model 0x8e stepping 10 microcode 0xf4
# cpu: "Intel(R) Core(TM) i7-8550U CPU @ 1.80GHz"
# feat: ds=1 dtes64=1 ds-cpl=1 pdcm=1 pt=1 arch-lbr=0 invtsc=1 rdtscp=1
# sys: hypervisor none, 8 cpus, x2APIC, fb 1920x1080x32 x2
# boot: "GRUB 2.06-13+deb12u2" cmdline "run=all"
# result: 101P 102P 103P*2 104P1F1
# result: 201S
# fail: 104 2 DR0: saved RIP: 0x1 (expected 0x2)
# sum: pass:5 fail:1 skip:1 total:7 planned:7
# ---- end of tracelab hardware report ----
"""

LOG = """GRUB junk\r
KTAP version 1\r
1..2\r
    KTAP version 1\r
    # Subtest: 101 int3\r
    ok 1 vector: 3 (expected 3)\r
    ok 2 rip: 0x10 (expected 0x10)\r
ok 1 101 int3\r
    # Subtest: 104 dr-exec\r
    ok 1 DR0: vector: 1 (expected 1)\r
    not ok 2 DR0: saved RIP: 0x1 (expected 0x2)\r
not ok 2 104 dr-exec\r
""" + BLOCK.replace("\n", "\r\n")


def tmp(text):
    f = tempfile.NamedTemporaryFile("w", delete=False, suffix=".txt")
    f.write(text)
    f.close()
    return f.name


class T(unittest.TestCase):
    def test_extract_is_exact(self):
        r = tlreport.Run(tmp(LOG))
        self.assertEqual("\n".join(r.block) + "\n", BLOCK)
        self.assertEqual(r.version, 2)
        self.assertEqual(r.results[103], {"P": 2})
        self.assertEqual(r.results[104], {"P": 1, "F": 1})
        self.assertEqual(r.fails[(104, 2)], "DR0: saved RIP: 0x1 (expected 0x2)")
        self.assertEqual(r.checks[(104, 1, 2)], (False, "DR0: saved RIP: 0x1 (expected 0x2)"))

    def test_same_run_no_difference(self):
        out = io.StringIO()
        self.assertEqual(tlreport.diff(tlreport.Run(tmp(LOG)), tlreport.Run(tmp(BLOCK)), out), 0)

    def test_every_difference(self):
        other = (BLOCK.replace("101P 102P", "101P 102F").replace("x2APIC", "xAPIC")
                 .replace("0x1 (expected", "0x3 (expected").replace("# result: 201S\n", ""))
        out = io.StringIO()
        n = tlreport.diff(tlreport.Run(tmp(BLOCK)), tlreport.Run(tmp(other)), out)
        text = out.getvalue()
        self.assertIn("102: A pass, B FAIL", text)
        self.assertIn("sys: x2APIC -> xAPIC", text)
        self.assertIn("104 check 2: FAIL on both, values differ", text)
        self.assertIn("201: A skip, B not run", text)
        self.assertEqual(n, 4)

    def test_log_against_log_shows_values(self):
        other = LOG.replace("rip: 0x10 (expected 0x10)", "rip: 0x20 (expected 0x20)")
        out = io.StringIO()
        self.assertEqual(tlreport.diff(tlreport.Run(tmp(LOG)), tlreport.Run(tmp(other)), out), 1)
        self.assertIn("101 check 2:", out.getvalue())

    def test_write(self):
        d = tempfile.mkdtemp()
        path = tlreport.write(tlreport.Run(tmp(BLOCK)), None, "Lenovo T480", d)
        self.assertEqual(os.path.basename(path), "intel-core-i7-8550u.md")
        self.assertIn(BLOCK, open(path).read())


if __name__ == "__main__":
    unittest.main()
