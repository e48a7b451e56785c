# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Katran's XDP root and balancer (testing/third_party/katran), for the cost tool's tests on
# chains nobody here wrote (bench/cost/chain/cost_chain_third_party.bats), into
# $(OUTPUT)/testing/katran/:
#
#   xdp_root.bpf.o   xdp_root, which tail-calls root_array's slots 0, 1, 2 in turn
#   balancer.bpf.o   balancer_ingress, the load balancer, and its maps
#   pair.bpf.o       the two linked into one object (bpftool gen object), so that the
#                    balancer's maps are the entry object's, which MAPS= fills: CHAIN='s
#                    OBJECT:PROG loads another object with its maps as it declares them
#
# Built as Katran's own lib/Makefile-bpf builds them, its includes resolved from the
# vendored tree ("katran/lib/bpf/..." under testing/third_party).

KATRAN_DIR := $(OUTPUT)/testing/katran
KATRAN_SRC := testing/third_party/katran
KATRAN_OBJS := $(addprefix $(KATRAN_DIR)/,xdp_root.bpf.o balancer.bpf.o)

test-build: $(KATRAN_OBJS) $(KATRAN_DIR)/pair.bpf.o

# Katran's flags, less its -DDEBUG (bpf_printk on every miss) and its pipe through llc;
# -D__x86_64__ as for the selftests (tailcalls.mk): <linux/bpf.h> reaches glibc's
# <stdint.h>. No -Wall -Werror: this project's rule for its own code, not Katran's.
$(KATRAN_DIR)/xdp_root.bpf.o: $(KATRAN_SRC)/lib/bpf/xdp_root.c
$(KATRAN_DIR)/balancer.bpf.o: $(KATRAN_SRC)/lib/bpf/balancer.bpf.c
$(KATRAN_OBJS): $(wildcard $(KATRAN_SRC)/lib/bpf/*.h $(KATRAN_SRC)/lib/linux_includes/*.h)
	$(call msg,BPF,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) -O2 -g -target bpf -D__x86_64__ -D__KERNEL__ -Wno-unused-value \
		-Wno-pointer-sign -Wno-compare-distinct-pointer-types $(ARCH_INCLUDES) \
		-I testing/third_party -I $(KATRAN_SRC)/lib/linux_includes -c $(filter %.c,$^) -o $@

$(KATRAN_DIR)/pair.bpf.o: $(KATRAN_OBJS)
	$(call msg,GEN,$@)
	$(Q)$(BPFTOOL) gen object $@ $^
