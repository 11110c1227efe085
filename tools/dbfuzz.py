#!/usr/bin/env python3
"""dbfuzz: differential fuzzing of debug-exception delivery across platforms (issue 21).

Boots the kernel with `fuzz=debug seed=S count=N` on every available platform of
tests/platforms.py that this tool fuzzes (QEMU 7.2 and 10.0 under TCG with their
default and max CPUs, Bochs 2.7 as Haswell and as Ryzen, KVM with MATRIX_KVM=1;
`--log NAME=FILE` adds a real machine's serial log of the same seed), lines the per-scenario traces up
("# dbf INDEX DROP TRACE h=HASH", kernel/dbfuzz.c), and groups the scenarios
whose traces differ by (which platforms agree with which, first differing event).
Each group's first scenario is shrunk (--shrink): the kernel reruns it with one
more item, breakpoint or flag dropped at a time (`index=I drop=MASK shrink=1`), and
a drop is kept while the platforms still split the same way.

Known groups are classified in tests/expect/dbfuzz-known.txt:

    PARTITION                              EVENT-PATTERN   VERDICT  reason
    qemu7.2|qemu10,bochs-haswell,...      6@*             FAIL     QEMU 7.2 ... translate.c disas_insn() ...

PARTITION is a fnmatch pattern over the platforms as groups separated by '|'
(each group sorted, the groups sorted; short names as in the report).  A group's
key has one entry "SIDE:EVENT" per group of platforms that departs from the
largest one: the earlier of the two first differing events, its RIP offset
replaced by the instruction it is about (culprit()).  EVENT-PATTERN is a fnmatch
pattern over such an entry; every entry must match a rule (the first in file
order).  VERDICT: FAIL (an emulator deviates from the SDM/APM: the reason names
the platform that is wrong and the emulator source file and function), VENDOR
(both behaviours are allowed), UNDEFINED (the SDM leaves it open).  --check
exits 1 when a disagreement matches no line (make test runs it on a small fixed
seed set); the report lists every group with its verdict.

    tools/dbfuzz.py --seed 1 --count 2000 [--bochs-count 300] [--only P,..]
                    [--log NAME=FILE] [--shrink] [--check] [--report FILE]
"""
import argparse
import collections
import fnmatch
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
import platforms  # noqa: E402

B = os.path.join(ROOT, "build")
ELF = os.path.join(B, "tracelab.elf")
DBFGEN = os.path.join(B, "tools", "dbfgen")
KNOWN = os.path.join(ROOT, "tests", "expect", "dbfuzz-known.txt")
# The platforms fuzzed: one per emulator and CPU model (smp/firmware variants boot
# the same CPU core).  Short names in the report.
FUZZ_PLATFORMS = [
    ("qemu7.2", "qemu-tcg"),
    ("qemu7.2-max", "qemu-tcg-max"),
    ("qemu10", "qemu10-tcg"),
    ("qemu10-max", "qemu10-tcg-max"),
    ("bochs-haswell", "bochs-haswell"),
    ("bochs-ryzen", "bochs-ryzen-smp2"),
    ("kvm", "qemu-kvm"),            # opt-in (MATRIX_KVM=1): the host CPU itself
]
LINE = re.compile(r"^\s*# dbf (\d+) ([0-9a-f]+) (\S+) h=([0-9a-f]{8})\s*$")
SPEED = re.compile(r"# dbfuzz: seed=\d+ (\d+) scenarios in (\d+) us")
SCEN = re.compile(r"^\s*# dbf-scenario (\d+) ([0-9a-f]+) (.*)$")


def parse(text):
    """{(index, drop): trace}, scenarios per second (or None)."""
    traces, speed = {}, None
    for ln in text.replace("\r", "").splitlines():
        m = LINE.match(ln)
        if m:
            traces[(int(m.group(1)), int(m.group(2), 16))] = m.group(3)
            continue
        m = SPEED.search(ln)
        if m and int(m.group(2)):
            speed = int(m.group(1)) * 1e6 / int(m.group(2))
    return traces, speed


def fuzz_iso(cmdline, d):
    """An ISO whose only GRUB entry boots the kernel with cmdline (Bochs boots
    from CD-ROM only)."""
    iso_dir = os.path.join(d, "iso")
    os.makedirs(os.path.join(iso_dir, "boot", "grub"))
    shutil.copy(ELF, os.path.join(iso_dir, "boot", "tracelab.elf"))
    with open(os.path.join(iso_dir, "boot", "grub", "grub.cfg"), "w") as f:
        f.write("set timeout=0\nset default=0\n"
                "if serial --unit=0 --speed=115200; then\n"
                "  terminal_input --append serial\n  terminal_output --append serial\nfi\n"
                f"menuentry 'tracelab dbfuzz' {{\n  multiboot2 /boot/tracelab.elf {cmdline}\n  boot\n}}\n")
    iso = os.path.join(d, "dbfuzz.iso")
    r = subprocess.run(["grub-mkrescue", "-o", iso, iso_dir], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    if r.returncode:
        sys.exit("dbfuzz: grub-mkrescue failed:\n" + r.stdout.decode(errors="replace")[-2000:])
    return iso


def boot(p, cmdline, timeout):
    """The kernel's serial output of one boot of platform p with cmdline."""
    if p.emulator == "qemu":
        argv = platforms.qemu_argv(p, append=cmdline + " exit=qemu")
        try:
            r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               stdin=subprocess.DEVNULL, timeout=timeout)
            return r.stdout.decode("utf-8", "replace")
        except subprocess.TimeoutExpired as e:
            return (e.output or b"").decode("utf-8", "replace")
    with tempfile.TemporaryDirectory(dir=B) as d:
        iso = fuzz_iso(cmdline + " exit=bochs", d)
        out = os.path.join(d, "com1.txt")
        rc = os.path.join(d, "bochsrc")
        log = os.path.join(d, "bochs.out")
        with open(rc, "w") as f:
            # The trace lines come through port 0xE9 (kernel/dbfuzz.c), which
            # Bochs prints on its standard error at once.
            f.write(platforms.bochsrc(p, iso, out) + "port_e9_hack: enabled=1\n")
        with open(log, "wb") as lf:
            try:
                subprocess.run([p.exe(), "-q", "-f", rc], input=b"c\nquit\n", stdout=lf,
                               stderr=subprocess.STDOUT, timeout=timeout, cwd=d)
            except subprocess.TimeoutExpired:
                pass
        text = ""
        for f in (out, log):
            if os.path.exists(f):
                text += open(f, "rb").read().decode("utf-8", "replace") + "\n"
        return text


def first_diff(a, b):
    """Index of the first differing event of two traces (comma-separated)."""
    ea, eb = a.split(","), b.split(",")
    for i, (x, y) in enumerate(zip(ea, eb)):
        if x != y:
            return i
    return min(len(ea), len(eb))


def partition(traces_by_plat):
    """Platforms grouped by equal trace: 'a,b|c' (sorted), and the traces per group."""
    groups = collections.defaultdict(list)
    for name, t in traces_by_plat.items():
        groups[t].append(name)
    parts = sorted(",".join(sorted(v)) for v in groups.values())
    return "|".join(parts), {",".join(sorted(v)): t for t, v in groups.items()}


EVENT = re.compile(r"^([0-9a-f]+)@([0-9]+|X)((?:d[0-9a-f]+)?)((?:e[0-9a-f]+)?)(u?)$")
FAULTS = {0x6, 0xd, 0xe}


def culprit(ev, smap):
    """An event with its RIP offset replaced by the instruction it is about: the
    one at RIP for a fault (#UD, #GP, #PF, a DR7.GD or instruction-breakpoint
    #DB), else the one before RIP (traps: single-step, data and I/O breakpoints,
    INT3, INT n).  smap: (offsets, {offset: op}, {bp: offset}) from dbfgen map."""
    m = EVENT.match(ev)
    if not m or smap is None:
        return ev
    vec, off, dr6, err, u = m.groups()
    if off == "X":
        return ev
    offs, ops, xbp = smap
    off = int(off)
    v = int(vec, 16)
    fault = v in FAULTS
    if v == 1 and dr6:
        bits = int(dr6[1:], 16)
        fault = bool(bits & 0x2000) or any(bits & (1 << n) and xbp.get(n) == off for n in range(4))
    if fault:
        op = ops.get(off, "?")
    else:
        prev = [o for o in offs if o < off]
        op = ops.get(prev[-1], "?") if prev else "entry"
    return f"{vec}{dr6}{err}{u}@{'' if fault else 'after-'}{op}"


def _fault(ev):
    m = EVENT.match(ev)
    return bool(m) and int(m.group(1), 16) in FAULTS


def _soft_int(ev):
    """INT3 (BP), INT n to the ring gate, or a DB with no cause bit (INT 1, ICEBP):
    the handler returned to the next instruction with the RF that was pushed."""
    m = EVENT.match(ev)
    return bool(m) and (m.group(1) in ("3", "81") or (m.group(1) == "1" and m.group(3) == "d0"))


def _fault_db(c):
    """A culprit that is a GD fault (DR6.BD) rather than an instruction breakpoint."""
    m = re.match(r"^1d([0-9a-f]+)", c)
    return bool(m) and bool(int(m.group(1), 16) & 0x2000)


def _order(ev):
    """Where an event happened, for picking the earlier of two: an event outside
    the sequence first (it is the anomaly), the end last."""
    m = EVENT.match(ev)
    if not m:
        return (1 << 30, 0)
    # at the same instruction, a DB (instruction breakpoint, GD) comes before a
    # UD/GP/PF fault of the instruction itself (SDM vol.3 6.9, priority classes)
    return (-1 if m.group(2) == "X" else int(m.group(2)), 0 if m.group(1) == "1" else 1)


def signature(traces_by_plat, smap=None):
    """(partition, 'group:event' of the earliest event where a group departs from
    the reference group (the largest)), the offset replaced by the instruction
    (culprit()); None when all agree.  The other side's event is not part of the
    key: what follows a departure varies with the scenario."""
    part, by_group = partition(traces_by_plat)
    if len(by_group) < 2:
        return None
    ref = max(sorted(by_group), key=lambda g: len(g.split(",")))
    keys = []
    for g in sorted(by_group):
        if g == ref:
            continue
        i = first_diff(by_group[ref], by_group[g])
        ev, rv = by_group[g].split(","), by_group[ref].split(",")
        a = ev[i] if i < len(ev) else "E"
        b = rv[i] if i < len(rv) else "E"
        side, e, tr = (g, a, ev) if _order(a) <= _order(b) else (ref, b, rv)
        c = culprit(e, smap)
        # An instruction breakpoint right after a fault the handler stepped over:
        # whether it fires depends on the RF the fault pushed (SDM 18.3.1.1).
        if i > 0 and c.startswith("1d") and "@after-" not in c and not _fault_db(c):
            if _fault(tr[i - 1]):
                c += "/postfault"
            elif _soft_int(tr[i - 1]):
                c += "/postint"
        keys.append(f"{side}:{c}")
    return part, " ".join(keys)


def scenario_maps(seed, count):
    """{index: (offsets, {offset: op}, {bp: offset})} from dbfgen's map mode."""
    maps = {}
    if not os.path.exists(DBFGEN) or count <= 0:
        return maps
    r = subprocess.run([DBFGEN, str(seed), f"0-{count - 1}", "map"], stdout=subprocess.PIPE, text=True)
    for ln in r.stdout.splitlines():
        i, _, rest = ln.partition(" ")
        insns, _, bps = rest.partition(";")
        ops = {int(o, 16): op for o, op in (x.split(":") for x in insns.split(",") if x)}
        xbp = {int(n): int(o, 16) for n, o in (x.split(":") for x in bps.split(",") if x)}
        maps[int(i)] = (sorted(ops), ops, xbp)
    return maps


def load_known(path=KNOWN):
    rules = []
    if not os.path.exists(path):
        return rules
    for n, ln in enumerate(open(path), 1):
        ln = ln.strip()
        if not ln or ln.startswith("#"):
            continue
        f = ln.split(None, 3)
        if len(f) < 4 or f[2] not in ("FAIL", "VENDOR", "UNDEFINED"):
            sys.exit(f"{path}:{n}: want PARTITION EVENT-PATTERN FAIL|VENDOR|UNDEFINED reason")
        if f[2] == "FAIL" and not re.search(r"\.(c|cc|h|inc)\b", f[3]):
            sys.exit(f"{path}:{n}: a FAIL reason must name the emulator source file")
        rules.append((f[0], f[1], f[2], f[3], n))
    return rules


def classify(rules, part, events):
    """The rule for each 'side:event' entry of a group's key (the first rule,
    in file order, whose patterns match the partition and the entry); the group
    is classified when every entry is.  Returns [(entry, rule or None)]."""
    out = []
    for entry in events.split(" "):
        hit = None
        for rp, pat, verdict, reason, n in rules:
            if fnmatch.fnmatchcase(part, rp) and fnmatch.fnmatchcase(entry, pat):
                hit = (verdict, reason, n)
                break
        out.append((entry, hit))
    return out


def describe(seed, index, drop):
    if not os.path.exists(DBFGEN):
        return ""
    r = subprocess.run([DBFGEN, str(seed), str(index), str(drop)], stdout=subprocess.PIPE, text=True)
    return r.stdout.rstrip()


def shrink(seed, index, plats, want, timeout):
    """Greedy: keep dropping single items, breakpoints and flags (the kernel runs
    every single-bit drop of the current mask in one boot: shrink=1) while the
    platforms still split the same way with the same departing events (want,
    a signature())."""
    drop = 0
    while True:
        cl = f"fuzz=debug seed={seed} index={index} drop={drop} shrink=1"
        res = {name: parse(boot(p, cl, timeout))[0] for name, p in plats}
        cands = sorted({k[1] for r in res.values() for k in r if k[1] != drop})
        progressed = False
        for m in cands:
            tr = {name: r.get((index, m)) for name, r in res.items()}
            if None in tr.values():
                continue
            if signature(tr, smap_for(seed, index, m)) == want:
                drop = m
                progressed = True
                break
        if not progressed:
            return drop, {name: r.get((index, drop)) for name, r in res.items()}


def smap_for(seed, index, drop):
    """dbfgen's instruction map of one scenario after a drop (for culprit())."""
    if not os.path.exists(DBFGEN):
        return None
    r = subprocess.run([DBFGEN, str(seed), str(index), str(drop)], stdout=subprocess.PIPE, text=True)
    offs, ops, xbp = [], {}, {}
    for ln in r.stdout.splitlines()[2:]:
        f = ln.split()
        if len(f) >= 3:
            off = int(f[0], 16)
            offs.append(off)
            ops[off] = f[3] if f[2] != "-1" else "END"
    m = re.search(r"dr7=0x([0-9a-f]+) dr0-3=(\S+) (\S+) (\S+) (\S+)", r.stdout)
    if m:
        dr7 = int(m.group(1), 16)
        for n in range(4):
            if (dr7 >> (2 * n)) & 3 and not (dr7 >> (16 + 4 * n)) & 3:
                xbp[n] = int(m.group(2 + n), 16)
    return (offs, ops, xbp)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--bochs-count", type=int, help="scenarios on Bochs (slow), default --count")
    ap.add_argument("--only", help="comma list of short platform names")
    ap.add_argument("--log", action="append", default=[], metavar="NAME=FILE",
                    help="a serial log of the same seed from another machine")
    ap.add_argument("--shrink", type=int, default=0, metavar="N",
                    help="shrink the first scenario of the N largest groups")
    ap.add_argument("--shrink-on", default="qemu7.2,qemu10,bochs-haswell",
                    help="the platforms a shrink boots (one per implementation: the others "
                         "agreed with them in every run so far)")
    ap.add_argument("--check", action="store_true", help="exit 1 on an unclassified group")
    ap.add_argument("--report", help="write the report here too")
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--reuse", action="store_true",
                    help="reuse the logs of an earlier run (build/dbfuzz/) with the same seed and count")
    o = ap.parse_args(argv)

    plats = []
    for short, name in FUZZ_PLATFORMS:
        if o.only and short not in o.only.split(","):
            continue
        p = platforms.get(name)
        why = platforms.available(p, iso=ELF) if p.emulator == "qemu" else (
            None if shutil.which(p.exe()) else f"no {p.exe()}")
        if why:
            print(f"dbfuzz: {short}: not available here ({why})")
            continue
        plats.append((short, p))
    if not os.path.exists(ELF):
        sys.exit("dbfuzz: no build/tracelab.elf (make all)")

    results, speeds, counts = {}, {}, {}
    for short, p in plats:
        n = o.bochs_count if (p.emulator == "bochs" and o.bochs_count) else o.count
        t0 = time.time()
        saved = os.path.join(B, "dbfuzz", f"{short}-seed{o.seed}-count{n}.log")
        if o.reuse and os.path.exists(saved):
            out = open(saved, errors="replace").read()
        else:
            out = boot(p, f"fuzz=debug seed={o.seed} count={n}", o.timeout)
            os.makedirs(os.path.dirname(saved), exist_ok=True)
            with open(saved, "w") as f:
                f.write(out)
        tr, sp = parse(out)
        results[short], speeds[short], counts[short] = tr, sp, n
        print(f"dbfuzz: {short}: {len(tr)}/{n} scenarios in {time.time() - t0:.1f} s "
              f"({sp or 0:.0f} scenarios/s in the kernel)", flush=True)
    for spec in o.log:
        name, _, path = spec.partition("=")
        tr, sp = parse(open(path, errors="replace").read())
        results[name], speeds[name] = tr, sp
        counts[name] = max((k[0] for k in tr), default=-1) + 1
        print(f"dbfuzz: {name}: {len(tr)} scenarios from {path}")

    problems = 0
    for name, tr in results.items():
        if len(tr) < counts[name]:
            print(f"dbfuzz: {name}: only {len(tr)} of {counts[name]} scenarios reported "
                  "(the kernel stopped or timed out)")
            problems += 1

    # scenario -> traces; only scenarios every platform ran
    groups = collections.OrderedDict()
    n_common = 0
    upto = min(counts.values()) if counts else 0
    maps = scenario_maps(o.seed, upto)
    for i in range(upto):
        tr = {name: r.get((i, 0)) for name, r in results.items()}
        if None in tr.values():
            continue
        n_common += 1
        sig = signature(tr, maps.get(i))
        if sig:
            groups.setdefault(sig, []).append(i)

    rules = load_known()
    lines = [f"dbfuzz: seed {o.seed}: {n_common} scenarios compared on {len(results)} platforms "
             f"({', '.join(results)}); {sum(len(v) for v in groups.values())} disagree, "
             f"in {len(groups)} groups"]
    unclassified = 0
    for rank, ((part, events), idx) in enumerate(sorted(groups.items(), key=lambda kv: -len(kv[1]))):
        cl = classify(rules, part, events)
        unclassified += any(c is None for _, c in cl)
        lines.append(f"\ngroup: {len(idx)} scenarios; platforms {part}")
        lines.append(f"  first differing event: {events}")
        for entry, c in cl:
            lines.append(f"  verdict: {entry}: " + (f"{c[0]} (dbfuzz-known.txt:{c[2]}) {c[1]}"
                                                     if c else "UNCLASSIFIED"))
        lines.append(f"  first scenarios: {' '.join(map(str, idx[:8]))}")
        i = idx[0]
        lines.append("  scenario " + describe(o.seed, i, 0).split("\n")[0])
        for name in results:
            lines.append(f"    {name:14} {results[name][(i, 0)]}")
        if rank < o.shrink:
            sub = [(sh, p) for sh, p in plats if sh in o.shrink_on.split(",")]
            want = signature({sh: results[sh][(i, 0)] for sh, _ in sub}, smap_for(o.seed, i, 0))
            if want is None:
                lines.append(f"  not shrunk: {o.shrink_on} agree on it")
                continue
            drop, tr = shrink(o.seed, i, sub, want, o.timeout)
            lines.append(f"  shrunk on {o.shrink_on}: fuzz=debug seed={o.seed} index={i} drop={drop:#x}")
            for ln in describe(o.seed, i, drop).split("\n"):
                lines.append("    " + ln)
            for name, t in tr.items():
                lines.append(f"    {name:14} {t}")
    lines.append(f"\ndbfuzz: {len(groups) - unclassified} passed, {unclassified + problems} failed "
                 f"(groups classified / unclassified; platforms that did not finish)")
    text = "\n".join(lines)
    print(text)
    if o.report:
        with open(o.report, "w") as f:
            f.write(text + "\n")
    return 1 if o.check and (unclassified or problems) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
