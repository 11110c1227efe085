#!/usr/bin/env python3
"""Tests of tools/dbfuzz.py's pure parts: reading the kernel's trace lines,
grouping disagreements, naming the instruction an event is about, and the
classification file's rules."""
import importlib.util
import os
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec = importlib.util.spec_from_file_location("dbfuzz", os.path.join(ROOT, "tools", "dbfuzz.py"))
dbfuzz = importlib.util.module_from_spec(spec)
spec.loader.exec_module(dbfuzz)

LOG = """KTAP version 1
1..1
    KTAP version 1
    # Subtest: 0 dbfuzz seed=1 count=3
    1..2
    # dbf 0 0 1@5d4000,E h=0371e9cb\r
    # dbf 1 0 6@0,81@3,E h=5a0a8382
    # dbf-escape 2 rip=0x100330 (code at 0x193000)
    # dbf 2 1f 1@Xd4002,X h=9ec26a1e
    # dbfuzz: seed=1 3 scenarios in 1500 us (2000 per second); ended: 2 at the end
"""

# scenario: 0 ICEBP, 1 DRREAD (3 bytes), 4 END; instruction breakpoint 0 on offset 1
SMAP = ([0, 1, 4], {0: "ICEBP", 1: "DRREAD", 4: "END"}, {0: 1})


class TestDbfuzz(unittest.TestCase):
    def test_parse(self):
        traces, speed = dbfuzz.parse(LOG)
        self.assertEqual(traces, {(0, 0): "1@5d4000,E", (1, 0): "6@0,81@3,E", (2, 0x1f): "1@Xd4002,X"})
        self.assertAlmostEqual(speed, 2000.0)

    def test_agreement_is_no_group(self):
        self.assertIsNone(dbfuzz.signature({"a": "E", "b": "E", "c": "E"}))

    def test_partition_and_first_event(self):
        tr = {"qemu7.2": "6@0,E", "qemu10": "1@1d0,E", "bochs-haswell": "1@1d0,E"}
        part, key = dbfuzz.signature(tr, SMAP)
        self.assertEqual(part, "bochs-haswell,qemu10|qemu7.2")
        # the earlier event of the two is the #UD at offset 0: a fault, at ICEBP
        self.assertEqual(key, "qemu7.2:6@ICEBP")

    def test_culprit(self):
        self.assertEqual(dbfuzz.culprit("1@1d0", SMAP), "1d0@after-ICEBP")      # trap: before RIP
        self.assertEqual(dbfuzz.culprit("1@1d2000", SMAP), "1d2000@DRREAD")     # GD: a fault
        self.assertEqual(dbfuzz.culprit("1@1d1", SMAP), "1d1@DRREAD")           # its exec breakpoint
        self.assertEqual(dbfuzz.culprit("d@1e0u", SMAP), "de0u@DRREAD")         # GP at CPL 3
        self.assertEqual(dbfuzz.culprit("1@0d4000", SMAP), "1d4000@after-entry")
        self.assertEqual(dbfuzz.culprit("1@Xd6000", SMAP), "1@Xd6000")
        self.assertEqual(dbfuzz.culprit("1@4d4000", None), "1@4d4000")

    def test_an_extra_event_is_the_key(self):
        tr = {"a": "1@1d4000,E", "b": "E", "c": "E"}
        self.assertEqual(dbfuzz.signature(tr, SMAP), ("a|b,c", "a:1d4000@after-ICEBP"))
        tr = {"a": "1@Xd6000,X", "b": "1@1d4000,E", "c": "1@1d4000,E"}
        self.assertEqual(dbfuzz.signature(tr, SMAP), ("a|b,c", "a:1@Xd6000"))

    def test_known_rules(self):
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write("# comment\n"
                    "*qemu7.2*  qemu7.2*:6@ICEBP  FAIL  QEMU 7.2 translate.c disas_insn(): 0xF1 is illegal_op\n"
                    "*          *:1d4000@after-STI  VENDOR  Intel and AMD differ\n")
        try:
            rules = dbfuzz.load_known(f.name)
            self.assertEqual(len(rules), 2)
            c = dbfuzz.classify(rules, "bochs-haswell,qemu10|qemu7.2", "qemu7.2:6@ICEBP")
            self.assertEqual([(e, r[0], r[2]) for e, r in c], [("qemu7.2:6@ICEBP", "FAIL", 2)])
            c = dbfuzz.classify(rules, "a|b|qemu7.2", "qemu7.2:6@ICEBP a:1d4000@after-STI b:6@CLI")
            self.assertEqual([r and r[2] for _, r in c], [2, 3, None])
        finally:
            os.unlink(f.name)

    def test_known_rules_refused(self):
        for bad in ("a b FAIL no source named here\n", "a b MAYBE reason\n", "a b\n"):
            with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
                f.write(bad)
            try:
                with self.assertRaises(SystemExit):
                    dbfuzz.load_known(f.name)
            finally:
                os.unlink(f.name)

    def test_committed_rules_load(self):
        self.assertTrue(dbfuzz.load_known())


if __name__ == "__main__":
    unittest.main()
