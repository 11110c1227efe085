/* Ring 3 for experiments: IRETQ to CPL 3 on this CPU's user stack; the user
 * function ends with INT 0x80 (a DPL-3 gate), whose handler resumes the kernel
 * context saved by run_user. */
#include "cr.h"
#include "percpu.h"
#include "ctx.h"
#include "user.h"
#include "x86.h"

void user_enter(uint64_t rip, uint64_t rsp, void (*fn)(void *), void *arg, uint64_t rflags)
	__attribute__((noreturn));
extern char user_thunk[];

static struct kctx user_ctx[MAX_CPUS];
static uint64_t user_saved_flags[MAX_CPUS];

void run_user(void (*fn)(void *), void *arg)
{
	run_user_flags(fn, arg, RFLAGS_IF);
}

void run_user_flags(void (*fn)(void *), void *arg, uint64_t rflags)
{
	struct percpu *c = this_cpu();
	user_saved_flags[c->index] = read_rflags();
	if (ctx_save(&user_ctx[c->index]) == 0)
		user_enter((uint64_t)(uintptr_t)user_thunk,
			   (uint64_t)(uintptr_t)(c->user_stack + KSTACK_SIZE), fn, arg,
			   rflags | RFLAGS_FIXED1);
	c = this_cpu();
	if (user_saved_flags[c->index] & RFLAGS_IF)
		sti();
}

void user_return(struct trap_frame *tf)
{
	ctx_resume(&user_ctx[this_cpu()->index]);
}
