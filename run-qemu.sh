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
# Exit status: 0 when every experiment passed or skipped, 1 otherwise, 2 on a
# boot that never reached the summary (QEMU's isa-debug-exit gives 1 / 3).
set -u
here=$(cd "$(dirname "$0")" && pwd)
run=all args="" iso=0 uefi=0 usb=0 kvm=0 cpu_model="" smp=1 gdb=0 display=0 serial=stdio net=0
iso_path="$here/build/tracelab.iso"
while getopts "r:a:iuUkc:s:gdnI:Nh" o; do
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
	*) sed -n '2,26p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))

q=(qemu-system-x86_64 -m 256 -smp "$smp" -no-reboot -serial "$serial"
   -device isa-debug-exit,iobase=0xf4,iosize=4)
[ $display = 1 ] || q+=(-display none)
[ $kvm = 1 ] && q+=(-accel kvm) || q+=(-accel tcg)
[ -n "$cpu_model" ] && q+=(-cpu "$cpu_model")
[ $gdb = 1 ] && q+=(-s -S)
if [ $net = 1 ] && [ $iso = 0 ]; then
	# The script is fetched by the name DHCP hands out (QEMU's bootfile=), then
	# loads the kernel relative to its own URL; iPXE's multiboot loader passes
	# "URL args" as the command line (the kernel skips the first word).
	script=netboot-$$.ipxe
	printf '#!ipxe\necho tracelab: network boot\nkernel tracelab.elf %s\nboot\n' "run=$run $args" \
		> "$here/build/$script"
	trap 'rm -f "$here/build/$script"' EXIT
	q+=(-netdev "user,id=net0,tftp=$here/build,bootfile=$script" -device e1000,netdev=net0 -boot n)
elif [ $iso = 1 ]; then
	[ "$run" = all ] && [ -z "$args" ] || echo "run-qemu.sh: with -i the GRUB menu's default entry decides what runs" >&2
	if [ $uefi = 1 ]; then
		vars=$(mktemp /tmp/tracelab-vars.XXXXXX)
		cp /usr/share/OVMF/OVMF_VARS_4M.fd "$vars"
		trap 'rm -f "$vars"' EXIT
		q+=(-machine q35 -drive if=pflash,format=raw,readonly=on,file=/usr/share/OVMF/OVMF_CODE_4M.fd
		    -drive if=pflash,format=raw,file="$vars")
	fi
	if [ $net = 1 ]; then
		[ -f "$here/build/netboot/boot/tracelab.elf" ] || { echo "run-qemu.sh: no build/netboot (make netdir)" >&2; exit 2; }
		nbp=boot/grub/i386-pc/core.0
		[ $uefi = 1 ] && nbp=boot/grub/x86_64-efi/core.efi
		q+=(-netdev "user,id=net0,tftp=$here/build/netboot,bootfile=$nbp" -device e1000,netdev=net0 -boot n)
	elif [ $usb = 1 ]; then
		q+=(-drive if=none,id=stick,format=raw,readonly=on,file="$iso_path"
		    -device qemu-xhci -device usb-storage,drive=stick,bootindex=0)
	else
		q+=(-cdrom "$iso_path")
	fi
fi
if [ $iso = 0 ] && [ $net = 0 ]; then
	q+=(-kernel "$here/build/tracelab.elf" -append "run=$run $args")
fi
"${q[@]}" "$@"
rc=$?
case $rc in
1) exit 0 ;;
3) exit 1 ;;
*) exit 2 ;;
esac
