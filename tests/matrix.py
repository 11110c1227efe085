#!/usr/bin/env python3
"""The emulator matrix: boot tracelab on every platform this machine has, parse
the KTAP, and compare every result with the expectation table.

Platforms (how each is booted) are defined in tests/platforms.py; expectations are
rules in tests/expect/expect.txt (format and precedence in its header comment):
every experiment a platform's kernel command line selects is expected to PASS
unless a rule says otherwise.  Any difference fails, an unexpected PASS included.
Prints a progress line per platform, then the results matrix (experiments x
platforms), writes the same matrix as Markdown (docs/matrix.md, full runs only),
and ends with "matrix: N passed, N failed" (one comparison per experiment per
platform, plus one per platform for reaching the KTAP summary, plus one failure
per problem in the table).

    tests/matrix.py [--only P1,P2] [--exp 101,104] [--update]

--update (with --only PLATFORM [--exp N]) reruns just those cells and adds a rule
for each cell whose result changed (see tests/expectations.py update()).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import expectations  # noqa: E402
import ktap  # noqa: E402
import platforms  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = os.path.join(ROOT, "build")
ELF64 = os.path.join(B, "tracelab64.elf")
MKMENU = os.path.join(B, "tools", "mkmenu")
PLATFORMS = platforms.PLATFORMS

RESULT = re.compile(r"^(ok|not ok) (\d+) (\d+) (\S+)((?: pm32(?:pg|pae)?)?)((?: \w+=\S+)*)"
                    r"(?: # (SKIP|TIMEOUT|ERROR|XFAIL)(?: (.*))?)?$")
key_of = expectations.key_of
order = expectations.order
SUMMARY = re.compile(r"^# tracelab: pass:(\d+) fail:(\d+) skip:(\d+) total:(\d+)")


def registry(cmdline):
    """[(num, name)] the kernel runs with this command line: the registry in the
    ELF and the kernel's own selection code, through tools/mkmenu --list."""
    if not os.path.exists(MKMENU) or not os.path.exists(ELF64):
        sys.exit(f"matrix: needs {os.path.relpath(MKMENU, ROOT)} and {os.path.relpath(ELF64, ROOT)} (make all tools)")
    p = subprocess.run([MKMENU, "--list", ELF64, cmdline], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode:
        sys.exit(f"matrix: mkmenu --list '{cmdline}': {p.stderr.strip()}")
    # "NUM NAME FAMILY [MODE]": a protected-mode run's key is "NUM@MODE"
    return [(key_of(int(w[0]), w[3] if len(w) > 3 else ""), w[1] + (" " + w[3] if len(w) > 3 else ""))
            for w in (l.split() for l in p.stdout.splitlines())]


class Boot:
    """One emulator run: the kernel's serial output, and how the emulator ended
    (exit status, seconds, its own last message on stdout/stderr)."""

    def __init__(self, emu, out, rc, secs, emu_msg, timed_out=False):
        self.emu, self.out, self.rc, self.secs = emu, out, rc, secs
        self.emu_msg, self.timed_out = emu_msg, timed_out


def last_message(text):
    lines = [ln.strip() for ln in (text or "").replace("\r", "").splitlines() if ln.strip()]
    return lines[-1][:200] if lines else "(no message)"


def _text(b):
    return (b or b"").decode("utf-8", "replace") if isinstance(b, bytes) else (b or "")


def run_qemu(p, append=None):
    with tempfile.NamedTemporaryFile(suffix=".fd") as vars_, \
         tempfile.NamedTemporaryFile("w", dir=B, prefix="netboot-matrix-", suffix=".ipxe") as script:
        if p.firmware == "ovmf":
            shutil.copyfile(platforms.OVMF_VARS, vars_.name)
        script.write(platforms.ipxe_script(append or p.cmdline))
        script.flush()
        cmd = platforms.qemu_argv(p, vars_file=vars_.name, append=append,
                                  net_script=os.path.basename(script.name))
        t0 = time.time()
        try:
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=p.timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired as e:
            return Boot("qemu", _text(e.output), None, time.time() - t0, last_message(_text(e.stderr)), True)
        return Boot("qemu", _text(r.stdout), r.returncode, time.time() - t0, last_message(_text(r.stderr)))


def run_bochs(p):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "com1.txt")
        rc = os.path.join(d, "bochsrc")
        log = os.path.join(d, "bochs.log")
        open(rc, "w").write(platforms.bochsrc(p, platforms.ISO_CI, out))
        t0 = time.time()
        code, timed_out = None, False
        with open(log, "wb") as lf:
            try:
                code = subprocess.run([p.exe(), "-q", "-f", rc], input=b"c\nquit\n", stdout=lf,
                                      stderr=subprocess.STDOUT, timeout=p.timeout, cwd=d).returncode
            except subprocess.TimeoutExpired:
                timed_out = True
        secs = time.time() - t0
        serial = open(out, "rb").read().decode("utf-8", "replace") if os.path.exists(out) else ""
        msg = open(log, "rb").read().decode("utf-8", "replace")
        # The debugger's own lines after "c" are not a reason: the last line that is
        # not the debugger's prompt or its disassembly of the stop point.
        lines = [ln for ln in msg.splitlines()
                 if ln.strip() and not ln.startswith(("<bochs:", "(0)", "Next at", "=====", "Bochs is exiting"))]
        return Boot("bochs", serial, code, secs, last_message("\n".join(lines)), timed_out)


def run(p, append=None):
    return run_bochs(p) if p.emulator == "bochs" else run_qemu(p, append)


BANNER = "# tracelab: x86 debug"


def boot_failure(boot):
    """None when the kernel reached its KTAP summary; otherwise one line telling an
    emulator that failed (never ran the kernel) from a kernel that did not finish."""
    if parse(boot.out)[1] is not None:
        return None
    how = (f"timed out after {boot.secs:.1f} s" if boot.timed_out
           else f"exited after {boot.secs:.1f} s (status {boot.rc})")
    if BANNER not in boot.out:
        return f"{boot.emu} {how} before the kernel printed anything: {boot.emu_msg}"
    return (f"the kernel did not reach its KTAP summary ({boot.emu} {how}); "
            f"last serial line: {last_message(boot.out)}")


def parse(out):
    results, summary = {}, None
    for line in out.replace("\r", "").splitlines():
        m = RESULT.match(line)
        if m:
            ok, _, num, name, mode, sfx, directive, reason = m.groups()
            mode = mode.strip()
            name = f"{name} {mode}" if mode else name
            status = "SKIP" if directive == "SKIP" else ("PASS" if ok == "ok" else "FAIL")
            reason = (reason or "").strip()
            cpu = re.search(r"cpu=(\d+)", sfx or "")
            where = f"cpu{cpu.group(1)}" if cpu else "cpu0"
            key = key_of(int(num), mode)
            prev = results.get(key)
            if prev and (prev[1], prev[2]) != (status, reason):
                # with cpu=all one experiment runs on every CPU: all must agree
                status = "MIXED"
                reason = f"{prev[2] or prev[1]} / {where}: {status if not reason else reason}"
            results[key] = (name, status, reason)
        m = SUMMARY.match(line)
        if m:
            summary = tuple(int(x) for x in m.groups())
    return results, summary


LINE = re.compile(r"^(\s*)(ok|not ok) (\d+) (.*)$")
DIRECTIVE = re.compile(r" # (SKIP|TODO|XFAIL|TIMEOUT|ERROR)\b")


def ktap_problems(out):
    """What KTAP v1 (Documentation/dev-tools/ktap.rst) forbids and a reader trips
    on: a '#' inside a description (it starts a directive), a block whose plan
    does not follow its version line, a '# Subtest:' name that differs from its
    result line's.  The Linux parser itself runs in make test (tests/ktap.py)."""
    problems, stack, prev = [], [], ""
    for i, line in enumerate(out.replace("\r", "").splitlines(), 1):
        if prev.strip() == "KTAP version 1" and not line.strip().startswith("1.."):
            if not (line.strip().startswith("# Subtest:") or line.strip().startswith("# ")):
                problems.append(f"line {i}: no plan after the version line")
        if prev.strip().startswith("# Subtest:") and not line.strip().startswith("1.."):
            problems.append(f"line {i}: no plan after '{prev.strip()}'")
        m = re.match(r"^(\s+)# Subtest: (.*)$", line)
        if m:
            stack.append((len(m.group(1)), m.group(2)))
        m = LINE.match(line)
        if m:
            desc = m.group(4)
            d = DIRECTIVE.search(desc)
            name = desc[:d.start()] if d else desc
            if "#" in name:
                problems.append(f"line {i}: '#' in a description: {line.strip()}")
            if stack and len(m.group(1)) < stack[-1][0]:
                want = stack.pop()[1]
                if name != want:
                    problems.append(f"line {i}: result '{name}' for block '{want}'")
        prev = line
    return problems


def rule_paths(p):
    return [expectations.TABLE] + ([os.path.join(ROOT, p.local_rules)] if p.local_rules else [])


def load_rules(p):
    return expectations.load(list(platforms.BY_NAME), platforms.groups(), rule_paths(p))


def compare(name, results, summary, exp, failure=None):
    """Differences between a run and exp {num: (status, reason, ...)}."""
    diffs = []
    if summary is None:
        diffs.append(failure or "the run never reached its KTAP summary (boot failure or crash)")
    for num, (st, reason, *_) in sorted(exp.items(), key=lambda kv: order(kv[0])):
        if num not in results:
            diffs.append(f"{num}: expected {st}, not run")
            continue
        got_name, got, got_reason = results[num]
        if got != st:
            diffs.append(f"{num} {got_name}: got {got}{' (' + got_reason + ')' if got_reason else ''}, expected {st}")
        elif st == "SKIP" and got_reason != reason:
            diffs.append(f"{num} {got_name}: SKIP reason '{got_reason}', expected '{reason}'")
    for num in sorted(set(results) - set(exp), key=order):
        diffs.append(f"{num} {results[num][0]}: {results[num][1]} but the command line does not select it")
    return diffs


def write_junit(p, log, out, results, exp, secs, failure, where):
    """build/matrix/<platform>.xml: one testsuite, one testcase per experiment,
    read back with an XML parser.  A FAIL's message is the expectation's reason
    when the table explains it, else the first failed check."""
    reasons = {n: r[1] for n, r in exp.items() if r[0] == "FAIL" and r[1]}
    res = {n: (nm, st, reason or reasons.get(n, "")) for n, (nm, st, reason) in results.items()}
    path = os.path.join(where, p.name + ".xml")
    tree = ktap.junit(p.name, p.desc, res, ktap.failed_checks(out), secs, failure)
    tree.write(path, encoding="utf-8", xml_declaration=True)
    return ktap.junit_problems(path, results)


def refused_run(p, where):
    """A malformed command line: the kernel refuses it as KTAP (version line,
    the reason as '# ' diagnostics, the plan 1..0) and exits with a failure."""
    boot = run(p)
    log = os.path.join(where, p.name + ".log")
    open(log, "w").write(boot.out)
    diffs = [f"KTAP parser: {pr}" for pr in ktap.check(log, refused=True)[0]]
    if boot.emu == "qemu" and boot.rc != 3:
        diffs.append(f"exit status {boot.rc}, expected 3 (isa-debug-exit: failure)")
    path = os.path.join(where, p.name + ".xml")
    tree = ktap.junit(p.name, p.desc, {}, {}, boot.secs, "; ".join(diffs) or None)
    case = tree.getroot().find("testcase")
    if case is None:        # refused as it must be: one passing testcase says so
        import xml.etree.ElementTree as ET
        ET.SubElement(tree.getroot(), "testcase", classname="tracelab.boot", name="command line refused")
        tree.getroot().set("tests", "1")
    tree.write(path, encoding="utf-8", xml_declaration=True)
    return diffs + ktap.junit_problems(path, {})


def run_only(cmdline, nums):
    """The command line with its run= list replaced by nums (a -kernel boot of --exp)."""
    words = [w for w in cmdline.split() if not w.startswith("run=")]
    nums = sorted({expectations.num_of(n) for n in nums})
    return " ".join([f"run={','.join(str(n) for n in nums)}"] + words)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", help="comma-separated platform names")
    ap.add_argument("--exp", help="comma-separated experiment numbers: only these cells")
    ap.add_argument("--update", action="store_true",
                    help="add a rule for each cell whose result changed (use with --only)")
    ap.add_argument("--save-logs", default=os.path.join(B, "matrix"), help="where serial logs go")
    a = ap.parse_args(argv)
    os.makedirs(a.save_logs, exist_ok=True)
    only = a.only.split(",") if a.only else None
    unknown = [n for n in only or [] if n not in platforms.BY_NAME]
    if unknown:
        print(f"matrix: unknown platform(s) {', '.join(unknown)}; known: {', '.join(platforms.BY_NAME)}")
        return 2
    try:
        exp_only = {int(x) for x in a.exp.split(",")} if a.exp else None
    except ValueError:
        print(f"matrix: --exp wants comma-separated numbers, not '{a.exp}'")
        return 2
    passed = failed = 0
    # the table itself: every line well-formed, no rule left without an experiment
    rules, problems = expectations.load(list(platforms.BY_NAME), platforms.groups(),
                                        [expectations.TABLE])
    problems += expectations.stale(rules, [n for n, _ in registry("run=all selftest=1 mode=all")])
    for pr in problems:
        print(f"matrix: table: {pr}", flush=True)
    failed += len(problems)
    table, ran = {}, []
    for p in PLATFORMS:
        name, desc = p.name, p.desc
        if only and name not in only or not p.in_matrix:
            continue
        why = platforms.available(p)
        if why:
            print(f"matrix: {name:18} not available here ({why}): {desc}", flush=True)
            continue
        if p.refused:
            diffs = refused_run(p, a.save_logs)
            passed += 1 if not diffs else 0
            failed += len(diffs)
            print(f"matrix: {name:18}   refused: {'as expected' if not diffs else str(len(diffs)) + ' difference(s)'}"
                  f"  ({desc})", flush=True)
            for d in diffs:
                print(f"matrix:   {name}: {d}", flush=True)
            continue
        cmdline = platforms.boot_cmdline(p)
        selected = dict(registry(cmdline))
        append = None
        if exp_only is not None:
            selected = {n: v for n, v in selected.items() if expectations.num_of(n) in exp_only}
            if not selected:
                print(f"matrix: {name:18} runs none of --exp {a.exp} ({cmdline})", flush=True)
                continue
            if p.boot in ("kernel", "ipxe"):
                append = run_only(cmdline, selected)
        boot = run(p, append)
        out, dt = boot.out, boot.secs
        failure = boot_failure(boot)
        log = os.path.join(a.save_logs, name + ".log")
        open(log, "w").write(out + (f"\n# matrix: {failure}\n" if failure else ""))
        results, summary = parse(out)
        if exp_only is not None:
            results = {n: r for n, r in results.items() if expectations.num_of(n) in exp_only}
        rules, problems = load_rules(p)
        problems = [pr for pr in problems if not pr.startswith(os.path.relpath(expectations.TABLE, ROOT))]
        if p.local_rules and not os.path.exists(os.path.join(ROOT, p.local_rules)) and not a.update:
            problems.append(f"no per-machine rules {p.local_rules}: write them with "
                            f"--update --only {name}, then review")
        exp, conflicts = expectations.expect(rules, name, selected)
        if a.update:
            target = os.path.join(ROOT, p.local_rules) if p.local_rules else expectations.TABLE
            for c in expectations.update(target, name, exp, results, exp_only):
                print(f"matrix: update: {c}", flush=True)
            rules, problems = load_rules(p)
            for pr in problems:
                print(f"matrix:   {name}: {pr}", flush=True)
            exp, conflicts = expectations.expect(rules, name, selected)
        diffs = problems + conflicts + compare(name, results, summary, exp, failure)
        diffs += [f"KTAP: {p}" for p in ktap_problems(out)[:10]]
        # the Linux kernel's own KTAP parser must read it as tracelab does
        diffs += [f"KTAP parser: {pr}" for pr in ktap.check(log)[0]]
        diffs += write_junit(p, log, out, results, exp, dt, failure, a.save_logs)
        ok_n = max(len(exp) + 1 - len(diffs), 0)
        passed += ok_n
        failed += len(diffs)
        ran.append(name)
        for num, (nm, st, reason) in results.items():
            table.setdefault(num, [nm, {}])[1][name] = st
        verdict = "as expected" if not diffs else f"{len(diffs)} difference(s)"
        print(f"matrix: {name:18} {len(results):3} results in {dt:6.2f} s: {verdict}  ({desc})", flush=True)
        notrun = [d for d in diffs if d.endswith(", not run")]
        for d in diffs if len(notrun) <= 5 else [d for d in diffs if d not in notrun]:
            print(f"matrix:   {name}: {d}", flush=True)
        if len(notrun) > 5:
            print(f"matrix:   {name}: {len(notrun)} expected results not run: "
                  + " ".join(d.split(":")[0] for d in notrun), flush=True)
    # the matrix
    abbrev = {"PASS": "pass", "FAIL": "FAIL", "SKIP": "skip"}
    hdr = ["exp", "name"] + ran
    rows = [[str(expectations.num_of(n)), table[n][0]] + [abbrev.get(table[n][1].get(p, ""), "-") for p in ran]
            for n in sorted(table, key=order)]
    widths = [max(len(r[i]) for r in [hdr] + rows) for i in range(len(hdr))]
    print()
    for r in [hdr] + rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)))
    md = ["# tracelab results matrix", "",
          "Generated by `tests/matrix.py` (`make test`). Every cell matched the expectation table",
          "`tests/expect/expect.txt` unless the run reported a difference. SKIP reasons and known",
          "emulator deviations (FAIL) are explained there; how each platform boots: `tests/platforms.py`.", "",
          "| " + " | ".join(hdr) + " |", "|" + "---|" * len(hdr)]
    md += ["| " + " | ".join(r) + " |" for r in rows]
    if not only and exp_only is None:    # a partial run does not overwrite the published matrix
        os.makedirs(os.path.join(ROOT, "docs"), exist_ok=True)
        open(os.path.join(ROOT, "docs", "matrix.md"), "w").write("\n".join(md) + "\n")
    print(f"matrix: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
