/* 503-504 platform: the local APIC in x2APIC mode (SDM vol.3 11.12), the path
 * kernel/apic.c takes whenever CPUID.01H:ECX.x2APIC[21] is set.
 *
 * 503 x2apic: the mode and the interface the kernel relies on.  IA32_APIC_BASE
 * has EN and EXTD set; the x2APIC ID (MSR 802H) is the one CPUID.0BH/1FH:EDX
 * report for this logical processor (SDM 11.12.8) and the one the kernel
 * recorded (and, for APs, the MADT's); the LDR (80DH) is the logical ID derived
 * from it (SDM 11.12.10.2) and read-only (WRMSR: #GP); the DFR (80EH) is gone
 * (RDMSR: #GP).  An IPI is one 64-bit WRMSR to the ICR (830H) with the
 * destination in bits 63:32 (SDM 11.12.9): sent to our own x2APIC ID it arrives
 * once, sent to an ID nobody has it does not arrive here (so the upper half was
 * honoured), and the SELF IPI register (83FH, SDM 11.12.11) delivers once.  The
 * ESR (828H) holds no error after those two accepted IPIs.  The LVT timer
 * (832H, the runner's watchdog is armed while we run), its counts (838H, 839H)
 * and the LVT perfmon entry (834H) read back through MSRs.  On the boot CPU it
 * also asks every AP (smp_call, itself an IPI through the ICR) for its APIC mode
 * and IDs, and checks the ESR each AP's INIT-SIPI-SIPI left.
 *
 * 504 x2apic-access: the access rules of table 11-6 (SDM 11.12.1.2, 11.12.1.3),
 * which a real CPU enforces with #GP: the ICR reads back as the 64-bit value
 * written (destination included, no delivery-status bit); 831H does not exist;
 * EOI and SELF IPI are write-only, EOI takes only 0; ID, version, LDR and the
 * current count are read-only; on Intel, ESR bits 3:0 stay 0 after an IPI
 * nobody accepts (SDM 11.5.3).  Kept apart from 503 because emulators cut
 * corners here without the kernel noticing.
 *
 * AMD describes the same x2APIC MSR interface (APM vol.2 16.11, "x2APIC"); only
 * the ESR's accept-error bit differs (see 504). */
#include "apic.h"
#include "cpu.h"
#include "cpuid.h"
#include "experiment.h"
#include "msr.h"
#include "percpu.h"
#include "smp.h"
#include "trap.h"
#include "x86.h"

#define CALL_MS 2000

static volatile uint32_t test_hits;

static void test_isr(struct trap_frame *tf)
{
	test_hits++;
	apic_eoi();
}

/* x2APIC ID from CPUID leaf 0BH or 1FH (EDX, any subleaf), if the leaf exists
 * and is valid (subleaf 0 has a non-zero EBX[15:0], SDM vol.2A CPUID). */
static bool cpuid_x2apic_id(uint32_t leaf, uint32_t *id)
{
	if (cpuid(0, 0).eax < leaf)
		return false;
	struct cpuid_regs r = cpuid(leaf, 0);
	if (!(r.ebx & 0xffff))
		return false;
	*id = r.edx;
	return true;
}

static bool x2apic_on(void)
{
	return (rdmsr(IA32_APIC_BASE) & (APIC_BASE_EN | APIC_BASE_EXTD)) == (APIC_BASE_EN | APIC_BASE_EXTD);
}

/* A fixed IPI on VEC_APIC_TEST: returns how many arrived within 1 ms. */
static uint32_t ipi_via_icr(uint32_t dest)
{
	test_hits = 0;
	__asm__ volatile("mfence" ::: "memory");        /* WRMSR to the ICR is not serializing */
	wrmsr(X2APIC_MSR(APIC_ICR_LOW), (uint64_t)dest << X2APIC_ICR_DEST_SHIFT | VEC_APIC_TEST);
	delay_us(1000);
	return test_hits;
}

struct ap_view {
	uint64_t apic_base;
	uint32_t msr_id, cpuid_b_id, ldr;
	bool have_b;
};

static void read_ap_view(void *arg)
{
	struct ap_view *v = arg;
	v->apic_base = rdmsr(IA32_APIC_BASE);
	v->have_b = cpuid_x2apic_id(0xb, &v->cpuid_b_id);
	if ((v->apic_base & APIC_BASE_EXTD)) {
		v->msr_id = (uint32_t)rdmsr(X2APIC_MSR(APIC_ID));
		v->ldr = (uint32_t)rdmsr(X2APIC_MSR(APIC_LDR));
	}
}

static void x2apic(void)
{
	if (!(cpuid(1, 0).ecx & CPUID_1_ECX_X2APIC)) {
		exp_skip("CPUID.01H:ECX.x2APIC[21]=0");
		return;
	}
	struct percpu *me = this_cpu();
	uint64_t base = rdmsr(IA32_APIC_BASE);
	diag("cpu%u: IA32_APIC_BASE 0x%llx", me->index, (unsigned long long)base);
	check_eq("IA32_APIC_BASE.EN|EXTD (x2APIC mode, as kernel/apic.c chose)",
		 base & (APIC_BASE_EN | APIC_BASE_EXTD), APIC_BASE_EN | APIC_BASE_EXTD);
	check_eq("IA32_APIC_BASE.BSP (set on the boot CPU only)", !!(base & APIC_BASE_BSP),
		 me->index == 0);
	if (!x2apic_on())
		return;

	/* IDs */
	uint32_t id = (uint32_t)rdmsr(X2APIC_MSR(APIC_ID)), cid;
	check_eq("x2APIC ID (802H) is the one the kernel recorded for this CPU", id, me->apic_id);
	if (cpuid_x2apic_id(0xb, &cid))
		check_eq("x2APIC ID (802H) = CPUID.0BH:EDX", id, cid);
	else
		diag("CPUID leaf 0BH absent or invalid: not compared");
	if (cpuid_x2apic_id(0x1f, &cid))
		check_eq("x2APIC ID (802H) = CPUID.1FH:EDX", id, cid);
	if (id < 0xff)
		check_eq("x2APIC ID (802H) low 8 bits = CPUID.01H:EBX[31:24] (initial APIC ID)", id,
			 cpuid(1, 0).ebx >> 24);
	uint32_t ver = (uint32_t)rdmsr(X2APIC_MSR(APIC_VERSION));
	check(APIC_VERSION_VER(ver) >= 0x10 && APIC_VERSION_VER(ver) <= 0x15 &&
	      APIC_VERSION_MAXLVT(ver) >= 4,
	      "version (803H) 0x%x: version 0x%x (expected 10H-15H, integrated APIC, SDM 11.4.8), "
	      "max LVT entry %u (expected >= 4: the LVT perfmon exists)", ver, APIC_VERSION_VER(ver),
	      APIC_VERSION_MAXLVT(ver));

	/* LDR derived from the ID and read-only; no DFR */
	uint32_t ldr = (uint32_t)rdmsr(X2APIC_MSR(APIC_LDR));
	check_eq("LDR (80DH) = ID[19:4] << 16 | 1 << ID[3:0]", ldr, X2APIC_LDR(id));
	bool w = wrmsr_safe(X2APIC_MSR(APIC_LDR), ldr ^ 0x10001);
	check(!w && (uint32_t)rdmsr(X2APIC_MSR(APIC_LDR)) == ldr,
	      "WRMSR to the LDR (read-only): GP %s, LDR now 0x%x (expected GP, 0x%x)", w ? "no" : "yes",
	      (uint32_t)rdmsr(X2APIC_MSR(APIC_LDR)), ldr);
	uint64_t v;
	bool r = rdmsr_safe(X2APIC_MSR(APIC_DFR), &v);
	check(!r, "RDMSR 80EH (no DFR in x2APIC mode): GP %s (expected yes)", r ? "no" : "yes");

	/* IPIs through the 64-bit ICR and the SELF IPI register */
	trap_set_handler(VEC_APIC_TEST, test_isr);
	wrmsr(X2APIC_MSR(APIC_ESR), 0);
	uint32_t n = ipi_via_icr(id);
	check_eqd("ICR (830H) one 64-bit WRMSR, fixed, physical destination = our x2APIC ID in "
		  "bits 63:32: interrupts taken", n, 1);
	test_hits = 0;
	wrmsr(X2APIC_MSR(APIC_SELF_IPI), VEC_APIC_TEST);
	delay_us(1000);
	check_eqd("SELF IPI (83FH) with the vector: interrupts taken", test_hits, 1);
	/* no error latched by two accepted IPIs (SDM 11.5.3: a write latches, then read) */
	wrmsr(X2APIC_MSR(APIC_ESR), 0);
	check_eq("ESR (828H) after the two IPIs", rdmsr(X2APIC_MSR(APIC_ESR)), 0);
	uint32_t nobody = id + 0x10000;
	n = ipi_via_icr(nobody);
	check(n == 0, "ICR to x2APIC ID 0x%x (nobody; ours 0x%x, ours only if bits 63:32 were "
	      "ignored): interrupts taken here %u (expected 0)", nobody, id, n);
	wrmsr(X2APIC_MSR(APIC_ESR), 0);
	wrmsr(X2APIC_MSR(APIC_ESR), 0);         /* leave no error latched (504 looks at it) */

	/* the LVT entries the kernel programs, through MSRs */
	uint32_t lvtt = (uint32_t)rdmsr(X2APIC_MSR(APIC_LVT_TIMER));
	uint32_t icr = (uint32_t)rdmsr(X2APIC_MSR(APIC_TIMER_ICR));
	uint32_t c1 = (uint32_t)rdmsr(X2APIC_MSR(APIC_TIMER_CCR));
	delay_us(100);
	uint32_t c2 = (uint32_t)rdmsr(X2APIC_MSR(APIC_TIMER_CCR));
	if (icr) {
		check_eq("LVT timer (832H) while the runner's watchdog is armed: one-shot, unmasked, "
			 "VEC_TIMER", lvtt & (0x60000 | LVT_MASKED | 0xff), LVT_TIMER_ONESHOT | VEC_TIMER);
		check(c2 < c1 && c1 <= icr, "timer counts through 838H/839H: initial %u, current %u "
		      "then %u 100 us later (expected counting down from the initial count)", icr, c1, c2);
	} else {
		diag("watchdog off (watchdog=0): LVT timer 0x%x not checked", lvtt);
	}
	uint32_t lvtpc = (uint32_t)rdmsr(X2APIC_MSR(APIC_LVT_PERFMON));
	check_eq("LVT perfmon (834H): VEC_PMI, fixed delivery, unmasked (SDM 11.5.1)",
		 lvtpc & (0x700 | LVT_MASKED | 0xff), VEC_PMI);


	if (me->index != 0)
		return;         /* the APs' side once, from the boot CPU */
	for (int c = 1; c < MAX_CPUS; c++) {
		if (!smp_cpu_online(c))
			continue;
		const struct smp_boot *b = smp_boot_info(c);
		check_eq("ESR after this AP's INIT-SIPI-SIPI through the ICR", b->esr, 0);
		struct ap_view a = { 0 };
		bool ok = smp_call(c, read_ap_view, &a, CALL_MS);
		check(ok && (a.apic_base & (APIC_BASE_EN | APIC_BASE_EXTD | APIC_BASE_BSP)) ==
		      (APIC_BASE_EN | APIC_BASE_EXTD),
		      "cpu%d: answered %d, IA32_APIC_BASE 0x%llx (expected EN|EXTD, not BSP)", c, ok,
		      (unsigned long long)a.apic_base);
		check(a.msr_id == cpus[c].apic_id && a.msr_id == b->madt_id &&
		      (!a.have_b || a.cpuid_b_id == a.msr_id) && a.ldr == X2APIC_LDR(a.msr_id),
		      "cpu%d: x2APIC ID 0x%x, MADT 0x%x, CPUID.0BH:EDX %s0x%x, LDR 0x%x (expected all "
		      "the same ID, LDR 0x%x)", c, a.msr_id, b->madt_id, a.have_b ? "" : "(absent) ",
		      a.cpuid_b_id, a.ldr, X2APIC_LDR(a.msr_id));
	}
}
EXPERIMENT(503, "x2apic", "", "x2APIC",
	   "x2APIC mode: IDs as CPUID.0BH says, LDR derived, 64-bit ICR and SELF IPI deliver, LVTs via MSRs",
	   x2apic);

/* ---- 504 ------------------------------------------------------------------- */

struct access { uint32_t off; bool write; uint64_t value; const char *what; };

static void x2apic_access(void)
{
	if (!(cpuid(1, 0).ecx & CPUID_1_ECX_X2APIC)) {
		exp_skip("CPUID.01H:ECX.x2APIC[21]=0");
		return;
	}
	if (!x2apic_on()) {
		exp_fail("IA32_APIC_BASE 0x%llx: not in x2APIC mode", (unsigned long long)rdmsr(IA32_APIC_BASE));
		return;
	}
	uint32_t id = (uint32_t)rdmsr(X2APIC_MSR(APIC_ID));

	/* The ICR keeps the 64-bit value written; bit 12 (delivery status in the
	 * xAPIC) is reserved and reads 0.  A fixed IPI to an x2APIC ID nobody has, so
	 * the destination half is non-zero on every CPU (ID 0 included). */
	trap_set_handler(VEC_APIC_TEST, test_isr);
	uint32_t nobody = id + 0x10000;
	uint64_t sent = (uint64_t)nobody << X2APIC_ICR_DEST_SHIFT | VEC_APIC_TEST;
	ipi_via_icr(nobody);
	uint64_t back = rdmsr(X2APIC_MSR(APIC_ICR_LOW));
	check(back == sent, "ICR (830H) reads back the 64-bit value written: 0x%llx (expected 0x%llx, "
	      "destination in bits 63:32, bit 12 clear)", (unsigned long long)back, (unsigned long long)sent);
	/* Nobody accepted it.  Intel: ESR bits 3:0 (checksum and accept errors) are
	 * used only by P6 and Pentium APICs (SDM 11.5.3), so they stay 0.  AMD
	 * defines a Sent Accept Error bit (APM vol.2 16.4.6): not compared there. */
	wrmsr(X2APIC_MSR(APIC_ESR), 0);
	uint64_t esr = rdmsr(X2APIC_MSR(APIC_ESR));
	if (cpu.vendor == VENDOR_INTEL)
		check_eq("Intel: ESR bits 3:0 after an IPI nobody accepted (P6/Pentium only)", esr & 0xf, 0);
	else
		diag("ESR after an IPI nobody accepted: 0x%llx (not compared on this vendor)",
		     (unsigned long long)esr);
	wrmsr(X2APIC_MSR(APIC_ESR), 0);

	/* what must raise #GP (table 11-6; 11.12.1.2: RDMSR of a write-only register,
	 * WRMSR of a read-only one, any access to one that does not exist; 11.12.1.3
	 * via table 11-6: WRMSR of a non-zero value to EOI) */
	static const struct access gp[] = {
		{ APIC_ICR_HIGH, false, 0, "RDMSR 831H (no ICR high half in x2APIC mode)" },
		{ APIC_EOI, false, 0, "RDMSR EOI 80BH (write-only)" },
		{ APIC_EOI, true, 1, "WRMSR EOI 80BH with 1 (only 0 is allowed)" },
		{ APIC_SELF_IPI, false, 0, "RDMSR SELF IPI 83FH (write-only)" },
		{ APIC_ID, true, 0x55, "WRMSR ID 802H (read-only)" },
		{ APIC_VERSION, true, 0, "WRMSR version 803H (read-only)" },
		{ APIC_TIMER_CCR, true, 0, "WRMSR current count 839H (read-only)" },
	};
	for (unsigned i = 0; i < sizeof gp / sizeof gp[0]; i++) {
		uint64_t v = 0;
		uint32_t msr = X2APIC_MSR(gp[i].off);
		bool ok = gp[i].write ? wrmsr_safe(msr, gp[i].value) : rdmsr_safe(msr, &v);
		check(!ok, "%s: GP %s (expected yes)", gp[i].what, ok ? "no" : "yes");
	}
	check_eq("x2APIC ID unchanged after the WRMSR to 802H", rdmsr(X2APIC_MSR(APIC_ID)), id);
	wrmsr(X2APIC_MSR(APIC_ESR), 0);
	wrmsr(X2APIC_MSR(APIC_ESR), 0);
}
EXPERIMENT(504, "x2apic-access", "", "x2APIC",
	   "x2APIC register access rules: 64-bit ICR read-back, missing and write-only MSRs raise GP",
	   x2apic_access);
