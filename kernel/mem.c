/* The experiment arena: identity-mapped RAM after the kernel image, handed out
 * by a bump pointer and reclaimed whole after each experiment. */
#include "console.h"
#include "kmem.h"
#include "mem.h"

extern char __kernel_end[];
#define ARENA_ALIGN     0x200000ULL
#define ARENA_MAX       (32ULL << 20)

static uint64_t arena_base, arena_size, arena_next;

void arena_init(const struct boot_info *bi)
{
	uint64_t base = ((uint64_t)(uintptr_t)__kernel_end + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);
	uint64_t size = ARENA_MAX;
	while (size >= 0x100000 && !bi_range_usable(bi, base, size))
		size /= 2;
	if (size < 0x100000 && bi->nmmap) {
		kprintf("# memory: WARNING: the experiment arena needs at least 1 MiB of usable RAM "
			"at 0x%llx (after the kernel, 2 MiB aligned) and the memory map has none there: "
			"experiments that need buffers (BTS, PEBS, PT) will fail for lack of memory\n",
			(unsigned long long)base);
		size = 0;
	}
	if (!bi->nmmap)         /* no memory map at all: trust the first 16 MiB after us */
		size = 16ULL << 20;
	arena_base = arena_next = base;
	arena_size = size;
}

uint64_t arena_start(void) { return arena_base; }
uint64_t arena_bytes(void) { return arena_size; }

void arena_reset(void)
{
	arena_next = arena_base;
}

void *exp_alloc(size_t bytes, size_t align)
{
	if (align < 4096)
		align = 4096;
	uint64_t p = (arena_next + align - 1) & ~((uint64_t)align - 1);
	if (p + bytes > arena_base + arena_size || p + bytes < p)
		return 0;
	arena_next = p + bytes;
	memset((void *)(uintptr_t)p, 0, bytes);
	return (void *)(uintptr_t)p;
}
