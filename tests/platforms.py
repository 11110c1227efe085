#!/usr/bin/env python3
"""How each platform is booted: the one place that says it.

run-qemu.sh, tests/matrix.py and tests/bench.sh all build their command lines
here.  A platform is one Platform(...) entry in PLATFORMS; its expectations are
rules in tests/expect/expect.txt (only where it differs from PASS).

    python3 tests/platforms.py list                 name, available here?, description
    python3 tests/platforms.py argv NAME [options]  the emulator's command line (QEMU)
    python3 tests/platforms.py bochsrc NAME --iso ISO --serial-out FILE
    python3 tests/platforms.py cmdline NAME         the kernel command line it boots with

argv options: --set FIELD=VALUE (override a field, e.g. cpu=max, smp=2, accel=kvm,
boot=usb), --append WORDS (the kernel command line, -kernel boots), --elf, --iso,
--vars FILE (a writable copy of the OVMF variables, OVMF platforms), --net-script
NAME (iPXE boots: written to build/NAME with the command line), --serial
stdio|none, --display (show the screen), --gdb (stub on :1234, halted), --lines
(one argument per line, for mapfile; default: one shell-quoted line).
"""
import argparse
import dataclasses
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = os.path.join(ROOT, "build")
ELF = os.path.join(B, "tracelab.elf")
ISO_CI = os.path.join(B, "tracelab-ci.iso")        # the matrix's: no menu timeout
GRUB_CFG_CI = os.path.join(B, "isoci", "boot", "grub", "grub.cfg")
OVMF_CODE = "/usr/share/OVMF/OVMF_CODE_4M.fd"
OVMF_VARS = "/usr/share/OVMF/OVMF_VARS_4M.fd"
IPXE_ROM = "/usr/lib/ipxe/qemu/pxe-e1000.rom"       # Debian's ipxe-qemu: QEMU's e1000 boot ROM
NETDIR = os.path.join(B, "netboot")                 # make netdir
EXIT_DEVICE = "isa-debug-exit,iobase=0xf4,iosize=4"  # the kernel's exit=qemu port


@dataclass(frozen=True)
class Platform:
    name: str
    desc: str
    emulator: str = "qemu"          # qemu | bochs
    binary: str = ""                # emulator binary: default qemu-system-x86_64 / bochs
    firmware_dir: str = ""          # QEMU -L DIR (a private QEMU's BIOS, option ROMs)
    accel: str = "tcg"              # QEMU -accel
    cpu: str = ""                   # QEMU -cpu MODEL / Bochs cpu: model=; "" = the emulator's default
    machine: str = ""               # QEMU -machine
    firmware: str = "bios"          # bios (SeaBIOS / Bochs's BIOS) | ovmf (UEFI)
    boot: str = "kernel"            # kernel: -kernel ELF -append CMDLINE (multiboot v1)
                                    # cdrom | usb: the ISO through GRUB (multiboot2)
                                    # ipxe: the NIC's iPXE ROM runs a script (net_script)
                                    #   from QEMU's TFTP (root build/) that loads the ELF
                                    #   (multiboot v1) with CMDLINE
                                    # grub-net: GRUB's network image from build/netboot
                                    #   (make netdir) and the ISO's menu
    memory: int = 256               # MiB
    smp: int = 1
    devices: tuple = ()             # more QEMU -device arguments
    cmdline: str = "run=all"        # the kernel command line (-kernel boots; ISO boots
                                    # run GRUB's default entry: see boot_cmdline())
    timeout: int = 60               # seconds, for the matrix
    groups: tuple = ()              # group names expectation rules can use
    optin: str = ""                 # environment variable that must be "1" (MATRIX_KVM)
    local_rules: str = ""           # a per-machine expectation file, besides tests/expect/expect.txt
    exit_device: bool = True        # QEMU's isa-debug-exit (off: the kernel halts, as on hardware)
    in_matrix: bool = True          # False: booted by another test (tests/usb-boot.sh)
    refused: bool = False           # the command line is malformed on purpose: the kernel
                                    # must refuse it (KTAP with the plan 1..0, a failure exit)

    def exe(self):
        return self.binary or ("bochs" if self.emulator == "bochs" else "qemu-system-x86_64")


def qemu10():
    """QEMU 10.0 from bookworm-backports: the command tools/deps.sh test writes into
    its private cache (tools/backports.sh says where), which puts QEMU 10's own
    option ROMs, SeaBIOS and modules ahead of Debian 7.2's."""
    try:
        d = subprocess.run([os.path.join(ROOT, "tools", "backports.sh"), "dir", "qemu-10.0"],
                           stdout=subprocess.PIPE, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        d = ""
    return os.path.join(d, "qemu-system-x86_64") if d else "qemu10-not-fetched"


QEMU10 = qemu10()


SELFTEST = "run=901-905,910-912,501 selftest=1 watchdog=200 mode=long,pm32"
PM32 = "run=all mode=pm32,pm32pg,pm32pae"
QEMU72 = ("qemu7.2-tcg",)           # Debian 12's QEMU 7.2 under TCG: its deviations
BOCHS27 = ("bochs2.7",)             # Debian 12's Bochs 2.7
QEMU10G = ("qemu10.0-tcg",)         # QEMU 10.0 (bookworm-backports) under TCG

PLATFORMS = [
    Platform("qemu-tcg", "QEMU TCG, -kernel (multiboot v1), default CPU (qemu64)", groups=QEMU72),
    Platform("qemu-tcg-max", "QEMU TCG, -kernel, -cpu max", cpu="max", groups=QEMU72),
    # 32-bit protected mode with paging off, 32-bit and PAE paging (the ISO
    # platforms boot GRUB's default entry, which runs long mode and pm32)
    Platform("qemu-tcg-pm32", "QEMU TCG, -kernel, default CPU, 32-bit protected mode (paging off, 32-bit, PAE)",
             cmdline=PM32, groups=QEMU72),
    Platform("qemu-tcg-max-pm32", "QEMU TCG, -kernel, -cpu max, 32-bit protected mode (paging off, 32-bit, PAE)",
             cpu="max", cmdline=PM32, groups=QEMU72),
    Platform("qemu-tcg-selftest",
             "QEMU TCG, -kernel, the runner's self-tests (fail, fault, hang, leak, hash sign; "
             "fault and hang in protected mode) and 501",
             cmdline=SELFTEST, groups=QEMU72),
    Platform("qemu-tcg-smp4",
             "QEMU TCG, -kernel, -cpu max, 4 CPUs, debug and platform families on every CPU",
             cpu="max", smp=4, cmdline="run=debug,platform cpu=all", timeout=120, groups=QEMU72),
    Platform("qemu-tcg-reps", "QEMU TCG, -kernel, debug and platform families three times (reps=3)",
             cmdline="run=debug,platform reps=3", groups=QEMU72),
    Platform("qemu-tcg-refused", "QEMU TCG, -kernel, a malformed command line (must be refused)",
             cmdline="run=debug reps=0", refused=True, groups=QEMU72),
    Platform("qemu-netboot", "QEMU TCG, SeaBIOS, network boot: iPXE loads the ELF over TFTP, run=debug",
             boot="ipxe", cmdline="run=debug", groups=QEMU72),
    Platform("qemu-seabios-iso", "QEMU TCG, SeaBIOS, GRUB from the ISO (multiboot2)",
             boot="cdrom", timeout=120, groups=QEMU72),
    Platform("qemu-ovmf-iso", "QEMU TCG, OVMF (UEFI), GRUB from the ISO (multiboot2)",
             boot="cdrom", firmware="ovmf", machine="q35", timeout=180, groups=QEMU72),
    Platform("bochs-haswell", "Bochs 2.7, corei7_haswell_4770, GRUB from the ISO",
             emulator="bochs", cpu="corei7_haswell_4770", boot="cdrom", timeout=600, groups=BOCHS27),
    Platform("bochs-ryzen-smp2", "Bochs 2.7, ryzen, 2 CPUs, GRUB from the ISO",
             emulator="bochs", cpu="ryzen", smp=2, boot="cdrom", timeout=600, groups=BOCHS27),
    # QEMU 10.0 (bookworm-backports, tools/deps.sh test).  Its -cpu max has x2APIC,
    # so 503/504 and the kernel's x2APIC path run.  The watchdog self-test (903)
    # rides along on max (the LVT timer cutting off a hang through MSRs 832H/838H,
    # 3 s) instead of a selftest platform of its own; on the 4 CPUs it would cost
    # 3 s per CPU, and 502/503 already fire and read the LVT timer on every AP.
    # No SeaBIOS-ISO or netboot platform: those loader paths are QEMU 7.2's
    # platforms' business; OVMF covers QEMU 10's ISO boot.
    Platform("qemu10-tcg", "QEMU 10.0 TCG, -kernel, default CPU (qemu64, no x2APIC)",
             binary=QEMU10, groups=QEMU10G),
    Platform("qemu10-tcg-max", "QEMU 10.0 TCG, -kernel, -cpu max (x2APIC), and the watchdog self-test",
             binary=QEMU10, cpu="max", cmdline="run=all,903 selftest=1", groups=QEMU10G),
    Platform("qemu10-tcg-smp4",
             "QEMU 10.0 TCG, -kernel, -cpu max (x2APIC), 4 CPUs, debug and platform families on every CPU",
             binary=QEMU10, cpu="max", smp=4, cmdline="run=debug,platform cpu=all", timeout=120,
             groups=QEMU10G),
    Platform("qemu10-ovmf-iso", "QEMU 10.0 TCG, OVMF (UEFI), GRUB from the ISO (multiboot2)",
             binary=QEMU10, boot="cdrom", firmware="ovmf", machine="q35", timeout=180, groups=QEMU10G),
    # The USB-stick boot as on a real machine (tests/usb-boot.sh reads the screen):
    # no serial port (--serial none), no isa-debug-exit, so the kernel halts.
    Platform("qemu-seabios-usb", "QEMU TCG, SeaBIOS, the ISO as a USB stick, no exit device",
             boot="usb", machine="pc", exit_device=False, in_matrix=False, timeout=300),
    Platform("qemu-ovmf-usb", "QEMU TCG, OVMF (UEFI), the ISO as a USB stick, no exit device",
             boot="usb", firmware="ovmf", machine="q35", exit_device=False, in_matrix=False,
             timeout=300),
    # Opt-in: what passes under KVM is the host CPU's (PMU, PEBS, PT, LBR), so its
    # expectations are per machine (tests/expect/qemu-kvm.txt, see expect.txt).
    Platform("qemu-kvm", "QEMU with a hardware-backed KVM, -cpu host", accel="kvm", cpu="host",
             optin="MATRIX_KVM", local_rules="tests/expect/qemu-kvm.txt"),
]
BY_NAME = {p.name: p for p in PLATFORMS}


def groups():
    """{group name: [platform names]} from the platforms' groups fields."""
    g = {}
    for p in PLATFORMS:
        for n in p.groups:
            g.setdefault(n, []).append(p.name)
    return g


def get(name):
    if name not in BY_NAME:
        raise KeyError(f"unknown platform '{name}' (known: {', '.join(BY_NAME)})")
    return BY_NAME[name]


def override(p, settings):
    """A copy of p with FIELD=VALUE settings applied (run-qemu.sh's -c, -s, -k, -U)."""
    kw = {}
    fields = {f.name: f for f in dataclasses.fields(Platform)}
    for s in settings:
        k, _, v = s.partition("=")
        if k not in fields or k in ("groups", "devices"):
            raise KeyError(f"no platform field '{k}'")
        kw[k] = int(v) if fields[k].type in (int, "int") else v
    return dataclasses.replace(p, **kw)


def hw_kvm():
    """A hardware-backed KVM: kvm_intel or kvm_amd loaded (kvm_pvm is not one)."""
    if not os.path.exists("/dev/kvm"):
        return False
    mods = open("/proc/modules").read() if os.path.exists("/proc/modules") else ""
    return bool(re.search(r"^kvm_(intel|amd) ", mods, re.M))


def available(p, iso=ISO_CI):
    """None when p can boot here, else why not."""
    if p.optin and os.environ.get(p.optin) != "1":
        return f"opt-in: {p.optin}=1"
    if not shutil.which(p.exe()):
        return f"no {p.exe()}"
    if p.accel == "kvm" and not hw_kvm():
        return "no hardware-backed KVM"
    if p.boot != "kernel" and not os.path.exists(iso):
        return f"no {os.path.relpath(iso, ROOT)}"
    if p.firmware == "ovmf" and not os.path.exists(OVMF_CODE):
        return f"no {OVMF_CODE}"
    if p.boot in ("ipxe", "grub-net") and not os.path.exists(IPXE_ROM):
        return f"no {IPXE_ROM}"
    if p.boot == "grub-net" and not os.path.exists(NETDIR):
        return f"no {os.path.relpath(NETDIR, ROOT)} (make netdir)"
    return None


def boot_cmdline(p, grub_cfg=GRUB_CFG_CI):
    """The kernel command line p boots with: its own for -kernel and iPXE boots;
    for GRUB boots the menu's default (first) entry, as tools/mkmenu wrote it."""
    if p.boot in ("kernel", "ipxe"):
        return p.cmdline
    try:
        for line in open(grub_cfg):
            m = re.match(r"\s*multiboot2\s+\S+\s*(.*)$", line)
            if m:
                return m.group(1).strip()
    except OSError:
        pass
    return p.cmdline


def ipxe_script(cmdline):
    """The iPXE script an ipxe boot fetches (by the name DHCP hands out) from the
    TFTP root build/; it loads the kernel relative to its own URL, and iPXE's
    multiboot loader passes "URL args" as the command line (the kernel skips the
    first word)."""
    return f"#!ipxe\necho tracelab: network boot\nkernel tracelab.elf {cmdline}\nboot\n"


def qemu_argv(p, elf=ELF, iso=ISO_CI, vars_file=None, append=None, serial="stdio",
              display=False, gdb=False, net_script=None):
    """QEMU's argument list for platform p.  An ipxe boot needs net_script: the
    name, in build/, of a file holding ipxe_script(the command line)."""
    if p.emulator != "qemu":
        raise ValueError(f"{p.name} is not a QEMU platform")
    q = [p.exe()]
    if p.firmware_dir:
        q += ["-L", p.firmware_dir]
    q += ["-m", str(p.memory), "-smp", str(p.smp), "-no-reboot", "-serial", serial]
    if p.exit_device:
        q += ["-device", EXIT_DEVICE]
    if not display:
        q += ["-display", "none"]
    q += ["-accel", p.accel]
    if p.cpu:
        q += ["-cpu", p.cpu]
    if gdb:
        q += ["-s", "-S"]
    if p.machine:
        q += ["-machine", p.machine]
    if p.firmware == "ovmf":
        if not vars_file:
            raise ValueError(f"{p.name}: OVMF needs a writable copy of {OVMF_VARS} (--vars FILE)")
        q += ["-drive", f"if=pflash,format=raw,readonly=on,file={OVMF_CODE}",
              "-drive", f"if=pflash,format=raw,file={vars_file}"]
    for d in p.devices:
        q += ["-device", d]
    if p.boot == "ipxe":
        if not net_script:
            raise ValueError(f"{p.name}: an iPXE boot needs its script in build/ (--net-script NAME)")
        q += ["-netdev", f"user,id=net0,tftp={B},bootfile={net_script}",
              "-device", "e1000,netdev=net0", "-boot", "n"]
    elif p.boot == "grub-net":
        nbp = "boot/grub/x86_64-efi/core.efi" if p.firmware == "ovmf" else "boot/grub/i386-pc/core.0"
        q += ["-netdev", f"user,id=net0,tftp={NETDIR},bootfile={nbp}",
              "-device", "e1000,netdev=net0", "-boot", "n"]
    elif p.boot == "usb":
        q += ["-drive", f"if=none,id=stick,format=raw,readonly=on,file={iso}",
              "-device", "qemu-xhci", "-device", "usb-storage,drive=stick,bootindex=0"]
    elif p.boot == "cdrom":
        q += ["-cdrom", iso]
    else:
        q += ["-kernel", elf, "-append", p.cmdline if append is None else append]
    return q


def bochsrc(p, iso, serial_out):
    """Bochs's configuration for platform p.
    Bochs 2.7 as Debian builds it: no 'nogui' display, the debugger compiled in
    (it stops at its prompt: we feed it "c"), and GRUB 2.06 triple-faults in its
    VBE mode set with Bochs's VBE BIOS, so the Cirrus VGA it is (GRUB then leaves
    text mode, and the kernel uses VGA text).
    No sound: Debian's Bochs 2.7 opens ALSA for the PC speaker's mixer thread,
    and on a machine without a sound card under LANG=C.UTF-8 it aborts 0.2 s
    in with "*** buffer overflow detected ***" (glibc's fortify check).  The
    dummy sound driver alone avoids it; the speaker is off as well, because
    nothing listens (port 0x61's PIT gate and OUT2 are in the PIT, iodev/pit82c54,
    not in the speaker, so the kernel's timer calibration is unaffected)."""
    return f"""megs: {p.memory}
romimage: file=/usr/share/bochs/BIOS-bochs-latest
vgaromimage: file=/usr/share/vgabios/vgabios.cirrus.bin
vga: extension=cirrus
ata0-master: type=cdrom, path={iso}, status=inserted
boot: cdrom
com1: enabled=1, mode=file, dev={serial_out}
display_library: rfb, options="timeout=0"
cpu: count={p.smp}, model={p.cpu}, ips=200000000
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


def main(argv):
    ap = argparse.ArgumentParser(description="How each platform is booted.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list")
    a = sub.add_parser("argv")
    a.add_argument("name")
    a.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE")
    a.add_argument("--append")
    a.add_argument("--elf", default=ELF)
    a.add_argument("--iso", default=ISO_CI)
    a.add_argument("--vars")
    a.add_argument("--serial", default="stdio")
    a.add_argument("--display", action="store_true")
    a.add_argument("--gdb", action="store_true")
    a.add_argument("--lines", action="store_true")
    a.add_argument("--net-script")
    r = sub.add_parser("bochsrc")
    r.add_argument("name")
    r.add_argument("--iso", default=ISO_CI)
    r.add_argument("--serial-out", required=True)
    c = sub.add_parser("cmdline")
    c.add_argument("name")
    c.add_argument("--ipxe", action="store_true", help="the iPXE script for it")
    o = ap.parse_args(argv)
    try:
        if o.cmd == "list":
            for p in PLATFORMS:
                why = available(p)
                print(f"{p.name:18} {'yes' if why is None else 'no (' + why + ')':28} {p.desc}")
        elif o.cmd == "argv":
            p = override(get(o.name), o.set)
            if p.boot == "ipxe" and o.net_script:   # the script carries the command line
                with open(os.path.join(B, o.net_script), "w") as f:
                    f.write(ipxe_script(p.cmdline if o.append is None else o.append))
            q = qemu_argv(p, elf=o.elf, iso=o.iso, vars_file=o.vars, append=o.append,
                          serial=o.serial, display=o.display, gdb=o.gdb, net_script=o.net_script)
            print("\n".join(q) if o.lines else shlex.join(q))
        elif o.cmd == "bochsrc":
            sys.stdout.write(bochsrc(get(o.name), o.iso, o.serial_out))
        elif o.cmd == "cmdline":
            cl = boot_cmdline(get(o.name))
            sys.stdout.write(ipxe_script(cl) if o.ipxe else cl + "\n")
    except (KeyError, ValueError) as e:
        print(f"platforms.py: {e.args[0]}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
