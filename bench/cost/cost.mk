# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make cost OBJ=PATH [PROG=NAME] [MAPS=FILE|DIR] [SET=NAME=VALUE,...] [PCAP=FILE] [KERNELS=...]
#           [LINES=1] [WORKLOAD="COMMAND"] [CHAIN='MAP[INDEX]=[OBJECT:]PROG ...']
#           [CHAIN_MAPS='OBJECT=MAPS ...'] [TC=[OBJECT:]PROG]
#                 what any XDP or TC object costs, in the state MAPS and SET give it: the
#                 verifier's figures, each frame shape (and with PCAP, a capture's frames,
#                 in order) through BPF_PROG_TEST_RUN, and the whole path on a veth, beside
#                 the bare program of its type (as root); with KERNELS, the verifier's
#                 figures on those kernels too, each booted under QEMU; with LINES=1, the
#                 program's hottest source lines, sampled with perf (cost_lines.bash); an
#                 object with a prog array is measured as a chain, hop by hop, its slots as
#                 it fills them and as CHAIN names them (cost_chain.h), another object's in
#                 the state CHAIN_MAPS gives it; with TC, an XDP
#                 program's live part is a path: TC's program after it on the veth's ingress
# make cost-compare BASE=PATH CANDIDATE=PATH [PROG=NAME | BASE_PROG=NAME CANDIDATE_PROG=NAME]
#                 [MAPS=FILE|DIR] [SET=...] [PCAP=FILE] [KERNELS=...] [LINES=1]   two objects
#                 side by side in one run, with the gate's statistics and verdict; LINES=1:
#                 the source lines whose share of the samples moved most
# A tracing object (kprobe, fentry, tracepoint, raw_tp, tp_btf, lsm, uprobe, perf_event) is
# measured on the workload it hooks, a built-in trigger or WORKLOAD's command
# (bench/cost/trace/trace.mk)
# (bench/cost/cost.sh; docs/benchmarks.md, "Measure your own program")

COST_RUN := $(OUTPUT)/bench/cost_run
# The bare TC program, beside bare XDP_PASS: cost_run type names it by its arm, tc_ok.
TC_OK_OBJ := $(OUTPUT)/tc_ok.bpf.o
# cost_run: the shared core (bench/cost/), the packet family (packet/: test runs on frames,
# captures, the veth flood) and the chain family (chain/: prog arrays, hop by hop), which
# runs its chains' packet programs through the same runner.
COST_OBJS := $(call obj,$(wildcard bench/cost/*.c bench/cost/packet/*.c bench/cost/chain/*.c) \
	     bench/kernel/kernel_cases.c) $(TESTING_OBJS) $(LIB_OBJS)
# The test programs of bench/cost/packet/cost.bats, from testing/cost_probe.bpf.c.
COST_PROBES := $(addprefix $(OUTPUT)/testing/,cost_probe.bpf.o cost_probe_planted.bpf.o \
	       cost_probe_two.bpf.o cost_probe_refused.bpf.o cost_probe_config.bpf.o \
	       cost_probe_shared_counter.bpf.o cost_probe_percpu_counter.bpf.o \
	       cost_probe_maps_of_maps.bpf.o)
# bench/cost/cost_state.bats's, from testing/cost_state.bpf.c.
COST_STATE_PROBES := $(addprefix $(OUTPUT)/testing/,cost_state.bpf.o cost_state_big.bpf.o)
# bench/cost/packet/cost_capture.bats's: a program that rewrites its frames; cost_tc.bats's,
# the same as a TC program.
COST_REWRITE := $(OUTPUT)/testing/cost_rewrite.bpf.o $(OUTPUT)/testing/cost_rewrite_tc.bpf.o

.PHONY: cost cost-compare

# Only the KERNELS a user names: the matrix's default is make test-kernels' and the gate's.
COST_KERNELS = $(if $(filter command line environment,$(origin KERNELS)),$(strip $(KERNELS)))
# Fetched first, unless FBF_KERNELS says where they already are.
COST_FETCH = $(if $(COST_KERNELS),$(if $(FBF_KERNELS),,kernels))

bench-build: $(COST_RUN) $(OUTPUT)/bench/bpf_run_stats
test-build: $(COST_PROBES) $(COST_STATE_PROBES) $(COST_REWRITE)

$(COST_RUN): $(COST_OBJS)
	$(call msg,BINARY,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LIBBPF_LIBS) -lpcap -lpthread -o $@

$(OUTPUT)/testing/cost_probe_planted.bpf.o: COST_PROBE_FLAGS := -DCOST_PLANTED
$(OUTPUT)/testing/cost_probe_two.bpf.o: COST_PROBE_FLAGS := -DCOST_TWO_PROGS
$(OUTPUT)/testing/cost_probe_refused.bpf.o: COST_PROBE_FLAGS := -DCOST_REFUSED
$(OUTPUT)/testing/cost_probe_config.bpf.o: COST_PROBE_FLAGS := -DCOST_CONFIG
$(OUTPUT)/testing/cost_probe_shared_counter.bpf.o: COST_PROBE_FLAGS := -DCOST_SHARED_COUNTER
$(OUTPUT)/testing/cost_probe_percpu_counter.bpf.o: COST_PROBE_FLAGS := -DCOST_PERCPU_COUNTER
$(OUTPUT)/testing/cost_probe_maps_of_maps.bpf.o: COST_PROBE_FLAGS := -DCOST_MAPS_OF_MAPS
$(COST_PROBES): testing/cost_probe.bpf.c
	$(call msg,BPF,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(COST_PROBE_FLAGS) -c $< -o $@

$(OUTPUT)/testing/cost_state_big.bpf.o: COST_STATE_FLAGS := -DCOST_STATE_BIG
$(COST_STATE_PROBES): testing/cost_state.bpf.c
	$(call msg,BPF,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(COST_STATE_FLAGS) -c $< -o $@

$(OUTPUT)/testing/cost_rewrite_tc.bpf.o: COST_REWRITE_FLAGS := -DCOST_TC
$(COST_REWRITE): testing/cost_rewrite.bpf.c
	$(call msg,BPF,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(COST_REWRITE_FLAGS) -c $< -o $@

cost: check-deps all bench-build $(COST_FETCH)
	$(Q)FBF_COST_LINES="$(LINES)" FBF_COST_KERNELS="$(COST_KERNELS)" FBF_KERNELS=$(KERNELS_DIR) FBF_COST_SET="$(SET)" FBF_COST_CHAIN="$(CHAIN)" FBF_COST_WORKLOAD="$(WORKLOAD)" \
		FBF_COST_CHAIN_MAPS="$(CHAIN_MAPS)" FBF_COST_TC="$(TC)" bench/cost/cost.sh measure "$(OBJ)" "$(PROG)" "$(MAPS)" "$(PCAP)"

cost-compare: check-deps all bench-build $(COST_FETCH)
	$(Q)FBF_COST_LINES="$(LINES)" FBF_COST_KERNELS="$(COST_KERNELS)" FBF_KERNELS=$(KERNELS_DIR) FBF_COST_SET="$(SET)" FBF_COST_CHAIN="$(CHAIN)" FBF_COST_WORKLOAD="$(WORKLOAD)" \
		FBF_COST_CHAIN_MAPS="$(CHAIN_MAPS)" bench/cost/cost.sh compare "$(BASE)" "$(CANDIDATE)" "$(PROG)" "$(MAPS)" \
		"$(BASE_PROG)" "$(CANDIDATE_PROG)" "$(PCAP)"

TEST_BATS += bench/cost/cost_report.bats bench/cost/cost_state.bats bench/cost/cost_lines.bats \
	     bench/cost/cost_html.bats \
	     bench/cost/packet/cost.bats bench/cost/packet/cost_tc.bats \
	     bench/cost/packet/cost_capture.bats bench/cost/packet/cost_path.bats \
	     bench/cost/chain/cost_chain.bats bench/cost/chain/cost_chain_third_party.bats

# The report's pictures in docs/benchmarks.md and docs/profiling.md: the screenshots
# bench/cost/cost_html.bats's test of them takes, copied over these (as root: the tool
# loads BPF programs). Last run's removed first, so that a skipped test copies nothing.
COST_DOCS_PICTURES := docs/cost-html.png docs/cost-html-lines.png
COST_DOCS_SHOTS := $(addprefix $(OUTPUT)/results/cost-html/,$(notdir $(COST_DOCS_PICTURES)))
.PHONY: docs-pictures
docs-pictures: all test-build bench-build
	$(Q)rm -f $(COST_DOCS_SHOTS)
	$(Q)bats --filter "^the docs' pictures: " bench/cost/cost_html.bats
	$(Q)cp $(COST_DOCS_SHOTS) docs/

# bench/cost/cost_lines.bats's object without BTF line info: the probe built without -g.
COST_PROBE_NO_G := $(OUTPUT)/testing/cost_probe_no_g.bpf.o
test-build: $(COST_PROBE_NO_G)
$(COST_PROBE_NO_G): testing/cost_probe.bpf.c
	$(call msg,BPF,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(filter-out -g,$(BPF_CFLAGS)) -c $< -o $@

# make install: the tool as fizzbuzzfib-cost beside the agent, with what it runs (its
# scripts and the lab's, the loader, the flooder, bare XDP_PASS) under COSTDIR, laid out
# as in this tree so the scripts find each other as they do here.
COSTDIR ?= $(PREFIX)/lib/fizzbuzzfib-cost
COST_SCRIPTS := bench/cost/cost.sh bench/cost/cost_report.py bench/cost/cost_lines.py \
		bench/cost/cost_html.py bench/cost/packet/cost_live.sh \
		bench/report.py bench/measured_on.py bench/gate/gate.py
COST_SOURCED := bench/kernel/flood.bash testing/netns.bash testing/http_server.py \
		bench/cost/packet/cost_capture_report.py bench/cost/chain/cost_chain_report.py \
		bench/cost/packet/cost_path_report.py bench/cost/packet/cost_path.bash \
		bench/cost/cost_lines.bash \
		bench/cost/packet/cost_live_xdp.bash bench/cost/packet/cost_live_tc.bash
COST_BUILT := $(COST_RUN) $(OUTPUT)/bench/bpf_run_stats $(RAWFLOOD) $(PASS_OBJ) $(TC_OK_OBJ)

.PHONY: install-cost uninstall-cost
install: install-cost
uninstall: uninstall-cost

install-cost: $(COST_BUILT)
	$(Q)for f in $(COST_SCRIPTS); do install -D -m 0755 $$f $(DESTDIR)$(COSTDIR)/$$f; done
	$(Q)for f in $(COST_SOURCED); do install -D -m 0644 $$f $(DESTDIR)$(COSTDIR)/$$f; done
	$(Q)for f in $(COST_BUILT); do \
		install -D $$f $(DESTDIR)$(COSTDIR)/build/$${f#$(OUTPUT)/}; done
	$(Q)mkdir -p $(DESTDIR)$(SBINDIR)
	$(Q)sed 's|@COSTDIR@|$(COSTDIR)|g' bench/cost/fizzbuzzfib-cost.in \
		>$(DESTDIR)$(SBINDIR)/fizzbuzzfib-cost
	$(Q)chmod 0755 $(DESTDIR)$(SBINDIR)/fizzbuzzfib-cost
	$(Q)install -D -m 0644 man/fizzbuzzfib-cost.8 $(DESTDIR)$(MANDIR)/man8/fizzbuzzfib-cost.8

uninstall-cost:
	$(Q)rm -rf $(DESTDIR)$(COSTDIR) $(DESTDIR)$(SBINDIR)/fizzbuzzfib-cost \
		$(DESTDIR)$(MANDIR)/man8/fizzbuzzfib-cost.8

bench-build: $(TC_OK_OBJ)
$(TC_OK_OBJ): testing/tc_ok.bpf.c
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# The type tests' programs (bench/cost/packet/cost_tc.bats), from
# testing/cost_types_probe.bpf.c, and Cloudflare's cls_redirect
# (testing/third_party/cls_redirect): a TC program nobody here wrote. -D__x86_64__: its
# <stdint.h> is glibc's, which takes -target bpf for a 32-bit target; BPF is 64-bit, as
# x86-64 is.
COST_TYPE_PROBES := $(addprefix $(OUTPUT)/testing/,cost_tc_probe.bpf.o \
		    cost_tc_probe_planted.bpf.o cost_tc_probe_egress.bpf.o \
		    cost_tc_probe_mixed.bpf.o cost_xdp_tx_probe.bpf.o)
CLS_REDIRECT_OBJ := $(OUTPUT)/testing/cls_redirect.bpf.o
test-build: $(COST_TYPE_PROBES) $(CLS_REDIRECT_OBJ)

$(OUTPUT)/testing/cost_tc_probe_planted.bpf.o: COST_TYPE_FLAGS := -DCOST_PLANTED
$(OUTPUT)/testing/cost_tc_probe_egress.bpf.o: COST_TYPE_FLAGS := -DCOST_TCX_EGRESS
$(OUTPUT)/testing/cost_tc_probe_mixed.bpf.o: COST_TYPE_FLAGS := -DCOST_MIXED
$(OUTPUT)/testing/cost_xdp_tx_probe.bpf.o: COST_TYPE_FLAGS := -DCOST_XDP_TX
$(COST_TYPE_PROBES): testing/cost_types_probe.bpf.c
	$(call msg,BPF,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(COST_TYPE_FLAGS) -c $< -o $@

$(CLS_REDIRECT_OBJ): testing/third_party/cls_redirect/test_cls_redirect.c \
		     testing/third_party/cls_redirect/test_cls_redirect.h
	$(call msg,BPF,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) -O2 -g -target bpf -D__x86_64__ $(ARCH_INCLUDES) -c $< -o $@

# The Linux selftests' XDP IP-in-IP encapsulator (testing/third_party/xdp_iptunnel): a
# program nobody here wrote that rewrites its frames, for bench/cost/packet/cost_capture.bats.
XDP_IPTUNNEL_OBJ := $(OUTPUT)/testing/xdp_iptunnel.bpf.o
test-build: $(XDP_IPTUNNEL_OBJ)

$(XDP_IPTUNNEL_OBJ): testing/third_party/xdp_iptunnel/test_xdp.c \
		     testing/third_party/xdp_iptunnel/test_iptunnel_common.h
	$(call msg,BPF,$@)
	@mkdir -p $(@D)
	@# Its bounds checks compare header pointers with void *, as the kernel's tree allows.
	$(Q)$(CLANG) -O2 -g -target bpf -D__x86_64__ -Wno-compare-distinct-pointer-types \
		$(ARCH_INCLUDES) -c $< -o $@

# The chain tests' programs (bench/cost/chain/cost_chain.bats), from
# testing/cost_chain_probe.bpf.c: a three-hop XDP chain, the same in TC, and the chains a
# user gets wrong.
COST_CHAIN_PROBES := $(addprefix $(OUTPUT)/testing/,cost_chain_probe.bpf.o \
		     cost_chain_probe_tc.bpf.o cost_chain_probe_empty.bpf.o \
		     cost_chain_probe_loop.bpf.o cost_chain_probe_none.bpf.o \
		     cost_chain_probe_planted.bpf.o)
test-build: $(COST_CHAIN_PROBES)

$(OUTPUT)/testing/cost_chain_probe_tc.bpf.o: COST_CHAIN_FLAGS := -DCOST_CHAIN_TC
$(OUTPUT)/testing/cost_chain_probe_empty.bpf.o: COST_CHAIN_FLAGS := -DCOST_CHAIN_EMPTY
$(OUTPUT)/testing/cost_chain_probe_loop.bpf.o: COST_CHAIN_FLAGS := -DCOST_CHAIN_LOOP
$(OUTPUT)/testing/cost_chain_probe_none.bpf.o: COST_CHAIN_FLAGS := -DCOST_CHAIN_NONE
$(OUTPUT)/testing/cost_chain_probe_planted.bpf.o: COST_CHAIN_FLAGS := -DCOST_CHAIN_PLANTED
$(COST_CHAIN_PROBES): testing/cost_chain_probe.bpf.c
	$(call msg,BPF,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(COST_CHAIN_FLAGS) -c $< -o $@

# The path tests' program (bench/cost/packet/cost_path.bats): an XDP program and a TC
# program in one object, testing/cost_path_probe.bpf.c.
COST_PATH_PROBE := $(OUTPUT)/testing/cost_path_probe.bpf.o
test-build: $(COST_PATH_PROBE)

$(COST_PATH_PROBE): testing/cost_path_probe.bpf.c
	$(call msg,BPF,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# cost-compare's sides' own state where they differ, over MAPS= and SET=:
# BASE_MAPS=, CANDIDATE_MAPS=, BASE_SET=, CANDIDATE_SET= (bench/cost/cost.sh reads them).
cost-compare: export FBF_COST_BASE_MAPS = $(BASE_MAPS)
cost-compare: export FBF_COST_CANDIDATE_MAPS = $(CANDIDATE_MAPS)
cost-compare: export FBF_COST_BASE_SET = $(BASE_SET)
cost-compare: export FBF_COST_CANDIDATE_SET = $(CANDIDATE_SET)

# bench/cost/cost_state.bats's Katran-like probe: per-CPU connection tables in an array of
# maps (MAPS's per-cpu), and the same array declaring no inner map, as Katran's object does.
COST_MOM_PROBES := $(addprefix $(OUTPUT)/testing/,cost_mom_probe.bpf.o \
		   cost_mom_probe_no_inner.bpf.o)
test-build: $(COST_MOM_PROBES)
$(OUTPUT)/testing/cost_mom_probe_no_inner.bpf.o: COST_MOM_FLAGS := -DCOST_MOM_NO_INNER
$(COST_MOM_PROBES): testing/cost_mom_probe.bpf.c
	$(call msg,BPF,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(COST_MOM_FLAGS) -c $< -o $@

# bench/cost/cost_lines.bats's compare: testing/cost_lines_probe.bpf.c, and a candidate made
# from it with a comment above every line, a file of another name and one line changed.
COST_LINES_PROBE := $(OUTPUT)/testing/cost_lines_probe.bpf.o
COST_LINES_MOVED := $(OUTPUT)/testing/cost_lines_moved/renamed_probe.bpf.o
test-build: $(COST_LINES_PROBE) $(COST_LINES_MOVED)
$(COST_LINES_PROBE): testing/cost_lines_probe.bpf.c
	$(call msg,BPF,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@
$(COST_LINES_MOVED): testing/cost_lines_probe.bpf.c
	$(call msg,BPF,$@)
	@mkdir -p $(@D)
	$(Q)sed -e '1a /* A comment that shifts every line below it. */' \
		-e 's|^\th ^= h >> 13;|\th ^= h % 1000003;|' $< >$(@D)/renamed_probe.bpf.c
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $(@D)/renamed_probe.bpf.c -o $@
