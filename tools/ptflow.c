/* ptflow: instruction flow of an Intel PT trace the kernel dumped over serial.
 *
 *   ptflow LOG [NAME] [ELF]      one IP per line (libipt instruction decoder)
 *   ptflow --extract LOG [NAME]  the raw trace bytes to stdout (for ptdump)
 *
 * The dump format, written by experiments/pt.c when verbosity >= 1 (each line
 * may be indented and prefixed by KTAP's "# "):
 *   # pt-dump begin NAME base=0xADDR size=N offset=O wrapped=W bytes=M
 *   # pt: 0000: 02 82 02 82 ...           (hex offset, up to 16 bytes)
 *   # pt-dump end NAME
 * The bytes are the linearised trace, oldest first.  NAME defaults to the first
 * dump in the log; ELF to build/tracelab64.elf, whose PT_LOAD segments become
 * the traced image (identity-mapped: vaddr == paddr). */
#include <elf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <intel-pt.h>

static uint8_t *extract(const char *log, const char *name, size_t *len)
{
	FILE *f = fopen(log, "r");
	if (!f) {
		perror(log);
		return NULL;
	}
	char line[1024];
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0;
	int in = 0, found = 0;
	while (fgets(line, sizeof line, f)) {
		char *s = strstr(line, "# pt");
		if (!s)
			continue;
		if (!strncmp(s, "# pt-dump begin ", 16)) {
			char nm[128];
			if (found || sscanf(s + 16, "%127s", nm) != 1)
				continue;
			if (!name || !strcmp(nm, name))
				in = found = 1;
		} else if (in && !strncmp(s, "# pt-dump end", 13)) {
			break;
		} else if (in && !strncmp(s, "# pt: ", 6)) {
			char *p = strchr(s + 6, ':');
			if (!p)
				continue;
			for (p++;;) {
				char *e;
				unsigned long v = strtoul(p, &e, 16);
				if (e == p || v > 0xff)
					break;
				if (n == cap)
					buf = realloc(buf, cap = cap ? 2 * cap : 4096);
				buf[n++] = (uint8_t)v;
				p = e;
			}
		}
	}
	fclose(f);
	if (!found) {
		fprintf(stderr, "ptflow: no pt-dump %s in %s\n", name ? name : "", log);
		free(buf);
		return NULL;
	}
	*len = n;
	return buf ? buf : calloc(1, 1);
}

static int add_elf(struct pt_image *img, const char *path)
{
	FILE *f = fopen(path, "rb");
	Elf64_Ehdr eh;
	int added = 0;
	if (!f || fread(&eh, sizeof eh, 1, f) != 1 || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64) {
		fprintf(stderr, "ptflow: %s: not a 64-bit ELF\n", path);
		if (f)
			fclose(f);
		return -1;
	}
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		if (fseek(f, (long)(eh.e_phoff + (uint64_t)i * eh.e_phentsize), SEEK_SET) ||
		    fread(&ph, sizeof ph, 1, f) != 1)
			break;
		if (ph.p_type != PT_LOAD || !ph.p_filesz)
			continue;
		int r = pt_image_add_file(img, path, ph.p_offset, ph.p_filesz, NULL, ph.p_vaddr);
		if (r < 0)
			fprintf(stderr, "ptflow: segment %u: %s\n", i, pt_errstr(pt_errcode(r)));
		else
			added++;
	}
	fclose(f);
	return added ? 0 : -1;
}

static int flow(uint8_t *buf, size_t len, const char *elf)
{
	struct pt_config c;
	pt_config_init(&c);
	c.begin = buf;
	c.end = buf + len;
	struct pt_insn_decoder *d = pt_insn_alloc_decoder(&c);
	if (!d || add_elf(pt_insn_get_image(d), elf) < 0)
		return 1;
	int errors = 0;
	for (;;) {
		int st = pt_insn_sync_forward(d);
		if (st < 0) {
			if (st != -pte_eos)
				fprintf(stderr, "ptflow: sync: %s\n", pt_errstr(pt_errcode(st)));
			break;
		}
		for (;;) {
			while (st & pts_event_pending) {
				struct pt_event ev;
				st = pt_insn_event(d, &ev, sizeof ev);
				if (st < 0)
					break;
				if (ev.type == ptev_disabled)
					printf("# disabled\n");
				else if (ev.type == ptev_enabled)
					printf("# enabled\n");
				else if (ev.type == ptev_overflow)
					printf("# overflow\n");
				else if (ev.type == ptev_stop)
					printf("# tracestop\n");
			}
			if (st < 0)
				break;
			struct pt_insn insn;
			st = pt_insn_next(d, &insn, sizeof insn);
			if (st < 0) {
				if (insn.iclass != ptic_error)
					printf("0x%" PRIx64 "\n", insn.ip);
				break;
			}
			printf("0x%" PRIx64 "\n", insn.ip);
		}
		if (st == -pte_eos)
			break;
		uint64_t off = 0;
		pt_insn_get_offset(d, &off);
		printf("# error at 0x%" PRIx64 ": %s\n", off, pt_errstr(pt_errcode(st)));
		errors++;
	}
	pt_insn_free_decoder(d);
	return errors ? 1 : 0;
}

int main(int argc, char **argv)
{
	size_t len = 0;
	if (argc >= 3 && !strcmp(argv[1], "--extract")) {
		uint8_t *b = extract(argv[2], argc > 3 ? argv[3] : NULL, &len);
		if (!b)
			return 1;
		fwrite(b, 1, len, stdout);
		free(b);
		return 0;
	}
	if (argc < 2 || argc > 4 || argv[1][0] == '-') {
		fprintf(stderr, "usage: ptflow LOG [NAME] [ELF]\n       ptflow --extract LOG [NAME] > trace.bin\n");
		return 2;
	}
	uint8_t *b = extract(argv[1], argc > 2 ? argv[2] : NULL, &len);
	if (!b)
		return 1;
	int r = flow(b, len, argc > 3 ? argv[3] : "build/tracelab64.elf");
	free(b);
	return r;
}
