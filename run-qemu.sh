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
# Exit status: 0 when every experiment passed or skipped, 1 otherwise, 2 on a
# boot that never reached the summary (QEMU's isa-debug-exit gives 1 / 3).
set -u
here=$(cd "$(dirname "$0")" && pwd)
run=all args="" iso=0 uefi=0 usb=0 kvm=0 cpu_model="" smp=1 gdb=0 display=0 serial=stdio
iso_path="$here/build/tracelab.iso"
while getopts "r:a:iuUkc:s:gdnI:h" o; do
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
	*) sed -n '2,19p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))

q=(qemu-system-x86_64 -m 256 -smp "$smp" -no-reboot -serial "$serial"
   -device isa-debug-exit,iobase=0xf4,iosize=4)
[ $display = 1 ] || q+=(-display none)
[ $kvm = 1 ] && q+=(-accel kvm) || q+=(-accel tcg)
[ -n "$cpu_model" ] && q+=(-cpu "$cpu_model")
[ $gdb = 1 ] && q+=(-s -S)
if [ $iso = 1 ]; then
	[ "$run" = all ] && [ -z "$args" ] || echo "run-qemu.sh: with -i the GRUB menu's default entry decides what runs" >&2
	if [ $uefi = 1 ]; then
		vars=$(mktemp /tmp/tracelab-vars.XXXXXX)
		cp /usr/share/OVMF/OVMF_VARS_4M.fd "$vars"
		trap 'rm -f "$vars"' EXIT
		q+=(-machine q35 -drive if=pflash,format=raw,readonly=on,file=/usr/share/OVMF/OVMF_CODE_4M.fd
		    -drive if=pflash,format=raw,file="$vars")
	fi
	if [ $usb = 1 ]; then
		q+=(-drive if=none,id=stick,format=raw,readonly=on,file="$iso_path"
		    -device qemu-xhci -device usb-storage,drive=stick,bootindex=0)
	else
		q+=(-cdrom "$iso_path")
	fi
else
	q+=(-kernel "$here/build/tracelab.elf" -append "run=$run $args")
fi
"${q[@]}" "$@"
rc=$?
case $rc in
1) exit 0 ;;
3) exit 1 ;;
*) exit 2 ;;
esac
