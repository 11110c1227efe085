#!/usr/bin/env bash
# The USB-stick boot, as a person does it on a real machine, under QEMU: the ISO
# attached as a USB mass-storage disk (qemu-xhci + usb-storage), legacy BIOS
# (SeaBIOS) and UEFI (OVMF), serial port DISABLED and no isa-debug-exit device,
# so the kernel ends as on real hardware: halted, its summary on the screen.
# The screen is read through QEMU's monitor (screendump), converted to PNG, and
# read back as text by matching each character cell against the kernel's own
# font (GRUB's 8x16 ascii.h, at the kernel's glyph scale); the boot passes when
# the final screen holds a complete hardware report whose result count equals
# the plan.  The QR code(s) beside it are decoded with zbarimg (zbar-tools).
#
# Each mode boots twice: once with the serial port off (the product's case) and
# once, otherwise identical, with COM1 written to a file.  Both screens' QR
# payloads must equal the report block that run printed on serial, byte for
# byte (line ends as the block's: serial's CR LF read as LF).
#
#   tests/usb-boot.sh [-I ISO] [-o DIR] [-t SECONDS] [-r WxH] [-1] [bios] [uefi]
#     -I ISO      the image                               [build/tracelab.iso]
#     -o DIR      screenshots (.png), screen text (.txt), QR payloads (.qr),
#                 serial logs (-serial.log)                    [build/usb-boot]
#     -t SECONDS  per boot, GRUB's 10 s menu timeout included            [300]
#     -r WxH      screen size: QEMU's VGA with that preferred mode and 64 MB of
#                 video memory, and a copy of the ISO whose GRUB sets that mode
#                 (gfxmode) before loading the kernel, under SeaBIOS and OVMF
#     -1          one boot per mode, serial to a file (skip the serial-off boot)
# Needs qemu-system-x86, ovmf, python3 (stdlib only), grub-common (ascii.h),
# zbar-tools; with -r also grub-mkrescue and xorriso.
# Last line: "usb-boot: N passed, N failed".
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
iso=$here/build/tracelab.iso out=$here/build/usb-boot limit=300 res="" variants="quiet serial"
while getopts "I:o:t:r:1h" o; do
	case $o in
	I) iso=$OPTARG ;;
	o) out=$OPTARG ;;
	t) limit=$OPTARG ;;
	r) res=$OPTARG ;;
	1) variants=serial ;;
	*) sed -n '2,30p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
modes=("$@")
[ ${#modes[@]} -gt 0 ] || modes=(bios uefi)
[ -f "$iso" ] || { echo "usb-boot: no $iso (make iso)"; exit 2; }
mkdir -p "$out"
work=$(mktemp -d /tmp/tracelab-usb.XXXXXX)
qpid=""
cleanup() {
	[ -n "$qpid" ] && kill "$qpid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

# The screen reader: monitor commands, PPM -> PNG, character cells -> text.
cat > "$work/screen.py" <<'EOF'
import os, re, socket, struct, sys, time, zlib

def monitor(sock_path, cmd):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(20)
    s.connect(sock_path)
    def until_prompt():
        buf = b""
        while not buf.endswith(b"(qemu) "):
            d = s.recv(4096)
            if not d:
                break
            buf += d
        return buf
    until_prompt()
    s.sendall(cmd.encode() + b"\n")
    r = until_prompt()
    s.close()
    return r.decode("latin-1")

def read_ppm(path):
    data = open(path, "rb").read()
    fields, pos = [], 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos) + 1
            continue
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    assert fields[0] == b"P6" and fields[3] == b"255", "not an 8-bit P6 PPM"
    w, h = int(fields[1]), int(fields[2])
    return w, h, data[pos + 1:pos + 1 + w * h * 3]

def write_png(path, w, h, rgb):
    rows = b"".join(b"\0" + rgb[y * w * 3:(y + 1) * w * 3] for y in range(h))
    def chunk(kind, body):
        return (struct.pack(">I", len(body)) + kind + body +
                struct.pack(">I", zlib.crc32(kind + body) & 0xffffffff))
    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
           chunk(b"IDAT", zlib.compress(rows, 6)) + chunk(b"IEND", b""))
    open(path, "wb").write(png)

def load_font(path="/usr/share/grub/ascii.h"):
    vals = [int(v, 16) for v in re.findall(r"0x([0-9a-fA-F]{2})", open(path).read())]
    glyphs = {}
    for c in range(32, 127):
        g = bytes(vals[c * 16:(c + 1) * 16])
        glyphs.setdefault(g, chr(c))
    return glyphs

def qr_cell(rgb, w, x0, y0, cw, ch):
    """A cell of pure black and white that is no glyph: a piece of a QR code
    (the kernel's white text matches a glyph first)."""
    for y in range(y0, y0 + ch, 2):
        row = rgb[(y * w + x0) * 3:(y * w + x0 + cw) * 3]
        if row.strip(b"\0\xff"):
            return False
    return True

def read_text(w, h, rgb, glyphs, scale):
    cw, ch = 8 * scale, 16 * scale
    lines, known, total = [], 0, 0
    for cy in range(h // ch):
        line = []
        for cx in range(w // cw):
            x0, y0 = cx * cw, cy * ch
            bg = rgb[(y0 * w + x0) * 3:(y0 * w + x0) * 3 + 3]
            bits = bytearray(16)
            for gy in range(16):
                row = (y0 + gy * scale) * w
                b = 0
                for gx in range(8):
                    o = (row + x0 + gx * scale) * 3
                    if rgb[o:o + 3] != bg:
                        b |= 0x80 >> gx
                bits[gy] = b
            c = glyphs.get(bytes(bits), "?")
            if c == "?" and qr_cell(rgb, w, x0, y0, cw, ch):
                c = " "                 # part of a QR code, not text
            if c != " ":
                total += 1
                known += c != "?"
            line.append(c)
        lines.append("".join(line).rstrip())
    return lines, known, total

def screen(sock_path, base):
    """Screendump -> base.ppm, base.png; returns (text lines, non-background pixels)."""
    ppm = base + ".ppm"
    if os.path.exists(ppm):
        os.unlink(ppm)
    monitor(sock_path, "screendump " + ppm)
    for _ in range(50):
        if os.path.exists(ppm) and os.path.getsize(ppm) > 15:
            break
        time.sleep(0.1)
    w, h, rgb = read_ppm(ppm)
    write_png(base + ".png", w, h, rgb)
    glyphs = load_font()
    best = ([], 0, 0)
    for scale in (1, 2, 3):
        if w // (8 * scale) and h // (16 * scale):
            r = read_text(w, h, rgb, glyphs, scale)
            if r[1] - (r[2] - r[1]) > best[1] - (best[2] - best[1]):
                best = r
    lit = sum(1 for i in range(0, len(rgb), 3 * 97) if rgb[i:i + 3] != b"\0\0\0")
    return best[0], lit, w, h

if __name__ == "__main__":
    sock_path, base = sys.argv[1], sys.argv[2]
    try:
        lines, lit, w, h = screen(sock_path, base)
    except Exception as e:          # QEMU gone or not answering yet
        print("usb-boot: screendump failed: %s" % e, file=sys.stderr)
        sys.exit(3)
    open(base + ".txt", "w").write("\n".join(lines) + "\n")
    text = "\n".join(lines)
    m = re.search(r"# sum: pass:(\d+) fail:(\d+) skip:(\d+) total:(\d+) planned:(\d+)", text)
    # finished: the report, and the status bar's last words (written after the
    # QR codes are drawn)
    done = ("---- end of tracelab hardware report ----" in text and m
            and "power off or reset" in text)
    if not done:
        sys.exit(1)
    p, f, s, t, n = map(int, m.groups())
    tokens = re.findall(r"\b(\d{3})((?:[PFSTE]\d+)+|[PFSTE](?:\*\d+)?)(?=\s|$)",
                        "\n".join(l for l in lines if l.startswith("# result:")))
    problems = []
    if t != n or t != p + f + s or not n:
        problems.append("summary inconsistent: %s" % m.group(0))
    # a token stands for all runs of one number (every CPU, repetition and CPU mode):
    # "101P*4" is four passes, "104P2F1" three runs
    runs = sum(int(x.group(1)) if x.group(1) else 1
               for _, v in tokens for x in [re.fullmatch(r"[PFSTE](?:\*(\d+))?", v)] if x) + \
        sum(sum(int(c) for c in re.findall(r"\d+", v)) for _, v in tokens
            if not re.fullmatch(r"[PFSTE](?:\*\d+)?", v))
    if runs != t:
        problems.append("%d results in the tokens on screen, %d results" % (runs, t))
    if lit < 50:
        problems.append("screen nearly blank (%d lit samples)" % lit)
    print("%dx%d screen, %s%s" % (w, h, m.group(0),
          "; " + "; ".join(problems) if problems else ""))
    sys.exit(2 if problems else 0)
EOF

# With -r: the same ISO, its GRUB asking for that mode for the kernel.
if [ -n "$res" ]; then
	tree=$work/iso
	mkdir -p "$tree/boot/grub"
	xorriso -osirrox on -indev "$iso" -extract /boot/grub/grub.cfg "$tree/boot/grub/grub.cfg" \
		-extract /boot/tracelab.elf "$tree/boot/tracelab.elf" >"$work/xorriso.log" 2>&1 ||
		{ echo "usb-boot: cannot read $iso: $(tail -2 "$work/xorriso.log")"; exit 2; }
	chmod u+w "$tree/boot/grub/grub.cfg"
	# Our multiboot2 header asks for any mode, and GRUB turns that into
	# gfxpayload=auto, whatever the menu set; "auto" keeps the mode GRUB's own
	# terminal is in, under UEFI (efi_gop) and BIOS (vbe), so GRUB draws its
	# terminal in WxH first.  Only those two drivers: with all_video, GRUB's
	# driver for QEMU's Bochs VGA answers "auto" with 800x600 (a real machine
	# has no Bochs VGA).
	sed -i "s/^insmod all_video\$/if [ \"\$grub_platform\" = efi ]; then insmod efi_gop; else insmod vbe; fi\nset gfxmode=${res}x32\ninsmod gfxterm\nterminal_output gfxterm/" \
		"$tree/boot/grub/grub.cfg"
	grep -q "^set gfxmode=$res" "$tree/boot/grub/grub.cfg" ||
		{ echo "usb-boot: no 'insmod all_video' line in the ISO's grub.cfg"; exit 2; }
	grub-mkrescue -o "$work/res.iso" "$tree" >"$work/mkrescue.log" 2>&1 ||
		{ echo "usb-boot: grub-mkrescue: $(tail -2 "$work/mkrescue.log")"; exit 2; }
	iso=$work/res.iso
fi

# The report block of a serial log or a payload, as the kernel wrote it (LF).
block() {
	tr -d '\r' < "$1" | sed -n '/^# ---- tracelab hardware report v[0-9]*: copy from here ----$/,/^# ---- end of tracelab hardware report ----$/p'
}

# boot MODE VARIANT: one boot, "quiet" (no serial port) or "serial" (COM1 to
# BASE-serial.log); leaves BASE.png/.txt/.qr and sets ok, verdict, secs.
boot() {
	local mode=$1 variant=$2 sock=$work/mon-$1-$2.sock
	base=$out/$mode
	[ "$variant" = serial ] && base=$out/$mode-serial
	rm -f "$base.png" "$base.txt" "$base.qr" "$base.log"
	# how each mode boots: tests/platforms.py (qemu-seabios-usb, qemu-ovmf-usb:
	# no isa-debug-exit, so the kernel halts as on hardware)
	local platform=qemu-seabios-usb serial=none argv
	[ "$mode" = uefi ] && platform=qemu-ovmf-usb
	[ "$mode" = uefi ] && cp /usr/share/OVMF/OVMF_VARS_4M.fd "$work/vars.fd"
	[ "$variant" = serial ] && serial=file:$base.log
	argv=$(python3 "$here/tests/platforms.py" argv "$platform" --lines --serial "$serial" \
		--iso "$iso" --vars "$work/vars.fd") || { verdict="tests/platforms.py failed" ok=0 secs=0; return; }
	mapfile -t q <<<"$argv"
	q+=(-parallel none -monitor "unix:$sock,server,nowait")
	# the (virtual) monitor's preferred mode: OVMF's GOP and GRUB take it from there
	[ -n "$res" ] && q+=(-device "VGA,xres=${res%x*},yres=${res#*x},vgamem_mb=64" -vga none)
	"${q[@]}" >"$work/qemu-$mode.log" 2>&1 &
	qpid=$!
	local start
	start=$(date +%s)
	verdict="timeout after ${limit}s" ok=0
	sleep 5
	while :; do
		if ! kill -0 "$qpid" 2>/dev/null; then
			verdict="QEMU exited: $(tail -3 "$work/qemu-$mode.log" | tr '\n' ' ')"
			break
		fi
		line=$(python3 "$work/screen.py" "$sock" "$base")
		rc=$?
		if [ $rc = 0 ] || [ $rc = 2 ]; then
			verdict=$line
			[ $rc = 0 ] && ok=1
			break
		fi
		[ $(($(date +%s) - start)) -ge "$limit" ] && break
		sleep 3
	done
	secs=$(($(date +%s) - start))
	kill "$qpid" 2>/dev/null
	wait "$qpid" 2>/dev/null
	qpid=""
	rm -f "$base.ppm"
	# QR Code only (a QR's modules can pass for a linear bar code); the bytes as
	# they are; structured-append symbols come out joined
	[ -f "$base.png" ] && zbarimg --nodbus --raw -q -Sdisable -Sqrcode.enable -Sbinary "$base.png" \
		> "$base.qr" 2>/dev/null
}

pass=0 fail=0
result() {      # result OK TEXT
	if [ "$1" = 1 ]; then pass=$((pass + 1)); echo "usb-boot: $2"; else fail=$((fail + 1)); echo "usb-boot: $2"; fi
}
for mode in "${modes[@]}"; do
	case $mode in
	bios | uefi) ;;
	*) echo "usb-boot: unknown mode $mode (bios, uefi)"; fail=$((fail + 1)); continue ;;
	esac
	for variant in $variants; do
		boot "$mode" "$variant"
		what="$mode, serial $([ "$variant" = serial ] && echo "to a file" || echo off)"
		if [ $ok = 1 ]; then
			result 1 "$what: PASS ($verdict) ${secs}s; screen: $base.png, text: $base.txt"
		else
			result 0 "$what: FAIL ($verdict); last screen: $base.png, text: $base.txt"
			[ -f "$base.txt" ] && sed -e 's/^/    | /' "$base.txt" | grep -v '^    | $' | tail -15
		fi
		eval "qr_$variant=\$base.qr"
	done
	# the QR payload(s) against the serial report
	serial_log=$out/$mode-serial.log
	block "$serial_log" > "$work/serial-block" 2>/dev/null
	for variant in $variants; do
		eval "qr=\$qr_$variant"
		what="$mode, serial $([ "$variant" = serial ] && echo "to a file" || echo off): QR payload"
		if [ ! -s "$work/serial-block" ]; then
			result 0 "$what: FAIL (no report block in $serial_log)"
		elif [ ! -s "$qr" ]; then
			result 0 "$what: FAIL (zbarimg found no QR code on the screen)"
		elif cmp -s "$qr" "$work/serial-block"; then
			result 1 "$what: $(wc -c < "$qr") bytes, equal to the serial report byte for byte"
		else
			result 0 "$what: FAIL ($(wc -c < "$qr") bytes, differs from the serial report's $(wc -c < "$work/serial-block")): $(cmp "$qr" "$work/serial-block" 2>&1 | head -1)"
			diff <(cat "$work/serial-block") "$qr" | head -10 | sed 's/^/    | /'
		fi
	done
done
echo "usb-boot: $pass passed, $fail failed"
[ $fail = 0 ]
