#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Send the benchmark results to Bencher, for the two continuous-benchmarking
# jobs: tracking the main branch, and checking a candidate branch against it.
#
#   ci/bencher.sh main                 after a merge to main: record, alert on regression
#   ci/bencher.sh candidate BRANCH     before a merge: compare BRANCH with main's history
#
# Results come from `make bench-check` (the gate's measures) and, if present,
# `make bench-micro` and `make bench-macro` in $FBF_RESULTS (default
# build/results). Needs the bencher CLI, BENCHER_API_TOKEN and BENCHER_PROJECT;
# without them it says so and exits 0, so local runs and CI without the
# service are not blocked by it, unless BENCHER_REQUIRED=1, for a CI job whose
# point is to report. BENCHER_TESTBED names the machine class (default: this
# host's kernel and CPU count): compare only like with like.
set -euo pipefail

results=${FBF_RESULTS:-build/results}

usage()
{
	echo "usage: ci/bencher.sh main | candidate BRANCH" >&2
	exit 2
}

job=${1:-}
case "$job" in
main) branch=main ;;
candidate) branch=${2:-} && [ -n "$branch" ] || usage ;;
*) usage ;;
esac

# skip REASON: say why nothing is sent; fail if sending was required.
skip()
{
	if [ "${BENCHER_REQUIRED:-0}" = 1 ]; then
		echo "bencher: $1; BENCHER_REQUIRED=1, so this fails" >&2
		exit 1
	fi
	echo "bencher: $1; results stay in $results (skipped)"
	exit 0
}

command -v bencher >/dev/null || skip "the bencher CLI is not installed"
[ -n "${BENCHER_API_TOKEN:-}" ] && [ -n "${BENCHER_PROJECT:-}" ] ||
	skip "BENCHER_API_TOKEN or BENCHER_PROJECT is not set"
testbed=${BENCHER_TESTBED:-linux-$(uname -r)-$(nproc)cpu}

# Thresholds by measure, as the gate sets them (see bench/gate.py for the why):
# exact counts move only when the code or the toolchain does, so any rise is
# a regression (percentage test, boundary 0); timings and timing ratios are
# noisy, so a t-test over the last 64 results on the branch decides at 99%.
thresholds=()
for measure in instructions estimated-cycles verified-instructions translated-instructions \
	jited-bytes; do
	thresholds+=(--threshold-measure "$measure" --threshold-test percentage
		     --threshold-upper-boundary 0)
done
for measure in latency ratio; do
	thresholds+=(--threshold-measure "$measure" --threshold-test t_test
		     --threshold-max-sample-size 64 --threshold-upper-boundary 0.99)
done
# Throughput regresses downwards.
thresholds+=(--threshold-measure throughput --threshold-test t_test
	     --threshold-max-sample-size 64 --threshold-lower-boundary 0.99)

# One report per BMF file: the json adapter reads the whole file as one result
# set. The raw results, not the gate's comparison: Bencher compares by itself.
for file in "$results"/gate/micro-count.bmf.json "$results"/gate/kernel.bmf.json \
	"$results"/micro-*.bmf.json "$results"/kernel.bmf.json "$results"/live.bmf.json \
	"$results"/drain.bmf.json; do
	[ -f "$file" ] || continue
	args=(--project "$BENCHER_PROJECT" --token "$BENCHER_API_TOKEN" --branch "$branch"
	      --testbed "$testbed" --adapter json --file "$file" --err "${thresholds[@]}")
	if [ "$job" = candidate ]; then
		# Start from main's latest history and thresholds, reset on every run so the
		# candidate never drifts away from what main measures now.
		args+=(--start-point main --start-point-hash "$(git rev-parse main)"
		       --start-point-clone-thresholds --start-point-reset)
	else
		args+=(--thresholds-reset)
	fi
	echo "bencher: $job: $file"
	bencher run "${args[@]}"
done
