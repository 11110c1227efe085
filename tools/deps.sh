#!/usr/bin/env bash
# Installs what tracelab needs on Debian (12 "bookworm"), if anything is missing.
#   tools/deps.sh build   the kernel, ISO and QEMU (make, make iso, make run)
#   tools/deps.sh test    everything make test uses (adds Bochs, OVMF, libipt, clang,
#                         QEMU 10 from bookworm-backports beside Debian's 7.2, and the
#                         Linux kernel's KTAP parser into build/kunit: tools/ktap-parser.sh)
# As root it runs apt-get; otherwise it prints the exact command and fails.
#
# QEMU 10 is not installed: tools/backports.sh downloads it with a private apt
# configuration and unpacks it into ~/.cache/tracelab/qemu-10.0 (as any user; the
# machine's apt sources, lists and installed packages are left alone), and
# ~/.cache/tracelab/qemu-10.0/qemu-system-x86_64 runs it.  With it
# comes the SeaBIOS it was built against (it asks for > 1.16.3, bookworm has
# 1.16.2).  The shared libraries it links are all in bookworm at the versions it
# asks for; those not installed yet are installed from bookworm like any other
# dependency (qemu-system-x86 7.2 already pulls in most of them).
set -eu
build=(make gcc binutils grub-common grub-pc-bin grub-efi-amd64-bin xorriso mtools
       qemu-system-x86 seabios ovmf ipxe-qemu libipt-dev python3)
test=(bochs bochsbios vgabios clang libclang-rt-14-dev zbar-tools)
case "${1:-test}" in
build) want=("${build[@]}") ;;
*) want=("${build[@]}" "${test[@]}") ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
qemu10=(qemu-system-x86 qemu-system-data qemu-system-common seabios)
if [ "${1:-test}" != build ]; then
	# the Linux kernel's KTAP parser, from linux-source-6.12 (bookworm-backports),
	# fetched privately into a cache: nothing is installed
	"$here/ktap-parser.sh" || exit 1
	"$here/backports.sh" fetch qemu-10.0 "${qemu10[@]}" || exit 1
	# One command for it: its own option ROMs and SeaBIOS ahead of 7.2's in
	# /usr/share/qemu (-L), and its own modules (7.2's are refused, noisily).
	d=$("$here/backports.sh" dir qemu-10.0)
	cat >"$d/qemu-system-x86_64.new" <<-EOF
	#!/bin/sh
	# QEMU 10.0 from bookworm-backports, written by tracelab's tools/deps.sh
	export QEMU_MODULE_DIR="$d/usr/lib/x86_64-linux-gnu/qemu"
	exec "$d/usr/bin/qemu-system-x86_64" -L "$d/usr/share/qemu" -L "$d/usr/share/seabios" "\$@"
	EOF
	chmod +x "$d/qemu-system-x86_64.new" && mv "$d/qemu-system-x86_64.new" "$d/qemu-system-x86_64"
	# its Depends, first alternative, without versions, minus what we unpacked
	libs=$("$here/backports.sh" apt apt-cache show --no-all-versions qemu-system-x86 qemu-system-common |
	       sed -n 's/^Depends: //p' | tr ',' '\n' | sed 's/|.*//; s/(.*)//; s/ //g' |
	       grep -v -x -e qemu-system-data -e qemu-system-common -e seabios | sort -u)
	want+=($libs)
fi
missing=()
for p in "${want[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
qemu10_ldd() {
	[ "${1:-test}" = build ] && return 0
	local nf
	nf=$(ldd "$("$here/backports.sh" dir qemu-10.0)/usr/bin/qemu-system-x86_64" 2>&1 | grep 'not found' || true)
	[ -z "$nf" ] && return 0
	echo "deps: QEMU 10 (~/.cache/tracelab/qemu-10.0) lacks shared libraries:"; echo "$nf"
	return 1
}
[ ${#missing[@]} = 0 ] && { qemu10_ldd "$@"; exit; }
cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" = 0 ]; then
	echo "deps: installing ${missing[*]}"
	sh -c "$cmd" >/tmp/tracelab-apt.log 2>&1 || { tail -20 /tmp/tracelab-apt.log; exit 1; }
	qemu10_ldd "$@"
else
	echo "deps: missing Debian packages: ${missing[*]}"
	echo "deps: run as root:  sudo sh -c '$cmd'"
	exit 1
fi
