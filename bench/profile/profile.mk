# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make profile-cpu      perf samples of the agent under steady traffic: flame graph and hot list
# make profile-heap     the agent under Valgrind's DHAT for a fixed workload
# make profile-kernel   the XDP program: run time per packet, instruction counts, code dumps
#
# Each profiles the build in $(OUTPUT) and writes to $(OUTPUT)/profile/, so
# `make profile-kernel CANARY=1` profiles the planted regression in
# build-canary/ beside the shipped build's results. FBF_PROFILE_SECONDS (10)
# sets how long profile-cpu and profile-kernel sample; FBF_PROFILE_REQUESTS
# (50 per source) sets profile-heap's workload. See docs/profiling.md.

PROFILE_DIR := $(abspath $(OUTPUT))/profile
PROFILE_INFO := $(OUTPUT)/bench/profile_prog_info

.PHONY: profile-cpu profile-heap profile-kernel

# The test suite runs the profile scripts too.
bench-build: $(PROFILE_INFO)

$(PROFILE_INFO): $(call obj,bench/profile/profile_prog_info.c) $(LIB_OBJS)
	$(call msg,BINARY,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LIBBPF_LIBS) -o $@

profile-cpu: check-deps all bench-build
	$(Q)bench/profile/profile_cpu.sh $(PROFILE_DIR)/cpu

profile-heap: check-deps all bench-build
	$(Q)bench/profile/profile_heap.sh $(PROFILE_DIR)/heap

profile-kernel: check-deps all bench-build
	$(Q)bench/profile/profile_kernel.sh $(PROFILE_DIR)/kernel

TEST_BATS += bench/profile/profile.bats
