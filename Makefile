# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make            build the XDP object, its skeleton, the agent, the traffic
#                 generator and the tests into $(OUTPUT)
# make test       run every test (as root: BPF, veth pairs, namespaces)
# make demo       install what is missing, then show the agent on a veth pair
# make bench      every benchmark below; tables on stdout, BMF files in $(OUTPUT)/results
# make bench-micro    the classifier in userspace: timing and instruction counts
# make bench-macro    the XDP program in the kernel (as root)
# make bench-check    the regression gate: this tree against the base revision that
#                     bench/baseline.json names (or BASE=<rev>), side by side (as root)
# make bench-baseline WHY='...'   make HEAD the gate's base, saying why
# make bench-report   plot the gate's local history (bench-history.tsv) as SVG
# make profile-cpu / profile-heap / profile-kernel    see bench/profile.mk
# make fuzz / stress                                  see tests/hardening.mk
# make install    the agent as fizzbuzzfib-agent, its manual page and systemd unit
#                 (PREFIX=/usr/local, DESTDIR= for a staging tree)
# make deps       install the Debian packages the project needs
# make clean      remove all build output
#
# V=1 shows the full commands. Build variants, each in an output directory of
# its own so that objects never mix:
#   SANITIZE=1    userspace code built with AddressSanitizer and UBSan
#   CANARY=1      the planted v3 regression (never shipped), to prove the gate fails
#   CANARY=agent  an agent that flushes stdout after every event (never shipped), likewise

ifeq ($(SANITIZE),1)
OUTPUT ?= build-sanitize
SANITIZE_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all
else ifeq ($(CANARY),1)
OUTPUT ?= build-canary
VARIANT_DEFINES := -DFBF_CANARY_V3
else ifeq ($(CANARY),agent)
OUTPUT ?= build-canary-agent
VARIANT_DEFINES := -DFBF_CANARY_AGENT
endif
OUTPUT ?= build
CLANG ?= clang
BPFTOOL ?= bpftool
CC ?= cc
CXX ?= c++
VERSION := 0.1.0

ifeq ($(V),1)
	Q =
	msg =
else
	Q = @
	msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

# Debian keeps asm/types.h under the multiarch include directory.
ARCH_INCLUDES := -I/usr/include/$(shell $(CC) -dumpmachine)

# -MMD -MP: every object depends on the headers it includes (see the -include below).
DEPFLAGS := -MMD -MP
BPF_CFLAGS := -O2 -g -target bpf -Wall -Werror -Icommon $(ARCH_INCLUDES) $(VARIANT_DEFINES) \
	      $(DEPFLAGS)
CFLAGS ?= -O2 -g
# Frame pointers keep perf call graphs readable.
CFLAGS += -Wall -Wextra -Werror -fno-omit-frame-pointer -std=gnu11 $(DEPFLAGS) \
	  -Icommon -I$(OUTPUT) -DFBF_VERSION='"$(VERSION)"' $(VARIANT_DEFINES) $(SANITIZE_FLAGS)
CXXFLAGS ?= -O2 -g
CXXFLAGS += -Wall -Wextra -Werror -fno-omit-frame-pointer -std=c++17 -Icommon -Ibench \
	    $(DEPFLAGS) $(VARIANT_DEFINES) $(SANITIZE_FLAGS)
LDFLAGS ?=
LDFLAGS += $(SANITIZE_FLAGS)

LIBBPF_LIBS := $(shell pkg-config --libs libxdp libbpf 2>/dev/null || echo -lxdp -lbpf -lelf -lz)
CURL_LIBS := $(shell pkg-config --libs libcurl 2>/dev/null || echo -lcurl)
MHD_LIBS := $(shell pkg-config --libs libmicrohttpd 2>/dev/null || echo -lmicrohttpd)
CMOCKA_LIBS := $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)

# One program, one object per event transport: queue map and ring buffer.
BPF_OBJ := $(OUTPUT)/fizzbuzzfib.bpf.o
RINGBUF_OBJ := $(OUTPUT)/fizzbuzzfib_ringbuf.bpf.o
SKEL := $(OUTPUT)/fizzbuzzfib.skel.h $(OUTPUT)/fizzbuzzfib_ringbuf.skel.h
# The bare XDP_PASS baseline, loaded from its object file by tests and benchmarks.
PASS_OBJ := $(OUTPUT)/xdp_pass.bpf.o

# Userspace code shared by the agent, the tests and the benchmarks.
COMMON_OBJS := $(patsubst %.c,$(OUTPUT)/%.o,$(wildcard common/*.c))

AGENT_SRCS := $(wildcard agent/*.c)

TRAFFICGEN_SRCS := bench/trafficgen.c bench/addrlist.c
TRAFFICGEN_OBJS := $(patsubst %.c,$(OUTPUT)/%.o,$(TRAFFICGEN_SRCS))

BENCH_PROGS := $(OUTPUT)/bench/micro_timing $(OUTPUT)/bench/micro_count \
	       $(OUTPUT)/bench/kernel_test_run $(OUTPUT)/bench/bpf_run_stats \
	       $(OUTPUT)/bench/drain_rate $(OUTPUT)/bench/gate_kernel
# The in-kernel benchmarks run the tests' frames through the tests' BPF fixture.
KERNEL_BENCH_OBJS := $(OUTPUT)/bench/kernel_cases.o $(OUTPUT)/tests/frames.o \
		     $(OUTPUT)/tests/bpf_fixture.o $(COMMON_OBJS)
MICRO_DEPS := bench/micro_batches.h common/fizzbuzzfib.h common/fizzbuzzfib_v3.h

# Test programs are tests/test_*.c; other files in tests/ are helpers they share.
TEST_PROGS := $(patsubst tests/%.c,$(OUTPUT)/tests/%,$(wildcard tests/test_*.c))
TEST_HELPER_SRCS := $(filter-out tests/test_%.c,$(wildcard tests/*.c))
TEST_HELPER_OBJS := $(patsubst %.c,$(OUTPUT)/%.o,$(TEST_HELPER_SRCS)) \
		    $(OUTPUT)/bench/addrlist.o $(OUTPUT)/agent.d/metrics_format.o $(COMMON_OBJS)

.DELETE_ON_ERROR:
# Keep objects made by pattern rules, so a second make rebuilds nothing.
.SECONDARY:
.PHONY: all test demo deps clean install uninstall
.PHONY: bench bench-micro bench-macro bench-check bench-baseline bench-report

all: $(OUTPUT)/agent $(OUTPUT)/trafficgen $(PASS_OBJ) $(TEST_PROGS) $(BENCH_PROGS)

$(OUTPUT) $(OUTPUT)/agent.d $(OUTPUT)/bench $(OUTPUT)/tests $(OUTPUT)/common:
	$(Q)mkdir -p $@

$(OUTPUT)/%.bpf.o: xdp/%.bpf.c common/fizzbuzzfib.h | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(RINGBUF_OBJ): xdp/fizzbuzzfib.bpf.c common/fizzbuzzfib.h | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DFBF_TRANSPORT_RINGBUF -c $< -o $@

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	@# libbpf's notes on the object (its .xdp_run_config section, say) only matter if this fails.
	$(Q)$(BPFTOOL) gen skeleton $< name $*_bpf > $@ 2> $@.log || { cat $@.log >&2; exit 1; }

# The agent's objects live in agent.d/ so that $(OUTPUT)/agent can be the binary.
$(OUTPUT)/agent.d/%.o: agent/%.c $(wildcard agent/*.h) common/fizzbuzzfib.h $(SKEL) \
		| $(OUTPUT)/agent.d
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(OUTPUT)/common/%.o: common/%.c $(wildcard common/*.h) $(SKEL) | $(OUTPUT)/common
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(OUTPUT)/agent: $(patsubst agent/%.c,$(OUTPUT)/agent.d/%.o,$(AGENT_SRCS)) $(COMMON_OBJS)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LIBBPF_LIBS) $(MHD_LIBS) -lpthread -o $@

$(OUTPUT)/bench/%.o: bench/%.c $(wildcard bench/*.h) | $(OUTPUT)/bench
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Itests -c $< -o $@

$(OUTPUT)/trafficgen: $(TRAFFICGEN_OBJS)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(CURL_LIBS) -o $@

$(OUTPUT)/bench/micro_timing: bench/micro_timing.cc $(MICRO_DEPS) | $(OUTPUT)/bench
	$(call msg,CXX,$@)
	$(Q)$(CXX) $(CXXFLAGS) $(LDFLAGS) $< -lbenchmark -lpthread -o $@

$(OUTPUT)/bench/micro_count: bench/micro_count.c $(MICRO_DEPS) | $(OUTPUT)/bench
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -Ibench $< -o $@

$(OUTPUT)/bench/kernel_test_run $(OUTPUT)/bench/drain_rate $(OUTPUT)/bench/gate_kernel: \
		$(OUTPUT)/bench/%: bench/%.c \
		$(KERNEL_BENCH_OBJS) $(SKEL) | $(OUTPUT)/bench
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -Itests $< $(KERNEL_BENCH_OBJS) $(LIBBPF_LIBS) -o $@

$(OUTPUT)/bench/bpf_run_stats: bench/bpf_run_stats.c | $(OUTPUT)/bench
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< $(LIBBPF_LIBS) -o $@

$(OUTPUT)/tests/%.o: tests/%.c $(wildcard tests/*.h) common/fizzbuzzfib.h $(SKEL) \
		| $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Itests -Ibench -Iagent -c $< -o $@

$(OUTPUT)/tests/test_%: $(OUTPUT)/tests/test_%.o $(TEST_HELPER_OBJS)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(CMOCKA_LIBS) $(LIBBPF_LIBS) -o $@

deps:
	$(Q)ci/install-deps.sh

# Every suite (cmocka programs and bats files, see tests/run-suite), closing
# with "N passed, N failed, N skipped" and the reason for each skip. The
# agent's suites run again on the ring buffer (SUITE.bats+ringbuf).
RINGBUF_SUITES := tests/agent_e2e.bats+ringbuf tests/agent_lifecycle.bats+ringbuf \
		  tests/hardening.bats+ringbuf
test: deps all
	$(Q)FBF_BUILD=$(abspath $(OUTPUT)) \
		tests/run-all $(TEST_PROGS) $(sort $(wildcard tests/*.bats)) $(RINGBUF_SUITES)

demo: deps all
	$(Q)FBF_BUILD=$(abspath $(OUTPUT)) tests/demo.sh

bench: bench-micro bench-macro

bench-micro: deps $(BENCH_PROGS)
	$(Q)FBF_BUILD=$(abspath $(OUTPUT)) bench/micro.sh

bench-macro: deps all $(OUTPUT)/stress/rawflood
	$(Q)FBF_BUILD=$(abspath $(OUTPUT)) bench/macro.sh

# The regression gate, this tree against the base, and moving the base.
bench-check: deps all
	$(Q)FBF_BUILD=$(abspath $(OUTPUT)) FBF_GATE_BASE=$(BASE) bench/gate.sh check

bench-baseline:
	$(Q)bench/gate.sh baseline "$(WHY)"

# The gate's local history as one picture per measure.
bench-report: deps
	$(Q)bench/history_plot.py $${FBF_HISTORY:-bench-history.tsv} $(OUTPUT)/bench-report

# The agent as a system service: binary, manual page, systemd unit.
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
UNITDIR ?= $(PREFIX)/lib/systemd/system
INSTALLED := $(DESTDIR)$(SBINDIR)/fizzbuzzfib-agent $(DESTDIR)$(MANDIR)/man8/fizzbuzzfib-agent.8 \
	     $(DESTDIR)$(UNITDIR)/fizzbuzzfib-agent@.service

install: $(OUTPUT)/agent
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)install -D -m 0755 $(OUTPUT)/agent $(DESTDIR)$(SBINDIR)/fizzbuzzfib-agent
	$(Q)install -D -m 0644 man/fizzbuzzfib-agent.8 $(DESTDIR)$(MANDIR)/man8/fizzbuzzfib-agent.8
	$(Q)mkdir -p $(DESTDIR)$(UNITDIR)
	$(Q)sed 's|@SBINDIR@|$(SBINDIR)|' systemd/fizzbuzzfib-agent@.service \
		>$(DESTDIR)$(UNITDIR)/fizzbuzzfib-agent@.service

uninstall:
	$(Q)rm -f $(INSTALLED)

clean:
	$(call msg,CLEAN,$(OUTPUT))
	$(Q)git worktree remove --force build/gate-base 2>/dev/null || true
	$(Q)rm -rf $(OUTPUT) build-sanitize build-canary build-canary-agent

-include $(shell find $(OUTPUT) -type f -name '*.d' 2>/dev/null)

# Targets with a job of their own (profiling, fuzzing, stress) keep their
# rules beside their scripts.
include $(sort $(wildcard bench/*.mk tests/*.mk))
