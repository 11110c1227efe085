/* Running a function at CPL 3 (for CPL-filtering experiments and ring-3 debug). */
#ifndef KERNEL_USER_H
#define KERNEL_USER_H
#include <stdint.h>

/* Runs fn(arg) at CPL 3 on a user stack and returns when it returns.  The whole
 * identity map is user-accessible, so fn may live in the kernel image.  Exceptions
 * inside fn go to the same handlers as at CPL 0 (frame cs & 3 == 3). */
void run_user(void (*fn)(void *), void *arg);
/* The INT 0x80 that ends fn: resumes run_user's caller.  main.c registers it
 * with kernel/trap.c for VEC_USER_RETURN. */
struct trap_frame;
void user_return(struct trap_frame *tf);
/* The same with the user RFLAGS given (bit 1 is added), e.g. RFLAGS_IF | RFLAGS_IOPL3
 * so that fn may use IN/OUT/CLI/STI (SDM vol.1 3.4.3.3). */
void run_user_flags(void (*fn)(void *), void *arg, uint64_t rflags);

#endif
