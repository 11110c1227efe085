/* COM1, a 16550 at 0x3f8, 115200 8N1.  A machine without a UART must not hang
 * us: presence is tested by loopback, and every wait is bounded. */
#include <stdbool.h>
#include "serial.h"
#include "x86.h"

#define COM1        0x3f8
#define THR         0
#define DLL         0
#define IER         1
#define DLM         1
#define FCR         2
#define LCR         3
#define MCR         4
#define LSR         5
#define   LSR_THRE  0x20

static bool present;

void serial_init(void)
{
	outb(COM1 + IER, 0x00);
	outb(COM1 + LCR, 0x80);             /* DLAB */
	outb(COM1 + DLL, 1);                /* 115200 / 1 */
	outb(COM1 + DLM, 0);
	outb(COM1 + LCR, 0x03);             /* 8N1 */
	outb(COM1 + FCR, 0x07);             /* FIFO on, cleared */
	outb(COM1 + MCR, 0x1e);             /* loopback */
	outb(COM1 + THR, 0xa5);
	present = inb(COM1 + THR) == 0xa5;
	outb(COM1 + MCR, 0x0f);             /* normal: DTR, RTS, OUT1, OUT2 */
}

bool serial_present(void)
{
	return present;
}

void serial_putc(char c)
{
	if (!present)
		return;
	for (int i = 0; i < 100000 && !(inb(COM1 + LSR) & LSR_THRE); i++)
		cpu_relax();
	outb(COM1 + THR, (uint8_t)c);
}
