/* void dbf_enter(const uint64_t frame[5], uint64_t data)
 * IRETQ into a fuzz sequence: frame = { rip, cs, rflags, rsp, ss }, RDI = the data
 * area for the sequence's loads and stores.  Never returns: the sequence ends in
 * INT $DBF_VEC_END, whose handler resumes the harness (kernel/dbfuzz.c). */
	.text
	.globl dbf_enter
dbf_enter:
	pushq 32(%rdi)
	pushq 24(%rdi)
	pushq 16(%rdi)
	pushq 8(%rdi)
	pushq 0(%rdi)
	movq %rsi, %rdi
	xorl %eax, %eax
	xorl %ecx, %ecx
	xorl %edx, %edx
	iretq
	.section .note.GNU-stack, "", @progbits
