/* 32-bit protected mode beside long mode: the runner takes the CPU down from
 * long mode to protected mode (paging off, or on with 32-bit or PAE tables),
 * runs one scenario written as 32-bit code with its own GDT, IDT and TSSes, and
 * climbs back.  The scenario's events (every #DB/#BP and whatever vectors it
 * asks for) are recorded in a control block; the 64-bit experiment checks them.
 *
 * Why not a second i386 build of the whole kernel: the runner, KTAP, consoles,
 * APIC watchdog and SMP stay one 64-bit program; only the code that must run in
 * protected mode is 32-bit (kernel/pm32_entry.S, experiments/pm32_*.S).
 *
 * Recovery: an exception nobody asked for, or the APIC watchdog interrupt, ends
 * the scenario through the same climb back (pm32_bail); the experiment then
 * fails with the vector and EIP, and the run goes on.  A double fault goes
 * through a task gate to a task with its own stack (SDM vol.3 6.15, "Interrupt
 * 8": the only way to survive a bad stack), which bails the same way.
 *
 * Shared with assembly: offsets of the control block (PM32_CB_*). */
#ifndef KERNEL_PM32_H
#define KERNEL_PM32_H
#include "seg.h"

/* Selectors of the protected-mode GDT.  0x00-0x30 are the layout of inc/seg.h
 * (0x18/0x20 flat 32-bit code/data; 0x28 the 64-bit code segment the climb back
 * jumps to); the task-state segments and task gates follow. */
#define PM32_SEL_CS             SEL_CODE32
#define PM32_SEL_DS             SEL_DATA32
#define PM32_SEL_TSS_MAIN       0x38    /* the scenario's own task (LTR at entry) */
#define PM32_SEL_TSS_A          0x40    /* target tasks of JMP/CALL */
#define PM32_SEL_TSS_B          0x48
#define PM32_SEL_TSS_DB         0x50    /* #DB handler task (IDT task gate) */
#define PM32_SEL_TSS_BP         0x58    /* #BP handler task */
#define PM32_SEL_GATE_A         0x60    /* task gate -> TSS A */
#define PM32_SEL_GATE_B         0x68    /* task gate -> TSS B */
#define PM32_SEL_TSS_DF         0x70    /* double fault: a task with its own stack */
#define PM32_GDT_ENTRIES        15

#define PM32_NTASKS             6       /* main, A, B, DB, BP, DF */
#define PM32_MAX_EVENTS         32

/* What the IDT stub does per vector (control block action[]). */
#define PM32_ACT_ABORT          0       /* unexpected: end the scenario, fail */
#define PM32_ACT_RECORD         1       /* record, resume (RF rule, DR6 cleared) */
#define PM32_ACT_IGNORE         2       /* IRET at once (spurious interrupt) */
#define PM32_ACT_RECORD_SKIP1   3       /* record, resume one byte later (#UD on ICEBP) */

#define PM32_NO_ABORT           0xffffffff

/* struct pm32_event, 48 bytes */
#define PM32_EV_VECTOR          0x00
#define PM32_EV_EIP             0x04
#define PM32_EV_CS              0x08
#define PM32_EV_EFLAGS          0x0c
#define PM32_EV_DR6             0x10
#define PM32_EV_DR7             0x14
#define PM32_EV_EFLAGS_LIVE     0x18
#define PM32_EV_ERR             0x1c
#define PM32_EV_TR              0x20
#define PM32_EV_LINK            0x24
#define PM32_EV_EXTRA           0x28
#define PM32_EV_SIZE            0x30

/* struct pm32_cb */
#define PM32_CB_SCENARIO        0x00
#define PM32_CB_ARG             0x04
#define PM32_CB_RESULT          0x08
#define PM32_CB_ABORT_VEC       0x0c
#define PM32_CB_ABORT_EIP       0x10
#define PM32_CB_ABORT_ERR       0x14
#define PM32_CB_ABORT_CS        0x18
#define PM32_CB_NEVENTS         0x1c
#define PM32_CB_KEEP_DR6        0x20
#define PM32_CB_RF_FROM         0x24
#define PM32_CB_PAGING          0x28
#define PM32_CB_CR3             0x2c
#define PM32_CB_STACK_TOP       0x30
#define PM32_CB_TR              0x34
#define PM32_CB_STI             0x38
#define PM32_CB_GDT_BASE        0x3c
#define PM32_CB_GDTR            0x42    /* limit (2), base (4): LGDT's operand */
#define PM32_CB_IDTR            0x4a
#define PM32_CB_MARK            0x50    /* scratch for scenarios (values they observed) */
#define PM32_CB_ACTION          0x80    /* u8[256] */
#define PM32_CB_EVENTS          0x180
#define PM32_CB_SIZE            (PM32_CB_EVENTS + PM32_MAX_EVENTS * PM32_EV_SIZE)

#define PM32_NMARKS             12

#define PM32_PAGING_OFF         0
#define PM32_PAGING_32          1       /* CR4.PAE=0, 4 MiB pages (CR4.PSE) */
#define PM32_PAGING_PAE         2       /* CR4.PAE=1, 2 MiB pages */

#ifndef __ASSEMBLER__
#include <stdbool.h>
#include <stdint.h>

struct pm32_event {
	uint32_t vector, eip, cs, eflags;       /* the frame (or, for a task gate, the back-linked TSS) */
	uint32_t dr6, dr7;                      /* on handler entry */
	uint32_t eflags_live;                   /* EFLAGS while the handler runs */
	uint32_t err;
	uint32_t tr;                            /* the task the handler runs in */
	uint32_t link;                          /* task gate: its TSS's previous-task link */
	uint32_t extra[2];
};

struct pm32_cb {
	uint32_t scenario, arg, result;
	uint32_t abort_vec, abort_eip, abort_err, abort_cs;
	uint32_t nevents, keep_dr6, rf_from;
	uint32_t paging, cr3, stack_top, tr, sti, gdt_base;
	uint16_t pad0, gdtr_limit;
	uint32_t gdtr_base;
	uint16_t pad1, idtr_limit;
	uint32_t idtr_base;
	uint32_t mark[PM32_NMARKS];
	uint8_t action[256];
	struct pm32_event ev[PM32_MAX_EVENTS];
};

struct __attribute__((packed, aligned(128))) tss32 {
	uint8_t b[TSS32_SIZE];
};

/* One scenario run.  Build with pm32_prepare(), adjust (TSS fields, task gates,
 * actions), run with pm32_run(). */
struct pm32 {
	struct pm32_cb *cb;
	uint64_t *gdt;                          /* PM32_GDT_ENTRIES descriptors */
	uint64_t *idt;                          /* 256 gates */
	struct tss32 *tss[PM32_NTASKS];         /* indexed by PM32_TASK_* */
};

enum { PM32_TASK_MAIN, PM32_TASK_A, PM32_TASK_B, PM32_TASK_DB, PM32_TASK_BP, PM32_TASK_DF };

/* Fresh tables for the current mode (paging per exp_mode()): every vector
 * aborts except #DB and #BP (recorded) and the spurious vector; TSS A and B
 * start at the given entry points (0: unused) with EFLAGS IF=1; the DB/BP
 * handler tasks are built but not installed (pm32_task_gate_idt()). */
void pm32_prepare(struct pm32 *p, uint32_t scenario, uint32_t entry_a, uint32_t entry_b);
/* TSS field access */
void pm32_tss_set(struct pm32 *p, int task, unsigned off, uint32_t v);
uint32_t pm32_tss_get(const struct pm32 *p, int task, unsigned off);
/* IDT vector -> task gate for the handler task (PM32_TASK_DB or _BP). */
void pm32_task_gate_idt(struct pm32 *p, int vector, int task);
/* Runs the scenario in protected mode and comes back.  Returns true if it ran to
 * its end; false (after one failing check naming the vector and EIP) if an
 * exception or the watchdog cut it off. */
bool pm32_run(struct pm32 *p, const char *what);
/* The mode name ("pm32", "pm32pg", "pm32pae") of the running experiment. */
const char *pm32_mode_name(void);
/* The runner, before each experiment. */
void pm32_new_experiment(void);

/* kernel/pm32_entry.S */
void pm32_call(struct pm32_cb *cb);
extern char pm32_vectors[];
extern char pm32_task_db[], pm32_task_bp[], pm32_task_df[];
#endif

#endif
