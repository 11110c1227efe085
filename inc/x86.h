/* One tiny wrapper per privileged instruction, so the rest of the code reads as prose. */
#ifndef INC_X86_H
#define INC_X86_H
#include <stdint.h>

struct cpuid_regs { uint32_t eax, ebx, ecx, edx; };

static inline struct cpuid_regs cpuid(uint32_t leaf, uint32_t subleaf)
{
	struct cpuid_regs r;
	__asm__ volatile("cpuid" : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx)
			 : "a"(leaf), "c"(subleaf));
	return r;
}

/* Raw RDMSR/WRMSR: #GP on a missing MSR.  Use rdmsr_safe()/wrmsr_safe() to probe. */
static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr" : : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)) : "memory");
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t rdtscp(uint32_t *aux)
{
	uint32_t lo, hi, c;
	__asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(c));
	*aux = c;
	return ((uint64_t)hi << 32) | lo;
}

static inline void outb(uint16_t port, uint8_t v) { __asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port)); }
static inline void outw(uint16_t port, uint16_t v) { __asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port)); }
static inline void outl(uint16_t port, uint32_t v) { __asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port)); }
static inline uint8_t inb(uint16_t port) { uint8_t v; __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port)); return v; }

#define DEFINE_CR(n) \
	static inline uint64_t read_cr##n(void) { uint64_t v; __asm__ volatile("mov %%cr" #n ", %0" : "=r"(v)); return v; } \
	static inline void write_cr##n(uint64_t v) { __asm__ volatile("mov %0, %%cr" #n : : "r"(v) : "memory"); }
DEFINE_CR(0)
DEFINE_CR(2)
DEFINE_CR(3)
DEFINE_CR(4)
#undef DEFINE_CR

#define DEFINE_DR(n) \
	static inline uint64_t read_dr##n(void) { uint64_t v; __asm__ volatile("mov %%db" #n ", %0" : "=r"(v)); return v; } \
	static inline void write_dr##n(uint64_t v) { __asm__ volatile("mov %0, %%db" #n : : "r"(v) : "memory"); }
DEFINE_DR(0)
DEFINE_DR(1)
DEFINE_DR(2)
DEFINE_DR(3)
DEFINE_DR(6)
DEFINE_DR(7)
#undef DEFINE_DR

uint64_t read_dr(int n);
void write_dr(int n, uint64_t v);

static inline uint64_t read_rflags(void) { uint64_t f; __asm__ volatile("pushfq; popq %0" : "=r"(f)); return f; }
static inline void write_rflags(uint64_t f) { __asm__ volatile("pushq %0; popfq" : : "r"(f) : "memory", "cc"); }
static inline uint16_t read_cs(void) { uint16_t s; __asm__ volatile("mov %%cs, %0" : "=r"(s)); return s; }
static inline void cli(void) { __asm__ volatile("cli" ::: "memory"); }
static inline void sti(void) { __asm__ volatile("sti" ::: "memory"); }
static inline void hlt(void) { __asm__ volatile("hlt" ::: "memory"); }
static inline void cpu_relax(void) { __asm__ volatile("pause" ::: "memory"); }
static inline void barrier(void) { __asm__ volatile("" ::: "memory"); }

struct __attribute__((packed)) dtr { uint16_t limit; uint64_t base; };
static inline void lgdt(const struct dtr *d) { __asm__ volatile("lgdt %0" : : "m"(*d)); }
static inline void lidt(const struct dtr *d) { __asm__ volatile("lidt %0" : : "m"(*d)); }
static inline void ltr(uint16_t sel) { __asm__ volatile("ltr %0" : : "r"(sel)); }
static inline void invlpg(uintptr_t va) { __asm__ volatile("invlpg (%0)" : : "r"(va) : "memory"); }

#endif
