/* The KTAP writer (kernel/ktap.c): the results as KTAP v1 on the console. */
#ifndef KERNEL_KTAP_H
#define KERNEL_KTAP_H

/* Registers the writer with kernel/results.c. */
void ktap_init(void);

#endif
