"""Reasons for the known emulator deviations, applied by `tests/matrix.py --update`.
Each reason names the emulator source that explains it (docs/emulator-deviations.md)."""
QEMU = {
    102: "QEMU TCG: 0xF1 (ICEBP) raises #UD: target/i386/tcg/translate.c disas_insn() compiles case 0xf1 only under WANT_ICEBP",
    118: "QEMU TCG: 0xF1 (ICEBP) raises #UD at CPL3: translate.c disas_insn(), case 0xf1 only under WANT_ICEBP",
    107: "QEMU TCG: one instruction hitting two data breakpoints reports one Bn: softmmu/physmem.c cpu_check_watchpoint() exits on the first hit",
    109: "QEMU TCG: DR7.GD not emulated: tcg/bpt_helper.c helper_get_dr()/helper_set_dr() never test GD",
    110: "QEMU TCG: MOV SS shadow defers only interrupts and TF: data #DB raised at once by bpt_helper.c breakpoint_handler(), instruction breakpoint not suppressed",
    112: "QEMU TCG: IA32_DEBUGCTL not implemented: tcg/sysemu/misc_helper.c helper_wrmsr() default case ignores MSR 1D9H, so no BTF",
}
BOCHS = {
    112: "Bochs 2.7: IA32_DEBUGCTL not implemented: cpu/msr.cc has no case for MSR 1D9H (ignore_bad_msrs), and BTF is emulated nowhere",
}
SELFTEST = {
    901: "deliberate: self-test of a failing check",
    902: "deliberate: self-test of an unexpected #GP inside an experiment",
    903: "deliberate: self-test of the watchdog cutting off a hang",
    904: "deliberate: self-test of a leaked DR0/DR7",
}


def reason(platform, num):
    if platform.startswith("qemu-tcg-selftest"):
        return SELFTEST.get(num)
    if platform.startswith("qemu"):
        return QEMU.get(num)
    if platform.startswith("bochs"):
        return BOCHS.get(num)
    return None
