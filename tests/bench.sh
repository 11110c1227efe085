#!/usr/bin/env bash
# make bench: wall time from QEMU launch to the KTAP summary, QEMU TCG direct
# boot, for the whole default suite and for a do-nothing run (the floor: boot
# and exit); then the PT decoder's throughput next to libipt's.
set -u
cd "$(dirname "$0")/.."
RUNS=${RUNS:-10}
PLATFORM=${PLATFORM:-qemu-tcg}       # how it boots: tests/platforms.py

measure() {     # measure LABEL APPEND
	local label=$1 append=$2 t argv
	local -a times=() q
	argv=$(python3 tests/platforms.py argv "$PLATFORM" --lines --append "$append") || exit 2
	mapfile -t q <<<"$argv"
	for _ in $(seq "$RUNS"); do
		local t0 t1
		t0=$(date +%s%N)
		"${q[@]}" >/dev/null 2>&1
		t1=$(date +%s%N)
		t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }')
		times+=("$t")
	done
	printf '%s\n' "${times[@]}" | sort -n | awk -v l="$label" -v n="$RUNS" '
		{ v[NR] = $1 } END { printf "bench: %-34s min %.3f s  median %.3f s  max %.3f s  (%d runs)\n",
			l, v[1], (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2), v[n], n }'
}

measure "QEMU TCG boot, nothing run" "report=cpu"
measure "QEMU TCG boot + all experiments" "run=all"
if [ -x build/tools/ptbench ]; then
	build/tools/ptbench | sed 's/^/bench: /'
fi
