/* mkmenu: the GRUB menu, generated from the experiment registry in the kernel ELF.
 *
 *   mkmenu tracelab64.elf [timeout-seconds] > grub.cfg
 *   mkmenu --check tracelab64.elf            the registry's rules, nothing printed
 *   mkmenu --list tracelab64.elf ['CMDLINE'] "NUM NAME FAMILY" of every experiment
 *                                            the kernel command line selects
 *
 * Reads the records between __experiments_start and __experiments_end of
 * build/tracelab64.elf through the kernel's own struct experiment
 * (kernel/experiment.h), resolving their pointers through the section headers.
 * The menu: "all experiments" first (the default, with a timeout), a CPU-report
 * entry, then one submenu per family with one entry per experiment, each with its
 * one-line summary.  Every mode first checks the registry (as the compiler and
 * the linker already did): a number in a known family's range, its family the
 * one the number names, no number twice, a name and a one-line summary. */
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "experiment.h"

_Static_assert(sizeof(void *) == 8, "mkmenu reads the kernel's 64-bit records with the host's layout");
typedef struct experiment rec_t;
#define ADDR(p) ((uint64_t)(uintptr_t)(p))

static unsigned char *img;
static size_t img_size;
static Elf64_Shdr *sh;
static int nsh;

static const char *str_at(uint64_t addr)
{
	for (int i = 0; i < nsh; i++) {
		if (sh[i].sh_type != SHT_PROGBITS || !(sh[i].sh_flags & SHF_ALLOC))
			continue;
		if (addr >= sh[i].sh_addr && addr < sh[i].sh_addr + sh[i].sh_size) {
			size_t off = sh[i].sh_offset + (addr - sh[i].sh_addr);
			if (off >= img_size || !memchr(img + off, 0, img_size - off))
				break;
			return (const char *)img + off;
		}
	}
	fprintf(stderr, "mkmenu: string pointer 0x%llx outside the image\n", (unsigned long long)addr);
	exit(1);
}

static int by_num(const void *a, const void *b)
{
	const rec_t *x = a, *y = b;
	return (x->num > y->num) - (x->num < y->num);
}

static void quoted(const char *s)
{
	putchar('\'');
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", stdout);
		else
			putchar(*s);
	}
	putchar('\'');
}

static int check_registry(const rec_t *r, size_t n)
{
	int bad = 0;
	for (size_t i = 0; i < n; i++) {
		const char *file = r[i].file ? str_at(ADDR(r[i].file)) : "?";
		const char *fam = EXP_FAMILY_NAME(r[i].num);
		const char *summary = r[i].summary ? str_at(ADDR(r[i].summary)) : "";
		if (!EXP_NUMBER_OK(r[i].num) || !fam) {
			fprintf(stderr, "%s: experiment %llu: number outside all family ranges (families:%s)\n",
				file, (unsigned long long)r[i].num, EXP_FAMILY_RANGES);
			bad = 1;
		} else if (!r[i].family || strcmp(str_at(ADDR(r[i].family)), fam)) {
			fprintf(stderr, "%s: experiment %llu: family is not '%s'\n", file,
				(unsigned long long)r[i].num, fam);
			bad = 1;
		}
		if (!r[i].name || !*str_at(ADDR(r[i].name))) {
			fprintf(stderr, "%s: experiment %llu: no name\n", file, (unsigned long long)r[i].num);
			bad = 1;
		}
		if (!*summary || strchr(summary, '\n')) {
			fprintf(stderr, "%s: experiment %llu: the summary must be one non-empty line\n", file,
				(unsigned long long)r[i].num);
			bad = 1;
		}
		if (i && r[i].num == r[i - 1].num) {
			fprintf(stderr, "%s: experiment %llu: number registered twice (also in %s)\n", file,
				(unsigned long long)r[i].num,
				r[i - 1].file ? str_at(ADDR(r[i - 1].file)) : "?");
			bad = 1;
		}
	}
	return bad;
}

static void usage(void)
{
	fprintf(stderr, "usage: mkmenu tracelab64.elf [timeout-seconds] > grub.cfg\n"
			"       mkmenu --check tracelab64.elf\n"
			"       mkmenu --list tracelab64.elf ['kernel command line']\n");
	exit(2);
}

int main(int argc, char **argv)
{
	enum { MENU, CHECK, LIST } mode = MENU;
	if (argc > 1 && !strcmp(argv[1], "--check"))
		mode = CHECK;
	else if (argc > 1 && !strcmp(argv[1], "--list"))
		mode = LIST;
	if (mode != MENU) {
		argv++;
		argc--;
	}
	if (argc != 2 && !(argc == 3 && mode != CHECK))
		usage();
	FILE *f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	fseek(f, 0, SEEK_END);
	img_size = (size_t)ftell(f);
	rewind(f);
	img = malloc(img_size);
	if (!img || fread(img, 1, img_size, f) != img_size) {
		fprintf(stderr, "mkmenu: cannot read %s\n", argv[1]);
		return 1;
	}
	fclose(f);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	if (img_size < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > img_size) {
		fprintf(stderr, "mkmenu: %s is not a 64-bit ELF with section headers\n", argv[1]);
		return 1;
	}
	sh = (Elf64_Shdr *)(img + eh->e_shoff);
	nsh = eh->e_shnum;
	const char *shstr = (const char *)img + sh[eh->e_shstrndx].sh_offset;

	/* The records lie in .rodata between __experiments_start and _end: find them by symbol. */
	uint64_t start = 0, end = 0;
	for (int i = 0; i < nsh; i++) {
		if (sh[i].sh_type != SHT_SYMTAB)
			continue;
		Elf64_Sym *sym = (Elf64_Sym *)(img + sh[i].sh_offset);
		const char *names = (const char *)img + sh[sh[i].sh_link].sh_offset;
		for (size_t k = 0; k < sh[i].sh_size / sizeof *sym; k++) {
			if (!strcmp(names + sym[k].st_name, "__experiments_start"))
				start = sym[k].st_value;
			if (!strcmp(names + sym[k].st_name, "__experiments_end"))
				end = sym[k].st_value;
		}
	}
	(void)shstr;
	if (!start || end <= start || (end - start) % sizeof(rec_t)) {
		fprintf(stderr, "mkmenu: no experiment registry in %s\n", argv[1]);
		return 1;
	}
	size_t n = (end - start) / sizeof(rec_t);
	rec_t *r = malloc(n * sizeof *r);
	memcpy(r, str_at(start), n * sizeof *r);   /* records start inside an allocated section */
	qsort(r, n, sizeof *r, by_num);
	if (check_registry(r, n)) {
		fprintf(stderr, "mkmenu: %s: the experiment registry breaks the rules above\n", argv[1]);
		return 1;
	}
	if (mode == CHECK)
		return 0;
	if (mode == LIST) {
		/* the selection exactly as the kernel makes it (lib/cmdline.c) */
		struct cmdline cl;
		if (!cmdline_parse(argc == 3 ? argv[2] : "", &cl)) {
			fprintf(stderr, "mkmenu: %s\n%s\n", cl.error, cmdline_usage);
			return 1;
		}
		int any = 0;
		for (size_t i = 0; i < n; i++)
			if (cmdline_selects_experiment(&cl, (uint32_t)r[i].num, str_at(ADDR(r[i].family)),
						       r[i].flags & EXP_SELFTEST))
				printf("%llu %s %s\n", (unsigned long long)r[i].num, str_at(ADDR(r[i].name)),
				       str_at(ADDR(r[i].family))), any = 1;
		if (!any)
			fprintf(stderr, "mkmenu: '%s' selects no experiment\n", argv[2]);
		return !any;
	}

	printf("# generated by tools/mkmenu from the experiment registry; do not edit\n");
	printf("set timeout=%d\nset default=0\n", argc == 3 ? (mode == MENU ? atoi(argv[2]) : 10) : 10);
	printf("insmod all_video\nset gfxpayload=keep\n");
	/* the menu on COM1 too, where there is one (QEMU's -serial stdio, a lab box) */
	printf("if serial --unit=0 --speed=115200; then\n  terminal_input --append serial\n  terminal_output --append serial\nfi\n\n");
	printf("menuentry 'tracelab: all experiments (summary and hardware report stay on screen)' {\n  multiboot2 /boot/tracelab.elf run=all\n  boot\n}\n");
	printf("menuentry 'tracelab: all experiments, 2 s pause after each to read along' {\n  multiboot2 /boot/tracelab.elf run=all pause=2000\n  boot\n}\n");
	printf("menuentry 'tracelab: CPU report only (identification and feature bits, runs nothing)' {\n  multiboot2 /boot/tracelab.elf report=cpu\n  boot\n}\n");
	for (size_t i = 0; i < n;) {
		const char *fam = str_at(ADDR(r[i].family));
		size_t j = i;
		int selftest = !!(r[i].flags & EXP_SELFTEST);
		printf("\nsubmenu 'family %s (%lluxx): one experiment at a time, verbose' {\n", fam,
		       (unsigned long long)(r[i].num / 100));
		printf("  menuentry 'all of family %s' {\n    multiboot2 /boot/tracelab.elf run=%s%s verbose=1\n    boot\n  }\n",
		       fam, fam, selftest ? " selftest=1" : "");
		for (; j < n && !strcmp(str_at(ADDR(r[j].family)), fam); j++) {
			char title[256];
			snprintf(title, sizeof title, "%llu %s: %s", (unsigned long long)r[j].num,
				 str_at(ADDR(r[j].name)), str_at(ADDR(r[j].summary)));
			printf("  menuentry ");
			quoted(title);
			printf(" {\n    multiboot2 /boot/tracelab.elf run=%llu verbose=1%s\n    boot\n  }\n",
			       (unsigned long long)r[j].num, (r[j].flags & EXP_SELFTEST) ? " selftest=1" : "");
		}
		printf("}\n");
		i = j;
	}
	return 0;
}
