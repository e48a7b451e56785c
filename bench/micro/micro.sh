#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make bench-micro: the classifier in userspace, timed with Google Benchmark
# and counted with callgrind. Tables on stdout; BMF files in $FBF_RESULTS.
set -euo pipefail

build=${FBF_BUILD:?FBF_BUILD is set by make}
results=${FBF_RESULTS:-$build/results}
reps=${FBF_MICRO_REPS:-10}
mkdir -p "$results"

echo "== micro: timing ($reps repetitions, random interleaving) =="
# On a terminal, Google Benchmark's own lines show progress; in CI they only go to the log.
console=/dev/null
[ -t 1 ] && [ -z "${CI:-}" ] && console=/dev/stderr
"$build/bench/micro_timing" --benchmark_repetitions="$reps" \
	--benchmark_enable_random_interleaving=true --benchmark_min_time=0.2 \
	--benchmark_display_aggregates_only=true \
	--benchmark_out="$results/micro-timing.gbench.json" --benchmark_out_format=json 2>&1 |
	tee "$results/micro-timing.console.txt" >"$console"
bench/report.py gbench "$results/micro-timing.gbench.json" "$results/micro-timing.bmf.json"

echo
echo "== micro: instruction counts (callgrind) =="
bench/micro/callgrind.sh "$build" "$results/callgrind"
bench/report.py callgrind "$results/callgrind" "$results/micro-count.bmf.json"
