/* A minimal host test framework: TEST() registers a function, CHECK* record results.
 * tests/host/main.c runs every test and closes with "N passed, N failed". */
#ifndef TL_TEST_H
#define TL_TEST_H
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

void tl_register(const char *name, void (*fn)(void));
bool tl_check(bool ok, const char *file, int line, const char *expr);
bool tl_check_eq(uint64_t a, uint64_t b, const char *file, int line, const char *ea, const char *eb);

#define TEST(fn)							\
	static void fn(void);						\
	__attribute__((constructor)) static void tl_reg_##fn(void)	\
	{ tl_register(#fn, fn); }					\
	static void fn(void)

#define CHECK(c)        tl_check(!!(c), __FILE__, __LINE__, #c)
#define CHECK_EQ(a, b)  tl_check_eq((uint64_t)(a), (uint64_t)(b), __FILE__, __LINE__, #a, #b)

#endif
