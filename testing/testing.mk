# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The lab that the tests and the benchmarks share: the bare XDP_PASS
# program, the BPF fixture, the frames, the reference model (and
# ref_classify, the shell's way to it), wake_probe
# (single events, each awaited: lost wake-ups and delivery time), and
# drain_rate, which fills an agent's queue or ring and times its drain;
# kernel_facts, what a kernel does with the programs (tests/run-kernels).

PASS_OBJ := $(OUTPUT)/xdp_pass.bpf.o
TESTING_OBJS := $(call obj,testing/bpf_fixture.c testing/frames.c testing/ref_parser.c)
DRAIN_RATE := $(OUTPUT)/testing/drain_rate
WAKE_PROBE := $(OUTPUT)/testing/wake_probe
REF_CLASSIFY := $(OUTPUT)/testing/ref_classify
KERNEL_FACTS := $(OUTPUT)/testing/kernel_facts

lab: $(PASS_OBJ) $(DRAIN_RATE) $(WAKE_PROBE) $(REF_CLASSIFY) $(KERNEL_FACTS)

$(PASS_OBJ): testing/xdp_pass.bpf.c
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(DRAIN_RATE): $(call obj,testing/drain_rate.c) $(TESTING_OBJS) $(LIB_OBJS)
$(KERNEL_FACTS): $(call obj,testing/kernel_facts.c) $(TESTING_OBJS) $(LIB_OBJS)
$(DRAIN_RATE) $(KERNEL_FACTS):
	$(call msg,BINARY,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LIBBPF_LIBS) -o $@

$(REF_CLASSIFY): $(call obj,testing/ref_classify.c testing/ref_parser.c)
$(REF_CLASSIFY):
	$(call msg,BINARY,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@

$(WAKE_PROBE): $(call obj,testing/wake_probe.c testing/frames.c)
	$(call msg,BINARY,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ -lm -o $@

# nats_stream: a JetStream stream read back message by message, for the NATS
# output's suite (tests/e2e/outputs.bats); links nats.c (libnats-dev).
NATS_STREAM := $(OUTPUT)/testing/nats_stream

lab: $(NATS_STREAM)

$(NATS_STREAM): $(call obj,testing/nats_stream.c)
	$(call msg,BINARY,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(NATS_LIBS) -o $@
