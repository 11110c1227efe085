#!/usr/bin/env bash
# tools/dsdump against a serial log in the kernel's verbose=1 Debug Store dump
# format (kernel/ds_area.c ds_dump_raw()): no emulator here has BTS or PEBS, so the
# log is made up from the kernel ELF's own symbols, with the record layouts of
# the SDM: a BTS record pair, an adaptive PEBS record with timed PEBS (retire
# latency in the basic header) and split latency, a legacy PEBS_FMT 3 record.
# Last line: "dsdump: N passed, N failed".
set -u
cd "$(dirname "$0")/.."
B=build
ELF=$B/tracelab64.elf
TOOL=$B/tools/dsdump
pass=0 fail=0
d=$(mktemp -d /tmp/tracelab-dsdump.XXXXXX)
trap 'rm -rf "$d"' EXIT

sym() { nm "$ELF" | awk -v n="$1" '$3 == n { print $1 }'; }
j0=$(sym pebs_mj0) m5=$(sym pebs_m5) m6=$(sym pebs_m6) b0=$(sym bts25_j0) b1=$(sym bts25_j1)
if [ -z "$j0" ] || [ -z "$m5" ] || [ ! -x "$TOOL" ]; then
	echo "dsdump: FAILED: build $ELF and $TOOL first"
	echo "dsdump: 0 passed, 1 failed"
	exit 1
fi

python3 - "$d/serial.log" "$j0" "$m5" "$m6" "$b0" "$b1" <<'EOF'
import sys
out, j0, m5, m6, b0, b1 = sys.argv[1], *[int(x, 16) for x in sys.argv[2:]]
L = []
# PEBS_FMT 4, adaptive, PEBS_DATA_CFG = meminfo|gpr, timed, split latency
L.append("    # ds-dump begin 309 area=0x400000 pebs_fmt=4 layout=5 cfg=0x3 timed=1 split=1")
m = [0] * 32
m[0:4] = [0x401000, 0x401000 + 2 * 24, 0x401000 + 42 * 24, 0x401000 + 10 * 24]
m[4:8] = [0x403000, 0x403000 + 208, 0x403000 + 4 * 208, 0x403000 + 208]
m[9] = 0xffffc0000000          # PMC1's reset value at 0x48
m[16] = 0xfffff0000000         # FIXED_CTR0's reset value at 0x80 (PEBS_FMT 4)
for off in range(0, 0x100, 32):
    L.append("    # ds: mgmt +0x%03x %x %x %x %x" % ((off,) + tuple(m[off // 8:off // 8 + 4])))
L.append("    # ds: bts 0x401000 %x %x 10" % (j0, j0 + 2))
L.append("    # ds: bts 0x401018 %x %x 0" % (j0 + 2, j0 + 4))
q = [0] * 26                                   # 32 + 32 + 144 = 208 bytes
q[0] = (208 << 48) | (0x1d << 32) | 0x3        # size, retire latency 29, groups
q[1], q[2], q[3] = m5, 2, 0x1234               # eventing IP, applicable, TSC
q[4], q[5], q[6] = 0x401234, 0x1, (37 << 32) | 123   # dla, source, instr|cache latency
q[8], q[9], q[10] = 0x246, m6, 5               # RFLAGS, RIP, RAX
L.append("    # ds: pebs 0x403000 " + " ".join("%x" % v for v in q))
L.append("    # ds-dump end 309")
# PEBS_FMT 3 (Skylake): 200-byte fixed record
L.append("    # ds-dump begin 305 area=0x500000 pebs_fmt=3 layout=4 cfg=0x0 timed=0 split=0")
L.append("    # ds: mgmt +0x000 0 0 0 0")
L.append("    # ds: mgmt +0x020 501000 5010c8 5010c8 5010c8")
r = [0] * 25
r[0], r[1], r[2] = 0x246, m6, 4                # RFLAGS, RIP, RAX
r[0x90 // 8], r[0xb0 // 8], r[0xc0 // 8] = 2, m5, 0x5555
L.append("    # ds: pebs 0x501000 " + " ".join("%x" % v for v in r))
L.append("    # ds-dump end 305")
L.append("    # bts-rec   0 0x%016x 0x%016x" % (b0, b1))
open(out, "w").write("\n".join(L) + "\n")
EOF

"$TOOL" "$d/serial.log" - "$ELF" > "$d/out.txt" 2>&1
expect() {      # expect WHAT PATTERN (fixed string in the decoded output)
	if grep -qF -- "$2" "$d/out.txt"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "dsdump: FAILED: $1: no '$2' in the output"
	fi
}
expect "management area field" "+0x18 BTS interrupt threshold    0x00000000004010f0"
expect "BTS capacity and threshold" "BTS: 42 records of 24, 2 written, threshold at record 10"
expect "PEBS_FMT 4 general reset slot" "+0x048 PEBS reset PMC1 0x0000ffffc0000000"
expect "PEBS_FMT 4 fixed reset slot at 0x80" "+0x080 PEBS reset FIXED_CTR0 0x0000fffff0000000"
expect "BTS record with symbols" "pebs_mj0                             -> pebs_mj0+0x2"
expect "adaptive record with symbols" "ip pebs_m6, eventing ip pebs_m5"
expect "timed PEBS retire latency" "retire_latency=29"
expect "split latency" "instr_latency=123 cache_latency=37"
expect "adaptive GPR group" "rax=0x0000000000000005"
expect "PEBS_FMT 3 record" "PEBS record: 64-bit PEBS_FMT 3 (Skylake), 200 bytes"
expect "PEBS_FMT 3 TSC" "tsc=0x0000000000005555"
expect "drained BTS log" "bts25_j0                             -> bts25_j1"
"$TOOL" "$d/serial.log" 309 "$ELF" > "$d/one.txt" 2>&1
if grep -q "ds-dump 305" "$d/one.txt" || ! grep -q "ds-dump 309" "$d/one.txt"; then
	fail=$((fail + 1)); echo "dsdump: FAILED: NAME selects one dump"
else
	pass=$((pass + 1))
fi
if "$TOOL" "$d/serial.log" nosuch "$ELF" > /dev/null 2>&1; then
	fail=$((fail + 1)); echo "dsdump: FAILED: an unknown NAME must fail"
else
	pass=$((pass + 1))
fi
[ $fail = 0 ] || cat "$d/out.txt"
echo "dsdump: $pass passed, $fail failed"
[ $fail = 0 ]
