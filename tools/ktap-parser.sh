#!/usr/bin/env bash
# The Linux kernel's own KTAP parser for make test: tools/testing/kunit/
# kunit_parser.py and kunit_printer.py from Debian's linux-source-6.12
# (bookworm-backports; the newest and strictest parser Debian offers), copied
# into build/kunit/.  The two files are not part of tracelab: they are taken
# from the package at test time and never committed.
#
# The package comes through tools/backports.sh (a private apt configuration,
# `apt-get download`, `dpkg-deb -x` into the cache: the machine's apt sources,
# lists and installed packages are left alone).  It holds the kernel tree as a
# tarball; only the two files are taken out of it (about 15 s), once: they are
# kept beside the unpacked package.
#
#   tools/ktap-parser.sh [DEST]      [build/kunit]
set -eu
cd "$(dirname "$0")/.."
dest=${1:-build/kunit}
pkg=linux-source-6.12
files=(kunit_parser.py kunit_printer.py)
. tools/backports.sh
bp_fetch "$pkg" "$pkg"
src=$(bp_dir "$pkg")
kunit=$src/kunit
version=$(cat "$src/.packages")
if [ "$(cat "$kunit/SOURCE" 2>/dev/null)" != "$version" ]; then
	tarball=$(ls "$src"/usr/src/${pkg}.tar.* | head -1)
	top=$(tar -tf "$tarball" | head -1 | cut -d/ -f1)
	rm -rf "$kunit" "$src/x" && mkdir -p "$kunit" "$src/x"
	tar -xf "$tarball" -C "$src/x" "${files[@]/#/$top/tools/testing/kunit/}"
	for f in "${files[@]}"; do cp "$src/x/$top/tools/testing/kunit/$f" "$kunit/$f"; done
	rm -rf "$src/x"
	echo "$version" >"$kunit/SOURCE"
fi
mkdir -p "$dest"
for f in "${files[@]}"; do cp "$kunit/$f" "$dest/$f"; done
cp "$kunit/SOURCE" "$dest/SOURCE"
