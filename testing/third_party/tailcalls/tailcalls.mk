# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The Linux kernel's BPF selftests' tail-call programs (testing/third_party/tailcalls), for
# the cost tool's tests on chains nobody here wrote (bench/cost/chain/cost_chain_third_party.bats):
# each built from its vendored source as the kernel's selftests build it, into
# $(OUTPUT)/testing/tailcalls/NAME.bpf.o, all named by TAILCALL_OBJS. They include
# <linux/bpf.h> and libbpf's <bpf/bpf_helpers.h> alone; no vmlinux.h.

TAILCALL_DIR := $(OUTPUT)/testing/tailcalls
TAILCALL_SRC := testing/third_party/tailcalls
TAILCALL_OBJS := $(addprefix $(TAILCALL_DIR)/,tailcall1.bpf.o tailcall2.bpf.o tailcall3.bpf.o \
		 tailcall_bpf2bpf1.bpf.o)

test-build: $(TAILCALL_OBJS)

# -D__x86_64__: <linux/bpf.h> reaches glibc's <stdint.h>, which takes -target bpf for a
# 32-bit target, as for cls_redirect (bench/cost/cost.mk). No -Wall -Werror: this
# project's rule for its own code, not the kernel's.
$(TAILCALL_OBJS): $(TAILCALL_DIR)/%.bpf.o: $(TAILCALL_SRC)/%.c
	$(call msg,BPF,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) -O2 -g -target bpf -D__x86_64__ $(ARCH_INCLUDES) -c $< -o $@
