# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# What the chain tests (bench/cost/chain/cost_chain.bats, cost_chain_third_party.bats) share:
# their setup, and what they read from the cost tool's table.

# chain_setup: root, the results in the test's folder, short rounds and no live part.
chain_setup()
{
	fbf_bench_setup
	[ "$(id -u)" -eq 0 ] || skip "needs root: the tool loads BPF programs"
	export FBF_COST_OUT=$RESULTS FBF_COST_ROUNDS=${FBF_COST_ROUNDS:-2}
	export FBF_COST_REPEAT=${FBF_COST_REPEAT:-1000}
	export FBF_COST_LIVE_ROUNDS=0
}

# hops SHAPE: the hops column of the chain's table for SHAPE in $output, as "a > b > c".
hops()
{
	awk -v s="$1" '$1 == s && NF > 2 { $1 = ""; $NF = ""; print substr($0, 2, length($0) - 2) }' \
		<<<"$output"
}
