/* libFuzzer target: the PEBS record decoder, the buffer walker and the table
 * formatter on arbitrary bytes, for every layout.  The first byte picks the
 * layout (and with bits 5/6 timed PEBS / split latency), the next eight the
 * PEBS_DATA_CFG cross-check value. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "pebs_record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 9)
		return 0;
	enum pebs_layout l = (enum pebs_layout)(data[0] % 7);      /* 6 = invalid */
	uint64_t cfg;
	memcpy(&cfg, data + 1, 8);
	if (data[0] & 0x80)
		cfg = PEBS_CFG_ANY;
	data += 9;
	size -= 9;

	struct pebs_record r;
	struct pebs_format f = { l, cfg, (data[-9] & 0x20) != 0, (data[-9] & 0x40) != 0 };
	int e = pebs_decode_fmt(data, size, &f, &r);
	if (e == PEBS_OK && (r.valid & PEBS_V_SPLIT_LAT) &&
	    (r.instr_latency > 0xffff || r.cache_latency > 0xffff || !f.split_latency))
		__builtin_trap();
	if (e == PEBS_OK && (r.valid & PEBS_V_RETIRE_LAT) && r.retire_latency > 0xffff)
		__builtin_trap();
	if (e == PEBS_OK) {
		if (r.size == 0 || r.size > size)
			__builtin_trap();
		char text[2048];
		size_t n = pebs_format(text, sizeof text, &r);
		if (n >= sizeof text || text[n] != 0)
			__builtin_trap();
		uint64_t f, t, info;
		for (uint32_t i = 0; i < r.n_lbr; i++)
			if (!pebs_lbr_entry(data, &r, i, &f, &t, &info))
				__builtin_trap();
		if (r.n_lbr && r.lbr_off + r.n_lbr * PEBS_LBR_ENTRY_SIZE > r.size)
			__builtin_trap();
		if ((r.valid & PEBS_V_XMM) && r.xmm_off + PEBS_XMM_SIZE > r.size)
			__builtin_trap();
	}
	long c = pebs_count(data, size, l, cfg);
	if (c > (long)size)
		__builtin_trap();
	(void)pebs_dse_name(size);
	(void)pebs_strerror(e);
	return 0;
}
