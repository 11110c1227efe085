/* mkmenu: the GRUB menu, generated from the experiment registry in the kernel ELF.
 *
 *   mkmenu tracelab64.elf [timeout-seconds] > grub.cfg
 *   mkmenu --check tracelab64.elf            the registry's rules, nothing printed
 *   mkmenu --list tracelab64.elf ['CMDLINE'] "NUM NAME FAMILY [MODE]" of every run
 *                                            the kernel command line selects
 *
 * Reads the records between __experiments_start and __experiments_end of
 * build/tracelab64.elf through the kernel's own struct experiment
 * (kernel/experiment.h), resolving their pointers through the section headers.
 * The menu: "all experiments" first (the default, with a timeout), a CPU-report
 * entry, then one submenu per family with one entry per experiment, each with its
 * one-line summary.  Every mode first checks the registry (as the compiler and
 * the linker already did): a number in a known family's range, its family the
 * one the number names, no number twice (a number and a protected-mode variant of
 * it count as two), a name and a one-line summary.  Experiments flagged EXP_PM32
 * run in 32-bit protected mode: their entries ask for mode=pm32,pm32pg,pm32pae,
 * and a submenu offers the protected-mode runs. */
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
	uint64_t px = x->flags & EXP_PM32, py = y->flags & EXP_PM32;
	if (x->num != y->num)
		return (x->num > y->num) - (x->num < y->num);
	return (px > py) - (px < py);       /* long mode first, as the runner orders them */
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
		if (i && r[i].num == r[i - 1].num &&
		    (r[i].flags & EXP_PM32) == (r[i - 1].flags & EXP_PM32)) {
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
		for (size_t i = 0; i < n; i++) {
			if (!cmdline_selects_experiment(&cl, (uint32_t)r[i].num, str_at(ADDR(r[i].family)),
							r[i].flags & EXP_SELFTEST))
				continue;
			/* one line per mode it runs in; a protected-mode run names its mode */
			unsigned modes = cmdline_modes_for(&cl, r[i].flags & EXP_PM32);
			for (unsigned m = 1; m <= CMD_MODES_ALL; m <<= 1)
				if (modes & m)
					printf("%llu %s %s%s%s\n", (unsigned long long)r[i].num,
					       str_at(ADDR(r[i].name)), str_at(ADDR(r[i].family)),
					       m == CMD_MODE_LONG ? "" : " ", m == CMD_MODE_LONG ? "" : cmdline_mode_name(m)),
					any = 1;
		}
		if (!any)
			fprintf(stderr, "mkmenu: '%s' selects no experiment\n", argv[2]);
		return !any;
	}

	printf("# generated by tools/mkmenu from the experiment registry; do not edit\n");
	printf("set timeout=%d\nset default=0\n", argc == 3 ? (mode == MENU ? atoi(argv[2]) : 10) : 10);
	printf("insmod all_video\nset gfxpayload=keep\n");
	/* the menu on COM1 too, where there is one (QEMU's -serial stdio, a lab box) */
	printf("if serial --unit=0 --speed=115200; then\n  terminal_input --append serial\n  terminal_output --append serial\nfi\n\n");
	/* The default entry: long mode and 32-bit protected mode with paging off (the
	 * paging variants give the same verdicts on the emulators and cost boot time
	 * on Bochs; the protected-mode submenu has them). */
	printf("menuentry 'tracelab: all experiments, long mode and 32-bit protected mode (summary and hardware report stay on screen)' {\n  multiboot2 /boot/tracelab.elf run=all mode=long,pm32\n  boot\n}\n");
	printf("menuentry 'tracelab: all experiments, 2 s pause after each to read along' {\n  multiboot2 /boot/tracelab.elf run=all mode=long,pm32 pause=2000\n  boot\n}\n");
	printf("menuentry 'tracelab: all experiments in every mode (long; protected mode with paging off, 32-bit and PAE paging)' {\n  multiboot2 /boot/tracelab.elf run=all mode=all\n  boot\n}\n");
	printf("menuentry 'tracelab: CPU report only (identification and feature bits, runs nothing)' {\n  multiboot2 /boot/tracelab.elf report=cpu\n  boot\n}\n");
	static const char *const pm_modes[][2] = {
		{ "pm32", "paging off" }, { "pm32pg", "32-bit paging" }, { "pm32pae", "PAE paging" },
		{ "pm32,pm32pg,pm32pae", "paging off, 32-bit and PAE paging in turn" },
	};
	printf("\nsubmenu '32-bit protected mode: the experiments written for it, paging off or on' {\n");
	for (size_t m = 0; m < sizeof pm_modes / sizeof pm_modes[0]; m++)
		printf("  menuentry 'all protected-mode experiments, %s (mode=%s)' {\n"
		       "    multiboot2 /boot/tracelab.elf run=all mode=%s verbose=1\n    boot\n  }\n",
		       pm_modes[m][1], pm_modes[m][0], pm_modes[m][0]);
	printf("}\n");
	for (size_t i = 0; i < n;) {
		const char *fam = str_at(ADDR(r[i].family));
		size_t j = i;
		int selftest = !!(r[i].flags & EXP_SELFTEST);
		printf("\nsubmenu 'family %s (%lluxx): one experiment at a time, verbose' {\n", fam,
		       (unsigned long long)(r[i].num / 100));
		printf("  menuentry 'all of family %s, long mode' {\n    multiboot2 /boot/tracelab.elf run=%s%s verbose=1\n    boot\n  }\n",
		       fam, fam, selftest ? " selftest=1" : "");
		int has_pm32 = 0;
		for (size_t k = i; k < n && !strcmp(str_at(ADDR(r[k].family)), fam); k++)
			has_pm32 |= !!(r[k].flags & EXP_PM32);
		if (has_pm32)
			printf("  menuentry 'all of family %s, 32-bit protected mode (paging off, 32-bit, PAE)' {\n"
			       "    multiboot2 /boot/tracelab.elf run=%s mode=pm32,pm32pg,pm32pae verbose=1\n    boot\n  }\n",
			       fam, fam);
		for (; j < n && !strcmp(str_at(ADDR(r[j].family)), fam); j++) {
			char title[256];
			int pm32 = !!(r[j].flags & EXP_PM32);
			snprintf(title, sizeof title, "%llu %s%s: %s", (unsigned long long)r[j].num,
				 str_at(ADDR(r[j].name)), pm32 ? " (32-bit protected mode)" : "", str_at(ADDR(r[j].summary)));
			printf("  menuentry ");
			quoted(title);
			printf(" {\n    multiboot2 /boot/tracelab.elf run=%llu verbose=1%s%s\n    boot\n  }\n",
			       (unsigned long long)r[j].num, (r[j].flags & EXP_SELFTEST) ? " selftest=1" : "",
			       pm32 ? " mode=pm32,pm32pg,pm32pae" : "");
		}
		printf("}\n");
		i = j;
	}
	return 0;
}
