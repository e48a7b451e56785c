# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Hardening: fuzzing, faults, floods and sanitizers (docs/hardening.md).
#
# make fuzz       the differential pass of the XDP program against its reference
#                 model over FUZZ_FRAMES frames (FBF_FUZZ_SEED=S replays a run),
#                 then each libFuzzer harness for FUZZ_TIME seconds (as root)
# make stress     SIGKILLs at random moments and a FLOOD_SECONDS flood (as root)
# make fuzzers    build the libFuzzer harnesses only
#
# `make test` also builds the harnesses, the raw frame flooder and the agent
# with ASan and UBSan in build-sanitize/, which tests/hardening.bats runs.

FUZZ_FRAMES ?= 10000000
FUZZ_TIME ?= 60
FLOOD_SECONDS ?= 30
KILLS ?= 60

# Sanitizer runs fail on the first report, and say where it came from.
SANITIZER_ENV := ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:halt_on_error=1 \
		 UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1

FUZZERS := $(OUTPUT)/fuzz/fuzz_options $(OUTPUT)/fuzz/fuzz_addrlist
RAWFLOOD := $(OUTPUT)/stress/rawflood
SANITIZE_DIR := build-sanitize

# libFuzzer needs clang; the harnesses compile the parsers they test from source.
FUZZ_CFLAGS := -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	       -Wall -Wextra -Werror -std=gnu11 -Icommon -DFBF_VERSION='"$(VERSION)"'

.PHONY: fuzz fuzzers stress hardening-sanitize-build

$(OUTPUT)/fuzz $(OUTPUT)/stress:
	$(Q)mkdir -p $@

$(OUTPUT)/fuzz/fuzz_options: tests/fuzz/fuzz_options.c agent/options.c agent/options.h \
		agent/metrics_format.c
$(OUTPUT)/fuzz/fuzz_addrlist: tests/fuzz/fuzz_addrlist.c bench/addrlist.c bench/addrlist.h

$(FUZZERS): | $(OUTPUT)/fuzz
	$(call msg,FUZZER,$@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -Iagent -Ibench $(filter %.c,$^) -o $@

$(RAWFLOOD): tests/stress/rawflood.c | $(OUTPUT)/stress
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< -o $@

fuzzers: $(FUZZERS)

# The agent with ASan and UBSan, for the sanitizer test in tests/hardening.bats.
# A build of its own, in the directory `make SANITIZE=1` uses.
hardening-sanitize-build:
ifneq ($(SANITIZE),1)
	$(Q)$(MAKE) --no-print-directory $(if $(Q),-s) SANITIZE=1 OUTPUT=$(SANITIZE_DIR) \
		$(SANITIZE_DIR)/agent $(SANITIZE_DIR)/trafficgen
endif

test: $(FUZZERS) $(RAWFLOOD) hardening-sanitize-build

# libFuzzer writes new inputs into its first corpus directory: a copy in
# $(OUTPUT), so the seeds in tests/fuzz/corpus stay as committed.
fuzz: deps $(OUTPUT)/tests/test_xdp_fuzz $(FUZZERS)
	$(Q)FBF_FUZZ_FRAMES=$(FUZZ_FRAMES) $(OUTPUT)/tests/test_xdp_fuzz
	$(Q)set -e; for f in $(FUZZERS); do \
		name=$${f##*/fuzz_}; corpus=$(OUTPUT)/fuzz/corpus-$$name; \
		log=$(OUTPUT)/fuzz/$$name.log; \
		mkdir -p $$corpus; cp -n tests/fuzz/corpus/$$name/* $$corpus/; \
		echo "fuzz: $$f for $(FUZZ_TIME) s, log in $$log"; \
		if ! $(SANITIZER_ENV) $$f -max_total_time=$(FUZZ_TIME) -print_final_stats=1 \
			-artifact_prefix=$(OUTPUT)/fuzz/$$name- $$corpus >$$log 2>&1; then \
			tail -n 40 $$log; \
			echo "fuzz: $$f failed; the input is in $(OUTPUT)/fuzz/$$name-*" >&2; \
			exit 1; \
		fi; \
		grep -E '^stat::number_of_executed_units|^Done' $$log; \
	done

stress: deps all $(RAWFLOOD)
	$(Q)FBF_BUILD=$(abspath $(OUTPUT)) FLOOD_SECONDS=$(FLOOD_SECONDS) KILLS=$(KILLS) \
		tests/stress.sh
