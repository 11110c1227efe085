/* lib/dbfuzz.c: determinism, reachability of every menu item and breakpoint kind,
 * the exact encodings, bounds, drop masks, and the trace text. */
#include <string.h>
#include "dbfuzz.h"
#include "tl_test.h"

#define CODE 0x200000ULL
#define DATA 0x201000ULL

TEST(dbfuzz_deterministic)
{
	for (uint32_t i = 0; i < 2000; i++) {
		struct dbf_scenario a, b;
		struct dbf_code ca, cb;
		dbf_generate(42, i, &a);
		dbf_generate(42, i, &b);
		CHECK(!memcmp(&a, &b, sizeof a));
		CHECK(dbf_build(&a, 0, CODE, DATA, &ca));
		CHECK(dbf_build(&b, 0, CODE, DATA, &cb));
		CHECK(!memcmp(&ca, &cb, sizeof ca));
	}
	/* different seeds, different scenarios */
	int same = 0;
	for (uint32_t i = 0; i < 200; i++) {
		struct dbf_scenario a, b;
		dbf_generate(1, i, &a);
		dbf_generate(2, i, &b);
		a.seed = b.seed;
		same += !memcmp(&a, &b, sizeof a);
	}
	CHECK(same < 5);
}

TEST(dbfuzz_reachable_and_bounded)
{
	int ops[DBF_NOPS] = { 0 }, kinds[5] = { 0 }, sizes[9] = { 0 };
	int cpl3 = 0, tf = 0, rf = 0, gd = 0, ifl = 0, exec_end = 0, nitems[DBF_MAX_ITEMS + 1] = { 0 };
	for (uint32_t i = 0; i < 20000; i++) {
		struct dbf_scenario s;
		struct dbf_code c;
		dbf_generate(7, i, &s);
		CHECK(s.nitems >= 1 && s.nitems <= DBF_MAX_ITEMS);
		nitems[s.nitems]++;
		cpl3 += s.cpl3; tf += s.tf; rf += s.rf; gd += s.gd; ifl += s.ifl;
		for (int k = 0; k < s.nitems; k++) {
			const struct dbf_item *it = &s.item[k];
			CHECK(it->op < DBF_NOPS);
			ops[it->op]++;
			if (it->op == DBF_LOAD || it->op == DBF_STORE) {
				CHECK(it->size == 1 || it->size == 2 || it->size == 4 || it->size == 8);
				CHECK(it->off + it->size <= DBF_DATA_SIZE);
				sizes[it->size]++;
			}
		}
		for (int n = 0; n < 4; n++) {
			const struct dbf_bp *b = &s.bp[n];
			CHECK(b->kind <= DBF_BP_IO);
			kinds[b->kind]++;
			if (b->kind == DBF_BP_WRITE || b->kind == DBF_BP_RW) {
				CHECK(b->off % b->len == 0 && b->off + b->len <= DBF_DATA_SIZE);
			} else if (b->kind == DBF_BP_IO) {
				CHECK(b->len <= 4 && b->off % b->len == 0 && b->off < 4);
			} else if (b->kind == DBF_BP_EXEC) {
				CHECK(b->len == 1 && b->item <= s.nitems);
				exec_end += b->item == s.nitems;
			}
		}
		CHECK(dbf_build(&s, 0, CODE, DATA, &c));
		CHECK(c.len <= DBF_MAX_CODE && c.ninsn <= DBF_MAX_INSNS);
		/* the instructions tile the code exactly and the last is INT $DBF_VEC_END */
		int at = 0;
		for (int k = 0; k < c.ninsn; k++) {
			CHECK_EQ(c.insn[k].off, at);
			at += c.insn[k].len;
		}
		CHECK_EQ(at, c.len);
		CHECK_EQ(c.bytes[c.len - 2], 0xcd);
		CHECK_EQ(c.bytes[c.len - 1], DBF_VEC_END);
		CHECK_EQ(c.insn[c.ninsn - 1].item, -1);
		/* an execute breakpoint sits on an instruction's first byte */
		for (int n = 0; n < 4; n++) {
			uint64_t rw = (c.dr7 >> (16 + 4 * n)) & 3, en = (c.dr7 >> (2 * n)) & 3;
			if (en && rw == 0)
				CHECK(c.dr[n] >= CODE && dbf_insn_at(&c, (uint32_t)(c.dr[n] - CODE)) >= 0);
			if (en && rw == 2)
				CHECK(c.cr4_de && c.dr[n] >= DBF_PORT && c.dr[n] < DBF_PORT + 4);
			if (en && (rw == 1 || rw == 3))
				CHECK(c.dr[n] >= DATA && c.dr[n] < DATA + DBF_DATA_SIZE);
		}
		CHECK(c.dr7 & 0x400);
		CHECK_EQ(c.rflags & ~0x10302ULL, 0);
		CHECK(c.cpl == 0 || c.cpl == 3);
	}
	for (int op = 0; op < DBF_NOPS; op++)
		CHECK(ops[op] > 100);
	for (int k = 0; k < 5; k++)
		CHECK(kinds[k] > 1000);
	CHECK(sizes[1] && sizes[2] && sizes[4] && sizes[8]);
	CHECK(cpl3 > 1000 && tf > 1000 && rf > 500 && gd > 500 && ifl > 1000 && exec_end > 100);
	CHECK(nitems[1] > 100 && nitems[DBF_MAX_ITEMS] > 100);
}

static void build_one(int op, int size, int off, struct dbf_code *c)
{
	struct dbf_scenario s = { .nitems = 1 };
	s.item[0] = (struct dbf_item){ (uint8_t)op, (uint8_t)size, (uint8_t)off };
	CHECK(dbf_build(&s, 0, CODE, DATA, c));
}

#define ENC(op, size, off, ...) do {					\
		static const uint8_t want_[] = { __VA_ARGS__, 0xcd, DBF_VEC_END }; \
		struct dbf_code c_;					\
		build_one((op), (size), (off), &c_);			\
		CHECK_EQ(c_.len, sizeof want_);				\
		CHECK(!memcmp(c_.bytes, want_, sizeof want_));		\
	} while (0)

TEST(dbfuzz_encodings)
{
	ENC(DBF_NOP, 0, 0, 0x90);
	ENC(DBF_LOAD, 1, 5, 0x8a, 0x47, 5);
	ENC(DBF_LOAD, 2, 6, 0x66, 0x8b, 0x47, 6);
	ENC(DBF_LOAD, 4, 7, 0x8b, 0x47, 7);
	ENC(DBF_LOAD, 8, 8, 0x48, 0x8b, 0x47, 8);
	ENC(DBF_STORE, 1, 1, 0x88, 0x47, 1);
	ENC(DBF_STORE, 8, 56, 0x48, 0x89, 0x47, 56);
	ENC(DBF_TF_SET, 0, 0, 0x9c, 0x48, 0x81, 0x0c, 0x24, 0x00, 0x01, 0x00, 0x00, 0x9d);
	ENC(DBF_TF_CLR, 0, 0, 0x9c, 0x48, 0x81, 0x24, 0x24, 0xff, 0xfe, 0xff, 0xff, 0x9d);
	ENC(DBF_MOVSS, 0, 0, 0x8c, 0xd0, 0x8e, 0xd0);
	ENC(DBF_STI, 0, 0, 0xfb);
	ENC(DBF_CLI, 0, 0, 0xfa);
	ENC(DBF_INT3, 0, 0, 0xcc);
	ENC(DBF_ICEBP, 0, 0, 0xf1);
	ENC(DBF_INT1, 0, 0, 0xcd, 0x01);
	ENC(DBF_CPUID, 0, 0, 0x31, 0xc0, 0x0f, 0xa2);
	ENC(DBF_IN, 1, 0, 0xe4, DBF_PORT);
	ENC(DBF_IN, 2, 0, 0x66, 0xe5, DBF_PORT);
	ENC(DBF_OUT, 4, 0, 0xe7, DBF_PORT);
	ENC(DBF_JMP, 0, 0, 0xeb, 0x00);
	ENC(DBF_CALLRET, 0, 0, 0xe8, 0x02, 0x00, 0x00, 0x00, 0xeb, 0x01, 0xc3);
	ENC(DBF_FAULT, 0, 0, 0xa0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x7f, 0x00, 0x00);
	ENC(DBF_DR_READ, 0, 0, 0x0f, 0x21, 0xf8);
	ENC(DBF_DR_WRITE, 0, 0, 0x0f, 0x21, 0xc0, 0x0f, 0x23, 0xc0);
	ENC(DBF_RING, 0, 0, 0xcd, DBF_VEC_RING);
}

TEST(dbfuzz_drop)
{
	struct dbf_scenario s = { .nitems = 3, .tf = true, .gd = true, .cpl3 = true };
	struct dbf_code c;
	s.item[0] = (struct dbf_item){ DBF_NOP, 0, 0 };
	s.item[1] = (struct dbf_item){ DBF_INT3, 0, 0 };
	s.item[2] = (struct dbf_item){ DBF_STORE, 4, 8 };
	s.bp[0] = (struct dbf_bp){ .kind = DBF_BP_EXEC, .len = 1, .item = 1 };
	s.bp[1] = (struct dbf_bp){ .kind = DBF_BP_WRITE, .len = 4, .off = 8, .global = 1 };
	s.bp[2] = (struct dbf_bp){ .kind = DBF_BP_IO, .len = 2, .off = 2 };
	CHECK(dbf_build(&s, 0, CODE, DATA, &c));
	CHECK_EQ(c.dr[0], CODE + 1);
	CHECK_EQ(c.dr[1], DATA + 8);
	CHECK_EQ(c.dr[2], DBF_PORT + 2);
	CHECK_EQ(c.dr7, 0x400 | 0x2000 | 0x1 | 0x8 | 0x10 | (0x0ULL << 16) | (0xdULL << 20) | (0x6ULL << 24));
	CHECK_EQ(c.rflags, 0x102);
	CHECK_EQ(c.cpl, 3);
	char d[200];
	dbf_describe(d, sizeof d, &s, 0);
	CHECK(!strcmp(d, "cpl3 tf gd L0:X@1.0 G1:W4@8 L2:I2@port82; 0:NOP 1:INT3 2:STORE4@8"));
	/* dropping item 1 takes its execute breakpoint along; the store moves up */
	CHECK(dbf_build(&s, 1u << 1 | DBF_DROP_BP(2) | DBF_DROP_TF | DBF_DROP_GD | DBF_DROP_CPL3,
			CODE, DATA, &c));
	CHECK_EQ(c.dr7, 0x400 | 0x8 | (0xdULL << 20));
	CHECK_EQ(c.rflags, 0x2);
	CHECK_EQ(c.cpl, 0);
	CHECK(!c.cr4_de);
	CHECK_EQ(c.len, 1 + 3 + 2);
	CHECK_EQ(c.bytes[1], 0x89);
	CHECK_EQ(c.bytes[2], 0x47);
	dbf_describe(d, sizeof d, &s, 1u << 1 | DBF_DROP_BP(2) | DBF_DROP_TF | DBF_DROP_GD | DBF_DROP_CPL3);
	CHECK(!strcmp(d, "cpl0 G1:W4@8; 0:NOP 2:STORE4@8"));
}

TEST(dbfuzz_format)
{
	struct dbf_event ev[3] = {
		{ .vector = 1, .cpl = 0, .in_seq = true, .off = 5, .dr6 = 0xffff4ff0 },
		{ .vector = 13, .cpl = 3, .in_seq = true, .off = 0x12, .error = 0xa },
		{ .vector = 3, .in_seq = false },
	};
	char b[100];
	CHECK_EQ(dbf_format(b, sizeof b, ev, 3, DBF_END_ESCAPE), strlen("1@5d4000,d@18eau,3@X,X"));
	CHECK(!strcmp(b, "1@5d4000,d@18eau,3@X,X"));
	CHECK_EQ(dbf_format(b, sizeof b, ev, 0, DBF_END_OK), 1);
	CHECK(!strcmp(b, "E"));
	/* truncation keeps the buffer terminated */
	CHECK_EQ(dbf_format(b, 5, ev, 3, DBF_END_OK), 4);
	CHECK(!strcmp(b, "1@5d"));
	CHECK(!strchr(b, '#'));
	CHECK_EQ(dbf_hash(""), 2166136261u);
	CHECK_EQ(dbf_hash("a"), 0xe40c292cu);
	CHECK(dbf_has_error_code(13) && dbf_has_error_code(14) && !dbf_has_error_code(1) &&
	      !dbf_has_error_code(3) && !dbf_has_error_code(6));
}
