# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make bench-check     the regression gate: this tree against the base that
#                      bench/gate/baseline.json names (or BASE=<rev>), side by side,
#                      with the programs' exact measures on each kernel of KERNELS
#                      too (KERNELS= for this kernel's alone)
# make bench-baseline WHY='...'   make HEAD the gate's base, saying why
# make bench-report    plot the gate's local history (bench-history.tsv) as SVG

# The gate's in-kernel measures go through the cost tool's runner, which bench-build
# builds (bench/cost/cost.mk).

bench-check: check-deps all bench-build $(if $(strip $(KERNELS)),kernels)
	$(Q)FBF_GATE_BASE=$(BASE) FBF_GATE_KERNELS="$(KERNELS)" FBF_KERNELS=$(KERNELS_DIR) \
		bench/gate/gate.sh check

bench-baseline:
	$(Q)bench/gate/gate.sh baseline "$(WHY)"

bench-report: check-deps
	$(Q)bench/gate/history_plot.py $${FBF_HISTORY:-bench-history.tsv} $(OUTPUT)/bench-report

TEST_BATS += bench/gate/gate.bats
