/* lib/fmt.c against the C library's snprintf, which defines the semantics. */
/* The edge cases below are deliberate: gcc warns about some of them. */
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wformat-extra-args"
#pragma GCC diagnostic ignored "-Wformat-truncation"
#include <stdio.h>
#include <string.h>
#include "fmt.h"
#include "tl_test.h"

#define SAME(...) do {							\
	char a[128], b[128];						\
	int na = tl_snprintf(a, sizeof a, __VA_ARGS__);			\
	int nb = snprintf(b, sizeof b, __VA_ARGS__);			\
	if (!CHECK_EQ(na, nb) || !CHECK(!strcmp(a, b)))			\
		printf("#   fmt %s: ours '%s' libc '%s'\n", #__VA_ARGS__, a, b); \
} while (0)

TEST(fmt_integers)
{
	SAME("%d %i %u", 0, -1, 4000000000u);
	SAME("%d", -2147483647 - 1);
	SAME("%lld %llu", -9223372036854775807LL - 1, 18446744073709551615ULL);
	SAME("%x %X %#x %#X %#x", 0xdeadbeefu, 0xabcu, 255u, 255u, 0u);
	SAME("%016llx|%-8x|%8x|%08x", 0x1234ULL, 0x5u, 0x5u, 0x5u);
	SAME("%+d % d %+d % d", 5, 5, -5, -5);
	SAME("%.3d|%5.3d|%-5.3d|%.0d|", 7, 7, 7, 0);
	SAME("%hhu %hu %hhd %hd", 300, 70000, 200, 40000);
	SAME("%zu %zx %lx %ld", (size_t)12345, (size_t)0xfff, 0x123456789abcUL, -3L);
	SAME("%o %#o %#o", 8u, 8u, 0u);
	SAME("%*d|%-*d|%.*d", 6, 42, 6, 42, 4, 42);
	SAME("%05d|%-05d|%05.2d", -42, -42, -42);
}

TEST(fmt_strings_and_chars)
{
	SAME("%s|%10s|%-10s|%.2s|%.*s", "abc", "abc", "abc", "abc", 1, "xyz");
	SAME("%c%c%c|%3c|%-3c|", 'a', 'b', 'c', 'z', 'z');
	SAME("100%% %s", "done");
	SAME("%p", (void *)0x1000);
}

TEST(fmt_truncation)
{
	char buf[8];
	int n = tl_snprintf(buf, sizeof buf, "%s", "0123456789");
	CHECK_EQ(n, 10);
	CHECK(!strcmp(buf, "0123456"));
	n = tl_snprintf(buf, 1, "%d", 12345);
	CHECK_EQ(n, 5);
	CHECK_EQ(buf[0], 0);
	n = tl_snprintf(NULL, 0, "%d", 12345);
	CHECK_EQ(n, 5);
}
