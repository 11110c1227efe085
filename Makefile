# tracelab — bare-metal x86-64 test kernel for debug, branch-trace and PMU hardware.
#
#   make            build/tracelab.elf (multiboot v1 + v2; 32-bit ELF container)
#   make iso        build/tracelab.iso (hybrid BIOS + UEFI, GRUB menu from the registry)
#   make run        boot everything in QEMU (run-qemu.sh)
#   make tools      host tools into build/tools/
#   make check-host host unit tests of lib/
#   make test       host tests + fuzz (bounded) + emulator matrix; last line "N passed, N failed"
#   make bench      timings: suite under QEMU TCG, PT decoder throughput
#   make dbfuzz     differential debug-exception fuzzing, 10,000 scenarios per platform
#   make netdir     build/netboot/: a TFTP root for a lab (GRUB PXE/UEFI, iPXE script)
#   make netboot    boot over QEMU's TFTP with iPXE (RUN=debug: the command line)

CC        ?= gcc
HOSTCC    ?= gcc
CLANG     ?= clang
OBJCOPY   ?= objcopy
OBJDUMP   ?= objdump
NM        ?= nm
B         := build
# V=1 shows every command
Q         := $(if $(V),,@)
FUZZ_SECONDS ?= 20

# --- kernel ------------------------------------------------------------------
KCFLAGS := -std=c11 -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter \
	-ffreestanding -fno-pic -fno-pie -fno-stack-protector -fno-builtin \
	-mno-red-zone -mgeneral-regs-only -mcmodel=kernel -m64 \
	-fno-omit-frame-pointer -fno-asynchronous-unwind-tables \
	-Iinc -Ikernel -Ilib -D__TRACELAB_KERNEL__
KASFLAGS := -m64 -Iinc -Ikernel -D__ASSEMBLER__
KLDFLAGS := -nostdlib -static -no-pie -Wl,--no-dynamic-linker -Wl,-n -Wl,-T,linker.ld \
	-Wl,--build-id=none -Wl,-z,noexecstack -Wl,--no-warn-rwx-segments

BOOT_S   := $(wildcard boot/*.S)
KERN_S   := $(wildcard kernel/*.S)
KERN_C   := $(wildcard kernel/*.c)
LIB_C    := $(wildcard lib/*.c)
EXP_C    := $(wildcard experiments/*.c)
EXP_S    := $(wildcard experiments/*.S)
KOBJS    := $(BOOT_S:%.S=$(B)/k/%.o) $(KERN_S:%.S=$(B)/k/%.o) $(KERN_C:%.c=$(B)/k/%.o) \
	    $(LIB_C:%.c=$(B)/k/%.o) $(EXP_C:%.c=$(B)/k/%.o) $(EXP_S:%.S=$(B)/k/%.o) \
	    $(B)/k/gen/font.o
KDEPS    := $(KOBJS:.o=.d)

all: $(B)/tracelab.elf

$(B)/k/%.o: %.c Makefile
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(KCFLAGS) -MMD -MP -c $< -o $@

$(B)/k/%.o: %.S Makefile
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  AS      $<")
	$(Q)$(CC) $(KASFLAGS) -MMD -MP -c $< -o $@

# The screen font: GRUB's 8x16 ASCII bitmaps (grub-common), turned into a C array.
GRUB_ASCII_H ?= /usr/share/grub/ascii.h
$(B)/gen/font.c: $(GRUB_ASCII_H) Makefile
	@mkdir -p $(dir $@)
	@test -f $< || { echo "missing $<: apt-get install grub-common"; exit 1; }
	( echo '#include <stdint.h>'; echo '/* generated from $< */'; \
	  sed -e 's/^unsigned char ascii_bitmaps\[\]/const uint8_t font8x16[128 * 16]/' $< ) > $@

$(B)/k/gen/font.o: $(B)/gen/font.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(KCFLAGS) -c $< -o $@

# The list of objects, rewritten only when it changes: a source file added or
# removed relinks the ELF (a removed experiment leaves the registry).
$(B)/k/objects.list: FORCE
	@mkdir -p $(dir $@)
	@echo '$(KOBJS)' | cmp -s - $@ || echo '$(KOBJS)' > $@

# 64-bit ELF (for gdb, listings); tracelab.elf is the same image in an ELF32
# container, which both GRUB (multiboot2) and QEMU's -kernel loader (multiboot v1,
# 32-bit ELF only) accept.  The registry's rules (kernel/experiment.h) are checked
# by the compiler (number in a family's range, name, summary) and by this link
# (a number registered twice is a multiple definition of experiment_number_N).
$(B)/tracelab64.elf: $(KOBJS) linker.ld $(B)/k/objects.list
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(KCFLAGS) $(KLDFLAGS) -o $@ $(KOBJS)
	$(OBJDUMP) -d -M suffix $@ > $(B)/tracelab.lst
	$(NM) -n $@ > $(B)/tracelab.sym

$(B)/tracelab.elf: $(B)/tracelab64.elf
	$(OBJCOPY) -O elf32-i386 $< $@

-include $(KDEPS)

# --- host side ---------------------------------------------------------------
HCFLAGS := -std=c11 -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter -Iinc -Ilib \
	-D_DEFAULT_SOURCE -fsanitize=address,undefined -fno-sanitize-recover=all
HOST_LIB_OBJS := $(LIB_C:%.c=$(B)/host/%.o)
HOST_TEST_C   := $(wildcard tests/host/*.c)
HOST_TEST_OBJS := $(HOST_TEST_C:%.c=$(B)/host/%.o)

$(B)/host/%.o: %.c Makefile
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  HOSTCC  $<")
	$(Q)$(HOSTCC) $(HCFLAGS) -MMD -MP -c $< -o $@

-include $(HOST_LIB_OBJS:.o=.d) $(HOST_TEST_OBJS:.o=.d)

$(B)/host/tests.bin: $(HOST_LIB_OBJS) $(HOST_TEST_OBJS)
	$(HOSTCC) $(HCFLAGS) -o $@ $^ -lipt

check-host: $(B)/host/tests.bin
	$(B)/host/tests.bin

# Host tools: each tools/NAME.c becomes build/tools/NAME (lib/ linked in, libipt too).
TOOLS_C := $(wildcard tools/*.c)
TOOLS   := $(TOOLS_C:tools/%.c=$(B)/tools/%)
TCFLAGS := -std=c11 -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter -Iinc -Ilib -Ikernel -D_DEFAULT_SOURCE
TOOL_LIB_OBJS := $(LIB_C:%.c=$(B)/tool/%.o)

$(B)/tool/%.o: %.c Makefile
	@mkdir -p $(dir $@)
	$(Q)$(HOSTCC) $(TCFLAGS) -MMD -MP -c $< -o $@

$(B)/tools/%: tools/%.c $(TOOL_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(TCFLAGS) -o $@ $< $(TOOL_LIB_OBJS) -lipt

tools: $(TOOLS)

# Fuzzers: each tests/fuzz/fuzz_NAME.c is a libFuzzer target over lib/.
FUZZ_C   := $(wildcard tests/fuzz/fuzz_*.c)
FUZZERS  := $(FUZZ_C:tests/fuzz/%.c=$(B)/fuzz/%)
$(B)/fuzz/%: tests/fuzz/%.c $(LIB_C)
	@mkdir -p $(dir $@)
	$(CLANG) -std=c11 -O1 -g -Iinc -Ilib -D_DEFAULT_SOURCE -fsanitize=fuzzer,address,undefined \
		-o $@ $< $(LIB_C) -lipt

fuzz: $(FUZZERS)
	@set -e; for f in $(FUZZERS); do \
		n=$$(basename $$f); mkdir -p $(B)/fuzz/corpus-$$n; \
		echo "fuzz: $$n for $(FUZZ_SECONDS) s"; \
		seeds=tests/fuzz/seeds/$$n; [ -d $$seeds ] || seeds=; \
		$$f -max_total_time=$(FUZZ_SECONDS) -print_final_stats=0 $(B)/fuzz/corpus-$$n \
			$$seeds 2>$(B)/fuzz/$$n.log >/dev/null || { tail -40 $(B)/fuzz/$$n.log; exit 1; }; \
		grep -E '^#[0-9]+.*(DONE|pulse)' $(B)/fuzz/$$n.log | tail -1; \
	done

# --- images, runs, tests -----------------------------------------------------
iso: $(B)/tracelab.iso

$(B)/tools/mkmenu: tools/mkmenu.c kernel/experiment.h lib/cmdline.h
$(B)/iso/boot/grub/grub.cfg: $(B)/tracelab64.elf $(B)/tools/mkmenu
	@mkdir -p $(dir $@)
	$(B)/tools/mkmenu $(B)/tracelab64.elf > $@

$(B)/tracelab.iso: $(B)/tracelab.elf $(B)/iso/boot/grub/grub.cfg
	cp $(B)/tracelab.elf $(B)/iso/boot/tracelab.elf
	grub-mkrescue -o $@ $(B)/iso 2>$(B)/grub-mkrescue.log || { cat $(B)/grub-mkrescue.log; exit 1; }

# The same ISO with no menu timeout, for the emulator matrix.
$(B)/isoci/boot/grub/grub.cfg: $(B)/tracelab64.elf $(B)/tools/mkmenu
	@mkdir -p $(dir $@)
	$(B)/tools/mkmenu $(B)/tracelab64.elf 0 > $@

$(B)/tracelab-ci.iso: $(B)/tracelab.elf $(B)/isoci/boot/grub/grub.cfg
	cp $(B)/tracelab.elf $(B)/isoci/boot/tracelab.elf
	grub-mkrescue -o $@ $(B)/isoci 2>$(B)/grub-mkrescue.log || { cat $(B)/grub-mkrescue.log; exit 1; }

# A TFTP root for a lab's network boot (docs/real-hardware.md): GRUB's network
# images for PXE under BIOS (core.0) and UEFI (core.efi) with the ISO's menu, the
# kernel, and an iPXE script for iPXE (which loads the ELF as multiboot v1).
NETDIR := $(B)/netboot
netdir: $(NETDIR)/boot/tracelab.elf

$(NETDIR)/boot/tracelab.elf: $(B)/tracelab.elf $(B)/iso/boot/grub/grub.cfg
	rm -rf $(NETDIR) && mkdir -p $(NETDIR)/boot
	grub-mknetdir --net-directory=$(NETDIR) --subdir=boot/grub >$(B)/grub-mknetdir.log 2>&1 || \
		{ cat $(B)/grub-mknetdir.log; exit 1; }
	cp $(B)/iso/boot/grub/grub.cfg $(NETDIR)/boot/grub/grub.cfg
	printf '#!ipxe\nkernel boot/tracelab.elf run=all\nboot\n' > $(NETDIR)/tracelab.ipxe
	cp $(B)/tracelab.elf $@

# Boot over QEMU's TFTP as a lab does (iPXE from the NIC ROM): make netboot RUN=debug
RUN ?= all
netboot: all netdir
	./run-qemu.sh -N -r $(RUN)

deps:
	@tools/deps.sh build

deps-test:
	@tools/deps.sh test

# The main job: boot the ISO in QEMU (GRUB menu on the terminal too; the
# default entry runs every experiment after 10 s, or press Enter).
run: deps
	$(MAKE) iso
	@./run-qemu.sh -i; rc=$$?; \
	 [ $$rc = 0 ] && echo "make run: every experiment passed or skipped"; \
	 [ $$rc = 1 ] && echo "make run: some experiments failed (see the KTAP above; emulators deviate: tests/expect/)"; \
	 [ $$rc -le 1 ]

test: deps-test
	$(MAKE) all iso $(B)/tracelab-ci.iso tools $(B)/host/tests.bin $(FUZZERS)
	tests/run-all.sh

bench: all $(B)/tracelab-ci.iso tools
	tests/bench.sh

# The full differential fuzz run (issue 21): every fuzzed platform that is here,
# DBFUZZ_COUNT scenarios each, the DBFUZZ_SHRINK largest groups shrunk (each shrink
# step boots QEMU 7.2, 10.0 and Bochs once); the report in build/dbfuzz-report.txt.
DBFUZZ_SEED  ?= 1
DBFUZZ_COUNT ?= 10000
DBFUZZ_SHRINK ?= 3
dbfuzz: all tools
	tools/dbfuzz.py --seed $(DBFUZZ_SEED) --count $(DBFUZZ_COUNT) --shrink $(DBFUZZ_SHRINK) --check \
		--report $(B)/dbfuzz-report.txt

# The registry's build-time checks, each shown to fail on a tiny bad registry.
check-registry:
	@CC="$(CC)" KCFLAGS="$(KCFLAGS)" tests/registry-check.sh

clean:
	rm -rf $(B)

.PHONY: all iso run test bench clean tools check-host check-registry fuzz deps deps-test FORCE
.SUFFIXES:
.SECONDARY:
.DELETE_ON_ERROR:
