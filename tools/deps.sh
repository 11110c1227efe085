#!/usr/bin/env bash
# Installs what tracelab needs on Debian (12 "bookworm"), if anything is missing.
#   tools/deps.sh build   the kernel, ISO and QEMU (make, make iso, make run)
#   tools/deps.sh test    everything make test uses (adds Bochs, OVMF, libipt, clang)
# As root it runs apt-get; otherwise it prints the exact command and fails.
set -eu
build=(make gcc binutils grub-common grub-pc-bin grub-efi-amd64-bin xorriso mtools
       qemu-system-x86 seabios ovmf ipxe-qemu libipt-dev python3)
test=(bochs bochsbios vgabios clang libclang-rt-14-dev zbar-tools)
case "${1:-test}" in
build) want=("${build[@]}") ;;
*) want=("${build[@]}" "${test[@]}") ;;
esac
missing=()
for p in "${want[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} = 0 ] && exit 0
cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" = 0 ]; then
	echo "deps: installing ${missing[*]}"
	sh -c "$cmd" >/tmp/tracelab-apt.log 2>&1 || { tail -20 /tmp/tracelab-apt.log; exit 1; }
else
	echo "deps: missing Debian packages: ${missing[*]}"
	echo "deps: run as root:  sudo sh -c '$cmd'"
	exit 1
fi
