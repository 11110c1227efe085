#!/usr/bin/env python3
"""Hostile boots (issue 13): machines and inputs the kernel does not expect.

Each case boots tracelab (QEMU -kernel, a fraction of a second each; a few
GRUB ISO boots) on a machine without a local APIC, without long mode, with too
little RAM, with long and odd command lines, and checks the outcome: QEMU's exit
status (isa-debug-exit: 1 = all passed, 3 = failures; None = still running when
its time was up), the messages that must appear, and that the serial stream is
well-formed KTAP (no line split between writers, nothing raw from the command
line).  Prints a line per case and ends with "hostile: N passed, N failed".

    tests/hostile.py [--only NAME,...] [--list]
"""
import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = os.path.join(ROOT, "build")
ELF = os.environ.get("HOSTILE_ELF", os.path.join(B, "tracelab.elf"))   # another kernel to try
sys.path.insert(0, os.path.join(ROOT, "tests"))
import matrix  # noqa: E402  (ktap_problems: the same KTAP rules as the matrix)

QEMU = ["qemu-system-x86_64", "-accel", "tcg", "-no-reboot", "-display", "none",
        "-device", "isa-debug-exit,iobase=0xf4,iosize=4", "-serial", "stdio"]
PASSED, FAILED = 1, 3               # QEMU's status for isa-debug-exit 0 and 1


class Run:
    def __init__(self, rc, out, secs):
        self.rc, self.out, self.secs = rc, out.replace("\r", ""), secs


def qemu(extra, append=None, mem=256, timeout=30, kernel=ELF):
    cmd = QEMU + ["-m", str(mem)] + extra
    if kernel:
        cmd += ["-kernel", kernel]
    if append is not None:
        cmd += ["-append", append]
    t0 = time.time()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL, timeout=timeout)
        return Run(p.returncode, p.stdout.decode("utf-8", "replace"), time.time() - t0)
    except subprocess.TimeoutExpired as e:
        out = e.output.decode("utf-8", "replace") if isinstance(e.output, bytes) else (e.output or "")
        return Run(None, out, time.time() - t0)


# ---- what a run must show ------------------------------------------------------

KTAP_LINE = re.compile(r"^(    )*(KTAP version 1|1\.\.\d+( # .*)?|(not )?ok \d+ \S.*|#( .*)?)$")


def wellformed(run):
    """Every line is KTAP or a '# ' diagnostic; no control byte (a raw newline or
    escape from the command line would show here); a writer's line is never in
    the middle of another's (the watchdog's message starts its own line)."""
    probs = []
    for i, line in enumerate(run.out.splitlines(), 1):
        if line.startswith("qemu-system-x86_64:"):
            continue                # QEMU's own stderr
        if any(ord(c) < 0x20 and c != "\t" for c in line) or "\x7f" in line:
            probs.append(f"line {i}: control character: {line[:80]!r}")
        elif not KTAP_LINE.match(line):
            probs.append(f"line {i}: not KTAP: {line[:100]!r}")
        for word in ("# watchdog:", "# unexpected exception"):
            at = line.find(word)
            if at > 0 and line[:at].strip():
                probs.append(f"line {i}: '{word}' in the middle of a line: {line[:100]!r}")
    probs += [f"KTAP: {p}" for p in matrix.ktap_problems(run.out)]
    return probs[:5]


def expect(run, rc, must=(), must_not=(), ktap=True):
    probs = []
    if run.rc != rc:
        probs.append(f"exit status {run.rc}, expected {rc}")
    for pat in must:
        if not re.search(pat, run.out, re.M):
            probs.append(f"missing: /{pat}/")
    for pat in must_not:
        m = re.search(pat, run.out, re.M)
        if m:
            probs.append(f"present: /{pat}/: {m.group(0)[:80]!r}")
    if ktap:
        probs += wellformed(run)
    if probs:
        tail = [ln for ln in run.out.splitlines() if ln.strip()][-3:]
        probs.append("last lines: " + " | ".join(tail))
    return probs


def block(out, num):
    """The lines of experiment num's subtest block (between its Subtest line and
    its result line)."""
    lines, inside = [], False
    for ln in out.splitlines():
        if re.match(rf"^\s+# Subtest: {num} ", ln):
            inside = True
            continue
        if inside and re.match(rf"^(not )?ok \d+ {num} ", ln):
            break
        if inside:
            lines.append(ln)
    return lines


# ---- the cases -------------------------------------------------------------------

NO_LM = r"^# tracelab: this CPU has no (long mode \(CPUID\.80000001H:EDX\.LM\[29\]=0\)|CPUID leaf 80000001H .*)"
NO_MEM = r"^# tracelab: not enough memory: the kernel needs usable RAM at 0x00100000-0x[0-9a-f]{8}"
EMPTY_PLAN = r"^1\.\.0$"
APIC0 = r"CPUID\.01H:EDX\.APIC\[9\]=0 \(no local APIC\)"


def c_no_apic():
    r = qemu(["-cpu", "qemu64,-apic"], "run=903,501,502,510,511 selftest=1 watchdog=100")
    return expect(r, FAILED, [
        r"^# apic: none: " + APIC0 + "; no APIC register is touched, no IPI sent$",
        r"^# watchdog: PIT channel 0, IRQ0 through the 8259",
        r"^# smp: no local APIC",
        r"^ok \d+ 501 mode-journey$",
        r"^ok \d+ 502 lvt-plumbing # SKIP " + APIC0 + "$",
        r"^ok \d+ 510 smp-bringup # SKIP " + APIC0 + "$",
        r"^\s+# watchdog: experiment 903 still running after 100 ms",
        r"^not ok \d+ 903 selftest-hang$",
        r"^# tracelab: pass:1 fail:1 skip:3 total:5$"])


def c_no_apic_all():
    # The BTS, PMU, PEBS, IBS and PT experiments SKIP, none fails: those relying on
    # a PMI (202/203/205, 302-310) skip with APIC0 on a CPU that has the PMU
    # feature (pmi_require(), kernel/pmi.c); TCG emulates no PMU, so here each
    # feature's own reason comes first, and what this checks is the verdicts.
    r = qemu(["-cpu", "qemu64,-apic"], "run=all", timeout=60)
    return expect(r, FAILED, [r"^# tracelab: pass:\d+ fail:\d+ skip:\d+ total:\d+$",
                              r"^ok \d+ 502 lvt-plumbing # SKIP " + APIC0 + "$"]
                  + [rf"^ok \d+ {n} \S+ # SKIP " for n in (202, 203, 205, 302, 303, 304, 305, 306,
                                                        307, 308, 309, 310, 311)],
                  [r"^not ok \d+ [2345]\d\d "])


def no_lm(cpu):
    def c():
        r = qemu(["-cpu", cpu], "run=all", timeout=20)
        return expect(r, FAILED, [NO_LM, EMPTY_PLAN, r"^# tracelab: the machine cannot run tracelab"])
    return c


def c_no_lm_halt_screen():
    """exit=halt: no emulator exit, and the reason is on the VGA text screen too."""
    with tempfile.TemporaryDirectory() as d:
        sock, dump = os.path.join(d, "mon"), os.path.join(d, "vga.bin")
        cmd = QEMU + ["-m", "64", "-cpu", "qemu32", "-monitor", f"unix:{sock},server=on,wait=off",
                      "-kernel", ELF, "-append", "exit=halt"]
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL)
        out = []
        reader = threading.Thread(target=lambda: out.append(p.stdout.read()), daemon=True)
        reader.start()
        t0, probs = time.time(), []
        time.sleep(1.0)
        while time.time() - t0 < 20 and p.poll() is None:
            try:
                s = socket.socket(socket.AF_UNIX)
                s.connect(sock)
                break
            except OSError:
                time.sleep(0.2)
        # the kernel is halted (or still printing): give it a moment, then read the screen
        time.sleep(1.0)
        still = p.poll() is None
        try:
            s.sendall(f'pmemsave 0xb8000 4000 "{dump}"\n'.encode())
            for _ in range(50):
                if os.path.exists(dump) and os.path.getsize(dump) == 4000:
                    break
                time.sleep(0.1)
            s.close()
        except (OSError, UnboundLocalError):
            probs.append("no monitor")
        p.kill()
        p.wait(10)
        reader.join(5)
        text = (out[0] if out else b"").decode("utf-8", "replace").replace("\r", "")
        if not still:
            probs.append(f"QEMU exited by itself (status {p.returncode}) with exit=halt")
        vga = open(dump, "rb").read()[0::2].decode("ascii", "replace") if os.path.exists(dump) else ""
        if "this CPU has no long mode" not in vga:
            probs.append(f"VGA text lacks the reason: {vga.strip()[:120]!r}")
        if not re.search(NO_LM, text, re.M) or "stopped, halted (FAILURES)" not in text:
            probs.append("serial lacks the reason or the halt: " + text.strip()[-200:])
        return probs


# GRUB without a menu timeout (make test builds it); HOSTILE_ISO: another one to try
ISO_CI = os.environ.get("HOSTILE_ISO", os.path.join(B, "tracelab-ci.iso"))


def screen_text(ppm):
    """The text on a PPM screendump, cell by cell in the kernel's 8x16 font (the one
    it is built from, GRUB's ascii.h, as tests/usb-boot.sh reads it); each cell's
    top-left pixel is its background."""
    data = open(ppm, "rb").read()
    parts = data.split(b"\n", 3)
    w, h = map(int, parts[1].split())
    rgb = parts[3]
    vals = [int(v, 16) for v in re.findall(r"0x([0-9a-fA-F]{2})", open("/usr/share/grub/ascii.h").read())]
    glyphs = {}
    for c in range(32, 127):
        glyphs.setdefault(bytes(vals[c * 16:(c + 1) * 16]), chr(c))
    lines = []
    for cy in range(h // 16):
        line = []
        for cx in range(w // 8):
            x0, y0 = cx * 8, cy * 16
            bg = rgb[(y0 * w + x0) * 3:(y0 * w + x0) * 3 + 3]
            bits = bytearray(16)
            for gy in range(16):
                for gx in range(8):
                    o = ((y0 + gy) * w + x0 + gx) * 3
                    if rgb[o:o + 3] != bg:
                        bits[gy] |= 0x80 >> gx
            line.append(glyphs.get(bytes(bits), "?"))
        lines.append("".join(line).rstrip())
    return w, h, lines


def screen_boot(iso, cpu, serial_re, screen_text_must, size=None, extra=()):
    """Boot a GRUB ISO under SeaBIOS without an exit device (the kernel halts), wait
    for the halt on serial, read the screen back (screendump) and look for a line
    on it.  GRUB hands over a VBE framebuffer (multiboot2 framebuffer tag)."""
    with tempfile.TemporaryDirectory() as d:
        sock, ppm = os.path.join(d, "mon"), os.path.join(d, "screen.ppm")
        cmd = ["qemu-system-x86_64", "-accel", "tcg", "-no-reboot", "-display", "none",
               "-serial", "stdio", "-m", "64", "-cpu", cpu, "-cdrom", iso,
               "-monitor", f"unix:{sock},server=on,wait=off"] + list(extra)
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL)
        out = bytearray()

        def read():
            for chunk in iter(lambda: p.stdout.read1(4096), b""):
                out.extend(chunk)
        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        t0, probs = time.time(), []
        while time.time() - t0 < 40 and p.poll() is None and b"halted" not in out:
            time.sleep(0.2)
        try:
            s = socket.socket(socket.AF_UNIX)
            s.connect(sock)
            s.sendall(f'screendump "{ppm}"\n'.encode())
            for _ in range(50):
                if os.path.exists(ppm) and os.path.getsize(ppm) > 1000:
                    break
                time.sleep(0.1)
            time.sleep(0.3)
            s.close()
        except OSError as e:
            probs.append(f"no monitor: {e}")
        p.kill()
        p.wait(10)
        reader.join(5)
        text = out.decode("utf-8", "replace").replace("\r", "")
        if not re.search(serial_re, text, re.M):
            probs.append("serial lacks the message: " + text.strip()[-200:])
        if not os.path.exists(ppm):
            return probs + ["no screendump"]
        w, h, lines = screen_text(ppm)
        if (w, h) == (720, 400) or (size and (w, h) != size):
            probs.append(f"screen {w}x{h}: not the framebuffer GRUB was to set")
        if not any(screen_text_must in ln for ln in lines):
            probs.append(f"{w}x{h} framebuffer lacks {screen_text_must!r}: "
                         + " | ".join(ln for ln in lines if ln.strip())[:200])
        return probs


NO_LM_SCREEN = "this CPU has no long mode (CPUID.80000001H:EDX.LM[29]=0): cannot run"


def c_no_lm_framebuffer():
    """GRUB (multiboot2) hands over a graphics framebuffer: the no-long-mode reason
    is drawn on it by the 32-bit code (boot/early.S).  SeaBIOS, because OVMF itself
    needs long mode; its VBE mode is 800x600x24 by default."""
    if not os.path.exists(ISO_CI):
        return [f"no {ISO_CI} (make build/tracelab-ci.iso)"]
    return screen_boot(ISO_CI, "qemu64,-lm", NO_LM, NO_LM_SCREEN, (800, 600))


def c_no_lm_fb_32bpp():
    """The same at 32 bits per pixel, as under UEFI's GOP: GRUB's VBE mode on QEMU's
    virtio VGA is 640x480x32 (GRUB overrides gfxpayload from the kernel's header)."""
    if not os.path.exists(ISO_CI):
        return [f"no {ISO_CI} (make build/tracelab-ci.iso)"]
    return screen_boot(ISO_CI, "qemu64,-lm", NO_LM, NO_LM_SCREEN, (640, 480), ["-vga", "virtio"])


def c_refused_framebuffer():
    """A refused command line (found in C, after the framebuffer tag is read) is on
    the framebuffer too."""
    with tempfile.TemporaryDirectory() as d:
        iso = grub_iso(d, "multiboot2 /boot/tracelab.elf run=debug reps=0", "insmod all_video\n")
        return screen_boot(iso, "qemu64", r"^# tracelab: command line error: bad reps=: 'reps=0'$",
                           "# tracelab: command line error: bad reps=: 'reps=0'", (640, 480),
                           ["-vga", "virtio"])


def tiny(mem):
    def c():
        r = qemu([], "run=101", mem=mem, timeout=20)
        return expect(r, FAILED, [NO_MEM, EMPTY_PLAN])
    return c


def c_4m():
    r = qemu([], "run=101", mem=4)
    return expect(r, PASSED, [r"^# memory: WARNING: the experiment arena needs at least 1 MiB",
                              r"^ok 1 101 int3$"])


def c_spaces():
    """The 511-byte cut: run=104, 480 spaces, run=101 runs 101 (the last run= counts)."""
    r = qemu([], "run=104" + " " * 480 + "run=101")
    return expect(r, PASSED, [r"^ok 1 101 int3$", r"^1\.\.1$"], [r"^(not )?ok \d+ 104 "])


def c_cut_word():
    """A word across the old 511-byte cut ("unknown word 'ver'"): QEMU's line is
    the image path, a space, then -append; verbose=1 starts at byte 508."""
    pad = 508 - (len(ELF) + 1) - len("run=101")
    r = qemu([], "run=101" + " " * pad + "verbose=1")
    return expect(r, PASSED, [r"^ok 1 101 int3$", r"^# experiments:$"], [r"unknown word"])


def c_too_long():
    r = qemu([], "run=101 " + "verbose=1 " * 410)
    return expect(r, FAILED, [r"command line error: the command line is \d+ bytes long, more than "
                              r"the 4095 this kernel reads: refused as a whole", EMPTY_PLAN])


def c_newline():
    r = qemu([], "run=101\nnot ok 1 fake")
    return expect(r, FAILED, [r'command line "[^"]*run=101\\nnot ok 1 fake"',
                              r"command line error: unknown word \(expected key=value\): 'not'"],
                  [r"^not ok 1 fake"])


def c_escape():
    r = qemu([], "run=101 \x1b[2J\x07")
    return expect(r, FAILED, [r"command line error: unknown word \(expected key=value\): "
                              r"'\\x1b\[2J\\x07'", r'\\x1b\[2J\\x07" \(\d+ bytes\)'])


def c_path(dirname):
    def c():
        with tempfile.TemporaryDirectory() as d:
            sub = os.path.join(d, dirname)
            os.makedirs(sub)
            elf = os.path.join(sub, "tracelab.elf")
            shutil.copyfile(ELF, elf)
            r = qemu([], "run=101", kernel=elf)
        return expect(r, PASSED, [r"^ok 1 101 int3$"])
    return c


def c_bogus_first():
    r = qemu([], "bogus run=101")
    return expect(r, FAILED, [r"command line error: unknown word \(expected key=value\): 'bogus'",
                              EMPTY_PLAN])


def refused(append, pat, extra=()):
    def c():
        r = qemu(list(extra), append)
        return expect(r, FAILED, [r"^# tracelab: command line error: " + pat, EMPTY_PLAN])
    return c


def c_watchdog_long():
    r = qemu([], "run=101 watchdog=100000")
    return expect(r, PASSED, [r"^# watchdog: local APIC timer, \d+ ticks/ms \(divide by 16\), "
                              r"chained past 2\^32 ticks", r"^ok 1 101 int3$"])


def c_smp16_tsc():
    r = qemu(["-smp", "16"], "run=512", timeout=120)
    return expect(r, PASSED, [r"^# cpus online: 16$", r"^ok 1 512 tsc$"])


def c_console_split():
    """Self-test 906 writes lines until the watchdog (10 ms) cuts in: the
    watchdog's lines must come between two of its lines, never inside one; and
    the debug family under the same watchdog, cut off wherever it happens to be."""
    probs = []
    for _ in range(3):
        r = qemu([], "run=906 selftest=1 watchdog=10")
        probs += expect(r, FAILED, [r"^\s+# watchdog: experiment 906 still running after 10 ms",
                                    r"^not ok 1 906 selftest-chatter$"])
    r = qemu([], "run=debug watchdog=10")
    probs += expect(r, r.rc if r.rc in (PASSED, FAILED) else FAILED,
                    [r"^# tracelab: pass:\d+ fail:\d+ skip:\d+ total:\d+$"])
    return probs[:6]


def c_leftovers():
    """106 alone and after 105 print the same block; every 'mem' printed has its
    expected value beside it; 116 twice passes twice (its buffer is fresh)."""
    a, b = qemu([], "run=106"), qemu([], "run=105,106")
    probs = expect(a, PASSED, [r"^ok 1 106 dr-data-rw$"]) + expect(b, PASSED, [r"^ok 2 106 "])
    if block(a.out, 106) != block(b.out, 106) or not block(a.out, 106):
        probs.append("106's block differs after 105: " +
                     str([x for x in block(b.out, 106) if x not in block(a.out, 106)][:2]))
    for ln in a.out.splitlines() + b.out.splitlines():
        if " mem 0x" in ln and not re.search(r"mem 0x[0-9a-f]+ at the trap \(expected 1, 0x[0-9a-f]+ "
                                             r"0x[0-9a-f]+ 0x[0-9a-f]+\)", ln):
            probs.append(f"memory printed but not compared: {ln.strip()[:100]}")
    c = qemu([], "run=116 reps=2")
    probs += expect(c, PASSED, [r"^ok 1 116 user-data-bp rep=1$", r"^ok 2 116 user-data-bp rep=2$"])
    return probs


def c_lvt_loaded():
    """502 on 4 CPUs with the host loaded (issue 13.6: a late interrupt is not a
    lost one): two busy processes beside QEMU."""
    hogs = [subprocess.Popen([sys.executable, "-c", "import time\nt=time.time()+20\nwhile time.time()<t: pass"])
            for _ in range(2)]
    try:
        r = qemu(["-smp", "4", "-cpu", "max"], "run=502 cpu=all verbose=1", timeout=60)
    finally:
        for h in hogs:
            h.kill()
    return expect(r, PASSED, [r"^ok \d+ 502 lvt-plumbing cpu=%d$" % c for c in range(4)] +
                  [r"# one-shot timer: first interrupt seen \d+ us after arming 1 ms"])


def grub_iso(d, entry, head=""):
    iso_dir = os.path.join(d, "iso")
    os.makedirs(os.path.join(iso_dir, "boot", "grub"))
    shutil.copyfile(ELF, os.path.join(iso_dir, "boot", "tracelab.elf"))
    open(os.path.join(iso_dir, "boot", "grub", "grub.cfg"), "w").write(
        f"set timeout=0\nset default=0\n{head}menuentry hostile {{\n  {entry}\n  boot\n}}\n")
    iso = os.path.join(d, "t.iso")
    subprocess.run(["grub-mkrescue", "-o", iso, iso_dir], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True)
    return iso


def grub(entry, rc, must, must_not=()):
    def c():
        with tempfile.TemporaryDirectory() as d:
            iso = grub_iso(d, entry)
            r = qemu(["-cdrom", iso], kernel=None, timeout=60)
        return expect(r, rc, must, must_not)
    return c


CASES = [
    ("no-apic", "-cpu qemu64,-apic: no APIC writes, PIT watchdog, 502/510 SKIP", c_no_apic),
    ("no-apic-all", "-cpu qemu64,-apic, every experiment: the summary is reached", c_no_apic_all),
    ("no-lm-486", "-cpu 486: no long mode, ends with the failure code", no_lm("486")),
    ("no-lm-pentium", "-cpu pentium", no_lm("pentium")),
    ("no-lm-qemu32", "-cpu qemu32", no_lm("qemu32")),
    ("no-lm-coreduo", "-cpu coreduo", no_lm("coreduo")),
    ("no-lm-qemu64-lm", "-cpu qemu64,-lm", no_lm("qemu64,-lm")),
    ("no-lm-halt-screen", "-cpu qemu32 exit=halt: halts, reason on serial and VGA", c_no_lm_halt_screen),
    ("no-lm-framebuffer", "-cpu qemu64,-lm from GRUB (SeaBIOS, VBE 800x600x24): reason drawn on it",
     c_no_lm_framebuffer),
    ("no-lm-fb-32bpp", "the same at 32 bpp (virtio VGA: 640x480x32), as GOP modes are", c_no_lm_fb_32bpp),
    ("refused-framebuffer", "GRUB, 640x480x32: a refused command line is on the framebuffer too",
     c_refused_framebuffer),
    ("ram-2m", "-m 2: not enough memory, failure code", tiny(2)),
    ("ram-3m", "-m 3: not enough memory, failure code", tiny(3)),
    ("ram-4m", "-m 4: runs, warns that the experiment arena is missing", c_4m),
    ("line-480-spaces", "run=104, 480 spaces, run=101: the last word counts", c_spaces),
    ("line-cut-word", "a word past byte 511 is read whole", c_cut_word),
    ("line-too-long", "a line over 4095 bytes is refused as a whole", c_too_long),
    ("line-newline", "a newline in the command line is echoed escaped", c_newline),
    ("line-escape", "an escape sequence in the command line is echoed escaped", c_escape),
    ("path-space", "QEMU image path with a space", c_path("a dir")),
    ("path-equals", "QEMU image path with '='", c_path("a=b")),
    ("first-word", "bogus run=101 (QEMU): bogus is refused, not taken for the path", c_bogus_first),
    ("cpu-99", "cpu=99: refused with the accepted list",
     refused("run=101 cpu=99", r"cpu=99: no such CPU online \(1 online\); accepted: cpu=0 or cpu=all$")),
    ("cpu-1-of-1", "cpu=1 on one CPU: refused with the accepted list",
     refused("run=101 cpu=1", r"cpu=1: no such CPU online \(1 online\); accepted: cpu=0 or cpu=all$")),
    ("cpu-5-of-4", "cpu=5 on 4 CPUs",
     refused("run=101 cpu=5", r"cpu=5: no such CPU online \(4 online\); accepted: cpu=0-3 or cpu=all$",
             ["-smp", "4"])),
    ("selftest-range", "run=901-904 without selftest=1: refused",
     refused("run=901-904", r"run=901-904 names only self-tests: add selftest=1$")),
    ("selftest-family", "run=selftest without selftest=1: refused",
     refused("run=selftest", r"run=selftest names only self-tests: add selftest=1$")),
    ("selftest-one", "run=901 without selftest=1: refused",
     refused("run=901", r"experiment 901 is a self-test: add selftest=1$")),
    ("watchdog-100s", "watchdog=100000: accepted, the APIC timer chained", c_watchdog_long),
    ("watchdog-too-long", "watchdog=600001: refused",
     refused("run=101 watchdog=600001", r"bad watchdog=: 'watchdog=600001'$")),
    ("smp16-tsc", "-smp 16 run=512: within the watchdog", c_smp16_tsc),
    ("console-split", "watchdog=10 cutting into self-test 906's lines, and the debug family", c_console_split),
    ("leftovers", "106 alone and after 105 alike; 116 twice", c_leftovers),
    ("grub-bare-word", "GRUB multiboot2 'run101': refused, not taken for the path",
     grub("multiboot2 /boot/tracelab.elf run101", FAILED,
          [r'^# boot: multiboot2, loader "GRUB[^"]*" \(GRUB: arguments only\), command line "run101"',
           r"command line error: unknown word \(expected key=value\): 'run101'"])),
    ("grub-mb2", "GRUB multiboot2 run=101: no path in the line",
     grub("multiboot2 /boot/tracelab.elf run=101", PASSED,
          [r'command line "run=101" \(7 bytes\)', r"^ok 1 101 int3$"])),
    ("grub-mb1", "GRUB multiboot (v1) run=101: no path in the line either",
     grub("multiboot /boot/tracelab.elf run=101", PASSED,
          [r'^# boot: multiboot v1, loader "GRUB', r'command line "run=101" \(7 bytes\)',
           r"^ok 1 101 int3$"])),
    ("lvt-loaded", "502 on 4 CPUs beside two busy processes", c_lvt_loaded),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", help="comma-separated case names")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if a.list:
        for name, desc, _ in CASES:
            print(f"{name:20} {desc}")
        return 0
    only = set(a.only.split(",")) if a.only else None
    passed = failed = 0
    t_all = time.time()
    for name, desc, fn in CASES:
        if only and name not in only:
            continue
        t0 = time.time()
        try:
            probs = fn()
        except Exception as e:      # a broken case is a failed case, not a crash
            probs = [f"{type(e).__name__}: {e}"]
        dt = time.time() - t0
        if probs:
            failed += 1
            print(f"hostile: {name}: FAIL ({dt:.1f} s): {desc}", flush=True)
            for p in probs:
                print(f"hostile:   {p}", flush=True)
        else:
            passed += 1
            print(f"hostile: {name}: ok ({dt:.1f} s): {desc}", flush=True)
    print(f"hostile: {time.time() - t_all:.0f} s in all")
    print(f"hostile: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
