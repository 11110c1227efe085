/* ptdump FILE: one Intel PT packet per line with OUR decoder (lib/pt_decode.c):
 * byte offset in hex, the packet name as libipt's ptdump spells it, payload.
 * Decoding errors are printed at their offset and decoding resumes at the next
 * PSB.  FILE holds raw trace bytes (e.g. written by tools/ptflow --extract). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "pt_decode.h"

static void payload(const struct ptd_packet *p)
{
	switch (p->type) {
	case PTD_TNT8: case PTD_TNT64:
		for (unsigned i = 0; i < p->u.tnt.count; i++)
			putchar(ptd_tnt_taken(p, i) ? '!' : '.');
		break;
	case PTD_TIP: case PTD_TIP_PGE: case PTD_TIP_PGD: case PTD_FUP:
		if (p->u.ip.suppressed)
			printf("%u: ????????????????", p->u.ip.ipc);
		else
			printf("%u: %016" PRIx64 "%s", p->u.ip.ipc, p->u.ip.ip,
			       p->u.ip.partial ? " (partial)" : "");
		break;
	case PTD_PIP: printf("%" PRIx64 "%s", p->u.pip.cr3, p->u.pip.nr ? ", nr" : ""); break;
	case PTD_MODE_EXEC:
		printf("%s%s", p->u.exec.csl ? (p->u.exec.csd ? "?" : "64-bit") :
		       (p->u.exec.csd ? "32-bit" : "16-bit"), p->u.exec.iflag ? ", if" : "");
		break;
	case PTD_MODE_TSX:
		printf("%s", p->u.tsx.abrt ? "abrt" : p->u.tsx.intx ? "begin" : "commit");
		break;
	case PTD_TSC: printf("%" PRIx64, p->u.tsc); break;
	case PTD_TMA: printf("%x, %x", p->u.tma.ctc, p->u.tma.fc); break;
	case PTD_CBR: printf("%x", p->u.cbr); break;
	case PTD_MTC: printf("%x", p->u.mtc); break;
	case PTD_CYC: printf("%" PRIx64, p->u.cyc); break;
	case PTD_VMCS: printf("%" PRIx64, p->u.vmcs); break;
	case PTD_MNT: printf("%" PRIx64, p->u.mnt); break;
	case PTD_PTW:
		printf("%" PRIx64 "%s", p->u.ptw.payload, p->u.ptw.ip ? ", ip" : "");
		break;
	case PTD_EXSTOP: printf("%s", p->u.exstop.ip ? "ip" : ""); break;
	case PTD_MWAIT: printf("%08x, %08x", p->u.mwait.hints, p->u.mwait.ext); break;
	case PTD_PWRE:
		printf("c%u.%u%s", p->u.pwre.state, p->u.pwre.sub_state, p->u.pwre.hw ? ", hw" : "");
		break;
	case PTD_PWRX:
		printf("c%u, c%u, %x", p->u.pwrx.last, p->u.pwrx.deepest, p->u.pwrx.wake);
		break;
	case PTD_BBP: printf("sz %u, type %x", p->u.bbp.item_size, p->u.bbp.type); break;
	case PTD_BIP: printf("id %x, %" PRIx64, p->u.bip.id, p->u.bip.value); break;
	case PTD_BEP: printf("%s", p->u.bep.ip ? "ip" : ""); break;
	case PTD_CFE:
		printf("type %x, vector %x%s", p->u.cfe.type, p->u.cfe.vector, p->u.cfe.ip ? ", ip" : "");
		break;
	case PTD_EVD: printf("type %x, %" PRIx64, p->u.evd.type, p->u.evd.payload); break;
	default:
		break;
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: ptdump FILE   (raw Intel PT bytes)\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	size_t cap = 1 << 20, len = 0, n;
	uint8_t *buf = malloc(cap);
	while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap)
			buf = realloc(buf, cap *= 2);
	}
	fclose(f);
	if (!buf)
		return 1;
	struct ptd_decoder d;
	struct ptd_packet p;
	int r, errors = 0;
	ptd_init(&d, buf, len);
	while ((r = ptd_next(&d, &p)) != PTD_EOS) {
		printf("%016" PRIx64 "  ", p.offset);
		if (r != PTD_OK) {
			printf("[%s; resync at next psb]\n", ptd_status_name(r));
			errors++;
			continue;
		}
		printf("%-10s", ptd_type_name(p.type));
		payload(&p);
		putchar('\n');
	}
	free(buf);
	return errors ? 1 : 0;
}
