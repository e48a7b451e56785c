# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make bench-check     the regression gate: this tree against the base that
#                      bench/gate/baseline.json names (or BASE=<rev>), side by side,
#                      with the programs' exact measures on each kernel of KERNELS
#                      too (KERNELS= for this kernel's alone)
# make bench-baseline WHY='...'   make HEAD the gate's base, saying why
# make bench-report    plot the gate's local history (bench-history.tsv) as SVG

GATE_KERNEL := $(OUTPUT)/bench/gate_kernel

.PHONY: bench-check bench-baseline bench-report

bench-build: $(GATE_KERNEL)

$(GATE_KERNEL): $(call obj,bench/gate/gate_kernel.c) $(KERNEL_CASES_OBJS)
	$(call msg,BINARY,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LIBBPF_LIBS) -o $@

bench-check: check-deps all bench-build $(if $(strip $(KERNELS)),kernels)
	$(Q)FBF_GATE_BASE=$(BASE) FBF_GATE_KERNELS="$(KERNELS)" FBF_KERNELS=$(KERNELS_DIR) \
		bench/gate/gate.sh check

bench-baseline:
	$(Q)bench/gate/gate.sh baseline "$(WHY)"

bench-report: check-deps
	$(Q)bench/gate/history_plot.py $${FBF_HISTORY:-bench-history.tsv} $(OUTPUT)/bench-report

TEST_BATS += bench/gate/gate.bats
