# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make bench-macro: the XDP program in the kernel on both transports, per
# frame shape (BPF_PROG_TEST_RUN), one event's cost part by part (likewise),
# under live traffic and raw floods, and the agent's drain rate and idle cost
# (as root).

KERNEL_CASES_OBJS := $(call obj,bench/kernel/kernel_cases.c) $(TESTING_OBJS) $(LIB_OBJS)
KERNEL_PROGS := $(OUTPUT)/bench/kernel_test_run $(OUTPUT)/bench/bpf_run_stats \
		$(OUTPUT)/bench/event_parts
# Beside xdp_pass.bpf.o, where the Makefile includes its .d file.
EVENT_PARTS_OBJ := $(OUTPUT)/event_parts.bpf.o

.PHONY: bench-macro bench-bundle

bench-build: $(KERNEL_PROGS) $(EVENT_PARTS_OBJ)

$(EVENT_PARTS_OBJ): bench/kernel/event_parts.bpf.c
	$(call msg,BPF,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUTPUT)/bench/kernel_test_run: $(call obj,bench/kernel/kernel_test_run.c) $(KERNEL_CASES_OBJS)
$(OUTPUT)/bench/bpf_run_stats: $(call obj,bench/kernel/bpf_run_stats.c) $(LIB_OBJS)
# Only the frames and the per-CPU maps' maker: no fixture, the programs are its own.
$(OUTPUT)/bench/event_parts: $(call obj,bench/kernel/event_parts.c bench/kernel/kernel_cases.c \
					testing/frames.c lib/event_maps.c)
$(KERNEL_PROGS):
	$(call msg,BINARY,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LIBBPF_LIBS) -o $@

bench-macro: check-deps all bench-build
	$(Q)bench/kernel/macro.sh

# The CPU curve's programs for a host with no compiler (bench/kernel/bundle.sh);
# BUNDLE_AGENTS="base/agent=OLD/build/agent" carries more agents beside the build's.
bench-bundle: all bench-build
	$(Q)bench/kernel/bundle.sh $(OUTPUT)/bundle $(BUNDLE_AGENTS)

TEST_BATS += bench/kernel/kernel.bats
