/* 109 dr7-gd: general detect.
 *
 * SDM vol.3 18.2.4 and 18.3.1.3: with DR7.GD=1 the next MOV to or from any debug
 * register is a fault-class #DB taken before the MOV executes (saved RIP = the MOV),
 * with DR6.BD=1.  The processor clears GD when it delivers the #DB, so the handler
 * can use the debug registers, and when it returns the MOV runs normally.
 *
 * Two rounds: MOV from DR0, then MOV to DR1.  Each: one #DB at the MOV, DR6 =
 * init | BD, GD already clear when the handler read DR7, and the MOV's effect is
 * there after the return. */
#include "debug_common.h"
#include "experiment.h"
#include "x86.h"

__asm__(
	".pushsection .text\n"
	".global dbg_gd_read, dbg_gd_read_mov, dbg_gd_write, dbg_gd_write_mov\n"
	"dbg_gd_read:\n"
	"dbg_gd_read_mov:\n"
	"	mov %db0, %rax\n"
	"	ret\n"
	"dbg_gd_write:\n"
	"dbg_gd_write_mov:\n"
	"	mov %rdi, %db1\n"
	"	ret\n"
	".popsection\n");

extern uint64_t dbg_gd_read(void);
extern void dbg_gd_write(uint64_t v);
extern const char dbg_gd_read_mov[], dbg_gd_write_mov[];

static void exp_gd(void)
{
	dbg_begin(0);
	write_dr0(0x1234000);
	write_dr7(DR7_INIT | DR7_GD);
	uint64_t v = dbg_gd_read();
	dbg_check_count("MOV from DR0 with GD: DB count", 1);
	dbg_check_event("MOV from DR0: fault before the MOV", 0, 1, (uint64_t)dbg_gd_read_mov,
			dr6_with(DR6_BD));
	if (dbg_log.n >= 1)
		check_eq("MOV from DR0: DR7.GD clear in the handler", dbg_log.ev[0].dr7 & DR7_GD, 0);
	check_eq("MOV from DR0: executed after the handler", v, 0x1234000);

	dbg_begin(0);
	write_dr7(DR7_INIT | DR7_GD);
	dbg_gd_write(0x5678000);
	dbg_check_count("MOV to DR1 with GD: DB count", 1);
	dbg_check_event("MOV to DR1: fault before the MOV", 0, 1, (uint64_t)dbg_gd_write_mov,
			dr6_with(DR6_BD));
	if (dbg_log.n >= 1)
		check_eq("MOV to DR1: DR7.GD clear in the handler", dbg_log.ev[0].dr7 & DR7_GD, 0);
	/* Only now, with GD known clear on a conforming CPU, read the registers back. */
	uint64_t dr7 = read_dr7();
	check_eq("MOV to DR1: executed after the handler", read_dr1(), 0x5678000);
	check_eq("DR7.GD stays clear after the DB", dr7 & DR7_GD, 0);
	write_dr7(DR7_INIT);
	dbg_end();
}
EXPERIMENT(109, "dr7-gd", "", "none",
	   "DR7.GD: MOV to/from a DR faults first with DR6.BD, GD cleared on DB entry", exp_gd);
