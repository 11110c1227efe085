/* 311 amd-ibs: AMD Instruction-Based Sampling, fetch and op (APM vol.2 13.3).
 *
 * IBS fetch sampling (IBS_FETCH_CTL C001_1030h): with IbsFetchEn[48] and a
 * maximum count (bits 15:0, in units of 16 fetches) the processor tags a fetch
 * when the count expires, stops counting and sets IbsFetchVal[49]; the fetch's
 * linear address is in IBS_FETCH_LINADDR.  Op sampling (IBS_OP_CTL C001_1033h):
 * IbsOpEn[17], IbsOpMaxCnt (bits 15:0, units of 16), and when a tagged op retires
 * IbsOpVal[18] with its RIP in IBS_OP_RIP.  A sample stays until software clears
 * the Val bit (and the counter stops while Val is set), so this experiment
 * polls instead of taking the IBS interrupt: the samples must point into the
 * workload, which is all that ran while sampling was on.
 *
 * The IBS interrupt goes through the local APIC's extended LVT entry that
 * IBS_CTL.LvtOffset[3:0] names when IBS_CTL.LvtOffsetVal[8] is set (APM vol.2
 * 13.3.1 "IBS Control", 16.4.5 "Extended Interrupts"; firmware programs
 * IBS_CTL).  An unmasked entry would deliver a sample as an interrupt on a
 * vector nobody handles: the entry is masked for the experiment and restored. */
#include "apic.h"
#include "cpu.h"
#include "cpuid.h"
#include "experiment.h"
#include "msr.h"
#include "pmi.h"
#include "pmu_state.h"
#include "x86.h"

#define IBS_FETCH_EN    (1ull << 48)
#define IBS_FETCH_VAL   (1ull << 49)
#define IBS_OP_EN       (1ull << 17)
#define IBS_OP_VAL      (1ull << 18)

/* ibs_work(msr, enable, iters): WRMSR msr = enable; a loop of iters; return
 * with sampling still enabled: a sample taken during the loop stays latched
 * (Val set, counting stopped) until the caller reads and clears it. */
__asm__(
	".pushsection .text\n"
	".global ibs_work, ibs_work_end\n"
	"ibs_work:\n"
	"	mov %rdx, %r8\n"
	"	mov %edi, %ecx\n"
	"	mov %rsi, %rax\n"
	"	mov %rsi, %rdx\n"
	"	shr $32, %rdx\n"
	"	wrmsr\n"
	"1:	add $1, %r9\n"
	"	xor %r9, %r10\n"
	"	dec %r8\n"
	"	jnz 1b\n"
	"	ret\n"
	"ibs_work_end:\n"
	".popsection\n");
void ibs_work(uint32_t msr, uint64_t enable, uint64_t iters);
extern char ibs_work_end[];

static void exp_amd_ibs(void)
{
	struct pmu_msrs saved;
	pmu_msrs_save(&saved);
	if (cpu.vendor != VENDOR_AMD) {
		exp_skip("CPUID.0H vendor \"%s\" is not AuthenticAMD", cpu.vendor_str);
		goto out;
	}
	if (!(cpu.ext1_ecx & CPUID_80000001_ECX_IBS)) {
		exp_skip("CPUID.80000001H:ECX.IBS[10]=0");
		goto out;
	}
	uint32_t feat = 0;
	if (cpu.max_ext_leaf >= 0x8000001b)
		feat = cpuid(0x8000001b, 0).eax;
	diag("CPUID 8000_001BH:EAX=0x%x (IbsFFV %u, FetchSam %u, OpSam %u)", feat, feat & 1, (feat >> 1) & 1,
	     (feat >> 2) & 1);
	if (!(feat & 1)) {
		exp_skip("CPUID.8000001BH:EAX.IBSFFV[0]=0");
		goto out;
	}
	uint64_t v;
	if (!rdmsr_safe(MSR_AMD_IBS_FETCH_CTL, &v) || !rdmsr_safe(MSR_AMD_IBS_OP_CTL, &v)) {
		exp_skip("RDMSR IBS_FETCH_CTL/IBS_OP_CTL (0xc0011030/0xc0011033) GP");
		goto out;
	}
	/* the IBS interrupt's routing: mask its extended LVT entry for the run */
	uint64_t ibs_ctl = 0;
	uint32_t lvt_reg = 0, lvt = 0;
	bool lvt_masked_here = false;
	if (!rdmsr_safe(MSR_AMD_IBS_CTL, &ibs_ctl)) {
		diag("IBS_CTL (0xc001103a) unreadable: IBS interrupt routing unknown");
	} else if (!apic_present()) {
		/* the samples are polled here; without a local APIC no IBS interrupt
		 * can be delivered, so there is no LVT entry to mask (nor to touch) */
		diag("IBS_CTL=0x%llx: no IBS interrupt is delivered: %s", (unsigned long long)ibs_ctl,
		     apic_absent_reason());
	} else if (!(ibs_ctl & IBS_CTL_LVT_OFFSET_VALID)) {
		diag("IBS_CTL=0x%llx: LvtOffsetVal[8]=0, no IBS interrupt is delivered", (unsigned long long)ibs_ctl);
	} else {
		lvt_reg = APIC_AMD_EXT_LVT0 + 0x10 * (uint32_t)(ibs_ctl & IBS_CTL_LVT_OFFSET_MASK);
		if (!apic_read_safe(lvt_reg, &lvt)) {
			exp_skip("IBS_CTL.LvtOffset=%llu: APIC extended LVT 0x%x unreadable",
				 (unsigned long long)(ibs_ctl & IBS_CTL_LVT_OFFSET_MASK), lvt_reg);
			goto out;
		}
		diag("IBS_CTL=0x%llx: IBS interrupt through APIC extended LVT 0x%x = 0x%x%s",
		     (unsigned long long)ibs_ctl, lvt_reg, lvt, (lvt & LVT_MASKED) ? " (masked)" : ", masked for the run");
		if (!(lvt & LVT_MASKED)) {
			apic_write(lvt_reg, lvt | LVT_MASKED);
			lvt_masked_here = true;
		}
	}
	uint64_t lo = (uint64_t)(uintptr_t)ibs_work, hi = (uint64_t)(uintptr_t)ibs_work_end;
	if (feat & 2) {
		wrmsr_safe(MSR_AMD_IBS_FETCH_CTL, 0);
		ibs_work(MSR_AMD_IBS_FETCH_CTL, IBS_FETCH_EN | 0x100, 200000);
		uint64_t ctl = 0, la = 0;
		rdmsr_safe(MSR_AMD_IBS_FETCH_CTL, &ctl);
		rdmsr_safe(MSR_AMD_IBS_FETCH_LINADDR, &la);
		wrmsr_safe(MSR_AMD_IBS_FETCH_CTL, 0);
		check_eq("IBS fetch sample taken: IbsFetchVal[49]", !!(ctl & IBS_FETCH_VAL), 1);
		if (ctl & IBS_FETCH_VAL)
			check(la >= lo && la < hi, "fetch linear address 0x%llx inside the workload [0x%llx, 0x%llx)",
			      (unsigned long long)la, (unsigned long long)lo, (unsigned long long)hi);
	} else {
		diag("fetch sampling not enumerated (CPUID 8000_001BH:EAX.FetchSam[1]=0)");
	}
	if (feat & 4) {
		wrmsr_safe(MSR_AMD_IBS_OP_CTL, 0);
		ibs_work(MSR_AMD_IBS_OP_CTL, IBS_OP_EN | 0x100, 200000);
		uint64_t ctl = 0, rip = 0;
		rdmsr_safe(MSR_AMD_IBS_OP_CTL, &ctl);
		rdmsr_safe(MSR_AMD_IBS_OP_RIP, &rip);
		wrmsr_safe(MSR_AMD_IBS_OP_CTL, 0);
		check_eq("IBS op sample taken: IbsOpVal[18]", !!(ctl & IBS_OP_VAL), 1);
		if (ctl & IBS_OP_VAL)
			check(rip >= lo && rip < hi, "op RIP 0x%llx inside the workload [0x%llx, 0x%llx)",
			      (unsigned long long)rip, (unsigned long long)lo, (unsigned long long)hi);
	} else {
		diag("op sampling not enumerated (CPUID 8000_001BH:EAX.OpSam[2]=0)");
	}
	if (!(feat & 6))
		exp_skip("CPUID.8000001BH:EAX.FetchSam[1]=0 and OpSam[2]=0");
	if (lvt_masked_here)
		apic_write(lvt_reg, lvt);
out:
	pmu_msrs_restore(&saved);
}
EXPERIMENT(311, "amd-ibs", "", "AMD IBS (CPUID 8000_0001H:ECX.IBS[10])",
	   "IBS fetch and op sampling: a sample is latched and its address lies in the sampled workload",
	   exp_amd_ibs);
