#!/usr/bin/env bash
# Packages from Debian's bookworm-backports, unpacked into a private cache, without
# touching the machine's apt configuration, its package lists or its installed
# packages: apt runs with a configuration of our own (APT_CONFIG) that points every
# directory it uses (sources, lists, cache, state) into the cache and reads none of
# /etc/apt's sources or apt.conf.d (so none of its hooks run either).  The packages
# are fetched with `apt-get download` and unpacked with `dpkg -x`; dpkg's database
# never hears of them.
#
#   tools/backports.sh fetch NAME PKG...   unpack PKG... into $cache/NAME (once;
#                                          again when the list of PKGs changes)
#   tools/backports.sh refresh NAME PKG... the same, after a fresh `apt-get update`
#   tools/backports.sh dir NAME            print $cache/NAME
#   tools/backports.sh apt ARGS...         apt-get with the private configuration
#                                          (e.g.
#                                          tools/backports.sh apt apt-cache policy qemu-system-x86)
#
# Or, from another bash script:  . tools/backports.sh; bp_fetch NAME PKG...
#
# The cache is ${TRACELAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tracelab}; it lives
# outside the work tree so a fresh clone (or `git clean`) keeps it.  NAME/.packages
# lists "package version" of what is unpacked there.  Works as any user: nothing is
# written outside the cache.  The mirror is $TRACELAB_DEBIAN_MIRROR, default
# http://deb.debian.org/debian (the one /etc/apt/sources.list.d/debian.sources names).

BP_SUITE=bookworm-backports
BP_CACHE=${TRACELAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tracelab}
BP_APT=$BP_CACHE/apt
BP_MIRROR=${TRACELAB_DEBIAN_MIRROR:-http://deb.debian.org/debian}

bp_log() { echo "backports: $*" >&2; }

# The private apt tree: sources.list, lists/, cache/, state/ and apt.conf, all under
# $BP_APT.  Dir::Etc::Parts and Dir::Etc::Main point at nothing, so /etc/apt/apt.conf.d
# (docker-clean's and packagekit's Post-Invoke hooks among them) is not read.
bp_setup() {
	mkdir -p "$BP_APT/lists/partial" "$BP_APT/cache/archives/partial" "$BP_APT/state" \
		 "$BP_APT/etc/preferences.d" "$BP_APT/etc/trusted.gpg.d" "$BP_APT/debs" || return 1
	: >"$BP_APT/state/status"
	cat >"$BP_APT/etc/sources.list" <<-EOF
	deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $BP_MIRROR $BP_SUITE main
	EOF
	cat >"$BP_APT/apt.conf" <<-EOF
	Dir::Etc::Main "/dev/null";
	Dir::Etc::Parts "/dev/null";
	Dir::Etc::SourceList "$BP_APT/etc/sources.list";
	Dir::Etc::SourceParts "/dev/null";
	Dir::Etc::Preferences "/dev/null";
	Dir::Etc::PreferencesParts "$BP_APT/etc/preferences.d";
	Dir::Etc::Trusted "/dev/null";
	Dir::Etc::TrustedParts "$BP_APT/etc/trusted.gpg.d";
	Dir::State "$BP_APT/state";
	Dir::State::Lists "$BP_APT/lists";
	Dir::State::status "$BP_APT/state/status";
	Dir::Cache "$BP_APT/cache";
	Dir::Log "$BP_APT/log";
	APT::Sandbox::User "$(id -un)";
	Acquire::Languages "none";
	Acquire::IndexTargets::deb::DEP-11::DefaultEnabled "false";
	Acquire::IndexTargets::deb::DEP-11-icons::DefaultEnabled "false";
	Acquire::IndexTargets::deb::DEP-11-icons-small::DefaultEnabled "false";
	Acquire::IndexTargets::deb::DEP-11-icons-hidpi::DefaultEnabled "false";
	Acquire::IndexTargets::deb::CNF::DefaultEnabled "false";
	// the archive this machine reaches may be a dated snapshot
	Acquire::Check-Valid-Until "false";
	EOF
}

bp_apt() {
	bp_setup || return 1
	APT_CONFIG="$BP_APT/apt.conf" "$@"
}

bp_update() {
	bp_setup || return 1
	bp_log "apt-get update ($BP_SUITE, private lists in $BP_APT/lists)"
	bp_apt apt-get -q update >"$BP_APT/update.log" 2>&1 || { tail -20 "$BP_APT/update.log" >&2; return 1; }
}

bp_dir() { echo "$BP_CACHE/$1"; }

# bp_fetch [-r] NAME PKG...: -r forces a fresh package list.
bp_fetch() {
	local refresh=0
	[ "${1:-}" = -r ] && { refresh=1; shift; }
	local name=$1; shift
	local dest=$BP_CACHE/$name want have p v
	want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
	have=$(cut -d' ' -f1 "$dest/.packages" 2>/dev/null | sort | tr '\n' ' ')
	if [ $refresh = 0 ] && [ "$want" = "$have" ]; then
		return 0
	fi
	bp_setup || return 1
	if [ $refresh = 1 ] || ! ls "$BP_APT/lists/"*_Packages* >/dev/null 2>&1; then
		bp_update || return 1
	fi
	bp_log "apt-get download $*"
	(cd "$BP_APT/debs" && bp_apt apt-get -q download "$@") >"$BP_APT/download.log" 2>&1 ||
		{ tail -20 "$BP_APT/download.log" >&2; return 1; }
	rm -rf "$dest.new"
	mkdir -p "$dest.new"
	: >"$dest.new/.packages"
	for p in "$@"; do
		v=$(bp_apt apt-cache show --no-all-versions "$p" | sed -n 's/^Version: //p' | head -1)
		local deb="" f
		for f in "$BP_APT/debs/${p}"_*.deb; do
			[ -f "$f" ] && [ "$(dpkg-deb -f "$f" Package Version | tr '\n' ' ')" = "Package: $p Version: $v " ] && deb=$f
		done
		[ -n "$deb" ] || { bp_log "no .deb for $p $v in $BP_APT/debs"; return 1; }
		dpkg-deb -x "$deb" "$dest.new" || return 1
		echo "$p $v" >>"$dest.new/.packages"
	done
	rm -rf "$dest"
	mv "$dest.new" "$dest"
	bp_log "unpacked into $dest: $(cut -d' ' -f2 "$dest/.packages" | sort -u | tr '\n' ' ')"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -u
	case "${1:-}" in
	fetch) shift; bp_fetch "$@" ;;
	refresh) shift; bp_fetch -r "$@" ;;
	dir) bp_dir "$2" ;;
	apt) shift; bp_apt "$@" ;;
	*) sed -n '2,26p' "$0"; exit 2 ;;
	esac
fi
