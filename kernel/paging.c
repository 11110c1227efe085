/* The kernel's own identity map, built from the memory map: all usable RAM,
 * the first 2 MiB (BIOS data, trampoline, VGA), the kernel image, the local
 * APIC page uncached (SDM vol.3 11.4.1: UC for the APIC range), and the
 * framebuffer write-through.  Everything else is left unmapped, so a stray
 * pointer faults instead of scribbling on MMIO.  All pages are user-accessible:
 * ring-3 experiments run kernel code. */
#include "apic.h"
#include "apicdef.h"
#include "console.h"
#include "cr.h"
#include "kmem.h"
#include "mem.h"
#include "msr.h"
#include "x86.h"

#define POOL_PAGES  96
#define MAX_PHYS    (64ULL << 30)       /* map RAM up to 64 GiB */
static uint64_t pool[POOL_PAGES][512] __attribute__((aligned(4096)));
static int pool_used;
static uint64_t *pml4;
static bool out_of_tables;

static uint64_t *alloc_table(void)
{
	if (pool_used == POOL_PAGES) {
		out_of_tables = true;
		return 0;
	}
	return pool[pool_used++];
}

static uint64_t *next_level(uint64_t *t, int i)
{
	if (!(t[i] & PTE_P)) {
		uint64_t *n = alloc_table();
		if (!n)
			return 0;
		t[i] = (uint64_t)(uintptr_t)n | PTE_P | PTE_W | PTE_U;
	}
	if (t[i] & PTE_PS)
		return 0;
	return (uint64_t *)(uintptr_t)(t[i] & 0x000ffffffffff000ULL);
}

static void map_2m(uint64_t pa, uint64_t flags)
{
	uint64_t *pdpt = next_level(pml4, (pa >> 39) & 511);
	uint64_t *pd = pdpt ? next_level(pdpt, (pa >> 30) & 511) : 0;
	if (!pd)
		return;
	uint64_t *e = &pd[(pa >> 21) & 511];
	if (!(*e & PTE_P))
		*e = pa | PTE_P | PTE_W | PTE_U | PTE_PS | flags;
}

static void map_4k(uint64_t pa, uint64_t flags)
{
	uint64_t *pdpt = next_level(pml4, (pa >> 39) & 511);
	uint64_t *pd = pdpt ? next_level(pdpt, (pa >> 30) & 511) : 0;
	uint64_t *pt = pd ? next_level(pd, (pa >> 21) & 511) : 0;
	if (pt)
		pt[(pa >> 12) & 511] = pa | PTE_P | PTE_W | PTE_U | flags;
}

static void map_range_2m(uint64_t base, uint64_t len, uint64_t flags)
{
	uint64_t end = base + len;
	if (end > MAX_PHYS)
		end = MAX_PHYS;
	for (uint64_t a = base & ~0x1fffffULL; a < end; a += 0x200000)
		map_2m(a, flags);
}

void paging_init(const struct boot_info *bi)
{
	extern char __kernel_start[], __kernel_end[];
	pml4 = alloc_table();
	uint64_t apic = apic_phys_base();       /* 0: no local APIC, nothing to map */
	/* The APIC's 4 KiB page, uncached, goes in first so that the 2 MiB
	 * mappings below do not cover it with write-back. */
	if (apic) {
		map_4k(apic, PTE_PCD | PTE_PWT);
		for (uint64_t a = apic & ~0x1fffffULL; a < (apic & ~0x1fffffULL) + 0x200000; a += 4096)
			if (a != apic)
				map_4k(a, PTE_PCD | PTE_PWT);
	}
	map_range_2m(0, 0x200000, 0);
	map_range_2m((uintptr_t)__kernel_start, (uintptr_t)__kernel_end - (uintptr_t)__kernel_start, 0);
	for (int i = 0; i < bi->nmmap; i++)
		if (bi->mmap[i].type == MEM_USABLE)
			map_range_2m(bi->mmap[i].base, bi->mmap[i].len, 0);
	if (!bi->nmmap)
		map_range_2m(0, 1ULL << 30, 0);
	if (bi->has_fb && bi->fb_type != FB_TYPE_EGA_TEXT)
		map_range_2m(bi->fb_addr, (uint64_t)bi->fb_pitch * bi->fb_height, PTE_PWT);
	if (out_of_tables) {
		kprintf("# paging: table pool exhausted; keeping the early 4 GiB map\n");
		return;
	}
	write_cr3((uint64_t)(uintptr_t)pml4);
	if (apic)
		kprintf("# paging: identity map from the memory map, %d table pages; APIC 0x%llx uncached\n",
			pool_used, (unsigned long long)apic);
	else
		kprintf("# paging: identity map from the memory map, %d table pages; no local APIC\n",
			pool_used);
}
