/* Little-endian loads and stores of 1..8 bytes, alignment-free: the records and
 * tables tracelab decodes (DS, BTS, PEBS, PT, multiboot, ACPI) are all LE. */
#ifndef LIB_LE_H
#define LIB_LE_H
#include <stdint.h>

static inline uint64_t le_get(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static inline void le_put(uint8_t *p, unsigned n, uint64_t v)
{
	for (unsigned i = 0; i < n; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

#endif
