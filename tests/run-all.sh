#!/usr/bin/env bash
# make test: host unit tests of lib/, the QR encoder read by zbarimg, the
# fuzzers for a bounded time, the emulator matrix, the hostile boots, the
# USB-stick boot.  The last line is "N passed, N failed" over all of them.
set -u
cd "$(dirname "$0")/.."
B=build
FUZZ_SECONDS=${FUZZ_SECONDS:-15}
total_p=0 total_f=0

count() {       # count LOG: add the "N passed, N failed" found in LOG
	local line p f
	line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$1" | tail -1)
	p=$(grep -oE '[0-9]+ passed' <<<"$line" | grep -oE '[0-9]+')
	f=$(grep -oE '[0-9]+ failed' <<<"$line" | grep -oE '[0-9]+')
	if [ -z "$line" ]; then p=0 f=1; fi
	total_p=$((total_p + p)) total_f=$((total_f + f))
}

echo "== host unit tests (lib/, ASan+UBSan)"
$B/host/tests.bin > $B/host-tests.log 2>&1
grep -E '^not ok|^#' $B/host-tests.log | head -40
tail -1 $B/host-tests.log
count $B/host-tests.log

echo "== Debug Store dump decoder (tests/dsdump-check.sh)"
tests/dsdump-check.sh > $B/dsdump.log 2>&1
grep -E 'FAILED|^dsdump: [0-9]' $B/dsdump.log | tail -20
count $B/dsdump.log

echo "== QR encoder read by zbarimg (tests/qr-zbar.sh)"
tests/qr-zbar.sh > $B/qr-zbar.log 2>&1
grep -E 'FAIL|^qr-zbar: [0-9]' $B/qr-zbar.log | tail -20
count $B/qr-zbar.log

echo "== harness and tool tests (tests/test_*.py: matrix, tlreport)"
if python3 -m unittest discover -s tests -p "test_*.py" > $B/harness.log 2>&1; then hf=0; else hf=1; fi
hn=$(grep -oE 'Ran [0-9]+ tests' $B/harness.log | grep -oE '[0-9]+')
hfail=$(grep -oE '(failures|errors)=[0-9]+' $B/harness.log | grep -oE '[0-9]+' | awk '{ s += $1 } END { print s + 0 }')
[ $hf = 0 ] && hfail=0
[ -n "$hfail" ] || hfail=1
echo "harness: $(( ${hn:-0} - hfail )) passed, $hfail failed" | tee $B/harness-summary.log
[ $hf = 0 ] || tail -30 $B/harness.log
count $B/harness-summary.log

echo "== registry build checks (tests/registry-check.sh)"
make -s check-registry > $B/registry.log 2>&1
grep -v '^registry: ok' $B/registry.log
count $B/registry.log

echo "== fuzzers (${FUZZ_SECONDS} s each)"
fp=0 ff=0
for f in $B/fuzz/fuzz_*; do
	[ -x "$f" ] || continue
	n=$(basename "$f")
	mkdir -p $B/fuzz/corpus-$n
	seeds=tests/fuzz/seeds/$n; [ -d $seeds ] || seeds=
	if $f -max_total_time=$FUZZ_SECONDS -print_final_stats=1 $B/fuzz/corpus-$n $seeds > $B/fuzz/$n.log 2>&1; then
		echo "fuzz: $n: $(grep -E 'stat::number_of_executed_units' $B/fuzz/$n.log | awk '{print $2}') inputs, no crash"
		fp=$((fp + 1))
	else
		echo "fuzz: $n: FAILED"; tail -30 $B/fuzz/$n.log
		ff=$((ff + 1))
	fi
done
echo "fuzz: $fp passed, $ff failed" > $B/fuzz-summary.log
cat $B/fuzz-summary.log
count $B/fuzz-summary.log

echo "== emulator matrix"
python3 tests/matrix.py 2>&1 | tee $B/matrix.log
count $B/matrix.log

echo "== hostile boots: no APIC, no long mode, tiny RAM, odd command lines (tests/hostile.py)"
python3 tests/hostile.py > $B/hostile.log 2>&1
grep -v ': ok (' $B/hostile.log
count $B/hostile.log

echo "== differential debug fuzzing, fixed seeds (tools/dbfuzz.py --check)"
# Seed 1: 1000 scenarios on each QEMU, 400 on each Bochs model (about 2 s of
# scenarios; the Bochs boot through GRUB is most of its time).  Any disagreement
# not classified in tests/expect/dbfuzz-known.txt fails.
tools/dbfuzz.py --seed 1 --count 1000 --bochs-count 400 --check > $B/dbfuzz.log 2>&1
grep -E '^dbfuzz: |UNCLASSIFIED' $B/dbfuzz.log | tail -30
count $B/dbfuzz.log

echo "== USB-stick boot, BIOS and UEFI, serial off and on: screen read back, QR code(s) = the serial report"
tests/usb-boot.sh -I $B/tracelab-ci.iso > $B/usb-boot.log 2>&1
grep '^usb-boot:' $B/usb-boot.log
count $B/usb-boot.log

echo "== screens at real sizes: USB boot at 1920x1080 and 2560x1600, BIOS and UEFI, text and QR read back"
for r in 1920x1080 2560x1600; do
	tests/usb-boot.sh -I $B/tracelab-ci.iso -r $r -1 -o $B/usb-boot-$r > $B/usb-boot-$r.log 2>&1
	grep '^usb-boot:' $B/usb-boot-$r.log | sed "s/^usb-boot:/usb-boot $r:/"
	# what drawing the screen cost the run (the kernel's own TSC count)
	cat $B/usb-boot-$r/*-serial.log 2>/dev/null | tr -d '\r' | grep -a '^# screen:' | sed "s/^/    /"
	count $B/usb-boot-$r.log
done

echo "$total_p passed, $total_f failed"
[ $total_f = 0 ]
