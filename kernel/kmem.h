/* Kernel-internal memory set-up (the experiments' view is mem.h). */
#ifndef KERNEL_KMEM_H
#define KERNEL_KMEM_H
#include <stdint.h>
#include "bootinfo.h"

void arena_init(const struct boot_info *bi);
void arena_reset(void);
uint64_t arena_start(void);
uint64_t arena_bytes(void);
void paging_init(const struct boot_info *bi);
void mb1_parse(uint32_t addr, struct boot_info *bi);

#endif
