# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make            build the product into $(OUTPUT): the agent with its XDP
#                 programs (queue and ring buffer), and the traffic generators
# make test-build / bench-build   what the tests / the benchmarks run beside it
#                 (make test and the bench targets build them themselves)
# make test-prepare  install and build all that make test runs, and run nothing
# make test       run every test (as root: BPF, veth pairs, namespaces)
# make test-kernels   the tests on other kernels, booted under QEMU (see tests/tests.mk)
# make lint       ShellCheck, assertions that cannot fail, exit statuses, the layout,
#                 C line widths (tests/lint/lint.mk; one of make test's suites)
# make demo       show the agent on a veth pair
# make bench      every benchmark below; tables on stdout, BMF files in $(OUTPUT)/results,
#                 and all their figures with the host and date in results/figures.md
# make bench-figures  that page again, from whatever benchmarks ran last
# make bench-micro    the classifier in userspace: timing and instruction counts
# make bench-macro    the XDP program in the kernel (as root)
# make bench-churn    pods coming and going under the agent over a pattern (as root;
#                     bench/churn/churn.mk)
# make bench-check    the regression gate: this tree against the base revision that
#                     bench/gate/baseline.json names (or BASE=<rev>), side by side (as root),
#                     its programs' exact measures on each kernel of KERNELS too
# make bench-baseline WHY='...'   make HEAD the gate's base, saying why
# make bench-report   plot the gate's local history (bench-history.tsv) as SVG
# make cost OBJ=PATH [PROG=NAME] [MAPS=FILE]   what any XDP object costs (as root)
# make cost-compare BASE=PATH CANDIDATE=PATH   two objects judged like the gate (as root)
#                 (either with KERNELS=...: the verifier's figures on those kernels too)
#                 (a chain through prog arrays hop by hop, CHAIN='MAP[INDEX]=[OBJ:]PROG ...')
# make profile-cpu / profile-heap / profile-kernel    see bench/profile/profile.mk
# make fuzz / stress                                  see tests/tests.mk
# make install    the agent as fizzbuzzfib-agent, its manual page and systemd units, and
#                 the cost tool as fizzbuzzfib-cost (bench/cost/cost.mk)
#                 (PREFIX=/usr/local, DESTDIR= for a staging tree)
# make deb        the Debian package, $(OUTPUT)/deb/fizzbuzzfib-agent_VERSION_ARCH.deb
#                 (debian/, tools/build-deb.sh)
# make deps       install the Debian packages the project needs (as root); make
#                 deps-PURPOSE those of one purpose (demo, test, bench, deb, kernels,
#                 fresh: ci/install-deps.sh), which make demo, make test and make
#                 test-kernels install first; the other targets only check them
# make kernels    fetch Debian's kernels of KERNELS for make test-kernels and bench-check
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
# Into the program from outside: the shipped source includes nothing of the lab.
BPF_VARIANT := -include testing/fizzbuzzfib_v3.h
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

# The kernel matrix (make test-kernels): Debian 11's 5.10, Debian 12's stock
# 6.1 and its 6.12, as testing/vm/fetch-kernels.sh names them (or
# directories with boot/vmlinuz-RELEASE and lib/modules/RELEASE), and which
# suites run on which (tests/run-kernels; "all": everything everywhere). The
# agent's suites take minutes per kernel and transport under emulation, so
# each kernel runs agent_e2e whole on one transport, and its wake-up tests
# on the other; 6.12 the wake-up tests on both (docs/kernels.md). Each
# guest also gets network cards fed from host taps (nic: virtio_net, e1000);
# 5.10 runs one agent over interfaces that come and go (multi: the host's
# 6.18 runs its suite whole, 6.12 left it for CI's time, about 2 min);
# each the cost tool on a TC program (tc: about 100 s each under emulation;
# 5.10 and 6.1 through a clsact qdisc, 5.10 with no otherhost counter, 6.12
# through tcx as the host's kernel, where make test runs cost_tc.bats whole);
# each the cost tool on every family of tracing programs (trace, 45-170 s: each measured
# or one line saying why not). KERNEL_BOOTS: more boots of those kernels, each
# KERNEL+ARG... with ARGs of its own on the command line: 5.10 with bpf among
# its LSMs (6.1 and 6.12 have it by default), for the LSM test alone (lsm).
# The host's line is its facts alone: make test has run every suite there.
KERNELS ?= debian11 debian12 debian12-6.12
KERNEL_BOOTS ?= debian11+lsm=lockdown,capability,yama,apparmor,tomoyo,bpf
KERNEL_SUITES ?= debian11=bpf,e2e:queue,wake:ringbuf,nic,multi,tc,trace \
	debian12=bpf,e2e:ringbuf,wake:queue,lifecycle:queue,nic,tc,trace \
	debian12-6.12=bpf,wake,nic,tc,trace \
	debian11+lsm=lockdown,capability,yama,apparmor,tomoyo,bpf=lsm host=facts
# Where make kernels puts them, unless FBF_KERNELS says where they are (as
# tests/run-kernels reads it): for the gate, which measures the programs there too.
KERNELS_DIR = $${FBF_KERNELS:-$(FBF_BUILD)/kernels}

ifeq ($(V),1)
	Q =
	msg =
else
	Q = @
	msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

# What is read from the host (the compiler's target, pkg-config's flags) is
# read when a recipe first needs it, and kept: not while make reads this file,
# which make demo and make test do before make deps has installed what
# provides it. $(call from_host,VAR,COMMAND): VAR is COMMAND's output.
from_host = $(eval $(1) = $$(eval $(1) := $$$$(shell $(2)))$$($(1)))

# Debian keeps asm/types.h under the multiarch include directory.
$(call from_host,ARCH_TRIPLET,$(CC) -dumpmachine)
ARCH_INCLUDES = -I/usr/include/$(ARCH_TRIPLET)

# -MMD -MP: every object depends on the headers it includes (see the -include at the end).
DEPFLAGS := -MMD -MP
# -mcpu=v3: 32-bit jumps and ALU (kernel 5.1), fewer and shorter instructions.
BPF_CFLAGS = -O2 -g -target bpf -mcpu=v3 -Wall -Werror -Icommon $(ARCH_INCLUDES) \
	      $(VARIANT_DEFINES) $(DEPFLAGS)
CFLAGS ?= -O2 -g
# Empty here; a packager's (dpkg-buildflags: _FORTIFY_SOURCE) reaches the C objects.
CPPFLAGS ?=
# Frame pointers keep perf call graphs readable.
CFLAGS += -Wall -Wextra -Werror -fno-omit-frame-pointer -std=gnu11 $(DEPFLAGS) \
	  -Icommon -Ilib -I$(OUTPUT) -DFBF_VERSION='"$(VERSION)"' $(VARIANT_DEFINES) $(SANITIZE_FLAGS)
CXXFLAGS ?= -O2 -g
CXXFLAGS += -Wall -Wextra -Werror -fno-omit-frame-pointer -std=c++17 -Icommon -Ilib $(DEPFLAGS) \
	    $(VARIANT_DEFINES) $(SANITIZE_FLAGS)
LDFLAGS ?=
LDFLAGS += $(SANITIZE_FLAGS)

$(call from_host,LIBBPF_LIBS,pkg-config --libs libxdp libbpf 2>/dev/null || \
	echo -lxdp -lbpf -lelf -lz)
$(call from_host,CURL_LIBS,pkg-config --libs libcurl 2>/dev/null || echo -lcurl)
$(call from_host,MHD_LIBS,pkg-config --libs libmicrohttpd 2>/dev/null || echo -lmicrohttpd)
$(call from_host,SYSTEMD_LIBS,pkg-config --libs libsystemd 2>/dev/null || echo -lsystemd)
$(call from_host,NATS_LIBS,pkg-config --libs libnats 2>/dev/null || echo -lnats)
$(call from_host,FIXBUF_CFLAGS,pkg-config --cflags libfixbuf 2>/dev/null)
$(call from_host,FIXBUF_LIBS,pkg-config --libs libfixbuf 2>/dev/null || echo -lfixbuf -lglib-2.0)
$(call from_host,CMOCKA_LIBS,pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)

# The scripts find the build here.
export FBF_BUILD := $(abspath $(OUTPUT))

# What code in each top directory may include beside common/ and lib/ (the
# layout's rule: tests/ and bench/ use testing/, tools/ and agent/, never
# each other). The XDP program sees common/ only: it shares that with
# userspace, and lib/ is userspace's alone.
INCLUDES_agent := -Iagent
INCLUDES_lib :=
INCLUDES_testing := -Itesting
INCLUDES_tools := -Itools/trafficgen -Itesting
INCLUDES_tests := -Itesting -Iagent -Itests/bpf -Itools/trafficgen
INCLUDES_bench := -Itesting -Ibench/kernel -Ibench/micro -Ibench/cost

# One object per source, under $(OUTPUT)/obj/ by its path: objects never mix.
obj = $(patsubst %.c,$(OUTPUT)/obj/%.o,$(1))

# One program, one object per event transport: queue map and ring buffer.
RINGBUF_OBJ := $(OUTPUT)/fizzbuzzfib_ringbuf.bpf.o
SKEL := $(OUTPUT)/fizzbuzzfib.skel.h $(OUTPUT)/fizzbuzzfib_ringbuf.skel.h

LIB_OBJS := $(call obj,$(wildcard lib/*.c))
AGENT_OBJS := $(call obj,$(wildcard agent/*.c agent/*/*.c))

# Filled in by the directories' .mk files: test programs, bats suites, fuzzers.
TEST_PROGS :=
TEST_BATS :=
FUZZERS :=

.DELETE_ON_ERROR:
# Keep objects made by pattern rules, so a second make rebuilds nothing.
.SECONDARY:
.PHONY: all lab test-build bench-build test-prepare test demo deps kernels check-deps clean image \
	install install-agent uninstall deb bench bench-figures

all: $(OUTPUT)/agent
# The lab the tests and the benchmarks share (testing/), then each one's own
# programs: the directories' .mk files add theirs to these.
lab: all
test-build: lab
bench-build: lab

$(OUTPUT)/obj/%.o: %.c | $(SKEL)
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(INCLUDES_$(firstword $(subst /, ,$*))) -c $< -o $@

$(OUTPUT)/obj/%.o: %.cc
	$(call msg,CXX,$@)
	@mkdir -p $(@D)
	$(Q)$(CXX) $(CXXFLAGS) $(INCLUDES_$(firstword $(subst /, ,$*))) -c $< -o $@

# One source, one object per event transport; a variant's flags (the canary's
# -include) reach both.
$(RINGBUF_OBJ): BPF_TRANSPORT := -DFBF_TRANSPORT_RINGBUF
$(OUTPUT)/fizzbuzzfib.bpf.o $(RINGBUF_OBJ): xdp/fizzbuzzfib.bpf.c
	$(call msg,BPF,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(BPF_VARIANT) $(BPF_TRANSPORT) -c $< -o $@

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	@# libbpf's notes on the object (its .xdp_run_config section, say) only matter if this fails.
	$(Q)$(BPFTOOL) gen skeleton $< name $*_bpf > $@ 2> $@.log || { cat $@.log >&2; exit 1; }

$(OUTPUT)/agent: $(AGENT_OBJS) $(LIB_OBJS)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LIBBPF_LIBS) $(MHD_LIBS) $(SYSTEMD_LIBS) $(NATS_LIBS) \
		$(FIXBUF_LIBS) -lpthread -o $@

# The IPFIX sink alone includes libfixbuf, and with it glib.
$(call obj,agent/sinks/sink_ipfix.c): CFLAGS += $(FIXBUF_CFLAGS)

# The Debian packages each purpose needs, installed if missing, said in a
# line: deps-demo, deps-test, deps-bench, deps-deb, deps-kernels, deps-fresh
# (ci/install-deps.sh lists them); make deps installs them all. make test's
# also downloads the udev package for the service test, and the benchmarks'
# the flame graph's template from npm: no test reads the network.
DEPS_PURPOSES := $(shell ci/install-deps.sh --purposes)
.PHONY: $(DEPS_PURPOSES:%=deps-%) $(DEPS_PURPOSES:%=check-deps-%)
deps: deps-all
$(DEPS_PURPOSES:%=deps-%): deps-%:
	$(Q)ci/install-deps.sh $*
	$(if $(filter test kernels all,$*),$(Q)testing/nspawn/fetch-udev.sh $(OUTPUT)/debs)
	$(if $(filter bench test kernels all,$*),$(Q)bench/profile/profile_cpu.sh --fetch-template)

# Debian's kernels for make test-kernels, fetched once into $(OUTPUT)/kernels, or
# where FBF_KERNELS says (as tests/run-kernels and the gate read it).
kernels:
	$(Q)testing/vm/fetch-kernels.sh $(KERNELS_DIR) $(KERNELS)

# Only a check, for the targets that install nothing: check-deps is the
# benchmarks' (bench/*/*.mk).
$(DEPS_PURPOSES:%=check-deps-%): check-deps-%:
	$(Q)ci/install-deps.sh --check $*
check-deps: check-deps-bench

# make demo and make test install what they need, then build in a make of
# their own: one that reads this file after the install, in that order even
# under -j. test-prepare is make test but the suites: all it installs and
# builds (the directories' .mk files add what the tests run to test-build).
demo: deps-demo
	$(Q)$(MAKE) --no-print-directory $(if $(Q),-s) all
	$(Q)testing/demo.sh

test-prepare: deps-test
	$(Q)$(MAKE) --no-print-directory $(if $(Q),-s) all test-build bench-build

# Every suite (cmocka programs and bats files, see tests/run-suite), closing
# with "N passed, N failed, N skipped" and the reason for each skip. The
# directories' .mk files add their programs to TEST_PROGS and their suites to
# TEST_BATS.
test: test-prepare
	$(Q)tests/run-all $(TEST_PROGS) $(TEST_BATS)

# The figures of every benchmark run into $(OUTPUT)/results, each with its host and date.
WRITE_FIGURES = bench/report.py figures $(OUTPUT)/results $(OUTPUT)/results/figures.md

bench: bench-micro bench-macro
	$(Q)$(WRITE_FIGURES)

bench-figures:
	$(Q)$(WRITE_FIGURES)

# The agent as a system service: binary, manual page, systemd units (one
# interface's template, and the unit for every interface its patterns select).
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
UNITDIR ?= $(PREFIX)/lib/systemd/system
UNITS := fizzbuzzfib-agent@.service fizzbuzzfib-agent.service
INSTALLED := $(DESTDIR)$(SBINDIR)/fizzbuzzfib-agent $(DESTDIR)$(MANDIR)/man8/fizzbuzzfib-agent.8 \
	     $(addprefix $(DESTDIR)$(UNITDIR)/,$(UNITS))

# make install: the agent, its manual page and units, and what the other
# makefiles add (bench/cost/cost.mk: the cost tool); install-agent alone is
# what the Debian package ships.
install: install-agent

install-agent: $(OUTPUT)/agent
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)install -D -m 0755 $(OUTPUT)/agent $(DESTDIR)$(SBINDIR)/fizzbuzzfib-agent
	$(Q)install -D -m 0644 man/fizzbuzzfib-agent.8 $(DESTDIR)$(MANDIR)/man8/fizzbuzzfib-agent.8
	$(Q)mkdir -p $(DESTDIR)$(UNITDIR)
	$(Q)for unit in $(UNITS); do \
		sed 's|@SBINDIR@|$(SBINDIR)|' systemd/$$unit >$(DESTDIR)$(UNITDIR)/$$unit || exit; \
	done

uninstall:
	$(Q)rm -f $(INSTALLED)

# The same, packaged: debian/rules runs make install, in a copy of the tree.
deb: check-deps-deb
	$(Q)tools/build-deb.sh . $(OUTPUT)/deb $(VERSION)

# The agent's OCI image, from that package and the Debian libraries it loads
# (docs/deploy.md): $(OUTPUT)/image/fizzbuzzfib-agent-$(VERSION).oci.tar.
# It installs what it needs first, so that a fresh Debian 12 needs only this.
IMAGE_DEB = $(OUTPUT)/deb/fizzbuzzfib-agent_$(VERSION)_$(shell dpkg --print-architecture).deb
image: deps-image
	$(Q)$(MAKE) --no-print-directory deb
	$(Q)tools/build-image.sh $(IMAGE_DEB) $(OUTPUT)/image $(VERSION)

clean:
	$(call msg,CLEAN,$(OUTPUT))
	$(Q)git worktree remove --force build/gate-base 2>/dev/null || true
	$(Q)rm -rf $(OUTPUT) build-sanitize build-canary build-canary-agent

# Each directory with something to build or run beside the agent keeps its
# rules in a .mk file of its own.
include testing/testing.mk tools/trafficgen/trafficgen.mk tools/rawflood/rawflood.mk tests/tests.mk
include tests/lint/lint.mk
include bench/micro/micro.mk bench/kernel/kernel.mk bench/gate/gate.mk bench/profile/profile.mk \
	bench/cost/cost.mk bench/churn/churn.mk
include bench/cost/trace/trace.mk testing/third_party/tracing.mk \
	testing/third_party/tailcalls/tailcalls.mk testing/third_party/katran/katran.mk

# Only this build's own dependency files: not those of the gate's base, which
# builds in a worktree under build/.
-include $(wildcard $(OUTPUT)/*.bpf.d) $(shell find $(OUTPUT)/obj -type f -name '*.d' 2>/dev/null)
