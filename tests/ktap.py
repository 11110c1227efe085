#!/usr/bin/env python3
"""tracelab's serial logs read by the Linux kernel's own KTAP parser, and the
matrix's JUnit XML.

The parser is tools/testing/kunit/kunit_parser.py from Debian's linux-source-6.12
(tools/ktap-parser.sh puts it in build/kunit/; it is not part of tracelab).  It
runs in a child process under a time and a memory limit: on malformed input it
has been seen to grow without end, and a limit hit is a failure like any other.

check(log) returns the problems: every error the parser reports, and every
experiment whose verdict as the parser reads it differs from tracelab's own
(the summary line and the hardware report's per-experiment results).  A refused
command line must read as a run of no tests: KTAP version 1, the reason as
diagnostics, the plan 1..0; the parser then says NO_TESTS with its one message
'0 tests run!', and nothing else.

    python3 tests/ktap.py LOG...     the same, for logs at hand
"""
import json
import os
import re
import resource
import subprocess
import sys
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KUNIT = os.environ.get("TRACELAB_KUNIT", os.path.join(ROOT, "build", "kunit"))
TIME_LIMIT = 60                 # CPU seconds for one log
MEMORY_LIMIT = 1 << 30          # bytes of address space
NO_TESTS_ERROR = "0 tests run!"

SUMMARY = re.compile(r"^# tracelab: pass:(\d+) fail:(\d+) skip:(\d+) total:(\d+)", re.M)
REPORT_TOKEN = re.compile(r"^(\d+)(?:([PFSTE])(?:\*(\d+))?|((?:[PFSTE]\d+)+))$")
# the parser's verdict of a top-level test, as the hardware report's letters
LETTER = {"SUCCESS": "P", "FAILURE": "F", "SKIPPED": "S", "TEST_CRASHED": "F", "NO_TESTS": "F"}


def _child(kunit, path):
    """In the child: parse, print JSON (status, counts, errors, top-level tests)."""
    import io
    sys.path.insert(0, kunit)
    import kunit_parser
    out = io.StringIO()
    kunit_parser.stdout._output = out
    text = open(path, "rb").read().decode("utf-8", "replace").replace("\r", "")
    t = kunit_parser.parse_run_tests(text.splitlines())
    errors = [re.sub(r"^\[[0-9:]+\] ", "", ln) for ln in out.getvalue().splitlines() if "[ERROR]" in ln]
    json.dump({"status": t.status.name, "errors": errors, "nerrors": t.counts.errors,
               "counts": [t.counts.passed, t.counts.failed, t.counts.crashed, t.counts.skipped],
               "tests": [(s.name, s.status.name) for s in t.subtests]}, sys.stdout)


def _limits():
    resource.setrlimit(resource.RLIMIT_CPU, (TIME_LIMIT, TIME_LIMIT))
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def parse(path):
    """The parser's reading of one log, or {"limit": why} when it did not finish."""
    if not os.path.exists(os.path.join(KUNIT, "kunit_parser.py")):
        return {"limit": f"no KTAP parser in {KUNIT}: run tools/ktap-parser.sh (make deps-test)"}
    try:
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", KUNIT, path],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=2 * TIME_LIMIT,
                           preexec_fn=_limits)
    except subprocess.TimeoutExpired:
        return {"limit": f"the parser ran past {2 * TIME_LIMIT} s"}
    if p.returncode != 0:
        err = p.stderr.decode("utf-8", "replace").strip().splitlines()
        why = "memory limit" if any("MemoryError" in ln for ln in err) else \
              "time limit" if p.returncode in (-9, -24) else f"exit status {p.returncode}"
        return {"limit": f"the parser stopped ({why}): {err[-1] if err else ''}"}
    return json.loads(p.stdout)


def report_results(text):
    """Per experiment number, the kernel's own verdict counts from the hardware
    report ("# result: 101P 102F 103P*3 104P2F1"), as {num: {letter: n}}."""
    res = {}
    for line in text.splitlines():
        if not line.startswith("# result:"):
            continue
        for tok in line[len("# result:"):].split():
            m = REPORT_TOKEN.match(tok)
            if not m:
                continue
            r = res.setdefault(int(m.group(1)), {})
            if m.group(2):
                r[m.group(2)] = r.get(m.group(2), 0) + int(m.group(3) or 1)
            else:
                for v, n in re.findall(r"([PFSTE])(\d+)", m.group(4)):
                    r[v] = r.get(v, 0) + int(n)
    return res


def check(path, refused=False):
    """Problems of one log (empty: the parser reads it as tracelab does)."""
    text = open(path, "rb").read().decode("utf-8", "replace").replace("\r", "")
    r = parse(path)
    if "limit" in r:
        return [r["limit"]], r
    if refused:
        problems = []
        if r["status"] != "NO_TESTS" or r["errors"] != [f"[ERROR] Test: main: {NO_TESTS_ERROR}"]:
            problems.append(f"refused command line: parser says {r['status']}, errors {r['errors']}"
                            f" (expected NO_TESTS and only '{NO_TESTS_ERROR}')")
        if not re.search(r"^KTAP version 1\n(# .*\n)*# tracelab: command line error: .*\n(# .*\n)*1\.\.0$",
                         text, re.M):
            problems.append("refused command line: not 'KTAP version 1', '# ' reasons, '1..0'")
        return problems, r
    problems = [f"parser: {e}" for e in r["errors"][:20]]
    if r["nerrors"] > len(r["errors"][:20]):
        problems.append(f"parser: {r['nerrors']} errors in all")
    got = {}
    for name, status in r["tests"]:
        m = re.match(r"^(\d+) ", name)
        if not m:
            problems.append(f"parser: top-level test '{name}' has no experiment number")
            continue
        g = got.setdefault(int(m.group(1)), {})
        g[LETTER[status]] = g.get(LETTER[status], 0) + 1
    own = report_results(text)
    # the report's T (a CPU that did not come back) is a not-ok line: FAILURE
    own_pf = {n: {("F" if k in "TE" else k): 0 for k in v} for n, v in own.items()}
    for n, v in own.items():
        for k, c in v.items():
            own_pf[n]["F" if k in "TE" else k] += c
    for n in sorted(set(got) | set(own_pf)):
        if got.get(n, {}) != own_pf.get(n, {}):
            problems.append(f"{n}: the parser reads {got.get(n, 'nothing')}, "
                            f"tracelab's report says {own_pf.get(n, 'nothing')}")
    m = SUMMARY.search(text)
    if not m:
        problems.append("no tracelab summary line")
    else:
        p, f, s, _ = (int(x) for x in m.groups())
        mine = [sum(v.get(k, 0) for v in got.values()) for k in "PFS"]
        if mine != [p, f, s]:
            problems.append(f"the parser counts pass/fail/skip {mine}, tracelab's summary {[p, f, s]}")
    return problems, r


# ---- JUnit XML --------------------------------------------------------------

def junit(platform, desc, results, failed_checks, secs, boot_problem=None):
    """One <testsuite> for a platform, one <testcase> per experiment.
    results: {num: (name, status, reason)} as tests/matrix.py parses them (status
    PASS, FAIL, SKIP or MIXED); failed_checks: {num: [descriptions]}."""
    suite = ET.Element("testsuite", name=platform, time=f"{secs:.3f}")
    props = ET.SubElement(suite, "properties")
    ET.SubElement(props, "property", name="description", value=desc)
    nfail = nskip = 0
    # a key is the number, or "NUM@MODE" for a run in 32-bit protected mode
    # (its name then ends with the mode: "104 dr-exec pm32")
    def number(key):
        return int(str(key).split("@")[0])
    for num, (name, status, reason) in sorted(results.items(), key=lambda kv: (number(kv[0]), str(kv[0]))):
        fam = {1: "debug", 2: "bts", 3: "pmu", 4: "pt", 5: "platform", 9: "selftest"}.get(number(num) // 100, "other")
        tc = ET.SubElement(suite, "testcase", classname=f"tracelab.{fam}", name=f"{number(num)} {name}")
        if status == "SKIP":
            nskip += 1
            ET.SubElement(tc, "skipped", message=reason)
        elif status != "PASS":
            nfail += 1
            checks = failed_checks.get(num, [])
            msg = reason or (checks[0] if checks else "failed")
            el = ET.SubElement(tc, "failure", message=msg, type=status)
            el.text = "\n".join(checks)
    tests = len(results)
    if boot_problem:
        tc = ET.SubElement(suite, "testcase", classname="tracelab.boot", name="reached the KTAP summary")
        ET.SubElement(tc, "failure", message=boot_problem, type="BOOT")
        tests += 1
        nfail += 1
    suite.set("tests", str(tests))
    suite.set("failures", str(nfail))
    suite.set("errors", "0")
    suite.set("skipped", str(nskip))
    return ET.ElementTree(suite)


def failed_checks(text):
    """{num: [description of every failed check]} from a log's blocks ("NUM@MODE"
    for a protected-mode run)."""
    out, cur = {}, None
    for line in text.replace("\r", "").splitlines():
        m = re.match(r"^    # Subtest: (\d+) \S+( pm32(?:pg|pae)?)?(?: |$)", line)
        if m:
            cur = int(m.group(1)) if not m.group(2) else f"{m.group(1)}@{m.group(2).strip()}"
            continue
        m = re.match(r"^    not ok \d+ (.*)$", line)
        if m and cur is not None:
            out.setdefault(cur, []).append(m.group(1))
    return out


def junit_problems(path, results):
    """The file read back with a real XML parser: well formed, the JUnit shape,
    one testcase per experiment, the counts right."""
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        return [f"JUnit XML: {e}"]
    problems = []
    if root.tag != "testsuite":
        problems.append(f"JUnit XML: root <{root.tag}>, expected <testsuite>")
    cases = root.findall("testcase")
    exp = [c for c in cases if c.get("classname") != "tracelab.boot"]
    if len(exp) != len(results):
        problems.append(f"JUnit XML: {len(exp)} testcases, {len(results)} experiments")
    for attr, n in (("tests", len(cases)), ("skipped", len(root.findall("testcase/skipped"))),
                    ("failures", len(root.findall("testcase/failure")))):
        if root.get(attr) != str(n):
            problems.append(f"JUnit XML: {attr}={root.get(attr)}, counted {n}")
    for c in cases:
        if not c.get("name") or not c.get("classname"):
            problems.append("JUnit XML: a testcase without name or classname")
        if len(c.findall("skipped")) + len(c.findall("failure")) > 1:
            problems.append(f"JUnit XML: {c.get('name')}: more than one outcome")
        for el in c.findall("skipped") + c.findall("failure"):
            if not el.get("message"):
                problems.append(f"JUnit XML: {c.get('name')}: <{el.tag}> without a reason")
    return problems


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        _child(sys.argv[2], sys.argv[3])
        return 0
    bad = 0
    for path in sys.argv[1:]:
        refused = "command line error" in open(path, errors="replace").read()
        problems, r = check(path, refused)
        st = r.get("status", "-")
        print(f"ktap: {path}: parser {st}, {r.get('nerrors', '?')} error(s), "
              f"{'as tracelab says' if not problems else str(len(problems)) + ' problem(s)'}")
        for p in problems:
            print(f"ktap:   {p}")
        bad += bool(problems)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
