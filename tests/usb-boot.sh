#!/usr/bin/env bash
# The USB-stick boot, as a person does it on a real machine, under QEMU: the ISO
# attached as a USB mass-storage disk (qemu-xhci + usb-storage), legacy BIOS
# (SeaBIOS) and UEFI (OVMF), serial port DISABLED and no isa-debug-exit device,
# so the kernel ends as on real hardware: halted, its summary on the screen.
# The screen is read through QEMU's monitor (screendump), converted to PNG, and
# read back as text by matching each character cell against the kernel's own
# font (GRUB's 8x16 ascii.h, at the kernel's glyph scale); the run passes when
# the final screen holds a complete hardware report whose result count equals
# the plan.
#
#   tests/usb-boot.sh [-I ISO] [-o DIR] [-t SECONDS] [-r WxH] [bios] [uefi]
#     -I ISO      the image                               [build/tracelab.iso]
#     -o DIR      screenshots (.png) and screen text (.txt)   [build/usb-boot]
#     -t SECONDS  per boot, GRUB's 10 s menu timeout included            [300]
#     -r WxH      UEFI screen resolution (OVMF's default is 800x600; 1920x1080
#                 exercises the 2x glyph scaling)
# Needs qemu-system-x86, ovmf, python3 (stdlib only), grub-common (ascii.h).
# Last line: "usb-boot: N passed, N failed".
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
iso=$here/build/tracelab.iso out=$here/build/usb-boot limit=300 res=""
while getopts "I:o:t:r:h" o; do
	case $o in
	I) iso=$OPTARG ;;
	o) out=$OPTARG ;;
	t) limit=$OPTARG ;;
	r) res=$OPTARG ;;
	*) sed -n '2,22p' "$0"; exit 2 ;;
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
    done = "---- end of tracelab hardware report ----" in text and m
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

pass=0 fail=0
for mode in "${modes[@]}"; do
	sock=$work/mon-$mode.sock
	# how each mode boots: tests/platforms.py (qemu-seabios-usb, qemu-ovmf-usb)
	case $mode in
	bios) platform=qemu-seabios-usb ;;
	uefi) platform=qemu-ovmf-usb; cp /usr/share/OVMF/OVMF_VARS_4M.fd "$work/vars.fd" ;;
	*) echo "usb-boot: unknown mode $mode (bios, uefi)"; fail=$((fail + 1)); continue ;;
	esac
	argv=$(python3 "$here/tests/platforms.py" argv "$platform" --lines --serial none \
		--iso "$iso" --vars "$work/vars.fd") || { fail=$((fail + 1)); continue; }
	mapfile -t q <<<"$argv"
	q+=(-parallel none -monitor "unix:$sock,server,nowait")
	# OVMF's GOP takes its resolution from the (virtual) monitor's preferred mode
	[ "$mode" = uefi ] && [ -n "$res" ] && q+=(-device "VGA,xres=${res%x*},yres=${res#*x}" -vga none)
	"${q[@]}" >"$work/qemu-$mode.log" 2>&1 &
	qpid=$!
	base=$out/$mode
	start=$(date +%s) verdict="timeout after ${limit}s" ok=0
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
	kill "$qpid" 2>/dev/null
	wait "$qpid" 2>/dev/null
	qpid=""
	rm -f "$base.ppm"
	if [ $ok = 1 ]; then
		pass=$((pass + 1))
		echo "usb-boot: $mode: PASS ($verdict) $(($(date +%s) - start))s; screen: $base.png, text: $base.txt"
	else
		fail=$((fail + 1))
		echo "usb-boot: $mode: FAIL ($verdict); last screen: $base.png, text: $base.txt"
		[ -f "$base.txt" ] && sed -e 's/^/    | /' "$base.txt" | grep -v '^    | $' | tail -15
	fi
done
echo "usb-boot: $pass passed, $fail failed"
[ $fail = 0 ]
