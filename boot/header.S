/* Multiboot v1 (for QEMU's -kernel loader) and multiboot2 (for GRUB) headers. */
#include "boot.h"

	.section .multiboot, "a"
	.balign 8
mb1_header:
	.long MB1_MAGIC
	.long 0x00000003                        /* page-align modules, memory info */
	.long -(MB1_MAGIC + 0x00000003)

	.balign 8
mb2_header:
	.long MB2_MAGIC
	.long 0                                 /* i386 protected mode */
	.long mb2_header_end - mb2_header
	.long -(MB2_MAGIC + 0 + (mb2_header_end - mb2_header))

	/* information request: memory map, framebuffer, ACPI RSDP, command line */
	.balign 8
mb2_info_req:
	.short 1, 0
	.long mb2_info_req_end - mb2_info_req
	.long 1, 6, 8, 14, 15
mb2_info_req_end:

	/* framebuffer: any mode (0 = no preference); optional so text mode still boots */
	.balign 8
	.short 5, 1
	.long 20
	.long 0, 0, 32

	.balign 8
	.short 0, 0
	.long 8
mb2_header_end:
