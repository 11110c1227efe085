/* Host test runner: TAP-like per-test lines, then "N passed, N failed". */
#include <stdlib.h>
#include <string.h>
#include "tl_test.h"

#define MAX_TESTS 1024
static struct { const char *name; void (*fn)(void); } tests[MAX_TESTS];
static int ntests;
static int cur_failed;

void tl_register(const char *name, void (*fn)(void))
{
	if (ntests == MAX_TESTS) {
		fprintf(stderr, "too many tests\n");
		exit(2);
	}
	tests[ntests].name = name;
	tests[ntests].fn = fn;
	ntests++;
}

bool tl_check(bool ok, const char *file, int line, const char *expr)
{
	if (!ok) {
		printf("#   %s:%d: CHECK(%s) failed\n", file, line, expr);
		cur_failed++;
	}
	return ok;
}

bool tl_check_eq(uint64_t a, uint64_t b, const char *file, int line, const char *ea, const char *eb)
{
	if (a != b) {
		printf("#   %s:%d: %s == %s failed: 0x%" PRIx64 " != 0x%" PRIx64 "\n",
		       file, line, ea, eb, a, b);
		cur_failed++;
	}
	return a == b;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0;
	qsort(tests, ntests, sizeof tests[0], by_name);
	for (int i = 0; i < ntests; i++) {
		if (argc > 1 && !strstr(tests[i].name, argv[1]))
			continue;
		cur_failed = 0;
		tests[i].fn();
		printf("%s %d %s\n", cur_failed ? "not ok" : "ok", passed + failed + 1, tests[i].name);
		if (cur_failed)
			failed++;
		else
			passed++;
	}
	printf("host: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
