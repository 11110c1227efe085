"""The expectation table (tests/expect/expect.txt): parser, precedence, --update.

The format and the precedence rule are documented in the table's header comment.
"""
import fnmatch
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE = os.path.join(ROOT, "tests", "expect", "expect.txt")
STATUSES = ("PASS", "SKIP", "FAIL")
# the family names, by hundreds digit, as kernel/experiment.h's EXP_FAMILIES
FAMILIES = {"debug": 1, "bts": 2, "pmu": 3, "pt": 4, "platform": 5, "selftest": 9}
# a FAIL reason names the emulator source: a file (translate.c, cpu/msr.cc, ...)
SOURCE = re.compile(r"[\w/.-]+\.(c|cc|cpp|h|S|inc)\b")
UNEXPLAINED = "UNEXPLAINED: name the emulator source (file and function) that explains it"

# CPU modes an experiment runs in besides long mode (the kernel's mode= word,
# lib/cmdline.c): a result line "104 dr-exec pm32" is the cell "104@pm32".
PM32_MODES = ("pm32", "pm32pg", "pm32pae")


def key_of(num, mode=""):
    """The cell key of one result: the number (long mode) or "NUM@MODE"."""
    return f"{num}@{mode}" if mode else num


def num_of(key):
    return int(str(key).split("@")[0])


def mode_of(key):
    return str(key).partition("@")[2]


def order(key):
    modes = ("",) + PM32_MODES
    m = mode_of(key)
    return (num_of(key), modes.index(m) if m in modes else len(modes))


# specificity of a PLATFORMS term and of an EXPERIMENTS term
P_ALL, P_GLOB, P_GROUP, P_NAME = range(4)
E_ALL, E_FAMILY, E_RANGE, E_NUM = range(4)


class Rule:
    def __init__(self, path, line_no, text, exps, plats, status, reason):
        self.path, self.line_no, self.text = path, line_no, text
        self.exps = exps        # [(lo, hi, rank, mode glob; "" = long mode)]
        self.plats = plats      # {platform name: rank}
        self.status, self.reason = status, reason

    def where(self):
        return f"{os.path.relpath(self.path, ROOT)}:{self.line_no}"

    def rank(self, platform, key):
        """(platform rank, experiment rank) if the rule covers the cell, else None.
        A term without @MODE covers long-mode cells only, one with @MODE (a glob:
        @pm32* is every protected-mode run) only those of that mode."""
        if platform not in self.plats:
            return None
        num, mode = num_of(key), mode_of(key)
        e = [r for lo, hi, r, m in self.exps
             if lo <= num <= hi and (m == mode if not m or not mode else fnmatch.fnmatchcase(mode, m))]
        return (self.plats[platform], max(e)) if e else None


def _exp_terms(text):
    out = []
    for t in text.split(","):
        t, at, mode = t.partition("@")
        if at and not fnmatch.filter(PM32_MODES, mode):
            raise ValueError(f"bad mode '@{mode}' (one of {' '.join(PM32_MODES)}, or a glob such as pm32*)")
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", t)
        if t == "all":
            out.append((0, 999, E_ALL, mode))
        elif t in FAMILIES:
            d = FAMILIES[t]
            out.append((d * 100, d * 100 + 99, E_FAMILY, mode))
        elif m:
            lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
            if not (100 <= lo <= hi <= 999):
                raise ValueError(f"bad experiment number or range '{t}' (100..999, A-B with A<=B)")
            out.append((lo, hi, E_NUM if m.group(2) is None else E_RANGE, mode))
        else:
            raise ValueError(f"unknown experiment term '{t}' (a number, A-B, a family "
                             f"({' '.join(FAMILIES)}) or all)")
    return out


def _plat_terms(text, names, groups):
    out = {}
    for t in text.split(","):
        if t == "all":
            hit, rank = list(names), P_ALL
        elif any(c in t for c in "*?["):
            hit, rank = fnmatch.filter(names, t), P_GLOB
            if not hit:
                raise ValueError(f"glob '{t}' matches no platform")
        elif t in names:
            hit, rank = [t], P_NAME
        elif t in groups:
            hit, rank = groups[t], P_GROUP
        else:
            raise ValueError(f"unknown platform or group '{t}' (platforms: {' '.join(names)}; "
                             f"groups: {' '.join(groups)})")
        for n in hit:
            out[n] = max(out.get(n, -1), rank)
    return out


def parse(text, path, names, groups):
    """Rules from the table text, and the problems found (strings)."""
    rules, problems = [], []
    clash = set(names) & set(groups)
    if clash:
        problems.append(f"names used both as platform and group: {' '.join(sorted(clash))}")
    for i, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        where = f"{os.path.relpath(path, ROOT)}:{i}"
        parts = s.split(None, 3)
        if len(parts) < 3:
            problems.append(f"{where}: malformed line (want EXPERIMENTS PLATFORMS STATUS reason): {s}")
            continue
        exps, plats, status = parts[:3]
        reason = parts[3].strip() if len(parts) > 3 else ""
        if status not in STATUSES:
            problems.append(f"{where}: status '{status}' is not one of {', '.join(STATUSES)}: {s}")
            continue
        try:
            e = _exp_terms(exps)
            p = _plat_terms(plats, names, groups)
        except ValueError as err:
            problems.append(f"{where}: {err}")
            continue
        if status != "PASS" and not reason:
            problems.append(f"{where}: {status} needs a reason")
        elif reason.startswith("UNEXPLAINED"):
            problems.append(f"{where}: {status} reason UNEXPLAINED: name the emulator source")
        elif status == "FAIL" and not (reason.startswith("deliberate:") or SOURCE.search(reason)):
            problems.append(f"{where}: FAIL reason must name the emulator source file (and "
                            f"function) that explains it: {reason}")
        rules.append(Rule(path, i, line, e, p, status, reason))
    return rules, problems


def load(platforms, groups, paths):
    """Rules and problems from the table files that exist among paths."""
    rules, problems = [], []
    for path in paths:
        if os.path.exists(path):
            r, p = parse(open(path).read(), path, platforms, groups)
            rules += r
            problems += p
    return rules, problems


def expect(rules, platform, nums):
    """{num: (status, reason, rule or None)} for the experiments nums on platform,
    and the problems (equally specific rules that disagree)."""
    out, problems = {}, []
    for num in nums:
        best, rank = [], None
        for r in rules:
            k = r.rank(platform, num)
            if k is None or (rank is not None and k < rank):
                continue
            if rank is None or k > rank:
                best, rank = [r], k
            else:
                best.append(r)
        if not best:
            out[num] = ("PASS", "", None)
            continue
        verdicts = {(r.status, r.reason) for r in best}
        if len(verdicts) > 1:
            problems.append(f"{num} on {platform}: equally specific rules disagree: "
                            + "; ".join(f"{r.where()} {r.status} {r.reason}".rstrip() for r in best))
        r = best[0]
        out[num] = (r.status, r.reason, r)
    return out, problems


def stale(rules, registry_keys):
    """Rules that cover no experiment of the registry (an experiment removed or renumbered)."""
    return [f"{r.where()}: covers no experiment in the registry: {r.text.strip()}"
            for r in rules
            if not any(r.rank(p, k) is not None for p in list(r.plats)[:1] for k in registry_keys)]


def update(path, platform, exp, results, only_nums=None):
    """Add a rule for each cell of platform whose result differs from exp.

    exp: expect()'s answer; results: {num: (name, status, reason)} from the run.
    A rule for exactly that cell (one number, the platform's name) that the run
    contradicts is replaced in place; otherwise the new rule goes at the end.  No
    other rule is touched.  Returns the lines changed (for the user to review)."""
    lines = open(path).read().splitlines() if os.path.exists(path) else [
        f"# {platform}: per-machine rules, same format as tests/expect/expect.txt"]
    changes, new = [], []
    for num in sorted(results, key=order):
        if only_nums is not None and num_of(num) not in only_nums:
            continue
        _, got, got_reason = results[num]
        if num not in exp:
            continue
        st, reason, rule = exp[num]
        if got == "MIXED":
            changes.append(f"{num}: the CPUs disagree ({got_reason}): not recorded, look at the log")
            continue
        if got == st and (got != "SKIP" or got_reason == reason):
            continue
        why = got_reason if got == "SKIP" else (UNEXPLAINED if got == "FAIL" else "")
        text = f"{num:<18} {platform:<32} {got:<7} {why}".rstrip()
        exact = rule is not None and rule.path == path \
            and rule.exps == [(num_of(num), num_of(num), E_NUM, mode_of(num))] \
            and rule.plats == {platform: P_NAME}
        if exact:
            changes.append(f"{rule.where()}: replaced '{rule.text.strip()}' by '{text}'")
            lines[rule.line_no - 1] = text
        else:
            changes.append(f"{os.path.relpath(path, ROOT)}: added '{text}'"
                           + (f" (over {rule.where()})" if rule else ""))
            new.append(text)
    if new:
        marker = "# ---- added by tests/matrix.py --update: review, explain, merge into the rules above"
        if marker not in lines:
            lines += ["", marker]
        lines += new
    if changes:
        open(path, "w").write("\n".join(lines) + "\n")
    return changes
