# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make bench-micro: the classifier in userspace, shipped (v4) against the
# original's loop (v3): Google Benchmark timing and callgrind counts.

MICRO_PROGS := $(OUTPUT)/bench/micro_timing $(OUTPUT)/bench/micro_count

.PHONY: bench-micro

bench-build: $(MICRO_PROGS)

$(OUTPUT)/bench/micro_timing: $(OUTPUT)/obj/bench/micro/micro_timing.o
	$(call msg,BINARY,$@)
	@mkdir -p $(@D)
	$(Q)$(CXX) $(CXXFLAGS) $(LDFLAGS) $^ -lbenchmark -lpthread -o $@

$(OUTPUT)/bench/micro_count: $(call obj,bench/micro/micro_count.c)
	$(call msg,BINARY,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@

bench-micro: check-deps $(MICRO_PROGS)
	$(Q)bench/micro/micro.sh

TEST_BATS += bench/micro/micro.bats
