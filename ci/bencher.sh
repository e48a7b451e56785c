#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Send the gate's results to Bencher, for the two continuous-benchmarking
# jobs, after `make bench-check` has measured the base and the candidate side
# by side on this runner:
#
#   ci/bencher.sh main                 after a merge to main: track main's history
#   ci/bencher.sh candidate BRANCH     before a merge: relative benchmarking, the
#                                      base and BRANCH from the same run
#
# candidate follows Bencher's relative continuous benchmarking: the base's
# results reset BRANCH (--start-point-reset), then the candidate's are judged
# against them with percentage thresholds, the gate's own floors (bench/gate/gate.py
# thresholds), so no result from another machine or another moment decides.
# main records the candidate's results and the micro and macro benchmarks, if
# present, with t-tests over main's recent history, for the trend.
#
# Results come from $FBF_RESULTS (default build/results). Needs the bencher
# CLI, BENCHER_API_TOKEN and BENCHER_PROJECT; without them it says so and
# exits 0, unless BENCHER_REQUIRED=1, for a CI job whose point is to report.
# BENCHER_TESTBED names the machine (default: this host's CPU model, kernel
# and CPU count).
set -euo pipefail

cd "$(dirname "$0")/.."
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

[ -f "$results/gate/candidate.bmf.json" ] || skip "no gate results: run make bench-check first"
command -v bencher >/dev/null || skip "the bencher CLI is not installed"
[ -n "${BENCHER_API_TOKEN:-}" ] && [ -n "${BENCHER_PROJECT:-}" ] ||
	skip "BENCHER_API_TOKEN or BENCHER_PROJECT is not set"
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1 | tr -c 'A-Za-z0-9\n' -)
testbed=${BENCHER_TESTBED:-$cpu-linux-$(uname -r)-$(nproc)cpu}
common=(--project "$BENCHER_PROJECT" --token "$BENCHER_API_TOKEN" --testbed "$testbed"
	--adapter json)

# send FILE ARGS...: one report; the json adapter reads the whole file as one result set.
send()
{
	local file=$1

	shift
	echo "bencher: $job: $file"
	bencher run "${common[@]}" --file "$file" "$@"
}

if [ "$job" = candidate ]; then
	thresholds=()
	while read -r measure side fraction; do
		thresholds+=(--threshold-measure "$measure" --threshold-test percentage
			     "--threshold-$side-boundary" "$fraction")
	done < <(bench/gate/gate.py thresholds)
	send "$results/gate/base.bmf.json" --branch "$branch" --start-point-reset \
		--hash "$(git -C build/gate-base rev-parse HEAD 2>/dev/null || git rev-parse HEAD)"
	send "$results/gate/candidate.bmf.json" --branch "$branch" "${thresholds[@]}" \
		--thresholds-reset --err
	exit 0
fi

# main: timings against main's recent history (t-test at 99%); exact counts move only
# when the code or the toolchain does, so any rise alerts.
thresholds=()
while read -r measure side fraction; do
	if [ "$fraction" = 0 ]; then
		thresholds+=(--threshold-measure "$measure" --threshold-test percentage
			     --threshold-upper-boundary 0)
	else
		thresholds+=(--threshold-measure "$measure" --threshold-test t_test
			     --threshold-max-sample-size 64 "--threshold-$side-boundary" 0.99)
	fi
done < <(bench/gate/gate.py thresholds)
for file in "$results/gate/candidate.bmf.json" "$results"/micro-*.bmf.json \
	"$results"/kernel.bmf.json "$results"/live.bmf.json "$results"/drain.bmf.json \
	"$results"/flood.bmf.json; do
	[ -f "$file" ] || continue
	send "$file" --branch main "${thresholds[@]}" --thresholds-reset --err
done
