#!/usr/bin/env bash
# Boot tracelab in QEMU with serial on the terminal.
#
#   ./run-qemu.sh [options] [-- extra qemu args]
#     -r LIST     experiments (run=LIST: numbers, ranges a-b, families, all)  [all]
#     -a ARGS     more kernel command-line words (e.g. "verbose=1 reps=3")
#     -i          boot the ISO (GRUB, multiboot2) instead of the ELF directly
#     -u          UEFI: OVMF firmware (implies -i)
#     -U          attach the ISO as a USB mass-storage disk instead of a CD (implies -i)
#     -k          KVM on (needs a hardware-backed /dev/kvm)
#     -c MODEL    CPU model (default: QEMU's; e.g. max, host, Skylake-Client)
#     -s N        number of CPUs                                          [1]
#     -g          gdb stub on :1234, CPU halted at start
#     -d          show the screen (default: -display none)
#     -n          no serial port, as on most laptops: the screen is the only
#                 output (with -d; tests/usb-boot.sh checks this unattended)
#     -I FILE     ISO path                                   [build/tracelab.iso]
#     -N          network boot, as a lab does it, over QEMU's built-in DHCP and
#                 TFTP: the NIC's ROM (iPXE, Debian's ipxe-qemu) runs an iPXE
#                 script that loads build/tracelab.elf with the command line
#                 (-r, -a; build/ is the TFTP root).  With -i (SeaBIOS) or -u
#                 (OVMF): GRUB's network image from build/netboot (make netdir)
#                 and its menu instead
#     -p NAME     boot as the matrix platform NAME boots (tests/platforms.py list);
#                 the other options then change it (-r/-a: its command line)
#     -q VER      which QEMU: 7 (Debian's 7.2, qemu-system-x86_64 on PATH) or 10
#                 (10.0 from bookworm-backports, fetched by `tools/deps.sh test`
#                 into ~/.cache/tracelab/qemu-10.0)                         [7]
# The command line comes from tests/platforms.py, where every platform is defined:
# qemu-tcg by default, qemu-seabios-iso with -i, qemu-ovmf-iso with -u,
# qemu-netboot with -N.
# Exit status: 0 when every experiment passed or skipped, 1 otherwise, 2 on a
# boot that never reached the summary (QEMU's isa-debug-exit gives 1 / 3).
set -u
here=$(cd "$(dirname "$0")" && pwd)
run="" args="" iso=0 uefi=0 usb=0 kvm=0 cpu_model="" smp="" gdb=0 display=0 serial=stdio
platform="" net=0 qver=7
iso_path="$here/build/tracelab.iso"
while getopts "r:a:iuUkc:s:gdnI:Np:q:h" o; do
	case $o in
	r) run=$OPTARG ;;
	a) args=$OPTARG ;;
	i) iso=1 ;;
	u) uefi=1 iso=1 ;;
	U) usb=1 iso=1 ;;
	k) kvm=1 ;;
	c) cpu_model=$OPTARG ;;
	s) smp=$OPTARG ;;
	g) gdb=1 ;;
	d) display=1 ;;
	n) serial=none ;;
	I) iso_path=$OPTARG ;;
	N) net=1 ;;
	p) platform=$OPTARG ;;
	q) qver=$OPTARG ;;
	*) sed -n '2,33p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))

if [ -z "$platform" ]; then
	platform=qemu-tcg
	[ $iso = 1 ] && platform=qemu-seabios-iso
	[ $uefi = 1 ] && platform=qemu-ovmf-iso
	[ $net = 1 ] && [ $iso = 0 ] && platform=qemu-netboot && run=${run:-all}
fi
set_=()
if [ $net = 1 ] && [ $iso = 1 ]; then
	[ -f "$here/build/netboot/boot/tracelab.elf" ] || { echo "run-qemu.sh: no build/netboot (make netdir)" >&2; exit 2; }
	set_+=(--set boot=grub-net)
fi
case $qver in
7|7.2) ;;
10|10.0)
	# tools/deps.sh test's command for it (its own ROMs, SeaBIOS and modules)
	q10="$("$here/tools/backports.sh" dir qemu-10.0)/qemu-system-x86_64"
	[ -x "$q10" ] || { echo "run-qemu.sh: no $q10: run tools/deps.sh test" >&2; exit 2; }
	set_+=(--set binary="$q10") ;;
*) echo "run-qemu.sh: -q $qver: 7 or 10" >&2; exit 2 ;;
esac
[ $usb = 1 ] && set_+=(--set boot=usb)
[ $kvm = 1 ] && set_+=(--set accel=kvm)
[ -n "$cpu_model" ] && set_+=(--set cpu="$cpu_model")
[ -n "$smp" ] && set_+=(--set smp="$smp")
[ $display = 1 ] && set_+=(--display)
[ $gdb = 1 ] && set_+=(--gdb)
if [ -n "$run$args" ]; then
	if [ $iso = 1 ]; then
		echo "run-qemu.sh: with -i the GRUB menu's default entry decides what runs" >&2
	else
		cmdline=$(python3 "$here/tests/platforms.py" cmdline "$platform") || exit 2
		# -r replaces the platform's run= list; -a adds words
		[ -n "$run" ] && cmdline="run=$run $(tr ' ' '\n' <<<"$cmdline" | grep -v '^run=' | tr '\n' ' ')"
		set_+=(--append "${cmdline% } $args")
	fi
fi
vars=$(mktemp /tmp/tracelab-vars.XXXXXX)
script=netboot-$$.ipxe          # an iPXE boot's script, in the TFTP root build/
trap 'rm -f "$vars" "$here/build/$script"' EXIT
cp /usr/share/OVMF/OVMF_VARS_4M.fd "$vars" 2>/dev/null
argv=$(python3 "$here/tests/platforms.py" argv "$platform" --lines "${set_[@]}" --serial "$serial" \
	--elf "$here/build/tracelab.elf" --iso "$iso_path" --vars "$vars" --net-script "$script") || exit 2
mapfile -t q <<<"$argv"
"${q[@]}" "$@"
rc=$?
case $rc in
1) exit 0 ;;
3) exit 1 ;;
*) exit 2 ;;
esac
