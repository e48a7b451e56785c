#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The regression gate: it passes on this tree against the committed base, and
# it fails on each planted regression, naming what regressed, so it is known
# to be able to fail; a base it cannot have is one clear error.

load gate_helpers
load ../cost/cost_html

setup() { gate_setup; }

@test "the regression gate passes on this tree against the committed base" {
	require_root
	require_base
	gate_on "$FBF_BUILD"
	[ "$status" -eq 0 ]
	[[ "$output" == *"gate: PASS"* ]]
	# Every measure was compared, each with the A/A spread beside it.
	[ "$(grep -c 'within noise\|changed, below threshold\|improved' <<<"$output")" -ge 6 ]
	for f in gate base candidate; do
		python3 -m json.tool "$FBF_BUILD/results/gate/$f.bmf.json" >/dev/null
	done
}

@test "the gate fails on the planted v3 classifier and names what regressed" {
	require_root
	require_base
	build_canary 1
	# What regresses is exact: the timings' rounds are cut to the fewest the gate judges.
	FBF_GATE_KERNEL_ROUNDS=3 FBF_GATE_AGENT_ROUNDS=3 gate_on "$canary"
	[ "$status" -eq 1 ]
	[[ "$output" == *"REGRESSION: classifier/SourceAddr/v4 instructions"* ]]
	[[ "$output" == *"REGRESSION: kernel/xdp_fizzbuzzfib verified-instructions"* ]]
	[[ "$output" == *"REGRESSION: kernel/xdp_fizzbuzzfib-ringbuf verified-instructions"* ]]
	[[ "$output" != *"gate: PASS"* ]]
	# The page of this judgement, named before its verdict, which it holds; each change
	# and interval equal to gate.bmf.json's, read as Chromium reads the page.
	local results=$canary/results/gate
	[[ "$output" == *"HTML report: $results/cost.html"$'\n'"gate: REGRESSION: "* ]]
	if command -v chromium >/dev/null; then
		SHOTS=$FBF_BUILD/results/cost-html
		mkdir -p "$SHOTS"
		browse "$results/cost.html" gate
		check_page compare "$results/gate.bmf.json" fig-changes fig-verdicts fig-figures
		grep -q '<p id="verdict"><b>gate: REGRESSION: classifier/SourceAddr/v4 instructions' \
			"$DOM"
		grep -q '<td>kernel/xdp_fizzbuzzfib</td><td>verified-instructions</td>.*<td>regressed</td>' \
			"$DOM"
	fi
}

@test "the gate fails on the agent canary, one write per event, and names the drain rates" {
	require_root
	require_base
	build_canary agent
	# What regresses is the agent's drain: the programs' timings' rounds are cut to the
	# fewest the gate judges (the second run that confirms a timing runs them again).
	FBF_GATE_KERNEL_ROUNDS=3 gate_on "$canary"
	[ "$status" -eq 1 ]
	# Each event is a line in text and in JSON, on either transport; --quiet
	# writes nothing, and the classifier is the same, so its exact counts must
	# not be blamed.
	[[ "$output" == *"REGRESSION: agent/drain/text throughput"* ]]
	[[ "$output" == *"REGRESSION: agent/drain/json throughput"* ]]
	[[ "$output" == *"REGRESSION: agent/drain/text/ringbuf throughput"* ]]
	[[ "$output" == *"REGRESSION: agent/drain/json/ringbuf throughput"* ]]
	[[ "$output" != *"REGRESSION: classifier"* ]]
	[[ "$output" != *"REGRESSION: kernel/xdp_fizzbuzzfib"* ]]
}

@test "a base that is not in the repository is one line that says what to do" {
	run env FBF_BUILD="$FBF_BUILD" FBF_GATE_BASE=0123456789abcdef0123 bench/gate/gate.sh check
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"'0123456789abcdef0123' is not in this repository"*"BASE=<rev>"* ]]
}

@test "a shallow clone without the base says to unshallow it" {
	local clone=$BATS_TEST_TMPDIR/shallow

	git clone -q --depth 1 "file://$FBF_ROOT" "$clone"
	# A base older than the one commit a shallow clone has.
	run env FBF_BUILD="$FBF_BUILD" FBF_GATE_BASE="$(git rev-list --max-parents=0 HEAD)" \
		bash -c "cd '$clone' && bench/gate/gate.sh check"
	echo "$output"
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"shallow clone: run 'git fetch --unshallow'"* ]]
}

@test "make bench-baseline records HEAD as the base, and only with a reason" {
	local clone=$BATS_TEST_TMPDIR/clone

	git clone -q "$FBF_ROOT" "$clone"
	cd "$clone"
	run make -s bench-baseline
	[ "$status" -ne 0 ]
	[[ "$output" == *"say why the base moves"* ]]
	make -s bench-baseline WHY="a test"
	[ "$(python3 -c 'import json; print(json.load(open("bench/gate/baseline.json"))["base"])')" = \
		"$(git rev-parse HEAD)" ]
	grep -q '"why": "a test"' bench/gate/baseline.json
}

@test "ci/bencher.sh candidate: the base resets the branch, the candidate is judged against it" {
	local bin=$BATS_TEST_TMPDIR/bin results=$BATS_TEST_TMPDIR/results

	# A stand-in for the bencher CLI that records how it was called.
	mkdir -p "$bin" "$results/gate"
	printf '#!/bin/sh\necho "$*" >>"%s/calls"\n' "$BATS_TEST_TMPDIR" >"$bin/bencher"
	chmod +x "$bin/bencher"
	echo '{}' >"$results/gate/base.bmf.json"
	echo '{}' >"$results/gate/candidate.bmf.json"
	PATH=$bin:$PATH BENCHER_API_TOKEN=t BENCHER_PROJECT=p FBF_RESULTS=$results \
		ci/bencher.sh candidate feature
	mapfile -t calls <"$BATS_TEST_TMPDIR/calls"
	[ "${#calls[@]}" -eq 2 ]
	[[ "${calls[0]}" == *"--file $results/gate/base.bmf.json --branch feature --start-point-reset"* ]]
	[[ "${calls[0]}" != *"--err"* ]]
	[[ "${calls[1]}" == *"--file $results/gate/candidate.bmf.json --branch feature"* ]]
	local exact="--threshold-measure instructions --threshold-test percentage"
	local drain="--threshold-measure throughput --threshold-test percentage"
	[[ "${calls[1]}" == *"$exact --threshold-upper-boundary 0 "* ]]
	[[ "${calls[1]}" == *"$drain --threshold-lower-boundary 0.12 "* ]]
	[[ "${calls[1]}" == *"--thresholds-reset --err"* ]]
	# Without a token it sends nothing and does not fail, unless it must report.
	run env PATH="$bin:$PATH" FBF_RESULTS="$results" ci/bencher.sh candidate feature
	[ "$status" -eq 0 ]
	[[ "$output" == *"BENCHER_API_TOKEN or BENCHER_PROJECT is not set"* ]]
	run env PATH="$bin:$PATH" FBF_RESULTS="$results" BENCHER_REQUIRED=1 \
		ci/bencher.sh candidate feature
	[ "$status" -eq 1 ]
}
