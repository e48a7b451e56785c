# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make bench-churn [CHURN_ARGS='--rates 17 --modes events ...']
#                 pods coming and going under the agent over a pattern, at 5, 17 and 50 a
#                 second then in a burst of 300, with events and with --aggregate: what it
#                 holds before and after, RSS, the longest drain gap, the slowest scrape,
#                 CPU per pod, frames missed (as root; bench/churn/churn.py --help)

bench-churn: $(OUTPUT)/agent $(OUTPUT)/xdp_pass.bpf.o
	$(Q)bench/churn/churn.py --agent $(OUTPUT)/agent $(CHURN_ARGS)

.PHONY: bench-churn
