/* 101 int3, 102 int1-icebp: the two one-byte debug traps.
 *
 * INT3 (0xCC) and INT 3 (0xCD 0x03) both deliver #BP, vector 3, as a trap: the
 * saved RIP is the next instruction and IRET simply continues (SDM vol.3 6.15
 * "Interrupt 3", 18.3.2).  The two encodings differ only in IOPL/VM86 handling,
 * which long mode at CPL 0 never sees.  Neither touches DR6.
 *
 * INT1/ICEBP (0xF1) delivers #DB, vector 1, as a trap-class event: saved RIP after
 * the instruction.  It is not a debug-register condition, so it sets no DR6 bit
 * (SDM vol.3 Table 18-2 lists no DR6 flag for it; 18.2.3). */
#include "cr.h"
#include "debug_common.h"
#include "experiment.h"
#include "x86.h"

/* The assembler turns "int $3" into 0xCC, so the long form is spelled in bytes. */
__asm__(
	".pushsection .text\n"
	".global dbg_int3_seq, dbg_int3_cc, dbg_int3_cc_next, dbg_int3_cd, dbg_int3_cd_next\n"
	"dbg_int3_seq:\n"
	"	xor %eax, %eax\n"
	"dbg_int3_cc:\n"
	"	int3\n"
	"dbg_int3_cc_next:\n"
	"	inc %eax\n"
	"dbg_int3_cd:\n"
	"	.byte 0xcd, 0x03\n"
	"dbg_int3_cd_next:\n"
	"	inc %eax\n"
	"	ret\n"
	"\n"
	".global dbg_icebp_seq, dbg_icebp, dbg_icebp_next\n"
	"dbg_icebp_seq:\n"
	"	xor %eax, %eax\n"
	"dbg_icebp:\n"
	"	.byte 0xf1\n"
	"dbg_icebp_next:\n"
	"	inc %eax\n"
	"	ret\n"
	".popsection\n");

extern uint64_t dbg_int3_seq(void), dbg_icebp_seq(void);
extern const char dbg_int3_cc_next[], dbg_int3_cd_next[], dbg_icebp[], dbg_icebp_next[];

static void exp_int3(void)
{
	dbg_begin(0);
	uint64_t ran = dbg_int3_seq();

	dbg_check_count("BP deliveries", 2);
	dbg_check_event("0xCC int3", 0, 3, (uint64_t)dbg_int3_cc_next, DR6_INIT);
	dbg_check_event("0xCD 0x03 int $3", 1, 3, (uint64_t)dbg_int3_cd_next, DR6_INIT);
	check_eqd("instructions after each breakpoint ran", ran, 2);
	if (dbg_log.n >= 1) {
		check_eq("saved CS is the kernel's", dbg_log.ev[0].cs, read_cs());
		check_eq("TF clear inside the BP handler", dbg_log.ev[0].rflags_live & RFLAGS_TF, 0);
	}
}
EXPERIMENT(101, "int3", "", "none",
	   "INT3 (0xCC) and INT 3 (0xCD 03): BP trap, RIP after, DR6 untouched", exp_int3);

/* An emulator that does not decode 0xF1 raises #UD: report it, skip the byte. */
static int icebp_ud;

static void icebp_ud_skip(struct trap_frame *tf)
{
	if (tf->rip == (uint64_t)dbg_icebp) {
		icebp_ud++;
		tf->rip++;
	} else {
		/* Not ours: give #UD back to the kernel, which reports it on re-execution. */
		trap_reset_handlers();
	}
}

static void exp_icebp(void)
{
	dbg_begin(0);
	icebp_ud = 0;
	trap_set_handler(6, icebp_ud_skip);
	uint64_t ran = dbg_icebp_seq();

	check_eqd("UD instead of DB (0xF1 not decoded)", (uint64_t)icebp_ud, 0);

	dbg_check_count("DB deliveries", 1);
	dbg_check_event("INT1/ICEBP 0xF1", 0, 1, (uint64_t)dbg_icebp_next, DR6_INIT);
	check_eqd("instruction after ICEBP ran", ran, 1);
	if (dbg_log.n >= 1)
		check_eq("saved RFLAGS.RF (trap, not fault)", dbg_log.ev[0].rflags & RFLAGS_RF, 0);
}
EXPERIMENT(102, "int1-icebp", "", "none",
	   "INT1/ICEBP (0xF1): trap-class DB, RIP after, no DR6 condition bit", exp_icebp);
