#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# How often make cost LINES=1 finds the planted regression (make CANARY=1's v3
# classifier, testing/fizzbuzzfib_v3.h), run after run:
#
#   bench/cost/cost_lines_bench.sh [RUNS]    (as root, after make bench-build and
#                                             make CANARY=1; 10 runs)
#   bench/cost/cost_lines_bench.sh moved [RUNS]
#       (after make test-build) how often cost-compare, on a candidate whose every line
#       a comment shifts, in a file of another name, with one line changed
#       (testing/cost_lines_probe.bpf.c, bench/cost/cost.mk), lists that line as the
#       top one rising, and as the only one
#
# Each run: make cost on the canary with its event queue off (SET=sample_every=0,
# the classifier most of the program) and on (as shipped), and make cost-compare of
# the shipped build against the canary. Per run one line: the top line of each, the
# top mover, the share of the program's samples placed on a line and the seconds the
# lines section took; then the counts. The lines section as make cost runs it (its
# settings, FBF_COST_LINES_*); the rest of the table in short rounds, as it is not
# what is measured here.
set -euo pipefail

cd "$(dirname "$0")/../.."
runs=${1:-10}
build=${FBF_BUILD:-build}
v3=testing/fizzbuzzfib_v3.h
work=$(mktemp -d /tmp/fbf-lines-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
export FBF_COST_LINES=1 FBF_COST_ROUNDS=2 FBF_COST_LIVE_ROUNDS=0 FBF_COST_OUT=$work

# top FILE HEAD: the line column of the first row under the table headed HEAD.
top() { awk -v h="$2" '$0 ~ "^" h { t = 1; next } t && NF { print $0; exit }' "$1"; }
# figures FILE WHO: "PLACED% SECONDS" of the section's first line.
figures()
{
	grep -o "$2: [0-9,]* samples in the program, [0-9.]*%" "$1" | awk '{ printf "%s ", $NF }'
	grep -o '[0-9]* s to sample' "$1" | awk '{ print $1 " s" }'
}

# moved_runs RUNS: the shifted and renamed candidate's compare, run after run.
moved_runs()
{
	local top=0 only=0 rising run

	for run in $(seq "$1"); do
		bench/cost/cost.sh compare "$build/testing/cost_lines_probe.bpf.o" \
			"$build/testing/cost_lines_moved/renamed_probe.bpf.o" >"$work/compare" 2>&1 ||
			true
		rising=$(awk '/^points +base/ { t = 1; next } t && !NF { exit } t && /^ *\+/' \
			"$work/compare")
		[[ "$(head -n 1 <<<"$rising")" != *"h ^= h % 1000003;" ]] || top=$((top + 1))
		[ "$(grep -c . <<<"$rising")" -ne 1 ] || only=$((only + 1))
		echo "run $run: rising: $(awk '{ printf "%s %s; ", $1, $5 }' <<<"$rising")"
	done
	echo "of $1 runs: the changed line the top one rising $top, the only one rising $only"
}

if [ "${1:-}" = moved ]; then
	moved_runs "${2:-10}"
	exit
fi

quiet=0 loud=0 moved=0 loop_moved=0
for run in $(seq "$runs"); do
	FBF_COST_SET=sample_every=0 bench/cost/cost.sh measure build-canary/fizzbuzzfib.bpf.o \
		>"$work/quiet" 2>&1
	bench/cost/cost.sh measure build-canary/fizzbuzzfib.bpf.o >"$work/loud" 2>&1
	bench/cost/cost.sh compare "$build/fizzbuzzfib.bpf.o" build-canary/fizzbuzzfib.bpf.o \
		>"$work/compare" 2>&1 || true
	q=$(top "$work/quiet" 'share +line' | awk '{ print $2 }')
	l=$(top "$work/loud" 'share +line' | awk '{ print $2 }')
	m=$(top "$work/compare" 'points +base' | awk '{ print $1, $5 }')
	m3=$(awk '/^points +base/ { t = 1; next } t && NF && n++ < 3 { print $5 }' \
		"$work/compare")
	[[ "$q" != "$v3:"* ]] || quiet=$((quiet + 1))
	[[ "$l" != "$v3:"* ]] || loud=$((loud + 1))
	[[ "$m" != +*" $v3:"* ]] || moved=$((moved + 1))
	! grep -qx "$v3:23" <<<"$m3" || loop_moved=$((loop_moved + 1))
	echo "run $run: top, queue off: $q ($(figures "$work/quiet" "the program")); top, as" \
	     "shipped: $l ($(figures "$work/loud" "the program")); top mover: $m; compare" \
	     "$(figures "$work/compare" candidate)"
done
echo "of $runs runs: a canary line on top with the queue off $quiet, as shipped $loud;" \
     "the top mover a canary line, up, $moved; the loop's line ($v3:23) among the top" \
     "3 movers $loop_moved"
