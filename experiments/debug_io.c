/* 108 dr-io: I/O breakpoints; 117 dr4-dr5-alias: what CR4.DE changes.
 *
 * SDM vol.3 18.2.4: with CR4.DE=1, R/W=10 makes DRn an I/O breakpoint on the port
 * range [DRn, DRn+len).  Like data breakpoints it is a trap (18.3.1.2): IN or OUT
 * completes, then #DB with the saved RIP after it and DR6.Bn.  With CR4.DE=0 the
 * encoding R/W=10 is undefined, so tracelab never programs it there: there is no
 * SDM behaviour to compare against (see docs/emulator-deviations.md for what the
 * emulators happen to do).
 *
 * The ports: 0x80 (the POST-code port, harmless to write) and reads of 0x80/0x81.
 *
 * 18.2.2: with CR4.DE=0, DR4 and DR5 are aliases of DR6 and DR7; with CR4.DE=1 a
 * MOV to or from DR4/DR5 raises #UD.  117 checks both. */
#include "cr.h"
#include "debug_common.h"
#include "experiment.h"
#include "fmt.h"
#include "x86.h"

static uint64_t io_outb80(void)
{
	uint64_t after;
	__asm__ volatile("outb %%al, $0x80\n1:\tlea 1b(%%rip), %0" : "=&r"(after) : "a"(0x5a) : "memory");
	return after;
}

static uint64_t io_outb81(void)
{
	uint64_t after;
	__asm__ volatile("outb %%al, $0x81\n1:\tlea 1b(%%rip), %0" : "=&r"(after) : "a"(0) : "memory");
	return after;
}

static uint64_t io_inb80(void)
{
	uint64_t after;
	__asm__ volatile("inb $0x80, %%al\n1:\tlea 1b(%%rip), %0" : "=&r"(after) : : "rax", "memory");
	return after;
}

static uint64_t io_inb81_dx(void)
{
	uint64_t after;
	__asm__ volatile("inb %%dx, %%al\n1:\tlea 1b(%%rip), %0" : "=&r"(after) : "d"(0x81) : "rax", "memory");
	return after;
}

static uint64_t io_inw80(void)
{
	uint64_t after;
	__asm__ volatile("inw $0x80, %%ax\n1:\tlea 1b(%%rip), %0" : "=&r"(after) : : "rax", "memory");
	return after;
}

static void io_probe(const char *what, uint64_t (*fn)(void), uint64_t expect_bits)
{
	int before = dbg_log.n;
	uint64_t after = fn();
	int got = dbg_log.n - before;

	if (!expect_bits) {
		check(got == 0, "%s: %d DB (expected none)", what, got);
		return;
	}
	const struct dbg_event *e = &dbg_log.ev[before < DBG_MAX_EVENTS ? before : 0];
	check(got == 1 && e->vector == 1 && e->rip == after && e->dr6 == dr6_with(expect_bits),
	      "%s: %d DB, rip %#lx dr6 %#lx (expected 1, %#lx %#lx)", what, got,
	      got ? (unsigned long)e->rip : 0UL, got ? (unsigned long)e->dr6 : 0UL,
	      (unsigned long)after, (unsigned long)dr6_with(expect_bits));
}

static void exp_dr_io(void)
{
	uint64_t cr4 = read_cr4();

	write_cr4(cr4 | CR4_DE);
	dbg_begin(0);

	write_dr0(0x80);
	write_dr7(dr7_bp(0, DR7_RW_IO, DR7_LEN_1));
	io_probe("DR0 port 0x80 len 1: OUT 0x80", io_outb80, DR6_B0);
	io_probe("DR0 port 0x80 len 1: IN 0x80", io_inb80, DR6_B0);
	io_probe("DR0 port 0x80 len 1: IN word 0x80-0x81", io_inw80, DR6_B0);
	io_probe("DR0 port 0x80 len 1: OUT 0x81 (just after)", io_outb81, 0);
	io_probe("DR0 port 0x80 len 1: IN DX=0x81 (just after)", io_inb81_dx, 0);
	write_dr7(DR7_INIT);

	write_dr2(0x80);
	write_dr7(dr7_bp(2, DR7_RW_IO, DR7_LEN_2));
	io_probe("DR2 port 0x80 len 2: IN DX=0x81", io_inb81_dx, DR6_B2);
	io_probe("DR2 port 0x80 len 2: OUT 0x81", io_outb81, DR6_B2);
	write_dr7(DR7_INIT);

	write_cr4(cr4);
	diag("CR4.DE=0 with R/W=10 is undefined (SDM 18.2.4): not programmed");
	dbg_end();
}
EXPERIMENT(108, "dr-io", "", "CR4.DE",
	   "CR4.DE=1, R/W=10: IN/OUT on a watched port trap after the instruction, DR6.Bn", exp_dr_io);

/* #UD from MOV DR4/DR5: note it and step over the 3-byte instruction. */
static int ud_count;
static uint64_t ud_rip;

static void ud_skip(struct trap_frame *tf)
{
	ud_count++;
	ud_rip = tf->rip;
	tf->rip += 3;
}

static uint64_t mov_from_dr4(uint64_t *after)
{
	uint64_t v = 0x1234, a;
	__asm__ volatile("lea 1f(%%rip), %1\n\tmov %%db4, %0\n1:" : "+a"(v), "=&r"(a));
	*after = a;
	return v;
}

static void mov_to_dr5(uint64_t v)
{
	__asm__ volatile("mov %0, %%db5" : : "a"(v) : "memory");     /* 3 bytes: no REX */
}

/* The other direction of each: MOV to DR4, MOV from DR5. */
static void mov_to_dr4(uint64_t v)
{
	__asm__ volatile("mov %0, %%db4" : : "a"(v) : "memory");
}

static uint64_t mov_from_dr5(void)
{
	uint64_t v = 0x1234;
	__asm__ volatile("mov %%db5, %0" : "+a"(v));
	return v;
}

static void exp_dr45(void)
{
	uint64_t cr4 = read_cr4(), at;

	trap_set_handler(6, ud_skip);
	ud_count = 0;
	write_cr4(cr4 & ~(uint64_t)CR4_DE);
	write_dr6(DR6_INIT | DR6_BS);
	check_eq("CR4.DE=0: MOV from DR4 reads DR6", mov_from_dr4(&at), DR6_INIT | DR6_BS);
	mov_to_dr5(DR7_INIT | DR7_GE);
	check_eq("CR4.DE=0: MOV to DR5 writes DR7", read_dr7(), DR7_INIT | DR7_GE);
	check_eq("CR4.DE=0: MOV from DR5 reads DR7", mov_from_dr5(), DR7_INIT | DR7_GE);
	write_dr7(DR7_INIT);
	mov_to_dr4(DR6_INIT | DR6_B2);
	check_eq("CR4.DE=0: MOV to DR4 writes DR6", read_dr6(), DR6_INIT | DR6_B2);
	write_dr6(DR6_INIT);
	check_eqd("CR4.DE=0: no UD", (uint64_t)ud_count, 0);

	write_cr4(cr4 | CR4_DE);
	mov_from_dr4(&at);
	int n1 = ud_count;
	uint64_t rip1 = ud_rip;
	mov_to_dr4(DR6_INIT | DR6_B3);
	mov_from_dr5();
	mov_to_dr5(DR7_INIT | DR7_LE);
	write_cr4(cr4);
	uint64_t dr6 = read_dr6(), dr7 = read_dr7();
	write_dr6(DR6_INIT);
	write_dr7(DR7_INIT);
	check_eqd("CR4.DE=1: MOV from DR4 raises UD", (uint64_t)n1, 1);
	if (n1 == 1)
		check_eq("CR4.DE=1: UD at the MOV (its RIP + 3 is the next instruction)", rip1 + 3, at);
	check_eqd("CR4.DE=1: MOV to DR4, from DR5, to DR5 raise UD too", (uint64_t)(ud_count - n1), 3);
	check_eq("CR4.DE=1: DR6 untouched by the refused MOV to DR4", dr6, DR6_INIT);
	check_eq("CR4.DE=1: DR7 untouched by the refused MOV to DR5", dr7, DR7_INIT);
}
EXPERIMENT(117, "dr4-dr5-alias", "", "none",
	   "CR4.DE=0: DR4/DR5 alias DR6/DR7 both ways; CR4.DE=1: every MOV DR4/DR5 is UD", exp_dr45);
