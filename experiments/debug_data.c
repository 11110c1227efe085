/* 105 dr-data-write, 106 dr-data-rw, 107 dr-two-hits: data breakpoints.
 *
 * SDM vol.3 18.2.4-18.2.5, 18.3.1.2: R/W=01 breaks on data writes, R/W=11 on reads
 * and writes (never on instruction fetch).  LEN 00/01/11/10 = 1/2/4/8 bytes, DRn
 * aligned to the length.  A breakpoint matches if ANY byte of the access falls in
 * [DRn, DRn+len): unaligned and wider accesses that overlap the range trap, accesses
 * that end just before or start just after it don't.  The #DB is a trap: it comes
 * after the instruction completed, so the saved RIP is the next instruction and a
 * write has already reached memory.  DR6.Bn names the breakpoint; one instruction
 * that meets several conditions reports all their Bn in one #DB.
 *
 * Every access is one instruction followed by a label (see the ACC macros), so the
 * expected RIP is known exactly. */
#include <stdbool.h>
#include "cr.h"
#include "debug_common.h"
#include "experiment.h"
#include "fmt.h"
#include "mem.h"
#include "x86.h"

/* The watched bytes sit in the middle of a 64-byte line, aligned for every LEN. */
static uint8_t dbg_buf[64] __attribute__((aligned(64)));
#define WATCH   (dbg_buf + 16)

/* Each accessor performs exactly one access and returns the address right after it. */
#define DEF_WRITE(name, insn, cons)							\
	static uint64_t name(volatile void *p, uint64_t v)				\
	{										\
		uint64_t after;								\
		__asm__ volatile(insn "\n1:\tlea 1b(%%rip), %0"				\
				 : "=&r"(after) : "r"(p), cons(v) : "memory");		\
		return after;								\
	}
#define DEF_READ(name, insn)								\
	static uint64_t name(volatile void *p, uint64_t v)				\
	{										\
		uint64_t after, tmp;							\
		__asm__ volatile(insn "\n1:\tlea 1b(%%rip), %0"				\
				 : "=&r"(after), "=&r"(tmp) : "r"(p) : "memory");	\
		(void)tmp;								\
		return after;								\
	}
#define Q(v) "q"(v)
#define R(v) "r"(v)
DEF_WRITE(wr8, "movb %b2, (%1)", Q)
DEF_WRITE(wr16, "movw %w2, (%1)", R)
DEF_WRITE(wr32, "movl %k2, (%1)", R)
DEF_WRITE(wr64, "movq %2, (%1)", R)
DEF_READ(rd8, "movzbl (%2), %k1")
DEF_READ(rd16, "movzwl (%2), %k1")
DEF_READ(rd32, "movl (%2), %k1")
DEF_READ(rd64, "movq (%2), %1")
/* Read-modify-write: one instruction, a read and a write of the same byte. */
DEF_WRITE(inc8, "incb (%1)", R)

typedef uint64_t (*access_fn)(volatile void *p, uint64_t v);

static volatile uint8_t *probe_at;

/* Records what memory held when the trap arrived (the write must be visible).
 * The breakpoints stay armed inside the handler, so they are off for the read:
 * a read/write watch would otherwise fire a nested #DB on the same IST stack. */
static void note_memory(struct trap_frame *tf, struct dbg_event *e, int n)
{
	write_dr7(DR7_INIT);
	e->extra = probe_at ? *probe_at : 0;
	write_dr7(e->dr7);
}

/* One access; expect_bits = the DR6 Bn bits of the #DB it must raise, or 0 for none. */
static bool probe(const char *what, access_fn fn, volatile uint8_t *p, uint64_t v,
		  uint64_t expect_bits, bool check_mem)
{
	int before = dbg_log.n;
	probe_at = p;
	uint64_t after = fn(p, v);
	probe_at = 0;
	int got = dbg_log.n - before;

	if (!expect_bits)
		return check(got == 0, "%s: %d DB (expected none)", what, got);

	/* Every value printed is compared: memory only where the probe says what it
	 * must hold (check_mem), and then next to what it must hold. */
	const struct dbg_event *e = &dbg_log.ev[before < DBG_MAX_EVENTS ? before : 0];
	bool ok = got == 1 && e->vector == 1 && e->rip == after && e->dr6 == dr6_with(expect_bits);
	if (!check_mem)
		return check(ok, "%s: %d DB, rip %#lx dr6 %#lx (expected 1, %#lx %#lx)", what, got,
			     got ? (unsigned long)e->rip : 0UL, got ? (unsigned long)e->dr6 : 0UL,
			     (unsigned long)after, (unsigned long)dr6_with(expect_bits));
	ok = ok && (uint8_t)e->extra == (uint8_t)v;
	return check(ok, "%s: %d DB, rip %#lx dr6 %#lx mem %#x at the trap (expected 1, %#lx %#lx %#x)",
		     what, got, got ? (unsigned long)e->rip : 0UL, got ? (unsigned long)e->dr6 : 0UL,
		     got ? (unsigned)(uint8_t)e->extra : 0u, (unsigned long)after,
		     (unsigned long)dr6_with(expect_bits), (unsigned)(uint8_t)v);
}

/* 105, 106 and 107 share dbg_buf: each starts from zeroes, never from what the
 * one before left there. */
static void fresh_buf(void)
{
	memset(dbg_buf, 0, sizeof dbg_buf);
}

static void arm(int n, uint64_t addr, uint64_t rw, int len)
{
	write_dr(n, addr);
	write_dr7(dr7_bp(n, rw, dr7_len_code(len)));
}

static void exp_data_write(void)
{
	static const int lens[4] = { 1, 2, 4, 8 };
	char what[80];

	fresh_buf();
	dbg_begin(note_memory);
	for (int n = 0; n < 4; n++) {
		int len = lens[n];
		uint64_t bn = DR6_BN(n);
		volatile uint8_t *w = WATCH;

		arm(n, (uint64_t)w, DR7_RW_WRITE, len);
		/* Byte writes from one before to one after the range. */
		for (int off = -1; off <= len; off++) {
			bool in = off >= 0 && off < len;
			tl_snprintf(what, sizeof what, "DR%d len %d: byte write at +%d", n, len, off);
			probe(what, wr8, w + off, 0x40 + off + 8 * n, in ? bn : 0, in);
		}
		/* Wider and unaligned writes overlapping one edge, and just outside. */
		tl_snprintf(what, sizeof what, "DR%d len %d: word write at -1 (crosses start)", n, len);
		probe(what, wr16, w - 1, 0x1111, bn, false);
		tl_snprintf(what, sizeof what, "DR%d len %d: word write at +%d (crosses end)", n, len, len - 1);
		probe(what, wr16, w + len - 1, 0x2222, bn, true);
		tl_snprintf(what, sizeof what, "DR%d len %d: qword write at -8 (just before)", n, len);
		probe(what, wr64, w - 8, 0x3333, 0, false);
		tl_snprintf(what, sizeof what, "DR%d len %d: qword write at +8 (just after)", n, len);
		probe(what, wr64, w + 8, 0x4444, 0, false);
		tl_snprintf(what, sizeof what, "DR%d len %d: dword write at -4 (just before)", n, len);
		probe(what, wr32, w - 4, 0x5555, 0, false);
		/* Reads never trip a write-only breakpoint. */
		tl_snprintf(what, sizeof what, "DR%d len %d: byte read inside", n, len);
		probe(what, rd8, w, 0, 0, false);
		tl_snprintf(what, sizeof what, "DR%d len %d: qword read covering it", n, len);
		probe(what, rd64, w, 0, 0, false);
		write_dr7(DR7_INIT);
	}
	dbg_end();
}
EXPERIMENT(105, "dr-data-write", "", "none",
	   "R/W=01 len 1/2/4/8: any overlapping write traps after it (memory updated), reads don't",
	   exp_data_write);

static void exp_data_rw(void)
{
	volatile uint8_t *w = WATCH;

	fresh_buf();
	dbg_begin(note_memory);
	w[1] = 0x10;
	/* DR1, 4 bytes, read or write. */
	arm(1, (uint64_t)w, DR7_RW_RDWR, 4);
	probe("len 4: byte read at +0", rd8, w, 0, DR6_B1, false);
	probe("len 4: byte read at +3", rd8, w + 3, 0, DR6_B1, false);
	probe("len 4: byte read at +4 (just after)", rd8, w + 4, 0, 0, false);
	probe("len 4: byte read at -1 (just before)", rd8, w - 1, 0, 0, false);
	probe("len 4: word read at -1 (crosses start)", rd16, w - 1, 0, DR6_B1, false);
	probe("len 4: qword read at -4 (covers it)", rd64, w - 4, 0, DR6_B1, false);
	probe("len 4: dword read at +4 (just after)", rd32, w + 4, 0, 0, false);
	probe("len 4: byte write at +2", wr8, w + 2, 0x77, DR6_B1, false);
	/* A read-modify-write is one instruction: one #DB, after the write. */
	probe("len 4: incb at +1 (read+write, one DB)", inc8, w + 1, 0x11, DR6_B1, true);
	write_dr7(DR7_INIT);

	/* DR3, 8 bytes: a dword read of the upper half. */
	arm(3, (uint64_t)w, DR7_RW_RDWR, 8);
	probe("len 8: dword read at +4", rd32, w + 4, 0, DR6_B3, false);
	probe("len 8: byte read at +8 (just after)", rd8, w + 8, 0, 0, false);
	write_dr7(DR7_INIT);
	dbg_end();
}
EXPERIMENT(106, "dr-data-rw", "", "none",
	   "R/W=11: reads and writes that overlap trap once, after the instruction", exp_data_rw);

static void exp_two_hits(void)
{
	volatile uint8_t *w = WATCH;

	fresh_buf();
	dbg_begin(note_memory);
	/* DR0 write-watch on [w, w+4), DR1 read/write-watch on [w+4, w+8):
	 * one qword write covers both. */
	write_dr0((uint64_t)w);
	write_dr1((uint64_t)(w + 4));
	write_dr7(dr7_bp(0, DR7_RW_WRITE, DR7_LEN_4) | dr7_bp(1, DR7_RW_RDWR, DR7_LEN_4));
	probe("qword write over DR0 and DR1 ranges: B0|B1", wr64, w, 0x99, DR6_B0 | DR6_B1, true);
	probe("byte write in DR1 range only: B1", wr8, w + 5, 0x98, DR6_B1, true);
	probe("qword read: DR1 only (DR0 is write-only)", rd64, w, 0, DR6_B1, false);
	write_dr7(DR7_INIT);

	/* DR2 and DR3 on the same byte, both R/W=11. */
	write_dr2((uint64_t)w);
	write_dr3((uint64_t)w);
	write_dr7(dr7_bp(2, DR7_RW_RDWR, DR7_LEN_1) | dr7_bp(3, DR7_RW_RDWR, DR7_LEN_1));
	probe("byte read, DR2 and DR3 on the same byte: B2|B3", rd8, w, 0, DR6_B2 | DR6_B3, false);
	write_dr7(DR7_INIT);
	dbg_end();
}
EXPERIMENT(107, "dr-two-hits", "", "none",
	   "one instruction meeting two data breakpoints: one DB reporting both Bn", exp_two_hits);
