/* Scenario generation, encoding and trace text for the debug-exception fuzzer
 * (see dbfuzz.h).  Pure: the same (seed, index, drop) gives the same bytes on
 * the host and in the kernel. */
#include "dbfuzz.h"
#include "fmt.h"

/* ---- PRNG: splitmix64 (Steele, Lea, Flood 2014), seeded from (seed, index) -- */

struct rng { uint64_t s; };

static uint64_t next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n) for the small n used here (bias < 2^-50). */
static uint32_t below(struct rng *r, uint32_t n)
{
	return (uint32_t)(next(r) % n);
}

static bool chance(struct rng *r, uint32_t one_in)
{
	return below(r, one_in) == 0;
}

static const char *const op_names[DBF_NOPS] = {
	"NOP", "LOAD", "STORE", "TFSET", "TFCLR", "MOVSS", "STI", "CLI", "INT3", "ICEBP",
	"INT1", "CPUID", "IN", "OUT", "JMP", "CALLRET", "FAULT", "DRREAD", "DRWRITE", "RING",
};

const char *dbf_op_name(int op)
{
	return op >= 0 && op < DBF_NOPS ? op_names[op] : "?";
}

/* Instructions an item assembles to (see emit()). */
static int item_insns(int op)
{
	switch (op) {
	case DBF_TF_SET: case DBF_TF_CLR: case DBF_CALLRET: return 3;
	case DBF_MOVSS: case DBF_CPUID: case DBF_DR_WRITE: return 2;
	default: return 1;
	}
}

static const uint8_t sizes[4] = { 1, 2, 4, 8 };

void dbf_generate(uint64_t seed, uint32_t index, struct dbf_scenario *s)
{
	struct rng r = { seed * 0x2545f4914f6cdd1dULL ^ ((uint64_t)index << 32 | index) };
	*s = (struct dbf_scenario){ .seed = seed, .index = index };
	next(&r);
	s->nitems = 1 + (int)below(&r, DBF_MAX_ITEMS);
	s->cpl3 = chance(&r, 4);
	s->tf = chance(&r, 3);
	s->rf = chance(&r, 8);
	s->ifl = chance(&r, 4);
	s->gd = chance(&r, 10);
	s->le = chance(&r, 4);
	s->ge = chance(&r, 4);
	for (int n = 0; n < 4; n++) {
		struct dbf_bp *b = &s->bp[n];
		uint32_t k = below(&r, 20);
		b->kind = k < 8 ? DBF_BP_OFF : k < 12 ? DBF_BP_EXEC : k < 15 ? DBF_BP_WRITE :
			  k < 18 ? DBF_BP_RW : DBF_BP_IO;
		b->global = (uint8_t)chance(&r, 2);
		b->len = b->kind == DBF_BP_EXEC ? 1 : sizes[below(&r, b->kind == DBF_BP_IO ? 3 : 4)];
		if (b->kind == DBF_BP_EXEC) {
			b->item = (uint8_t)below(&r, (uint32_t)s->nitems + 1);
			b->sub = 0;     /* the item's instruction is chosen below */
		} else if (b->kind == DBF_BP_IO) {
			b->off = (uint8_t)(below(&r, 4) & ~(b->len - 1));
		} else if (b->kind != DBF_BP_OFF) {
			b->off = (uint8_t)(below(&r, DBF_DATA_SIZE) & ~(b->len - 1));
		}
	}
	for (int i = 0; i < s->nitems; i++) {
		struct dbf_item *it = &s->item[i];
		it->op = (uint8_t)below(&r, DBF_NOPS);
		if (it->op == DBF_LOAD || it->op == DBF_STORE) {
			it->size = sizes[below(&r, 4)];
			/* Half of the accesses aim at (or straddle) an armed data breakpoint. */
			int n = (int)below(&r, 4);
			int off = (int)below(&r, DBF_DATA_SIZE - 8 + 1);
			if ((s->bp[n].kind == DBF_BP_WRITE || s->bp[n].kind == DBF_BP_RW) && chance(&r, 2)) {
				off = s->bp[n].off + (int)below(&r, 9) - 4;
				off = off < 0 ? 0 : off > DBF_DATA_SIZE - 8 ? DBF_DATA_SIZE - 8 : off;
			}
			it->off = (uint8_t)off;
		} else if (it->op == DBF_IN || it->op == DBF_OUT) {
			it->size = sizes[below(&r, 3)];
		}
	}
	for (int n = 0; n < 4; n++)
		if (s->bp[n].kind == DBF_BP_EXEC && s->bp[n].item < s->nitems)
			s->bp[n].sub = (uint8_t)below(&r, (uint32_t)item_insns(s->item[s->bp[n].item].op));
}

/* ---- encoding ---------------------------------------------------------------- */

struct em {
	struct dbf_code *c;
	bool overflow;
};

static void insn(struct em *e, int item, const uint8_t *b, int n)
{
	struct dbf_code *c = e->c;
	if (c->ninsn >= DBF_MAX_INSNS || c->len + n > DBF_MAX_CODE) {
		e->overflow = true;
		return;
	}
	c->insn[c->ninsn++] = (struct dbf_insn){ .off = (uint16_t)c->len, .len = (uint8_t)n,
						 .item = (int8_t)item };
	for (int i = 0; i < n; i++)
		c->bytes[c->len++] = b[i];
}

#define INSN(e, item, ...) do {						\
		static const uint8_t b_[] = { __VA_ARGS__ };		\
		insn((e), (item), b_, (int)sizeof b_);			\
	} while (0)

/* RDI holds the data area's address for the whole sequence (CPUID clobbers only
 * EAX, EBX, ECX, EDX; nothing else writes RDI). */
static void emit(struct em *e, int i, const struct dbf_item *it)
{
	uint8_t b[12];
	int n = 0;
	switch (it->op) {
	case DBF_NOP: INSN(e, i, 0x90); break;
	case DBF_LOAD:
	case DBF_STORE:
		/* mov disp8(%rdi), %al/%ax/%eax/%rax and the stores: 8A/8B, 88/89 /r, ModRM 0x47 */
		if (it->size == 2)
			b[n++] = 0x66;
		if (it->size == 8)
			b[n++] = 0x48;
		b[n++] = (uint8_t)((it->op == DBF_LOAD ? 0x8a : 0x88) | (it->size > 1));
		b[n++] = 0x47;
		b[n++] = it->off;
		insn(e, i, b, n);
		break;
	case DBF_TF_SET:        /* pushfq; orq $0x100, (%rsp); popfq */
		INSN(e, i, 0x9c);
		INSN(e, i, 0x48, 0x81, 0x0c, 0x24, 0x00, 0x01, 0x00, 0x00);
		INSN(e, i, 0x9d);
		break;
	case DBF_TF_CLR:        /* pushfq; andq $~0x100, (%rsp); popfq */
		INSN(e, i, 0x9c);
		INSN(e, i, 0x48, 0x81, 0x24, 0x24, 0xff, 0xfe, 0xff, 0xff);
		INSN(e, i, 0x9d);
		break;
	case DBF_MOVSS:         /* mov %ss, %eax; mov %eax, %ss */
		INSN(e, i, 0x8c, 0xd0);
		INSN(e, i, 0x8e, 0xd0);
		break;
	case DBF_STI: INSN(e, i, 0xfb); break;
	case DBF_CLI: INSN(e, i, 0xfa); break;
	case DBF_INT3: INSN(e, i, 0xcc); break;
	case DBF_ICEBP: INSN(e, i, 0xf1); break;
	case DBF_INT1: INSN(e, i, 0xcd, 0x01); break;
	case DBF_CPUID:         /* xor %eax, %eax; cpuid */
		INSN(e, i, 0x31, 0xc0);
		INSN(e, i, 0x0f, 0xa2);
		break;
	case DBF_IN:            /* in $port, %al/%ax/%eax: E4 / 66 E5 / E5 */
	case DBF_OUT:           /* out %al/%ax/%eax, $port: E6 / 66 E7 / E7 */
		if (it->size == 2)
			b[n++] = 0x66;
		b[n++] = (uint8_t)((it->op == DBF_IN ? 0xe4 : 0xe6) | (it->size > 1));
		b[n++] = DBF_PORT;
		insn(e, i, b, n);
		break;
	case DBF_JMP: INSN(e, i, 0xeb, 0x00); break;
	case DBF_CALLRET:       /* call 1f; jmp 2f; 1: ret; 2: (runs call, ret, jmp) */
		INSN(e, i, 0xe8, 0x02, 0x00, 0x00, 0x00);
		INSN(e, i, 0xeb, 0x01);
		INSN(e, i, 0xc3);
		break;
	case DBF_FAULT:         /* movabs DBF_FAULT_ADDR, %al: A0 moffs64 */
		b[n++] = 0xa0;
		for (int k = 0; k < 8; k++)
			b[n++] = (uint8_t)(DBF_FAULT_ADDR >> (8 * k));
		insn(e, i, b, n);
		break;
	case DBF_DR_READ: INSN(e, i, 0x0f, 0x21, 0xf8); break;         /* mov %dr7, %rax */
	case DBF_DR_WRITE:                                              /* mov %dr0, %rax; mov %rax, %dr0 */
		INSN(e, i, 0x0f, 0x21, 0xc0);
		INSN(e, i, 0x0f, 0x23, 0xc0);
		break;
	case DBF_RING: INSN(e, i, 0xcd, DBF_VEC_RING); break;
	default: e->overflow = true; break;
	}
}

static uint64_t len_code(int len)
{
	return len == 2 ? 1 : len == 8 ? 2 : len == 4 ? 3 : 0;
}

bool dbf_build(const struct dbf_scenario *s, uint32_t drop, uint64_t code_base,
	       uint64_t data_base, struct dbf_code *c)
{
	struct em e = { .c = c };
	int first[DBF_MAX_ITEMS + 1];
	*c = (struct dbf_code){ .rflags = 2 };
	for (int i = 0; i < s->nitems; i++) {
		first[i] = c->ninsn;
		if (!(drop & (1u << i)))
			emit(&e, i, &s->item[i]);
	}
	first[s->nitems] = c->ninsn;
	INSN(&e, -1, 0xcd, DBF_VEC_END);
	if (e.overflow)
		return false;

	c->dr7 = 0x400;         /* DR7 bit 10 reads as 1 (SDM vol.3 18.2.4) */
	for (int n = 0; n < 4; n++) {
		const struct dbf_bp *b = &s->bp[n];
		if (b->kind == DBF_BP_OFF || (drop & DBF_DROP_BP(n)))
			continue;
		uint64_t rw, addr;
		if (b->kind == DBF_BP_EXEC) {
			if (b->item < s->nitems && (drop & (1u << b->item)))
				continue;       /* its instruction is gone */
			addr = code_base + c->insn[first[b->item] + b->sub].off;
			rw = 0;
		} else if (b->kind == DBF_BP_IO) {
			addr = DBF_PORT + b->off;
			rw = 2;
			c->cr4_de = true;
		} else {
			addr = data_base + b->off;
			rw = b->kind == DBF_BP_WRITE ? 1 : 3;
		}
		c->dr[n] = addr;
		c->dr7 |= (b->global ? 2ULL : 1ULL) << (2 * n);
		c->dr7 |= (rw | len_code(b->len) << 2) << (16 + 4 * n);
	}
	if (s->le) c->dr7 |= 1ULL << 8;
	if (s->ge) c->dr7 |= 1ULL << 9;
	if (s->gd && !(drop & DBF_DROP_GD)) c->dr7 |= 1ULL << 13;
	if (s->tf && !(drop & DBF_DROP_TF)) c->rflags |= 1ULL << 8;
	if (s->ifl && !(drop & DBF_DROP_IF)) c->rflags |= 1ULL << 9;
	if (s->rf && !(drop & DBF_DROP_RF)) c->rflags |= 1ULL << 16;
	c->cpl = s->cpl3 && !(drop & DBF_DROP_CPL3) ? 3 : 0;
	return true;
}

int dbf_insn_at(const struct dbf_code *c, uint32_t off)
{
	for (int i = 0; i < c->ninsn; i++)
		if (c->insn[i].off == off)
			return i;
	return -1;
}

bool dbf_has_error_code(int v)
{
	return v == 8 || (v >= 10 && v <= 14) || v == 17 || v == 21 || v == 29 || v == 30;
}

/* ---- text -------------------------------------------------------------------- */

struct out { char *buf; size_t n, len; };

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	size_t room = o->len < o->n ? o->n - o->len : 0;
	int k = tl_vsnprintf(o->buf + (o->len < o->n ? o->len : 0), room, fmt, ap);
	va_end(ap);
	if (k > 0)
		o->len += (size_t)k;
}

static size_t done(struct out *o)
{
	if (o->n)
		o->buf[o->len < o->n ? o->len : o->n - 1] = 0;
	return o->len < o->n ? o->len : (o->n ? o->n - 1 : 0);
}

size_t dbf_format(char *buf, size_t n, const struct dbf_event *ev, int nev, enum dbf_end end)
{
	struct out o = { buf, n, 0 };
	for (int i = 0; i < nev && i < DBF_MAX_EVENTS; i++) {
		const struct dbf_event *e = &ev[i];
		if (e->in_seq)
			put(&o, "%x@%u", e->vector, e->off);
		else
			put(&o, "%x@X", e->vector);
		if (e->vector == 1)
			put(&o, "d%llx", (unsigned long long)(e->dr6 ^ 0xffff0ff0ULL));
		if (dbf_has_error_code(e->vector))
			put(&o, "e%llx", (unsigned long long)e->error);
		if (e->cpl == 3)
			put(&o, "u");
		put(&o, ",");
	}
	static const char ends[] = "EOXW";
	put(&o, "%c", ends[end <= DBF_END_HANG ? end : 0]);
	return done(&o);
}

uint32_t dbf_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

size_t dbf_describe(char *buf, size_t n, const struct dbf_scenario *s, uint32_t drop)
{
	struct out o = { buf, n, 0 };
	static const char kinds[] = "-XWRI";
	put(&o, "cpl%d", s->cpl3 && !(drop & DBF_DROP_CPL3) ? 3 : 0);
	if (s->tf && !(drop & DBF_DROP_TF)) put(&o, " tf");
	if (s->rf && !(drop & DBF_DROP_RF)) put(&o, " rf");
	if (s->ifl && !(drop & DBF_DROP_IF)) put(&o, " if");
	if (s->gd && !(drop & DBF_DROP_GD)) put(&o, " gd");
	if (s->le) put(&o, " le");
	if (s->ge) put(&o, " ge");
	for (int k = 0; k < 4; k++) {
		const struct dbf_bp *b = &s->bp[k];
		if (b->kind == DBF_BP_OFF || (drop & DBF_DROP_BP(k)))
			continue;
		if (b->kind == DBF_BP_EXEC && b->item < s->nitems && (drop & (1u << b->item)))
			continue;
		put(&o, " %c%d:%c", b->global ? 'G' : 'L', k, kinds[b->kind]);
		if (b->kind == DBF_BP_EXEC)
			put(&o, "@%d.%d", b->item, b->sub);
		else if (b->kind == DBF_BP_IO)
			put(&o, "%d@port%x", b->len, DBF_PORT + b->off);
		else
			put(&o, "%d@%d", b->len, b->off);
	}
	put(&o, ";");
	for (int i = 0; i < s->nitems; i++) {
		const struct dbf_item *it = &s->item[i];
		if (drop & (1u << i))
			continue;
		put(&o, " %d:%s", i, dbf_op_name(it->op));
		if (it->op == DBF_LOAD || it->op == DBF_STORE)
			put(&o, "%d@%d", it->size, it->off);
		else if (it->op == DBF_IN || it->op == DBF_OUT)
			put(&o, "%d", it->size);
	}
	return done(&o);
}
