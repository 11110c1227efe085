/* qrpgm: lib/qr.c on the host.  Encodes stdin as QR Code(s) and writes a PGM
 * image (dark modules black, with the 4-module quiet zone), for reading with a
 * real reader (tests/qr-zbar.sh runs zbarimg on it).
 *
 *   qrpgm [-e L|M|Q|H] [-v MINVER] [-V MAXVER] [-m MASK] [-s SCALE] [-n PARTS] OUT.pgm < data
 *   qrpgm -c VERSION L|M|Q|H      the byte capacity of one symbol
 *
 * -n PARTS > 1 splits the data into that many structured-append symbols, side
 * by side in one image.  Prints "version V mask M" for each symbol. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "qr.h"

static struct qr sym[QR_SA_MAX];

static int level(const char *s)
{
	const char *l = strchr("LMQH", s[0]);
	if (!s[0] || s[1] || !l) {
		fprintf(stderr, "qrpgm: level is one of L M Q H\n");
		exit(2);
	}
	return (int)(l - "LMQH");
}

int main(int argc, char **argv)
{
	int ecc = QR_ECC_M, vmin = 1, vmax = 40, mask = -1, scale = 4, parts = 1, o;
	if (argc == 4 && !strcmp(argv[1], "-c")) {
		printf("%zu\n", qr_capacity(atoi(argv[2]), level(argv[3]), false));
		return 0;
	}
	while ((o = getopt(argc, argv, "e:v:V:m:s:n:")) != -1)
		switch (o) {
		case 'e': ecc = level(optarg); break;
		case 'v': vmin = atoi(optarg); break;
		case 'V': vmax = atoi(optarg); break;
		case 'm': mask = atoi(optarg); break;
		case 's': scale = atoi(optarg); break;
		case 'n': parts = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: qrpgm [-e L|M|Q|H] [-v MINVER] [-V MAXVER] [-m MASK] "
					"[-s SCALE] [-n PARTS] OUT.pgm < data\n");
			return 2;
		}
	if (optind + 1 != argc || scale < 1 || scale > 64 || parts < 1 || parts > QR_SA_MAX) {
		fprintf(stderr, "qrpgm: one output file; scale 1..64; parts 1..16\n");
		return 2;
	}
	static uint8_t in[65536];
	size_t len = fread(in, 1, sizeof in, stdin);
	uint8_t parity = qr_parity(in, len);
	int width = 0, height = 0;
	for (int i = 0; i < parts; i++) {
		size_t from = len * (size_t)i / (size_t)parts, to = len * (size_t)(i + 1) / (size_t)parts;
		struct qr_sa sa = { i, parts, parity };
		if (!qr_encode(&sym[i], in + from, to - from, ecc, vmin, vmax, mask, parts > 1 ? &sa : 0)) {
			fprintf(stderr, "qrpgm: %zu bytes do not fit versions %d-%d at level %c\n",
				to - from, vmin, vmax, "LMQH"[ecc]);
			return 1;
		}
		printf("version %d mask %d\n", sym[i].version, sym[i].mask);
		int side = (sym[i].size + 2 * QR_QUIET) * scale;
		width += side;
		height = side > height ? side : height;
	}
	FILE *f = fopen(argv[optind], "wb");
	if (!f) {
		perror(argv[optind]);
		return 1;
	}
	fprintf(f, "P5\n%d %d\n255\n", width, height);
	for (int y = 0; y < height; y++)
		for (int i = 0; i < parts; i++) {
			int side = (sym[i].size + 2 * QR_QUIET) * scale;
			for (int x = 0; x < side; x++) {
				int mx = x / scale - QR_QUIET, my = y / scale - QR_QUIET;
				fputc(qr_module(&sym[i], mx, my) ? 0 : 255, f);
			}
		}
	return fclose(f) ? 1 : 0;
}
