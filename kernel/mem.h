/* Memory for experiments: identity-mapped (linear == physical), contiguous, non-paged. */
#ifndef KERNEL_MEM_H
#define KERNEL_MEM_H
#include <stddef.h>
#include <stdint.h>

/* Zeroed, contiguous, aligned to `align` (a power of two, >= 4096).  Lives until the
 * end of the current experiment: the runner frees the whole arena afterwards.
 * Returns 0 when the arena is exhausted. */
void *exp_alloc(size_t bytes, size_t align);

void *memset(void *d, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);
void *memmove(void *d, const void *s, size_t n);
int memcmp(const void *a, const void *b, size_t n);

#endif
