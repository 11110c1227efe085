#include "timer.h"

uint32_t timer_chain_next(uint64_t *left)
{
	uint64_t now = *left > 0xffffffffULL ? 0xffffffffULL : *left;
	*left -= now;
	return (uint32_t)now;
}
