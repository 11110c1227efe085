#!/usr/bin/env bash
# The experiment registry's build-time checks (kernel/experiment.h), each shown to
# fail on a tiny bad registry with a message naming the experiment and the file,
# and a good registry shown to build.  Run by make test and make check-registry.
# Last line: "registry: N passed, N failed".
set -u
cd "$(dirname "$0")/.."
CC=${CC:-gcc}
KCFLAGS=${KCFLAGS:--std=c11 -O2 -Wall -Wextra -Werror -ffreestanding -fno-pic -fno-pie -mcmodel=kernel -m64 -Iinc -Ikernel -Ilib}
d=$(mktemp -d /tmp/tracelab-registry.XXXXXX)
trap 'rm -rf "$d"' EXIT
pass=0 fail=0

exp_file() {    # exp_file NAME NUM EXPNAME SUMMARY
	printf '#include "experiment.h"\nstatic void run_%s(void) {}\nEXPERIMENT(%s, %s, "", "none", %s, run_%s);\n' \
		"$1" "$2" "$3" "$4" "$1" > "$d/$1.c"
}

# build FILE...: compile each, then link them together the way the kernel links
# (a partial link: strong symbols must still be unique).
build() {
	local objs=() f
	for f in "$@"; do
		$CC $KCFLAGS -c "$d/$f.c" -o "$d/$f.o" 2>>"$d/log" || return 1
		objs+=("$d/$f.o")
	done
	$CC -nostdlib -r -o "$d/all.o" "${objs[@]}" 2>>"$d/log"
}

# expect WHAT OUTCOME PATTERN FILE...: OUTCOME ok|error; PATTERN must be in the messages
expect() {
	local what=$1 outcome=$2 pattern=$3 got
	shift 3
	: > "$d/log"
	if build "$@"; then got=ok; else got=error; fi
	if [ "$got" = "$outcome" ] && { [ -z "$pattern" ] || grep -q -- "$pattern" "$d/log"; }; then
		echo "registry: ok: $what${pattern:+: $(grep -m1 -o -- "$pattern.*" "$d/log" | cut -c1-110)}"
		pass=$((pass + 1))
	else
		echo "registry: FAILED: $what (build: $got, wanted $outcome${pattern:+ with '$pattern'})"
		sed 's/^/registry:   /' "$d/log" | head -20
		fail=$((fail + 1))
	fi
}

exp_file good 119 '"good"' '"a good one"'
exp_file good2 201 '"good2"' '"another family"'
expect "a good registry builds" ok "" good good2
exp_file dup 119 '"dup"' '"the same number in another file"'
expect "a number registered twice" error "multiple definition of .experiment_number_119" good dup
exp_file fam 601 '"nofamily"' '"hundreds digit 6 is no family"'
expect "a number outside every family's range" error "experiment 601: number outside all family ranges" fam
exp_file small 42 '"small"' '"two digits"'
expect "a number below 100" error "experiment 42: number outside all family ranges" small
exp_file nosum 120 '"nosum"' '""'
expect "no one-line summary" error "experiment 120: no one-line summary" nosum
exp_file noname 121 '""' '"has a summary"'
expect "no name" error "experiment 121: empty name" noname
echo "registry: $pass passed, $fail failed"
[ $fail = 0 ]
