# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make cost OBJ=PATH [PROG=NAME] [MAPS=FILE] [PCAP=FILE] [KERNELS=...]   what any XDP object
#                 costs: the verifier's figures, each frame shape (and with PCAP, a capture's
#                 frames, in order) through BPF_PROG_TEST_RUN, and the whole path on a veth,
#                 beside bare XDP_PASS (as root); with KERNELS,
#                 the verifier's figures on those kernels too, each booted under QEMU
# make cost-compare BASE=PATH CANDIDATE=PATH [PROG=NAME] [MAPS=FILE] [PCAP=FILE] [KERNELS=...] two
#                 objects side by side in one run, with the gate's statistics and verdict
# (bench/cost/cost.sh; docs/benchmarks.md, "Measure your own program")

COST_RUN := $(OUTPUT)/bench/cost_run
COST_OBJS := $(call obj,bench/cost/cost_run.c bench/cost/cost_cpus.c bench/cost/cost_hold.c \
	     bench/cost/cost_object.c bench/cost/cost_events.c bench/cost/cost_corpus.c \
	     bench/cost/cost_capture.c bench/cost/cost_replay.c \
	     bench/cost/cost_type.c bench/cost/cost_type_xdp.c \
	     bench/kernel/kernel_cases.c) $(TESTING_OBJS) $(LIB_OBJS)
# The test programs of bench/cost/cost.bats, from testing/cost_probe.bpf.c.
COST_PROBES := $(addprefix $(OUTPUT)/testing/,cost_probe.bpf.o cost_probe_planted.bpf.o \
	       cost_probe_two.bpf.o cost_probe_refused.bpf.o cost_probe_config.bpf.o \
	       cost_probe_shared_counter.bpf.o cost_probe_percpu_counter.bpf.o \
	       cost_probe_maps_of_maps.bpf.o)
# bench/cost/cost_capture.bats's: a program that rewrites its frames.
COST_REWRITE := $(OUTPUT)/testing/cost_rewrite.bpf.o

.PHONY: cost cost-compare

# Only the KERNELS a user names: the matrix's default is make test-kernels' and the gate's.
COST_KERNELS = $(if $(filter command line environment,$(origin KERNELS)),$(strip $(KERNELS)))
# Fetched first, unless FBF_KERNELS says where they already are.
COST_FETCH = $(if $(COST_KERNELS),$(if $(FBF_KERNELS),,kernels))

bench-build: $(COST_RUN) $(OUTPUT)/bench/bpf_run_stats
test-build: $(COST_PROBES) $(COST_REWRITE)

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

$(COST_REWRITE): testing/cost_rewrite.bpf.c
	$(call msg,BPF,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

cost: check-deps all bench-build $(COST_FETCH)
	$(Q)FBF_COST_KERNELS="$(COST_KERNELS)" FBF_KERNELS=$(KERNELS_DIR) \
		bench/cost/cost.sh measure "$(OBJ)" "$(PROG)" "$(MAPS)" "$(PCAP)"

cost-compare: check-deps all bench-build $(COST_FETCH)
	$(Q)FBF_COST_KERNELS="$(COST_KERNELS)" FBF_KERNELS=$(KERNELS_DIR) \
		bench/cost/cost.sh compare "$(BASE)" "$(CANDIDATE)" "$(PROG)" "$(MAPS)" "$(PCAP)"

TEST_BATS += bench/cost/cost.bats bench/cost/cost_report.bats bench/cost/cost_capture.bats

# make install: the tool as fizzbuzzfib-cost beside the agent, with what it runs (its
# scripts and the lab's, the loader, the flooder, bare XDP_PASS) under COSTDIR, laid out
# as in this tree so the scripts find each other as they do here.
COSTDIR ?= $(PREFIX)/lib/fizzbuzzfib-cost
COST_SCRIPTS := bench/cost/cost.sh bench/cost/cost_live.sh bench/cost/cost_report.py \
		bench/report.py bench/measured_on.py bench/gate/gate.py
COST_SOURCED := bench/kernel/flood.bash testing/netns.bash testing/http_server.py
COST_BUILT := $(COST_RUN) $(OUTPUT)/bench/bpf_run_stats $(RAWFLOOD) $(PASS_OBJ)

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

uninstall-cost:
	$(Q)rm -rf $(DESTDIR)$(COSTDIR) $(DESTDIR)$(SBINDIR)/fizzbuzzfib-cost
