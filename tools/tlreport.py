#!/usr/bin/env python3
"""tlreport: the way back from a machine's run to docs/reports/, and the
comparison of two runs ("run it on the bare machine, run it in my VM on the same
machine, show me every difference").

  tools/tlreport.py extract FILE            the report block, exactly as printed
  tools/tlreport.py write FILE [-n NAME] [-m "maker model, firmware"] [-o DIR]
                                            docs/reports/NAME.md from the block
  tools/tlreport.py diff A B                every difference, check by check
  tools/tlreport.py qr IMAGE...             the QR payload(s) of screen photos or
                                            screendumps (zbarimg), as a FILE

FILE is a serial log (KTAP and the block), the payload decoded from the final
screen's QR code(s) (e.g. `zbarimg --raw -q -Sbinary photo.jpg > payload.txt`, or a
phone's "copy text"), or a docs/reports/*.md file; '-' reads stdin.  A serial log
has every check; a v2 report has the checks that failed; a v1 report has one
verdict per experiment.  diff compares whatever both sides have and exits 1 when
anything differs.
"""
import argparse
import os
import re
import subprocess
import sys

BEGIN = re.compile(r"^# ---- tracelab hardware report v(\d+): copy from here ----$")
END = "# ---- end of tracelab hardware report ----"
TOKEN = re.compile(r"^(\d+)(?:([PFSTE])(?:\*(\d+))?|((?:[PFSTE]\d+)+))$")
VERDICT = {"P": "pass", "F": "FAIL", "S": "skip", "T": "TIMEOUT", "E": "ERROR"}
FAILING = "FTE"


def read(path):
    data = sys.stdin.buffer.read() if path == "-" else open(path, "rb").read()
    return data.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")


def blocks(text):
    """Every report block in text: (version, [lines])."""
    out, cur, ver = [], None, None
    for line in text.split("\n"):
        m = BEGIN.match(line)
        if m:
            cur, ver = [line], int(m.group(1))
        elif cur is not None:
            cur.append(line)
            if line == END:
                out.append((ver, cur))
                cur = None
    return out


class Run:
    """What a file says about one run."""

    def __init__(self, path):
        self.path = path
        text = read(path)
        bl = blocks(text)
        if not bl:
            raise SystemExit(f"tlreport: {path}: no hardware report block "
                             "('# ---- tracelab hardware report vN: copy from here ----' ... "
                             "'# ---- end of tracelab hardware report ----')")
        self.version, self.block = bl[-1]      # the last: a log may hold a CPU report first
        self.fields = {}                       # "cpu", "cpu2", "feat" ... -> text
        self.results = {}                      # num -> {verdict letter: count}
        self.fails = {}                        # (num, check) -> description (v2 "# fail:")
        self.more_fails = 0
        for line in self.block[1:-1]:
            m = re.match(r"^# (\w[\w-]*): ?(.*)$", line)
            if not m:
                continue
            key, val = m.groups()
            if key == "result":
                for tok in val.split():
                    self._token(tok)
            elif key == "fail":
                f = re.match(r"^(\d+) (\d+) (.*)$", val)
                if f:
                    self.fails[(int(f.group(1)), int(f.group(2)))] = f.group(3)
                elif re.match(r"^\+(\d+) more", val):
                    self.more_fails += int(re.match(r"^\+(\d+)", val).group(1))
            else:
                k = key
                while k in self.fields:
                    k += "+"
                self.fields[k] = val
        self.checks = self._ktap(text)          # from a serial log: (num, occurrence, check) -> (ok, desc)

    def _token(self, tok):
        m = TOKEN.match(tok)
        if not m:
            return
        num = int(m.group(1))
        r = self.results.setdefault(num, {})
        if m.group(2):
            r[m.group(2)] = r.get(m.group(2), 0) + int(m.group(3) or 1)
        else:
            for v, n in re.findall(r"([PFSTE])(\d+)", m.group(4)):
                r[v] = r.get(v, 0) + int(n)

    @staticmethod
    def _ktap(text):
        checks, seen, cur = {}, {}, None
        for line in text.split("\n"):
            m = re.match(r"^    # Subtest: (\d+) ", line)
            if m:
                num = int(m.group(1))
                seen[num] = seen.get(num, 0) + 1
                cur = (num, seen[num])
                continue
            m = re.match(r"^    (ok|not ok) (\d+) (.*)$", line)
            if m and cur:
                checks[(cur[0], cur[1], int(m.group(2)))] = (m.group(1) == "ok", m.group(3))
                continue
            if re.match(r"^(ok|not ok) \d+ ", line):
                cur = None
        return checks

    def failed_checks(self, num):
        """check number -> description for every failed check of num, when known."""
        if self.checks:
            return {c: d for (n, occ, c), (ok, d) in self.checks.items() if n == num and not ok}
        return {c: d for (n, c), d in self.fails.items() if n == num}

    def knows_checks(self):
        return bool(self.checks) or self.version >= 2


def verdict_text(r):
    if not r:
        return "not run"
    return " ".join(f"{VERDICT[v]}" + (f"x{n}" if n > 1 else "") for v, n in sorted(r.items(), key=lambda x: "PFSTE".index(x[0])))


def diff(a, b, out):
    n = 0

    def say(s):
        nonlocal n
        n += 1
        out.write(s + "\n")

    out.write(f"--- A: {a.path} (report v{a.version}{', serial log' if a.checks else ''})\n")
    out.write(f"+++ B: {b.path} (report v{b.version}{', serial log' if b.checks else ''})\n")
    # the machine: field by field, then word by word inside a field
    for k in sorted(set(a.fields) | set(b.fields), key=lambda k: (list(a.fields) + list(b.fields)).index(k)):
        if k == "sum":
            continue
        va, vb = a.fields.get(k), b.fields.get(k)
        if va == vb:
            continue
        label = k.rstrip("+") + (f" (line {k.count('+') + 1})" if "+" in k else "")
        if va is None or vb is None:
            say(f"{label}: A {va!r}, B {vb!r}")
            continue
        wa, wb = re.split(r"[ ,]+", va), re.split(r"[ ,]+", vb)
        words = [f"{x} -> {y}" for x, y in zip(wa, wb) if x != y]
        if len(wa) != len(wb) or len(words) > 4:
            say(f"{label}:\n    A: {va}\n    B: {vb}")
        else:
            say(f"{label}: " + ", ".join(words) + f"   (A: {va})")
    # the experiments
    for num in sorted(set(a.results) | set(b.results)):
        ra, rb = a.results.get(num, {}), b.results.get(num, {})
        if ra != rb:
            say(f"{num}: A {verdict_text(ra)}, B {verdict_text(rb)}")
        # the checks: failures on either side, where a side knows them
        fa = a.failed_checks(num) if a.knows_checks() else None
        fb = b.failed_checks(num) if b.knows_checks() else None
        if fa is None and fb is None:
            continue
        for c in sorted(set(fa or {}) | set(fb or {})):
            da = (fa or {}).get(c)
            db = (fb or {}).get(c)
            if fa is not None and fb is not None and da == db:
                continue
            if (fa is None or fb is None) and ra == rb:
                continue        # one side has no detail and the verdicts agree
            if da is not None and db is not None:
                say(f"{num} check {c}: FAIL on both, values differ\n    A: {da}\n    B: {db}")
            else:
                side, desc, r_other, f_other = ("A", da, rb, fb) if da is not None else ("B", db, ra, fa)
                if f_other is None:
                    other = "no per-check detail"
                elif not r_other:
                    other = "not run"
                elif set(r_other) == {"S"}:
                    other = "skipped"
                else:
                    other = "passed"
                say(f"{num} check {c}: {side} FAIL: {desc}\n    {'B' if side == 'A' else 'A'}: {other}")
    # every check's text, when both sides are serial logs (observed values)
    if a.checks and b.checks:
        for key in sorted(set(a.checks) | set(b.checks)):
            ca, cb = a.checks.get(key), b.checks.get(key)
            if ca == cb or (ca and cb and not ca[0] and not cb[0]):
                continue        # equal, or both failed (shown above)
            if ca and cb and ca[0] != cb[0]:
                continue        # verdict differs: shown above
            num, occ, c = key
            where = f"{num}{'#' + str(occ) if occ > 1 else ''} check {c}"
            if ca is None or cb is None:
                have = ca or cb
                say(f"{where}: only in {'A' if ca else 'B'}: {'ok' if have[0] else 'not ok'} {have[1]}")
            else:
                say(f"{where}:\n    A: {ca[1]}\n    B: {cb[1]}")
    sa, sb = a.fields.get("sum"), b.fields.get("sum")
    if sa != sb:
        say(f"sum: A {sa}, B {sb}")
    out.write(f"tlreport: {n} difference(s)\n")
    return n


def slug(s):
    return re.sub(r"[^a-z0-9]+", "-", s.lower()).strip("-")


def write(run, name, machine, outdir):
    cpu = run.fields.get("cpu+", "").strip('"')
    vendor = {"GenuineIntel": "intel", "AuthenticAMD": "amd", "HygonGenuine": "hygon"}.get(
        run.fields.get("cpu", "").split(" ")[0], "cpu")
    brand = re.sub(r"\((r|tm)\)|\bcpu\b|\bprocessor\b|@.*|\d+-core", "", cpu, flags=re.I)
    if not name:
        b = slug(brand)
        name = b if b.startswith(vendor + "-") else slug(f"{vendor} {brand}") or "machine"
    path = os.path.join(outdir, name + ".md")
    boot = run.fields.get("boot", "")
    sysl = run.fields.get("sys", "")
    lines = [
        f"# {name}", "",
        f"- Machine: {machine or 'MAKER MODEL (fill in)'}",
        "- Firmware / boot path: VERSION, UEFI or legacy BIOS (fill in); loader and command line: "
        + boot,
        f"- System: {sysl}",
        "- How: the final screen's QR code (or serial), written by tools/tlreport.py; submitted by: (fill in)",
        "- Notes: (anything odd)", "",
        "```",
    ] + run.block + ["```", ""]
    open(path, "w").write("\n".join(lines))
    return path


def qr_payload(images):
    """zbarimg on images: the QR payload (structured-append symbols joined)."""
    try:
        p = subprocess.run(["zbarimg", "--nodbus", "--raw", "-q", "-Sdisable", "-Sqrcode.enable",
                            "-Sbinary"] + images, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except FileNotFoundError:
        raise SystemExit("tlreport: no zbarimg (Debian: apt-get install zbar-tools)")
    if p.returncode not in (0, 4) or not p.stdout:
        raise SystemExit(f"tlreport: zbarimg found no QR code in {' '.join(images)}")
    return p.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("extract")
    e.add_argument("file")
    w = sub.add_parser("write")
    w.add_argument("file")
    w.add_argument("-n", "--name", help="file name without .md (default: from the CPU brand)")
    w.add_argument("-m", "--machine", help="maker, model, firmware")
    w.add_argument("-o", "--outdir", default=os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), "docs", "reports"))
    d = sub.add_parser("diff")
    d.add_argument("a")
    d.add_argument("b")
    q = sub.add_parser("qr")
    q.add_argument("images", nargs="+")
    a = ap.parse_args()
    if a.cmd == "extract":
        sys.stdout.write("\n".join(Run(a.file).block) + "\n")
    elif a.cmd == "write":
        print(write(Run(a.file), a.name, a.machine, a.outdir))
    elif a.cmd == "diff":
        return 1 if diff(Run(a.a), Run(a.b), sys.stdout) else 0
    elif a.cmd == "qr":
        sys.stdout.buffer.write(qr_payload(a.images))
    return 0


if __name__ == "__main__":
    sys.exit(main())
