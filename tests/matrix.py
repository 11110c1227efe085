#!/usr/bin/env python3
"""The emulator matrix: boot tracelab on every platform this machine has, parse
the KTAP, and compare every result with tests/expect/<platform>.txt.

Any difference fails — an unexpected PASS included.  Prints a progress line per
platform, then the results matrix (experiments x platforms), writes the same
matrix as Markdown (docs/matrix.md), and ends with "matrix: N passed, N failed"
(one comparison per experiment per platform, plus one per platform for reaching
the KTAP summary).

Expectation files, one line per experiment:
    NUM STATUS [reason]
STATUS is PASS, FAIL or SKIP.  SKIP's reason must equal the kernel's SKIP reason
exactly; FAIL's reason explains the emulator deviation (with the emulator source
that causes it) and is required.  '#' starts a comment line.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = os.path.join(ROOT, "build")
ELF = os.path.join(B, "tracelab.elf")
ISO = os.path.join(B, "tracelab-ci.iso")
OVMF_CODE = "/usr/share/OVMF/OVMF_CODE_4M.fd"
OVMF_VARS = "/usr/share/OVMF/OVMF_VARS_4M.fd"

QEMU = ["qemu-system-x86_64", "-m", "256", "-no-reboot", "-display", "none",
        "-device", "isa-debug-exit,iobase=0xf4,iosize=4", "-serial", "stdio"]

RESULT = re.compile(r"^(ok|not ok) (\d+) (\d+) (\S+)((?: \w+=\S+)*)(?: # (SKIP|TIMEOUT|ERROR|XFAIL)(?: (.*))?)?$")
SUMMARY = re.compile(r"^# tracelab: pass:(\d+) fail:(\d+) skip:(\d+) total:(\d+)")


def hw_kvm():
    """A hardware-backed KVM: kvm_intel or kvm_amd loaded (kvm_pvm is not one).
    Opt-in (MATRIX_KVM=1): what passes under KVM depends on the host CPU (PMU, PEBS,
    PT, LBR are the host's), so its expectation file is per machine:
    tests/expect/qemu-kvm.txt, written with --update --only qemu-kvm and reviewed."""
    if os.environ.get("MATRIX_KVM") != "1" or not os.path.exists("/dev/kvm"):
        return False
    mods = open("/proc/modules").read() if os.path.exists("/proc/modules") else ""
    return bool(re.search(r"^kvm_(intel|amd) ", mods, re.M))


def bochs_cfg(model, iso, serial_out, ncpus=1):
    # Bochs 2.7 as Debian builds it: no 'nogui' display, the debugger compiled
    # in (it stops at its prompt: we feed it "c"), and GRUB 2.06 triple-faults
    # in its VBE mode set with Bochs's VBE BIOS, so the Cirrus VGA it is (GRUB
    # then leaves text mode, and the kernel uses VGA text).
    # No sound: Debian's Bochs 2.7 opens ALSA for the PC speaker's mixer thread,
    # and on a machine without a sound card under LANG=C.UTF-8 it aborts 0.2 s
    # in with "*** buffer overflow detected ***" (glibc's fortify check).  The
    # dummy sound driver alone avoids it; the speaker is off as well, because
    # nothing listens (port 0x61's PIT gate and OUT2 are in the PIT, iodev/pit82c54,
    # not in the speaker, so the kernel's timer calibration is unaffected).
    return f"""megs: 256
romimage: file=/usr/share/bochs/BIOS-bochs-latest
vgaromimage: file=/usr/share/vgabios/vgabios.cirrus.bin
vga: extension=cirrus
ata0-master: type=cdrom, path={iso}, status=inserted
boot: cdrom
com1: enabled=1, mode=file, dev={serial_out}
display_library: rfb, options="timeout=0"
cpu: count={ncpus}, model={model}, ips=200000000
clock: sync=none
log: -
logprefix: %t%e%d
debug: action=ignore
info: action=ignore
error: action=ignore
panic: action=fatal
sound: driver=dummy
speaker: enabled=0
"""


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


def run_qemu(extra, timeout, append=None):
    cmd = QEMU + extra
    if append is not None:
        cmd += ["-kernel", ELF, "-append", append]
    t0 = time.time()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as e:
        return Boot("qemu", _text(e.output), None, time.time() - t0, last_message(_text(e.stderr)), True)
    return Boot("qemu", _text(p.stdout), p.returncode, time.time() - t0, last_message(_text(p.stderr)))


def run_ovmf(extra, timeout):
    with tempfile.NamedTemporaryFile(suffix=".fd") as vars_:
        shutil.copyfile(OVMF_VARS, vars_.name)
        return run_qemu(["-machine", "q35",
                         "-drive", f"if=pflash,format=raw,readonly=on,file={OVMF_CODE}",
                         "-drive", f"if=pflash,format=raw,file={vars_.name}"] + extra, timeout)


def run_netboot(cmdline, timeout):
    """The lab's way: QEMU's e1000 ROM (iPXE) takes DHCP and TFTP from QEMU's
    user-mode network, with build/ as the TFTP root, runs an iPXE script that
    loads tracelab.elf (multiboot v1) with the command line."""
    script = f"netboot-matrix-{os.getpid()}.ipxe"
    path = os.path.join(B, script)
    open(path, "w").write(f"#!ipxe\nkernel tracelab.elf {cmdline}\nboot\n")
    try:
        return run_qemu(["-accel", "tcg", "-netdev", f"user,id=net0,tftp={B},bootfile={script}",
                         "-device", "e1000,netdev=net0", "-boot", "n"], timeout)
    finally:
        os.unlink(path)


def run_bochs(model, timeout, ncpus=1):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "com1.txt")
        rc = os.path.join(d, "bochsrc")
        log = os.path.join(d, "bochs.log")
        open(rc, "w").write(bochs_cfg(model, ISO, out, ncpus))
        t0 = time.time()
        code, timed_out = None, False
        with open(log, "wb") as lf:
            try:
                code = subprocess.run(["bochs", "-q", "-f", rc], input=b"c\nquit\n", stdout=lf,
                                      stderr=subprocess.STDOUT, timeout=timeout, cwd=d).returncode
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


SELFTEST = "run=901-905,501 selftest=1 watchdog=200"
PLATFORMS = [
    # name, description, runner, available?
    ("qemu-tcg", "QEMU TCG, -kernel (multiboot v1), default CPU (qemu64)",
     lambda: run_qemu(["-accel", "tcg"], 60, "run=all"), lambda: True),
    ("qemu-tcg-max", "QEMU TCG, -kernel, -cpu max",
     lambda: run_qemu(["-accel", "tcg", "-cpu", "max"], 60, "run=all"), lambda: True),
    ("qemu-tcg-selftest", "QEMU TCG, -kernel, the runner's self-tests (fail, fault, hang, leak, hash sign) then 501",
     lambda: run_qemu(["-accel", "tcg"], 60, SELFTEST), lambda: True),
    ("qemu-tcg-smp4", "QEMU TCG, -kernel, -cpu max, 4 CPUs, debug and platform families on every CPU",
     lambda: run_qemu(["-accel", "tcg", "-cpu", "max", "-smp", "4"], 120, "run=debug,platform cpu=all"),
     lambda: True),
    ("qemu-netboot", "QEMU TCG, SeaBIOS, network boot: iPXE loads the ELF over TFTP, run=debug",
     lambda: run_netboot("run=debug", 60), lambda: os.path.exists("/usr/lib/ipxe/qemu/pxe-e1000.rom")),
    ("qemu-seabios-iso", "QEMU TCG, SeaBIOS, GRUB from the ISO (multiboot2)",
     lambda: run_qemu(["-accel", "tcg", "-cdrom", ISO], 120), lambda: os.path.exists(ISO)),
    ("qemu-ovmf-iso", "QEMU TCG, OVMF (UEFI), GRUB from the ISO (multiboot2)",
     lambda: run_ovmf(["-accel", "tcg", "-cdrom", ISO], 180),
     lambda: os.path.exists(ISO) and os.path.exists(OVMF_CODE)),
    ("bochs-haswell", "Bochs 2.7, corei7_haswell_4770, GRUB from the ISO",
     lambda: run_bochs("corei7_haswell_4770", 600), lambda: shutil.which("bochs") and os.path.exists(ISO)),
    ("bochs-ryzen-smp2", "Bochs 2.7, ryzen, 2 CPUs, GRUB from the ISO",
     lambda: run_bochs("ryzen", 600, 2), lambda: shutil.which("bochs") and os.path.exists(ISO)),
    ("qemu-kvm", "QEMU with a hardware-backed KVM, -cpu host",
     lambda: run_qemu(["-accel", "kvm", "-cpu", "host"], 60, "run=all"), hw_kvm),
]


def parse(out):
    results, summary = {}, None
    for line in out.replace("\r", "").splitlines():
        m = RESULT.match(line)
        if m:
            ok, _, num, name, sfx, directive, reason = m.groups()
            status = "SKIP" if directive == "SKIP" else ("PASS" if ok == "ok" else "FAIL")
            reason = (reason or "").strip()
            cpu = re.search(r"cpu=(\d+)", sfx or "")
            where = f"cpu{cpu.group(1)}" if cpu else "cpu0"
            prev = results.get(int(num))
            if prev and (prev[1], prev[2]) != (status, reason):
                # with cpu=all one experiment runs on every CPU: all must agree
                status = "MIXED"
                reason = f"{prev[2] or prev[1]} / {where}: {status if not reason else reason}"
            results[int(num)] = (name, status, reason)
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


def load_expect(name):
    path = os.path.join(ROOT, "tests", "expect", name + ".txt")
    exp, problems = {}, []
    if not os.path.exists(path):
        return None, [f"no expectation file tests/expect/{name}.txt"]
    for i, line in enumerate(open(path), 1):
        line = line.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split(None, 2)
        if len(parts) < 2 or not parts[0].isdigit() or parts[1] not in ("PASS", "FAIL", "SKIP"):
            problems.append(f"{name}.txt:{i}: malformed line: {line}")
            continue
        reason = parts[2].strip() if len(parts) > 2 else ""
        if parts[1] != "PASS" and (not reason or reason.startswith("UNEXPLAINED")):
            problems.append(f"{name}.txt:{i}: {parts[1]} needs a reason")
        exp[int(parts[0])] = (parts[1], reason)
    return exp, problems


def compare(name, results, summary, exp, failure=None):
    diffs = []
    if summary is None:
        diffs.append(failure or "the run never reached its KTAP summary (boot failure or crash)")
    for num, (st, reason) in sorted(exp.items()):
        if num not in results:
            diffs.append(f"{num}: expected {st}, not run")
            continue
        got_name, got, got_reason = results[num]
        if got != st:
            diffs.append(f"{num} {got_name}: got {got}{' (' + got_reason + ')' if got_reason else ''}, expected {st}")
        elif st == "SKIP" and got_reason != reason:
            diffs.append(f"{num} {got_name}: SKIP reason '{got_reason}', expected '{reason}'")
    for num in sorted(set(results) - set(exp)):
        diffs.append(f"{num} {results[num][0]}: {results[num][1]} but no expectation")
    return diffs


def known_reason(platform, num):
    sys.path.insert(0, os.path.join(ROOT, "tests", "expect"))
    import reasons
    return reasons.reason(platform, num)


def write_update(name, desc, results, old):
    path = os.path.join(ROOT, "tests", "expect", name + ".txt")
    lines = [f"# {name}: {desc}", "# NUM STATUS reason (see tests/matrix.py)"]
    for num, (nm, st, reason) in sorted(results.items()):
        if st == "SKIP":
            lines.append(f"{num} SKIP {reason}")
        elif st == "FAIL":
            why = known_reason(name, num) or "UNEXPLAINED: add the emulator source to tests/expect/reasons.py"
            lines.append(f"{num} FAIL {why}")
        else:
            lines.append(f"{num} PASS")
    open(path, "w").write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", help="comma-separated platform names")
    ap.add_argument("--update", action="store_true", help="rewrite expectation files from this run")
    ap.add_argument("--save-logs", default=os.path.join(B, "matrix"), help="where serial logs go")
    a = ap.parse_args()
    os.makedirs(a.save_logs, exist_ok=True)
    only = set(a.only.split(",")) if a.only else None
    passed = failed = 0
    table, ran = {}, []
    for name, desc, runner, avail in PLATFORMS:
        if only and name not in only:
            continue
        if not avail():
            print(f"matrix: {name:18} not available here: {desc}", flush=True)
            continue
        boot = runner()
        out, dt = boot.out, boot.secs
        failure = boot_failure(boot)
        open(os.path.join(a.save_logs, name + ".log"), "w").write(
            out + (f"\n# matrix: {failure}\n" if failure else ""))
        results, summary = parse(out)
        exp, problems = load_expect(name)
        if a.update:
            write_update(name, desc, results, exp or {})
            exp, problems = load_expect(name)
        diffs = problems + compare(name, results, summary, exp or {}, failure)
        diffs += [f"KTAP: {p}" for p in ktap_problems(out)[:10]]
        ok_n = (len(exp or {}) + 1) - len([d for d in diffs])
        ok_n = max(ok_n, 0)
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
    rows = [[str(n), table[n][0]] + [abbrev.get(table[n][1].get(p, ""), "-") for p in ran] for n in sorted(table)]
    widths = [max(len(r[i]) for r in [hdr] + rows) for i in range(len(hdr))]
    print()
    for r in [hdr] + rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)))
    md = ["# tracelab results matrix", "",
          "Generated by `tests/matrix.py` (`make test`). Every cell matched its expectation file in",
          "`tests/expect/` unless the run reported a difference. SKIP reasons and known emulator",
          "deviations (FAIL) are explained there.", "",
          "| " + " | ".join(hdr) + " |", "|" + "---|" * len(hdr)]
    md += ["| " + " | ".join(r) + " |" for r in rows]
    if not only:    # a partial run does not overwrite the published matrix
        os.makedirs(os.path.join(ROOT, "docs"), exist_ok=True)
        open(os.path.join(ROOT, "docs", "matrix.md"), "w").write("\n".join(md) + "\n")
    print(f"matrix: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
