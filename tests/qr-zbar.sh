#!/usr/bin/env bash
# lib/qr.c read by a real reader: zbarimg (Debian's zbar-tools) decodes the
# symbols build/tools/qrpgm renders, and the bytes must come back exactly —
# every version 1-40 at every level L/M/Q/H filled to capacity (masks cycling
# 0-7), structured append over 2, 5 and 16 symbols, binary bytes, and the
# hardware report blocks in docs/reports/.
# Last line: "qr-zbar: N passed, N failed".
set -u
cd "$(dirname "$0")/.."
qrpgm=build/tools/qrpgm
[ -x $qrpgm ] || { echo "qr-zbar: no $qrpgm (make tools)"; exit 2; }
command -v zbarimg >/dev/null || { echo "qr-zbar: no zbarimg (tools/deps.sh test: zbar-tools)"; exit 2; }
work=$(mktemp -d /tmp/tracelab-qr.XXXXXX)
trap 'rm -rf "$work"' EXIT
pass=0 fail=0

# check NAME FILE [qrpgm options]: encode FILE, decode, compare
check() {
	local name=$1 in=$2
	shift 2
	if ! $qrpgm "$@" "$work/q.pgm" < "$in" > "$work/enc.txt" 2>&1; then
		echo "qr-zbar: $name: FAIL (encoder: $(cat "$work/enc.txt"))"
		fail=$((fail + 1))
		return
	fi
	# QR Code only (a QR's modules can pass for a linear bar code); -Sbinary:
	# the bytes as they are (no charset guess, no newline after)
	zbarimg --nodbus --raw -q -Sdisable -Sqrcode.enable -Sbinary "$work/q.pgm" > "$work/got" 2>/dev/null
	if cmp -s "$in" "$work/got"; then
		pass=$((pass + 1))
	else
		echo "qr-zbar: $name: FAIL ($(tr '\n' ' ' < "$work/enc.txt"); $(wc -c < "$in") bytes in, $(wc -c < "$work/got") out)"
		fail=$((fail + 1))
	fi
}

# printable text of exactly the capacity, different per case
for v in $(seq 1 40); do
	for e in L M Q H; do
		echo "$v $e $($qrpgm -c "$v" "$e")"
	done
done > "$work/cases"
python3 - "$work" <<'EOF'
import random, sys
for i, line in enumerate(open(sys.argv[1] + "/cases")):
    v, e, n = line.split()
    r = random.Random(i)
    open("%s/in-%s-%s" % (sys.argv[1], v, e), "w").write("".join(chr(r.randrange(32, 127)) for _ in range(int(n))))
EOF
i=0
while read -r v e n; do
	check "version $v-$e ($n bytes)" "$work/in-$v-$e" -e "$e" -v "$v" -V "$v" -m $((i % 8)) -s 2
	i=$((i + 1))
done < "$work/cases"
python3 -c "import sys; sys.stdout.buffer.write(bytes(range(256)) * 4)" > "$work/bin"
check "binary bytes 0-255, 1024 bytes" "$work/bin" -e L -s 2
head -c 2000 /dev/zero | tr '\0' 'x' > "$work/sa"
for parts in 2 5 16; do
	check "structured append, $parts symbols" "$work/sa" -n $parts -s 2
done
for r in docs/reports/*.md; do
	sed -n '/^# ---- tracelab hardware report/,/^# ---- end of tracelab hardware report/p' "$r" > "$work/report"
	[ -s "$work/report" ] || continue
	check "report block of $r" "$work/report" -e M -s 3
done
echo "qr-zbar: $pass passed, $fail failed"
[ $fail = 0 ]
