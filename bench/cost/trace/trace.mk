# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The cost tool's tracing family (bench/cost/trace/): cost_trace, which attaches an
# object's tracing programs, fires their hooks and reads bpf_stats, beside cost_run,
# which test-runs packet programs; make cost and make cost-compare choose between
# them by the object's programs (cost_trace family).

COST_TRACE := $(OUTPUT)/bench/cost_trace
# The shared core but the frame shapes (cost_corpus.c). cost_object.c calls the core's type
# registry (cost_type.c), which names the packet family's types: those link in too.
COST_TRACE_OBJS := $(call obj,$(wildcard bench/cost/trace/*.c) bench/cost/cost_object.c \
		   bench/cost/cost_state.c bench/cost/cost_dump.c bench/cost/cost_lines.c \
		   bench/cost/cost_events.c bench/cost/cost_type.c \
		   bench/cost/packet/cost_type_xdp.c bench/cost/packet/cost_type_tc.c \
		   bench/cost/packet/cost_hold.c bench/kernel/kernel_cases.c) \
		   $(TESTING_OBJS)
# The tests' own programs, from testing/cost_trace_probe.bpf.c, one per -D.
COST_TRACE_PROBE_VARIANTS := shared percpu uprobe no_func no_tp lsm no_binary no_symbol \
			     unfired other_type raw_tp perf_event kprobe_multi
COST_TRACE_PROBES := $(foreach v,$(COST_TRACE_PROBE_VARIANTS),\
		     $(OUTPUT)/testing/cost_trace_$(v).bpf.o)

bench-build: $(COST_TRACE)
test-build: $(COST_TRACE_PROBES)

$(COST_TRACE): $(COST_TRACE_OBJS) $(LIB_OBJS)
	$(call msg,BINARY,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LIBBPF_LIBS) -lpthread -o $@

$(COST_TRACE_PROBES): $(OUTPUT)/testing/cost_trace_%.bpf.o: testing/cost_trace_probe.bpf.c
	$(call msg,BPF,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DTRACE_$(shell echo $* | tr a-z A-Z) -c $< -o $@

TEST_BATS += bench/cost/trace/cost_trace.bats bench/cost/trace/trace_html.bats

# make install: the tracing family beside the packet and chain ones, under COSTDIR
# (bench/cost/cost.mk).
COST_SCRIPTS += bench/cost/trace/trace.sh bench/cost/trace/trace_report.py \
		bench/cost/trace/trace_html.py
.PHONY: install-cost-trace
install-cost: install-cost-trace
install-cost-trace: $(COST_TRACE)
	$(Q)install -D $(COST_TRACE) $(DESTDIR)$(COSTDIR)/build/bench/cost_trace
