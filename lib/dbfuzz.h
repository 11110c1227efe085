/* Differential fuzzing of debug-exception delivery (issue 21): the pure part.
 *
 * A scenario is generated from (seed, index) alone: a short list of items from a
 * menu (NOP, loads and stores of 1/2/4/8 bytes to watched and unwatched bytes,
 * PUSHF/POPF setting or clearing TF, MOV SS, STI, CLI, INT3, ICEBP, INT $1,
 * CPUID, IN/OUT, JMP, CALL/RET, a faulting load, MOV from/to a debug register, an
 * INT to a DPL-3 gate that returns at once), DR0-DR3 armed at random (execute on
 * an instruction of the sequence, data write or read/write on the data area, I/O
 * on the port, each L or G), DR7.LE/GE/GD, the entry RFLAGS.TF/RF/IF, and CPL 0 or
 * 3.  dbf_build() turns it into machine code for a given code and data address
 * (the kernel copies the bytes into an executable page and IRETQs to them), with
 * a table of instruction offsets so that a fault can be stepped over and a RIP
 * can be printed as an offset into the sequence.
 *
 * A drop mask removes parts of a scenario while keeping the rest as generated,
 * for shrinking: bit i (i < DBF_MAX_ITEMS) drops item i, DBF_DROP_BP(n) disarms
 * breakpoint n, and DBF_DROP_TF/RF/GD/IF/CPL3 clear those choices.
 *
 * The trace of a run (events: vector, RIP offset, DR6, error code, CPL) is one
 * stable line of text, dbf_format(), with a 32-bit FNV-1a hash of it. */
#ifndef LIB_DBFUZZ_H
#define LIB_DBFUZZ_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DBF_MAX_ITEMS    10
#define DBF_MAX_INSNS    (DBF_MAX_ITEMS * 3 + 1)
#define DBF_MAX_CODE     160
#define DBF_MAX_EVENTS   16
#define DBF_DATA_SIZE    64
#define DBF_PORT         0x80        /* the POST-code port: harmless on PCs and emulators */
#define DBF_FAULT_ADDR   0x00007f0000000000ULL  /* canonical, never mapped (paging.c maps < 64 GiB) */
#define DBF_VEC_END      0x80        /* INT n that ends the sequence (DPL 3 gate) */
#define DBF_VEC_RING     0x81        /* INT n to a DPL-3 gate whose handler returns */

enum dbf_op {
	DBF_NOP, DBF_LOAD, DBF_STORE, DBF_TF_SET, DBF_TF_CLR, DBF_MOVSS, DBF_STI, DBF_CLI,
	DBF_INT3, DBF_ICEBP, DBF_INT1, DBF_CPUID, DBF_IN, DBF_OUT, DBF_JMP, DBF_CALLRET,
	DBF_FAULT, DBF_DR_READ, DBF_DR_WRITE, DBF_RING,
	DBF_NOPS
};

enum dbf_bpkind { DBF_BP_OFF, DBF_BP_EXEC, DBF_BP_WRITE, DBF_BP_RW, DBF_BP_IO };

struct dbf_item {
	uint8_t op;
	uint8_t size;           /* LOAD/STORE: 1 2 4 8; IN/OUT: 1 2 4 */
	uint8_t off;            /* LOAD/STORE: byte offset in the data area */
};

struct dbf_bp {
	uint8_t kind;           /* enum dbf_bpkind */
	uint8_t len;            /* 1 2 4 8 (EXEC: 1) */
	uint8_t global;         /* G instead of L */
	uint8_t item, sub;      /* EXEC: instruction sub of item (item == nitems: the end INT) */
	uint8_t off;            /* WRITE/RW: data offset (aligned to len); IO: port - DBF_PORT */
};

struct dbf_scenario {
	uint64_t seed;
	uint32_t index;
	int nitems;
	struct dbf_item item[DBF_MAX_ITEMS];
	struct dbf_bp bp[4];
	bool tf, rf, ifl, gd, le, ge, cpl3;
};

#define DBF_DROP_BP(n)   (1u << (16 + (n)))
#define DBF_DROP_TF      (1u << 20)
#define DBF_DROP_RF      (1u << 21)
#define DBF_DROP_GD      (1u << 22)
#define DBF_DROP_IF      (1u << 23)
#define DBF_DROP_CPL3    (1u << 24)
#define DBF_DROP_ALL     0x01ff03ffu    /* every meaningful bit */

/* One instruction of the built sequence. */
struct dbf_insn {
	uint16_t off;
	uint8_t len;
	int8_t item;            /* index into the scenario's items; -1: the end INT */
};

/* What the kernel loads and runs. */
struct dbf_code {
	uint8_t bytes[DBF_MAX_CODE];
	int len;
	struct dbf_insn insn[DBF_MAX_INSNS];
	int ninsn;              /* the last one is the end INT */
	uint64_t dr[4];         /* DR0-DR3 */
	uint64_t dr7;
	bool cr4_de;            /* an I/O breakpoint is armed: needs CR4.DE */
	uint64_t rflags;        /* at entry (bit 1, TF, RF, IF) */
	int cpl;                /* 0 or 3 */
};

/* An event as the kernel recorded it. */
struct dbf_event {
	uint8_t vector;
	uint8_t cpl;            /* CPL of the interrupted code (CS.RPL of the frame) */
	bool in_seq;            /* RIP inside the sequence (then off is valid) */
	uint16_t off;           /* RIP - code base */
	uint64_t dr6;           /* vector 1 only, as the handler read it */
	uint64_t error;         /* vectors with an error code */
};

/* Why a run ended, besides reaching the end INT. */
enum dbf_end { DBF_END_OK, DBF_END_OVERFLOW, DBF_END_ESCAPE, DBF_END_HANG };

void dbf_generate(uint64_t seed, uint32_t index, struct dbf_scenario *s);
/* The sequence for s without the parts in drop, at code_base, data at data_base.
 * Returns false if it does not fit (cannot happen for generated scenarios). */
bool dbf_build(const struct dbf_scenario *s, uint32_t drop, uint64_t code_base,
	       uint64_t data_base, struct dbf_code *c);
/* Index of the instruction starting at offset off, or -1. */
int dbf_insn_at(const struct dbf_code *c, uint32_t off);
/* Vectors that push an error code (SDM vol.3 6.13 table 6-1). */
bool dbf_has_error_code(int vector);

/* "1@5d4000,3@9,d@18e0,E": each event as VECTOR(hex)@OFFSET(decimal), or @X for a
 * RIP outside the sequence; "d" DR6 XOR its init value 0xffff0ff0 (the cause
 * bits, vector 1 only), "e" the error code (hex), "u" at CPL 3; then how the run
 * ended: E (the end INT), O (more than DBF_MAX_EVENTS), X (an event outside the
 * sequence), W (watchdog).  Returns the length written (truncated to n-1). */
size_t dbf_format(char *buf, size_t n, const struct dbf_event *ev, int nev, enum dbf_end end);
uint32_t dbf_hash(const char *s);
/* The scenario, after drop, as text: "cpl3 tf if L0:x@2.0 W1:4@8 G2:io2 gd; LOAD4@8 ..." */
size_t dbf_describe(char *buf, size_t n, const struct dbf_scenario *s, uint32_t drop);
const char *dbf_op_name(int op);

#endif
