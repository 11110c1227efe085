#!/usr/bin/env bash
# The Linux kernel's own KTAP parser for make test: tools/testing/kunit/
# kunit_parser.py and kunit_printer.py from Debian's linux-source-6.12
# (bookworm-backports; the newest and strictest parser Debian offers), copied
# into build/kunit/.  The two files are not part of tracelab: they are taken
# from the package at test time and never committed.
#
# apt runs with a configuration of its own (APT_CONFIG): its sources, lists,
# cache and state all live in the cache directory below, /etc/apt's sources and
# apt.conf.d are not read, and the package is fetched with `apt-get download`
# and unpacked with `dpkg-deb -x`: the machine's apt configuration, package
# lists and installed packages stay as they were.
#
#   tools/ktap-parser.sh [DEST]      [build/kunit]
# Cache: ${TRACELAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tracelab}/kunit-6.12
set -eu
cd "$(dirname "$0")/.."
dest=${1:-build/kunit}
pkg=linux-source-6.12
cache=${TRACELAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tracelab}/kunit-6.12
mirror=${TRACELAB_DEBIAN_MIRROR:-http://deb.debian.org/debian}
files=(kunit_parser.py kunit_printer.py)

have() { for f in "${files[@]}"; do [ -s "$cache/$f" ] || return 1; done; }

if ! have; then
	apt=$cache/apt
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/state" "$apt/log" \
		 "$apt/etc/preferences.d" "$apt/etc/trusted.gpg.d" "$apt/debs"
	: >"$apt/state/status"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bookworm-backports main" \
		>"$apt/etc/sources.list"
	cat >"$apt/apt.conf" <<-CONF
	Dir::Etc::Main "/dev/null";
	Dir::Etc::Parts "/dev/null";
	Dir::Etc::SourceList "$apt/etc/sources.list";
	Dir::Etc::SourceParts "/dev/null";
	Dir::Etc::Preferences "/dev/null";
	Dir::Etc::PreferencesParts "$apt/etc/preferences.d";
	Dir::Etc::Trusted "/dev/null";
	Dir::Etc::TrustedParts "$apt/etc/trusted.gpg.d";
	Dir::State "$apt/state";
	Dir::State::Lists "$apt/lists";
	Dir::State::status "$apt/state/status";
	Dir::Cache "$apt/cache";
	Dir::Log "$apt/log";
	APT::Sandbox::User "$(id -un)";
	Acquire::Languages "none";
	Acquire::Check-Valid-Until "false";
	CONF
	echo "ktap-parser: fetching $pkg from bookworm-backports (about 150 MB, private apt in $apt)"
	APT_CONFIG=$apt/apt.conf apt-get -q update >"$apt/update.log" 2>&1 ||
		{ tail -20 "$apt/update.log"; exit 1; }
	rm -f "$apt/debs/${pkg}"_*.deb
	(cd "$apt/debs" && APT_CONFIG=$apt/apt.conf apt-get -q download "$pkg") >"$apt/download.log" 2>&1 ||
		{ tail -20 "$apt/download.log"; exit 1; }
	deb=$(ls "$apt/debs/${pkg}"_*.deb | head -1)
	x=$cache/x
	rm -rf "$x" && mkdir -p "$x"
	dpkg-deb -x "$deb" "$x"
	tarball=$(ls "$x"/usr/src/${pkg}.tar.* | head -1)
	top=$(tar -tf "$tarball" | head -1 | cut -d/ -f1)
	tar -xf "$tarball" -C "$x" "${files[@]/#/$top/tools/testing/kunit/}"
	for f in "${files[@]}"; do cp "$x/$top/tools/testing/kunit/$f" "$cache/$f"; done
	basename "$deb" >"$cache/SOURCE"
	rm -rf "$x" "$apt/debs"
fi
mkdir -p "$dest"
for f in "${files[@]}"; do cp "$cache/$f" "$dest/$f"; done
cp "$cache/SOURCE" "$dest/SOURCE"
