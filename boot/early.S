/* The checks before long mode, and the way out when one fails: a CPU without
 * long mode, or too little RAM for the kernel image.  They run on a small stack
 * in .data (loaded with the image, so it exists whatever the RAM; .bss may lie
 * beyond the end of RAM), say what is wrong on COM1 and on the screen, and end
 * the run the way kernel/exit.c does: QEMU's isa-debug-exit with the
 * failure code, Bochs's shutdown port, then halt — or only the one exit= on
 * the command line names. */
#include "boot.h"

#define COM1            0x3f8
#define VGA_TEXT        0xb8000
#define VGA_CELLS       (80 * 25)
#define ATTR_ALERT      0x4f                    /* white on red */
#define EXIT_QEMU       1                       /* lib/cmdline.h enum exit_mode */
#define EXIT_BOCHS      2
#define EXIT_HALT       3
#define CMDLINE_SCAN    4096                    /* bytes of the command line searched */

/* The screen: the linear framebuffer of a multiboot2 framebuffer tag (GRUB
 * under UEFI always, under BIOS when it set a VBE mode) if the kernel can draw
 * on it here — direct RGB, 16, 24 or 32 bits per pixel, below 4 GiB (paging
 * is off, so nothing above is addressable; GOP modes are 32 bpp, GRUB's VBE
 * mode under SeaBIOS 800x600x24 at 0xfd000000) — in
 * the kernel's 8x16 font (font8x16, in the image's .rodata), white on red like
 * the text screen; otherwise the VGA text screen at 0xb8000.  QEMU's multiboot
 * v1 loader (and iPXE's) passes no framebuffer, so that path stays text. */
#define FB_TAG          8
#define FB_TYPE_RGB     1

	.section .text32, "ax"
	.code32

/* ---- checks ---------------------------------------------------------------- */

/* No CPUID, no extended leaf 80000001H, or no LM bit: early_fail. */
	.globl check_long_mode
check_long_mode:
	pushfl
	pop %eax
	movl %eax, %ecx
	xorl $0x200000, %eax                    /* EFLAGS.ID toggles iff CPUID exists */
	push %eax
	popfl
	pushfl
	pop %eax
	movl $msg_no_cpuid, %esi
	cmpl %eax, %ecx
	je early_fail
	movl $0x80000000, %eax
	cpuid
	movl $msg_no_ext, %esi
	cmpl $0x80000001, %eax
	jb early_fail
	movl $0x80000001, %eax
	cpuid
	movl $msg_no_lm, %esi
	testl $(1 << 29), %edx                   /* CPUID.80000001H:EDX.LM[29] */
	jz early_fail
	ret

/* [__kernel_start, __kernel_end) — image and .bss, page tables and stacks
 * included — must lie in one usable region of the loader's memory map, or
 * (multiboot v1 without a map) below the end of upper memory.  Without any
 * memory information the kernel is trusted to fit (C reports the map). */
	.globl check_memory
check_memory:
	pushal
	movl $__kernel_start, %ebx
	movl $__kernel_end, %ecx
	movl boot_info, %esi
	cmpl $MB1_LOADER_MAGIC, boot_magic
	jne 1f
	call mb1_covers
	jmp 2f
1:	cmpl $MB2_LOADER_MAGIC, boot_magic
	jne 9f
	movl (%esi), %edx                       /* total_size */
	cmpl $MBI_COPY_SIZE, %edx
	jbe 3f
	movl $MBI_COPY_SIZE, %edx
3:	addl %esi, %edx
	call mb2_covers
2:	testl %eax, %eax
	jnz 9f
	call fail_begin
	movl $msg_mem1, %esi
	call early_puts
	movl %ebx, %eax
	call early_puthex
	movb $'-', %al
	call early_putc
	movl %ecx, %eax
	call early_puthex
	movl $msg_mem2, %esi
	call early_puts
	jmp fail_end
9:	popal
	ret

/* mb2_covers: is [%ebx, %ecx) inside one usable (type 1) region of the
 * multiboot2 memory map in the information at %esi, readable up to %edx?
 * %eax = 1 yes, 0 no, 2 there is no memory map.  Preserves all else. */
	.globl mb2_covers
mb2_covers:
	pushl %esi
	pushl %edi
	pushl %ebp
	movl $2, %eax
	addl $8, %esi                           /* first tag */
1:	leal 8(%esi), %edi
	cmpl %edx, %edi
	ja 9f                                   /* ran out: no map */
	movl 4(%esi), %edi                      /* tag size */
	cmpl $8, %edi
	jb 9f
	cmpl $0, (%esi)
	je 9f                                   /* end tag: no map */
	cmpl $6, (%esi)
	je 3f
	addl $7, %edi
	andl $~7, %edi
	addl %edi, %esi
	jmp 1b
3:	leal (%esi, %edi), %ebp                 /* end of the map tag */
	cmpl %edx, %ebp
	jbe 4f
	movl %edx, %ebp
4:	xorl %eax, %eax                         /* a map: no, unless a region covers it */
	movl 8(%esi), %edi                      /* entry_size */
	cmpl $24, %edi
	jb 9f
	addl $16, %esi
5:	leal 24(%esi), %eax
	cmpl %ebp, %eax
	ja 8f
	cmpl $1, 16(%esi)                       /* usable RAM */
	jne 6f
	cmpl $0, 4(%esi)                        /* base below 4 GiB */
	jne 6f
	movl (%esi), %eax
	cmpl %ebx, %eax
	ja 6f
	cmpl $0, 12(%esi)                       /* length >= 4 GiB covers it */
	jne 7f
	addl 8(%esi), %eax
	jc 7f                                   /* ends past 4 GiB */
	cmpl %ecx, %eax
	jae 7f
6:	addl %edi, %esi
	jmp 5b
7:	movl $1, %eax
	jmp 9f
8:	xorl %eax, %eax
9:	popl %ebp
	popl %edi
	popl %esi
	ret

/* mb1_covers: the same for multiboot v1 information at %esi: its memory map
 * (flags bit 6; entries size, base, length, type, the size not counting
 * itself), else mem_upper (flags bit 0: KiB from 1 MiB up). */
mb1_covers:
	pushl %esi
	pushl %edi
	pushl %ebp
	movl $2, %eax
	testl $(1 << 6), (%esi)
	jz 20f
	movl 48(%esi), %edi                     /* mmap_addr */
	movl 44(%esi), %ebp                     /* mmap_length */
	cmpl $65536, %ebp
	ja 8f
	addl %edi, %ebp
1:	leal 24(%edi), %eax
	cmpl %ebp, %eax
	ja 8f
	cmpl $20, (%edi)
	jb 8f
	cmpl $1, 20(%edi)
	jne 2f
	cmpl $0, 8(%edi)
	jne 2f
	movl 4(%edi), %eax
	cmpl %ebx, %eax
	ja 2f
	cmpl $0, 16(%edi)
	jne 7f
	addl 12(%edi), %eax
	jc 7f
	cmpl %ecx, %eax
	jae 7f
2:	movl (%edi), %eax
	leal 4(%edi, %eax), %edi
	jmp 1b
20:	testl $1, (%esi)
	jz 9f
	movl 8(%esi), %eax                      /* mem_upper, KiB above 1 MiB */
	cmpl $(0x400000 - 0x400), %eax          /* reaches 4 GiB: covers it */
	jae 7f
	shll $10, %eax
	addl $0x100000, %eax
	cmpl %ecx, %eax
	jae 7f
8:	xorl %eax, %eax
	jmp 9f
7:	movl $1, %eax
9:	popl %ebp
	popl %edi
	popl %esi
	ret

/* ---- output ---------------------------------------------------------------- */

serial_out:                                     /* %al to COM1, bounded wait */
	pushl %ecx
	pushl %edx
	movb %al, %ah
	movw $COM1 + 5, %dx
	movl $100000, %ecx
1:	inb %dx, %al
	testb $0x20, %al
	jnz 2f
	loop 1b
2:	movw $COM1, %dx
	movb %ah, %al
	outb %al, %dx
	popl %edx
	popl %ecx
	ret

early_putc:                                     /* %al to COM1 and the VGA text screen */
	pushal
	movb %al, %bl
	cmpb $'\n', %bl
	jne 1f
	movb $'\r', %al
	call serial_out
1:	movb %bl, %al
	call serial_out
	cmpl $0, early_fb
	je 5f
	call fb_putc
	popal
	ret
5:	movl early_vga_pos, %eax
	cmpb $'\n', %bl
	jne 2f
	xorl %edx, %edx
	movl $80, %ecx
	divl %ecx
	incl %eax
	imull $80, %eax
	jmp 3f
2:	movb %bl, %cl
	movb $ATTR_ALERT, %ch
	movw %cx, VGA_TEXT(, %eax, 2)
	incl %eax
3:	cmpl $VGA_CELLS, %eax
	jb 4f
	xorl %eax, %eax
4:	movl %eax, early_vga_pos
	popal
	ret

/* %bl to the framebuffer at early_fb_pos (cells of 8x16 pixels), wrapping to
 * the top when the screen is full. */
fb_putc:
	movl early_fb_pos, %eax
	cmpb $'\n', %bl
	jne 1f
	xorl %edx, %edx
	divl early_fb_cols
	incl %eax
	imull early_fb_cols, %eax
	jmp 8f
1:	pushl %eax
	xorl %edx, %edx
	divl early_fb_cols                      /* %eax row, %edx column */
	imull early_fb_pitch, %eax
	shll $4, %eax                           /* 16 pixel rows a cell */
	imull early_fb_cell, %edx               /* 8 pixels */
	leal (%eax, %edx), %edi
	addl early_fb, %edi
	movzbl %bl, %esi
	andl $0x7f, %esi
	shll $4, %esi
	addl $font8x16, %esi
	movl $16, %ecx
2:	movb (%esi), %dl                        /* one glyph row, bit 7 leftmost */
	pushl %ecx
	movl $8, %ecx
3:	movl early_fb_bg, %eax
	testb $0x80, %dl
	jz 4f
	movl early_fb_fg, %eax
4:	movw %ax, (%edi)                       /* 16 bpp: 2 bytes, 24: 3, 32: 4 */
	cmpl $2, early_fb_bytes
	je 5f
	shrl $16, %eax
	movb %al, 2(%edi)
	cmpl $3, early_fb_bytes
	je 5f
	movb %ah, 3(%edi)
5:	addl early_fb_bytes, %edi
	shlb $1, %dl
	loop 3b
	popl %ecx
	addl early_fb_pitch, %edi
	subl early_fb_cell, %edi
	incl %esi
	loop 2b
	popl %eax
	incl %eax
8:	movl early_fb_cols, %ecx
	imull early_fb_rows, %ecx
	cmpl %ecx, %eax
	jb 9f
	xorl %eax, %eax
9:	movl %eax, early_fb_pos
	ret

/* early_fb (and its geometry and colours) from a usable multiboot2 framebuffer
 * tag, and the framebuffer cleared to black; early_fb stays 0 without one. */
fb_find:
	pushal
	cmpl $MB2_LOADER_MAGIC, boot_magic
	jne 9f
	movl boot_info, %ebx
	movl (%ebx), %edx
	cmpl $MBI_COPY_SIZE, %edx
	jbe 1f
	movl $MBI_COPY_SIZE, %edx
1:	addl %ebx, %edx                         /* end of the information */
	leal 8(%ebx), %esi                      /* first tag */
2:	leal 38(%esi), %eax                     /* room for a framebuffer tag's RGB part */
	cmpl %edx, %eax
	ja 9f
	cmpl $0, (%esi)
	je 9f
	cmpl $FB_TAG, (%esi)
	je 3f
	movl 4(%esi), %eax
	cmpl $8, %eax
	jb 9f
	addl $7, %eax
	andl $~7, %eax
	addl %eax, %esi
	jmp 2b
3:	cmpl $38, 4(%esi)
	jb 9f
	cmpb $FB_TYPE_RGB, 29(%esi)
	jne 9f
	movzbl 28(%esi), %ecx                   /* bits per pixel: 16, 24 or 32 */
	cmpl $16, %ecx
	je 4f
	cmpl $24, %ecx
	je 4f
	cmpl $32, %ecx
	jne 9f
4:	shrl $3, %ecx
	movl %ecx, early_fb_bytes
	shll $3, %ecx
	movl %ecx, early_fb_cell                /* bytes of one cell's pixel row */
	cmpl $0, 12(%esi)                       /* address bits 63:32 */
	jne 9f
	movl 20(%esi), %eax                     /* width in pixels */
	shrl $3, %eax
	jz 9f
	movl %eax, early_fb_cols
	imull %eax, %ecx                        /* bytes of the used columns */
	cmpl 16(%esi), %ecx                     /* the pitch must hold them */
	ja 9f
	movl 24(%esi), %eax                     /* height */
	shrl $4, %eax
	jz 9f
	movl %eax, early_fb_rows
	movl 16(%esi), %eax
	movl %eax, early_fb_pitch
	movb 32(%esi), %cl                      /* red position and size */
	movb 33(%esi), %ch
	call fb_mask
	movl %eax, early_fb_bg
	movl %eax, %edi
	movb 34(%esi), %cl                      /* green */
	movb 35(%esi), %ch
	call fb_mask
	orl %eax, %edi
	movb 36(%esi), %cl                      /* blue */
	movb 37(%esi), %ch
	call fb_mask
	orl %eax, %edi
	movl %edi, early_fb_fg                  /* white */
	movl 8(%esi), %edi
	movl %edi, early_fb
	movl 24(%esi), %ecx                     /* clear: height * pitch bytes */
	imull 16(%esi), %ecx
	xorl %eax, %eax
	cld
	rep stosb
	movl $0, early_fb_pos
9:	popal
	ret

fb_mask:                                        /* %eax = ((1 << %ch) - 1) << %cl */
	pushl %ecx
	movl $1, %eax
	xchgb %cl, %ch
	cmpb $32, %cl
	jb 1f
	xorl %eax, %eax                         /* a 32-bit field: all ones */
	decl %eax
	jmp 2f
1:	shll %cl, %eax
	decl %eax
2:	movb %ch, %cl
	shll %cl, %eax
	popl %ecx
	ret

early_puts:                                     /* the string at %esi */
	pushl %esi
	pushl %eax
1:	lodsb
	testb %al, %al
	jz 2f
	call early_putc
	jmp 1b
2:	popl %eax
	popl %esi
	ret

early_puthex:                                   /* %eax as 0x%08x */
	pushal
	movl %eax, %edx
	movb $'0', %al
	call early_putc
	movb $'x', %al
	call early_putc
	movl $8, %ecx
1:	roll $4, %edx
	movl %edx, %eax
	andl $15, %eax
	movb hexdigits(%eax), %al
	call early_putc
	loop 1b
	popal
	ret

/* COM1 at 115200 8N1 as kernel/serial.c sets it, the screen cleared. */
fail_begin:
	pushal
	movw $COM1 + 1, %dx
	xorb %al, %al
	outb %al, %dx                           /* IER: no interrupts */
	movw $COM1 + 3, %dx
	movb $0x80, %al
	outb %al, %dx                           /* DLAB */
	movw $COM1, %dx
	movb $1, %al
	outb %al, %dx                           /* divisor 1: 115200 */
	movw $COM1 + 1, %dx
	xorb %al, %al
	outb %al, %dx
	movw $COM1 + 3, %dx
	movb $0x03, %al
	outb %al, %dx                           /* 8N1 */
	movw $COM1 + 2, %dx
	movb $0x07, %al
	outb %al, %dx                           /* FIFO on, cleared */
	movw $COM1 + 4, %dx
	movb $0x0f, %al
	outb %al, %dx                           /* DTR, RTS, OUT1, OUT2 */
	movl $VGA_TEXT, %edi
	movl $VGA_CELLS, %ecx
	movw $0x0720, %ax
	rep stosw
	movl $0, early_vga_pos
	call fb_find
	movl $msg_begin, %esi                   /* a refusal is KTAP too, as in kernel/runner.c */
	call early_puts
	popal
	ret

/* ---- the way out ------------------------------------------------------------- */

/* %esi: the message (a whole "# tracelab: ..." line).  Never returns. */
	.globl early_fail
early_fail:
	call fail_begin
	call early_puts
fail_end:
	movl $msg_end, %esi
	call early_puts
	call exit_mode
	cmpl $EXIT_HALT, %eax
	je 3f
	cmpl $EXIT_BOCHS, %eax
	je 1f
	movw $0xf4, %dx                         /* QEMU isa-debug-exit: status (1 << 1) | 1 */
	movl $1, %eax
	outl %eax, %dx
	call exit_mode
	cmpl $EXIT_QEMU, %eax
	je 3f
1:	movl $msg_shutdown, %esi                /* Bochs: iodev/biosdev.cc quits on this */
	movw $0x8900, %dx
2:	lodsb
	testb %al, %al
	jz 3f
	outb %al, %dx
	jmp 2b
3:	movl $msg_halted, %esi
	call early_puts
4:	cli
	hlt
	jmp 4b

/* %esi = the command line the loader passed, or 0. */
cmdline_ptr:
	pushl %ebx
	pushl %ecx
	pushl %edx
	movl boot_info, %ebx
	xorl %esi, %esi
	cmpl $MB1_LOADER_MAGIC, boot_magic
	jne 1f
	testl $(1 << 2), (%ebx)
	jz 9f
	movl 16(%ebx), %esi
	jmp 9f
1:	cmpl $MB2_LOADER_MAGIC, boot_magic
	jne 9f
	movl (%ebx), %edx
	cmpl $MBI_COPY_SIZE, %edx
	jbe 2f
	movl $MBI_COPY_SIZE, %edx
2:	addl %ebx, %edx                         /* end of the information */
	leal 8(%ebx), %ecx                      /* first tag */
3:	leal 8(%ecx), %eax
	cmpl %edx, %eax
	ja 9f
	cmpl $0, (%ecx)
	je 9f
	cmpl $1, (%ecx)                         /* command line tag */
	je 4f
	movl 4(%ecx), %eax
	cmpl $8, %eax
	jb 9f
	addl $7, %eax
	andl $~7, %eax
	addl %eax, %ecx
	jmp 3b
4:	leal 8(%ecx), %esi
9:	popl %edx
	popl %ecx
	popl %ebx
	ret

/* %eax = EXIT_QEMU, EXIT_BOCHS or EXIT_HALT for a word exit=qemu|bochs|halt on
 * the command line (the last one counts, as in lib/cmdline.c), else 0 (auto). */
exit_mode:
	pushl %ebx
	pushl %esi
	pushl %edi
	pushl %ecx
	pushl %edx
	xorl %edx, %edx                         /* the answer so far */
	call cmdline_ptr
	testl %esi, %esi
	jz 9f
	movl %esi, %edi                         /* start of the line */
	leal CMDLINE_SCAN(%esi), %ecx           /* bound */
1:	cmpl %ecx, %esi
	jae 9f
	cmpb $0, (%esi)
	je 9f
	cmpl %edi, %esi
	je 2f
	cmpb $' ', -1(%esi)                     /* only at the start of a word */
	jne 8f
2:	cmpl $0x74697865, (%esi)                /* "exit" */
	jne 8f
	cmpb $'=', 4(%esi)
	jne 8f
	leal 9(%esi), %eax                      /* where a 4-letter mode ends */
	movl $EXIT_HALT, %ebx
	cmpl $0x746c6168, 5(%esi)               /* "halt" */
	je 7f
	movl $EXIT_QEMU, %ebx
	cmpl $0x756d6571, 5(%esi)               /* "qemu" */
	je 7f
	xorl %ebx, %ebx
	cmpl $0x6f747561, 5(%esi)               /* "auto" */
	je 7f
	cmpl $0x68636f62, 5(%esi)               /* "boch" + "s" */
	jne 8f
	cmpb $'s', 9(%esi)
	jne 8f
	movl $EXIT_BOCHS, %ebx
	incl %eax
7:	cmpb $0, (%eax)                         /* the word must end there */
	je 6f
	cmpb $' ', (%eax)
	jne 8f
6:	movl %ebx, %edx
8:	incl %esi
	jmp 1b
9:	movl %edx, %eax
	popl %edx
	popl %ecx
	popl %edi
	popl %esi
	popl %ebx
	ret

	.section .rodata
hexdigits:
	.ascii "0123456789abcdef"
msg_no_cpuid:
	.asciz "# tracelab: this CPU has no CPUID instruction (EFLAGS.ID[21] does not toggle), so no long mode: cannot run\n"
msg_no_ext:
	.asciz "# tracelab: this CPU has no CPUID leaf 80000001H (CPUID.80000000H:EAX below it), so no long mode: cannot run\n"
msg_no_lm:
	.asciz "# tracelab: this CPU has no long mode (CPUID.80000001H:EDX.LM[29]=0): cannot run\n"
msg_mem1:
	.asciz "# tracelab: not enough memory: the kernel needs usable RAM at "
msg_mem2:
	.asciz ", and the loader's memory map has no usable region covering it: cannot run\n"
msg_begin:
	.asciz "KTAP version 1\n"
msg_end:
	.asciz "1..0\n# tracelab: the machine cannot run tracelab, nothing run\n"
msg_shutdown:
	.asciz "Shutdown"
msg_halted:
	.asciz "# tracelab: stopped, halted (FAILURES)\n"

	.data
	.balign 4
early_vga_pos:  .long 0
early_fb:       .long 0                 /* 0: no framebuffer, the VGA text screen */
early_fb_pitch: .long 0
early_fb_cols:  .long 0
early_fb_rows:  .long 0
early_fb_pos:   .long 0
early_fb_fg:    .long 0
early_fb_bg:    .long 0
early_fb_bytes: .long 0                 /* bytes a pixel */
early_fb_cell:  .long 0                 /* 8 pixels' bytes */
	.balign 16
	.globl early_stack_top
early_stack:    .skip 1024
early_stack_top:
