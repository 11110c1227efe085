/* dsdump: the Debug Store dumps (BTS and PEBS) the kernel wrote over serial,
 * decoded: the management area field by field, BTS records with the symbols of
 * the kernel ELF, PEBS records in the layout their PEBS_FMT gives.
 *
 *   dsdump LOG [NAME] [ELF]
 *
 * The dump format, written by kernel/ds_area.c ds_dump_raw() when verbosity >= 1
 * (each line may be indented and prefixed by KTAP's "# "):
 *   # ds-dump begin NAME area=0x... pebs_fmt=N layout=L cfg=0x... timed=T split=S
 *   # ds: mgmt +0xOFF Q0 Q1 Q2 Q3            (hex quadwords of the area)
 *   # ds: bts 0xADDR FROM TO FLAGS           (one BTS record)
 *   # ds: pebs 0xADDR Q0 Q1 ...              (one PEBS record, all its quadwords)
 *   # ds: bts|pebs ... N records not shown
 *   # ds-dump end NAME
 * and, from the BTS experiments, the drained log:
 *   # bts-rec N 0xFROM 0xTO
 * NAME: only that dump (default: every one); ELF: build/tracelab64.elf. */
#include <elf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bts_record.h"
#include "ds_layout.h"
#include "pebs_record.h"

struct sym { uint64_t addr, size; char *name; };
static struct sym *syms;
static size_t nsyms;

static int by_addr(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void load_symbols(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return;
	Elf64_Ehdr eh;
	if (fread(&eh, sizeof eh, 1, f) != 1 || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64) {
		fclose(f);
		return;
	}
	Elf64_Shdr *sh = calloc(eh.e_shnum, sizeof *sh);
	fseek(f, (long)eh.e_shoff, SEEK_SET);
	if (fread(sh, sizeof *sh, eh.e_shnum, f) != eh.e_shnum)
		goto out;
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh.e_shnum)
			continue;
		Elf64_Shdr *st = &sh[sh[i].sh_link];
		char *str = malloc(st->sh_size + 1);
		Elf64_Sym *sy = malloc(sh[i].sh_size);
		fseek(f, (long)st->sh_offset, SEEK_SET);
		if (fread(str, 1, st->sh_size, f) != st->sh_size)
			break;
		str[st->sh_size] = 0;
		fseek(f, (long)sh[i].sh_offset, SEEK_SET);
		if (fread(sy, 1, sh[i].sh_size, f) != sh[i].sh_size)
			break;
		size_t n = sh[i].sh_size / sizeof *sy;
		syms = calloc(n, sizeof *syms);
		for (size_t k = 0; k < n; k++) {
			unsigned t = ELF64_ST_TYPE(sy[k].st_info);
			if (!sy[k].st_value || sy[k].st_name >= st->sh_size || !str[sy[k].st_name] ||
			    (t != STT_FUNC && t != STT_NOTYPE && t != STT_OBJECT))
				continue;
			syms[nsyms++] = (struct sym){ sy[k].st_value, sy[k].st_size, str + sy[k].st_name };
		}
		qsort(syms, nsyms, sizeof *syms, by_addr);
		break;
	}
out:
	free(sh);
	fclose(f);
}

/* "name+0xoff" of the nearest symbol at or below a, or the hex address. */
static const char *symbolize(uint64_t a, char *buf, size_t n)
{
	size_t lo = 0, hi = nsyms;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (syms[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || a - syms[lo - 1].addr > 0x10000) {
		snprintf(buf, n, "0x%" PRIx64, a);
		return buf;
	}
	const struct sym *s = &syms[lo - 1];
	if (a == s->addr)
		snprintf(buf, n, "%s", s->name);
	else
		snprintf(buf, n, "%s+0x%" PRIx64, s->name, a - s->addr);
	return buf;
}

/* Quadwords after a prefix: "0xADDR Q0 Q1 ..." (hex, 0x optional). */
static size_t qwords(const char *p, uint64_t *q, size_t cap)
{
	size_t n = 0;
	while (n < cap) {
		char *e;
		uint64_t v = strtoull(p, &e, 16);
		if (e == p)
			break;
		q[n++] = v;
		p = e;
	}
	return n;
}

struct dump {
	char name[64];
	uint64_t area, cfg;
	unsigned pebs_fmt;
	int layout, timed, split;
	uint8_t mgmt[DS_MGMT_SIZE_64_MAX];
	unsigned mgmt_len;
	unsigned nbts, npebs;
	int mgmt_printed;
};

static void print_mgmt(const struct dump *d);
static void mgmt_once(struct dump *d)
{
	if (!d->mgmt_printed && d->mgmt_len)
		print_mgmt(d);
	d->mgmt_printed = 1;
}

static void print_mgmt(const struct dump *d)
{
	printf("DS management area at 0x%" PRIx64 " (PEBS_FMT %u, %u bytes)\n", d->area, d->pebs_fmt,
	       ds_mgmt_size(DS_FMT64, d->pebs_fmt));
	for (int f = 0; f < DS_NFIELDS && (unsigned)(f + 1) * 8 <= d->mgmt_len; f++)
		printf("  +0x%02x %-26s 0x%016" PRIx64 "\n", ds_field_offset(DS_FMT64, (enum ds_field)f),
		       ds_field_name((enum ds_field)f), ds_get(d->mgmt, DS_FMT64, (enum ds_field)f));
	struct ds_buf b;
	ds_get_buf(d->mgmt, DS_FMT64, false, &b);
	if (b.max > b.base)
		printf("  BTS: %" PRIu64 " records of 24, %" PRIu64 " written, threshold at record %" PRIu64 "\n",
		       ds_buf_capacity(&b, 24), ds_buf_used(&b, 24), (b.thresh - b.base) / 24);
	for (unsigned n = 0; n < DS_MAX_GP_RESETS; n++) {
		unsigned o = ds_gp_reset_offset(DS_FMT64, d->pebs_fmt, n);
		if (o && o + 8 <= d->mgmt_len && ds_get_gp_reset(d->mgmt, DS_FMT64, d->pebs_fmt, n))
			printf("  +0x%03x PEBS reset PMC%u 0x%016" PRIx64 "\n", o, n,
			       ds_get_gp_reset(d->mgmt, DS_FMT64, d->pebs_fmt, n));
	}
	for (unsigned n = 0; n < DS_MAX_FIXED_RESETS; n++) {
		unsigned o = ds_fixed_reset_offset(DS_FMT64, d->pebs_fmt, n);
		if (o && o + 8 <= d->mgmt_len && ds_get_fixed_reset(d->mgmt, DS_FMT64, d->pebs_fmt, n))
			printf("  +0x%03x PEBS reset FIXED_CTR%u 0x%016" PRIx64 "\n", o, n,
			       ds_get_fixed_reset(d->mgmt, DS_FMT64, d->pebs_fmt, n));
	}
}

static void print_bts(uint64_t at, uint64_t from, uint64_t to, uint64_t flags, const char *tag)
{
	char a[128], b[128];
	printf("  %s 0x%" PRIx64 "  %-36s -> %-36s%s\n", tag, at, symbolize(from, a, sizeof a),
	       symbolize(to, b, sizeof b), (flags & BTS_FLAG_PREDICTED) ? " predicted" : "");
}

static void print_pebs(const struct dump *d, uint64_t at, const uint64_t *q, size_t n)
{
	uint8_t rec[2048];
	size_t len = n * 8 < sizeof rec ? n * 8 : sizeof rec;
	for (size_t i = 0; i < len / 8; i++)
		for (int k = 0; k < 8; k++)
			rec[8 * i + k] = (uint8_t)(q[i] >> (8 * k));
	struct pebs_format f = { (enum pebs_layout)d->layout, d->cfg ? d->cfg : PEBS_CFG_ANY, d->timed,
				 d->split };
	struct pebs_record r;
	int e = pebs_decode_fmt(rec, len, &f, &r);
	if (e) {
		printf("  PEBS record at 0x%" PRIx64 ": %s\n", at, pebs_strerror(e));
		return;
	}
	char text[2048], s1[128], s2[128];
	pebs_format(text, sizeof text, &r);
	printf("  PEBS record at 0x%" PRIx64 ": ip %s", at, symbolize(r.ip, s1, sizeof s1));
	if (r.valid & PEBS_V_EVENTING_IP)
		printf(", eventing ip %s", symbolize(r.eventing_ip, s2, sizeof s2));
	printf("\n");
	for (char *p = text, *e2; *p; p = e2 + 1) {
		e2 = strchr(p, '\n');
		if (!e2) {
			printf("    %s\n", p);
			break;
		}
		printf("    %.*s\n", (int)(e2 - p), p);
	}
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fprintf(stderr, "usage: dsdump LOG [NAME] [ELF]\n");
		return 2;
	}
	const char *want = argc > 2 && strcmp(argv[2], "-") ? argv[2] : NULL;
	load_symbols(argc > 3 ? argv[3] : "build/tracelab64.elf");
	FILE *f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	char line[4096];
	struct dump d;
	int in = 0, found = 0, nlog = 0;
	uint64_t q[300];
	while (fgets(line, sizeof line, f)) {
		char *s;
		if ((s = strstr(line, "# bts-rec "))) {
			unsigned i;
			uint64_t from, to;
			if (sscanf(s + 10, "%u %" SCNx64 " %" SCNx64, &i, &from, &to) == 3 && !want) {
				if (!nlog++)
					printf("BTS records drained by the handler, oldest first:\n");
				print_bts(i, from, to, 0, "log");
			}
			continue;
		}
		if ((s = strstr(line, "# ds-dump begin "))) {
			memset(&d, 0, sizeof d);
			if (sscanf(s + 16, "%63s area=%" SCNx64 " pebs_fmt=%u layout=%d cfg=%" SCNx64 " timed=%d split=%d",
				   d.name, &d.area, &d.pebs_fmt, &d.layout, &d.cfg, &d.timed, &d.split) < 2)
				continue;
			in = !want || !strcmp(d.name, want);
			if (in) {
				found++;
				printf("== ds-dump %s\n", d.name);
			}
			continue;
		}
		if (!in)
			continue;
		if (strstr(line, "# ds-dump end")) {
			mgmt_once(&d);
			printf("  %u BTS and %u PEBS records shown\n", d.nbts, d.npebs);
			in = 0;
			continue;
		}
		if ((s = strstr(line, "# ds: mgmt +"))) {
			char *e;
			unsigned long off = strtoul(s + 12, &e, 16);
			size_t n = qwords(e, q, 4);
			for (size_t i = 0; i < n && off + 8 * i + 8 <= sizeof d.mgmt; i++)
				for (int k = 0; k < 8; k++)
					d.mgmt[off + 8 * i + k] = (uint8_t)(q[i] >> (8 * k));
			if (off + 8 * n > d.mgmt_len)
				d.mgmt_len = (unsigned)(off + 8 * n);
		} else if ((s = strstr(line, "# ds: bts "))) {
			mgmt_once(&d);
			if (strstr(s, "not shown")) {
				printf("  ...%s", s + 9);
				continue;
			}
			size_t n = qwords(s + 10, q, 4);
			if (n == 4) {
				print_bts(q[0], q[1], q[2], q[3], "bts");
				d.nbts++;
			}
		} else if ((s = strstr(line, "# ds: pebs "))) {
			mgmt_once(&d);
			if (strstr(s, "not shown")) {
				printf("  ...%s", s + 10);
				continue;
			}
			size_t n = qwords(s + 11, q, sizeof q / sizeof q[0]);
			if (n >= 2) {
				print_pebs(&d, q[0], q + 1, n - 1);
				d.npebs++;
			}
		}
	}
	fclose(f);
	if (!found && !nlog) {
		fprintf(stderr, "dsdump: no %s%sds-dump in %s (boot with verbose=1)\n", want ? want : "",
			want ? " " : "", argv[1]);
		return 1;
	}
	return 0;
}
