# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Others' tracing programs, for the cost tool's tracing tests (testing/third_party/TRACING.md):
# bcc's libbpf-tools (testing/third_party/bcc-libbpf-tools) and libbpf-bootstrap's examples
# (testing/third_party/libbpf-bootstrap), each built from its source as upstream builds it,
# into $(OUTPUT)/testing/trace/NAME.bpf.o, and opensnoop once more with a loop planted in
# its sys_enter_openat program (planted.patch beside it), which the gate must catch.
#
# They are CO-RE: they include a vmlinux.h that bpftool dumps from this host's kernel BTF,
# and libbpf relocates them to the kernel that loads them, which need not be this one.

TRACE_DIR := $(OUTPUT)/testing/trace
TRACE_BCC := testing/third_party/bcc-libbpf-tools
TRACE_BOOTSTRAP := testing/third_party/libbpf-bootstrap
TRACE_VMLINUX_H := $(TRACE_DIR)/vmlinux.h

# bpf_tracing.h reads the registers of a kprobe's context (PT_REGS_*, BPF_KPROBE) by the
# target architecture, named as the kernel's arch/ names it, not as the compiler does.
TRACE_ARCH = $(strip $(patsubst x86_64,x86,$(patsubst aarch64,arm64,$(patsubst riscv64,riscv,\
	     $(patsubst powerpc64%,powerpc,$(patsubst s390x,s390,$(patsubst mips%,mips,\
	     $(firstword $(subst -, ,$(ARCH_TRIPLET))))))))))
# As upstream's makefiles build them: no -Wall -Werror, which is this project's rule for
# its own code, not theirs.
TRACE_CFLAGS = -O2 -g -target bpf -D__TARGET_ARCH_$(TRACE_ARCH) -I$(TRACE_DIR) $(ARCH_INCLUDES)

TRACE_BCC_OBJS := $(addprefix $(TRACE_DIR)/,opensnoop.bpf.o runqlat.bpf.o)
TRACE_BOOTSTRAP_OBJS := $(addprefix $(TRACE_DIR)/,kprobe.bpf.o fentry.bpf.o profile.bpf.o \
			lsm.bpf.o minimal.bpf.o bootstrap.bpf.o)
TRACE_PLANTED_OBJ := $(TRACE_DIR)/opensnoop_planted.bpf.o
TRACE_THIRD_PARTY_OBJS := $(TRACE_BCC_OBJS) $(TRACE_BOOTSTRAP_OBJS) $(TRACE_PLANTED_OBJ)

test-build: $(TRACE_THIRD_PARTY_OBJS)

# Dumped again when the host boots another kernel: the BTF file is as new as the boot.
$(TRACE_VMLINUX_H): $(wildcard /sys/kernel/btf/vmlinux)
	$(call msg,GEN,$@)
	@mkdir -p $(@D)
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c >$@.tmp
	$(Q)mv $@.tmp $@

# The headers each includes, beside vmlinux.h.
$(TRACE_DIR)/opensnoop.bpf.o: $(TRACE_BCC)/opensnoop.h
$(TRACE_DIR)/runqlat.bpf.o: $(addprefix $(TRACE_BCC)/,runqlat.h bits.bpf.h maps.bpf.h \
			    core_fixes.bpf.h)
$(TRACE_DIR)/profile.bpf.o: $(TRACE_BOOTSTRAP)/profile.h
$(TRACE_DIR)/bootstrap.bpf.o: $(TRACE_BOOTSTRAP)/bootstrap.h

$(TRACE_BCC_OBJS): $(TRACE_DIR)/%.bpf.o: $(TRACE_BCC)/%.bpf.c $(TRACE_VMLINUX_H)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(TRACE_CFLAGS) -c $< -o $@

$(TRACE_BOOTSTRAP_OBJS): $(TRACE_DIR)/%.bpf.o: $(TRACE_BOOTSTRAP)/%.bpf.c $(TRACE_VMLINUX_H)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(TRACE_CFLAGS) -c $< -o $@

# The planted regression: the vendored source stays as upstream wrote it; its copy under
# $(OUTPUT) takes the patch, and finds opensnoop.h in the vendored folder.
$(TRACE_DIR)/planted/opensnoop.bpf.c: $(TRACE_BCC)/opensnoop.bpf.c $(TRACE_BCC)/planted.patch
	$(call msg,PATCH,$@)
	@mkdir -p $(@D)
	$(Q)patch -s -o $@ $< $(TRACE_BCC)/planted.patch || { rm -f $@; exit 1; }

$(TRACE_PLANTED_OBJ): $(TRACE_DIR)/planted/opensnoop.bpf.c $(TRACE_BCC)/opensnoop.h \
		      $(TRACE_VMLINUX_H)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(TRACE_CFLAGS) -I$(TRACE_BCC) -c $< -o $@
