#ifndef KERNEL_SERIAL_H
#define KERNEL_SERIAL_H
#include <stdbool.h>
void serial_init(void);
bool serial_present(void);
void serial_putc(char c);
#endif
