/* dbfgen: the debug-fuzz scenarios (lib/dbfuzz.c) as text and machine code, as
 * the kernel builds them for fuzz=debug.
 *
 *   dbfgen SEED INDEX [DROP]     description, then one line per instruction
 *   dbfgen SEED FIRST-LAST       one description line per scenario
 *   dbfgen SEED FIRST-LAST map   per scenario "I off:OP,...;N:off,..." (instruction
 *                                offsets and their items' ops; execute breakpoints) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dbfuzz.h"

static void one(uint64_t seed, uint32_t i, uint32_t drop, int full)
{
	struct dbf_scenario s;
	struct dbf_code c;
	char d[512];
	dbf_generate(seed, i, &s);
	dbf_describe(d, sizeof d, &s, drop);
	printf("%u %x %s\n", i, drop, d);
	if (!full || !dbf_build(&s, drop, 0, 0x1000, &c))
		return;
	printf("  dr7=0x%llx dr0-3=%llx %llx %llx %llx rflags=0x%llx cpl=%d\n",
	       (unsigned long long)c.dr7, (unsigned long long)c.dr[0], (unsigned long long)c.dr[1],
	       (unsigned long long)c.dr[2], (unsigned long long)c.dr[3],
	       (unsigned long long)c.rflags, c.cpl);
	for (int k = 0; k < c.ninsn; k++) {
		printf("  %3x  item %-2d %-8s ", c.insn[k].off, c.insn[k].item,
		       c.insn[k].item < 0 ? "END" : dbf_op_name(s.item[c.insn[k].item].op));
		for (int b = 0; b < c.insn[k].len; b++)
			printf(" %02x", c.bytes[c.insn[k].off + b]);
		printf("\n");
	}
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: dbfgen SEED INDEX [DROP] | dbfgen SEED FIRST-LAST\n");
		return 2;
	}
	uint64_t seed = strtoull(argv[1], 0, 0);
	char *dash = strchr(argv[2], '-');
	if (dash) {
		uint32_t a = (uint32_t)strtoul(argv[2], 0, 0), b = (uint32_t)strtoul(dash + 1, 0, 0);
		for (uint32_t i = a; i <= b; i++) {
			if (argc < 4) {
				one(seed, i, 0, 0);
				continue;
			}
			struct dbf_scenario s;
			struct dbf_code c;
			dbf_generate(seed, i, &s);
			if (!dbf_build(&s, 0, 0, 0x1000, &c))
				continue;
			printf("%u ", i);
			for (int k = 0; k < c.ninsn; k++)
				printf("%s%x:%s", k ? "," : "", c.insn[k].off,
				       c.insn[k].item < 0 ? "END" : dbf_op_name(s.item[c.insn[k].item].op));
			printf(";");
			for (int n = 0; n < 4; n++)
				if (((c.dr7 >> (2 * n)) & 3) && !((c.dr7 >> (16 + 4 * n)) & 3))
					printf("%d:%llx,", n, (unsigned long long)c.dr[n]);
			printf("\n");
		}
		return 0;
	}
	one(seed, (uint32_t)strtoul(argv[2], 0, 0), argc > 3 ? (uint32_t)strtoul(argv[3], 0, 0) : 0, 1);
	return 0;
}
