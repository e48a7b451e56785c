# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The test programs and suites of `make test`, and the long runs beside
# them: fuzzing, faults, floods and sanitizers (docs/hardening.md).
#
# make fuzz       the differential pass of the XDP program against its reference
#                 model over FUZZ_FRAMES frames (FBF_FUZZ_SEED=S replays a run),
#                 then each libFuzzer harness for FUZZ_TIME seconds (as root)
# make stress     SIGKILLs at random moments and a FLOOD_SECONDS flood (as root)
# make fuzzers    build the libFuzzer harnesses only
# make test-kernels   the kernel matrix: the suites KERNEL_SUITES names on each
#                 kernel of KERNELS and boot of KERNEL_BOOTS, booted under QEMU,
#                 and on the host's (tests/run-kernels; make kernels fetches KERNELS)
# make test-fresh make demo and make test, each once, in a fresh
#                 minimal Debian 12 root of its own (as root; testing/fresh/)
#
# `make test` also builds the harnesses and the agent with ASan and UBSan in
# build-sanitize/, which tests/e2e/hardening.bats runs.

FUZZ_FRAMES ?= 10000000
FUZZ_TIME ?= 60
FLOOD_SECONDS ?= 30
KILLS ?= 60

# The test programs: unit tests of userspace code, and the XDP program through
# BPF_PROG_TEST_RUN. Each links the lab, the agent's objects but main.o (one
# library: each test takes what it uses), lib/ and common/.
UNIT_TESTS := $(patsubst tests/unit/%.c,$(OUTPUT)/tests/%,$(wildcard tests/unit/test_*.c))
BPF_TESTS := $(patsubst tests/bpf/%.c,$(OUTPUT)/tests/%,$(wildcard tests/bpf/test_*.c))
AGENT_LIB := $(OUTPUT)/tests/libagent.a
TEST_LINK_OBJS := $(TESTING_OBJS) $(AGENT_LIB) $(LIB_OBJS)
# What the agent's objects take from outside: a test that reaches the outputs' kinds needs all.
AGENT_LINK_LIBS = $(LIBBPF_LIBS) $(NATS_LIBS) $(FIXBUF_LIBS) $(MHD_LIBS) $(SYSTEMD_LIBS) -lpthread
TEST_PROGS += $(UNIT_TESTS) $(BPF_TESTS)

test-build: $(UNIT_TESTS) $(BPF_TESTS)

$(AGENT_LIB): $(filter-out $(call obj,agent/main.c),$(AGENT_OBJS))
	$(call msg,AR,$@)
	@mkdir -p $(@D)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(UNIT_TESTS): $(OUTPUT)/tests/%: $(OUTPUT)/obj/tests/unit/%.o $(TEST_LINK_OBJS)
$(BPF_TESTS): $(OUTPUT)/tests/%: $(OUTPUT)/obj/tests/bpf/%.o $(TEST_LINK_OBJS)
$(UNIT_TESTS) $(BPF_TESTS):
	$(call msg,BINARY,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(CMOCKA_LIBS) $(AGENT_LINK_LIBS) -o $@

# The suites of make test, in this order; the agent's suites run again on the
# ring buffer (SUITE.bats+ringbuf, see tests/run-suite). nic.bats needs the
# network cards of a guest of make test-kernels, and runs there.
TEST_BATS += $(sort $(filter-out tests/e2e/nic.bats,$(wildcard tests/e2e/*.bats))) \
	     tests/e2e/agent_e2e.bats+ringbuf \
	     tests/e2e/agent_lifecycle.bats+ringbuf tests/e2e/hardening.bats+ringbuf

# Sanitizer runs fail on the first report, and say where it came from.
SANITIZER_ENV := ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:halt_on_error=1 \
		 UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1

FUZZERS += $(OUTPUT)/fuzz/fuzz_options $(OUTPUT)/fuzz/fuzz_escape
SANITIZE_DIR := build-sanitize

# libFuzzer needs clang; the harnesses compile the parsers they test from source.
FUZZ_CFLAGS := -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	       -Wall -Wextra -Werror -std=gnu11 -Icommon -Ilib -DFBF_VERSION='"$(VERSION)"'

.PHONY: fuzz fuzzers stress hardening-sanitize-build test-kernels test-fresh

# The parsers from source, instrumented; what they reach beyond them (the
# outputs' kinds, each row in the file of its sink) from the agent's library.
$(OUTPUT)/fuzz/fuzz_options: tests/fuzz/fuzz_options.c agent/options.c \
		agent/metrics/listen_addr.c agent/base/escape.c agent/iface/xdp_mode.c \
		agent/iface/ifselect.c agent/sinks/output_url.c agent/sinks/output_kind.c \
		agent/sinks/output_dest.c agent/transports/transport_memory.c lib/parse_num.c \
		$(AGENT_LIB) $(filter-out $(call obj,lib/parse_num.c),$(LIB_OBJS))
$(OUTPUT)/fuzz/fuzz_options: FUZZ_LIBS = $(AGENT_LINK_LIBS)
$(OUTPUT)/fuzz/fuzz_escape: tests/fuzz/fuzz_escape.c agent/base/escape.c

$(FUZZERS):
	$(call msg,FUZZER,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -Iagent -Itools/trafficgen $(filter %.c %.a %.o,$^) -o $@ \
		$(FUZZ_LIBS)

fuzzers: $(FUZZERS)

# The agent with ASan and UBSan, for the sanitizer test in tests/e2e/hardening.bats.
# A build of its own, in the directory `make SANITIZE=1` uses.
hardening-sanitize-build:
ifneq ($(SANITIZE),1)
	$(Q)$(MAKE) --no-print-directory $(if $(Q),-s) SANITIZE=1 OUTPUT=$(SANITIZE_DIR) \
		$(SANITIZE_DIR)/agent $(SANITIZE_DIR)/trafficgen
endif

test-build: $(FUZZERS) hardening-sanitize-build

# libFuzzer writes new inputs into its first corpus directory: a copy in
# $(OUTPUT), so the seeds (testing/fuzz-seeds) stay as committed.
fuzz: check-deps-test $(OUTPUT)/tests/test_xdp_fuzz $(FUZZERS)
	$(Q)FBF_FUZZ_FRAMES=$(FUZZ_FRAMES) $(OUTPUT)/tests/test_xdp_fuzz
	$(Q)set -e; for f in $(FUZZERS); do \
		name=$${f##*/fuzz_}; corpus=$(OUTPUT)/fuzz/corpus-$$name; \
		log=$(OUTPUT)/fuzz/$$name.log; \
		mkdir -p $$corpus; cp -n $$(testing/fuzz-seeds $$name)/* $$corpus/; \
		echo "fuzz: $$f for $(FUZZ_TIME) s, log in $$log"; \
		if ! $(SANITIZER_ENV) $$f -max_total_time=$(FUZZ_TIME) -print_final_stats=1 \
			-artifact_prefix=$(OUTPUT)/fuzz/$$name- $$corpus >$$log 2>&1; then \
			tail -n 40 $$log; \
			echo "fuzz: $$f failed; the input is in $(OUTPUT)/fuzz/$$name-*" >&2; \
			exit 1; \
		fi; \
		grep -E '^stat::number_of_executed_units|^Done' $$log; \
	done

stress: check-deps-test all lab
	$(Q)FLOOD_SECONDS=$(FLOOD_SECONDS) KILLS=$(KILLS) tests/stress/stress.sh

# Then the gate on the same kernels: the programs' exact measures there, this
# tree's against the base's, and the planted regression caught on each; and the
# cost tool's KERNELS= on them, on an object of its own.
test-kernels: deps-kernels test-prepare kernels
	$(Q)status=0; KERNEL_SUITES="$(KERNEL_SUITES)" tests/run-kernels $(KERNELS) $(KERNEL_BOOTS) || \
		status=1; \
	echo; FBF_GATE_KERNELS="$(KERNELS)" FBF_COST_KERNELS="$(KERNELS)" FBF_KERNELS=$(KERNELS_DIR) \
		tests/run-all tests/vm/vm_run.bats bench/gate/gate_kernels.bats \
		bench/cost/cost_kernels.bats || status=1; \
	exit $$status

# The README's commands as a new user types them on a new host.
test-fresh: deps-fresh
	$(Q)testing/fresh/test-fresh.sh
