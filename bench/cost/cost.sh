#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# What any XDP object costs (make cost, make cost-compare):
#
#   cost.sh measure OBJECT [PROG [MAPS]]
#       the verifier's figures, every frame shape of the corpus through
#       BPF_PROG_TEST_RUN beside bare XDP_PASS (cost_run), the whole path on
#       a veth in native and skb mode (cost_live.sh): one table, and
#       cost.bmf.json in FBF_COST_OUT
#   cost.sh compare BASE CANDIDATE [PROG [MAPS]]
#       both objects side by side in one run (the base twice, for the A/A),
#       judged with the regression gate's statistics: exit 0 or 1 and a line
#
# PROG names the XDP program in an object with several; MAPS is a file of
# map entries to fill before any frame runs, one "MAP KEY VALUE" a line in
# hex bytes (docs/benchmarks.md). Settings, from the environment:
#   FBF_COST_ROUNDS (10), FBF_COST_REPEAT (100000): test_run rounds, runs per sample
#   FBF_COST_LIVE_ROUNDS (3), FBF_COST_FLOOD_SECONDS (2): the veth floods; rounds 0: none
#   FBF_COST_OUT ($FBF_BUILD/results): where the BMF files go
# Exit statuses: bench/cost/cost_exits.h.
set -euo pipefail

here=$(dirname "$0")
build=${FBF_BUILD:-$here/../../build}
rounds=${FBF_COST_ROUNDS:-10}
repeat=${FBF_COST_REPEAT:-100000}
live_rounds=${FBF_COST_LIVE_ROUNDS:-3}
flood_seconds=${FBF_COST_FLOOD_SECONDS:-2}
out=${FBF_COST_OUT:-$build/results}
exit_usage=2 exit_open=3 exit_failed=10

usage()
{
	cat >&2 <<-EOF
	usage: make cost OBJ=PATH [PROG=NAME] [MAPS=FILE]
	       make cost-compare BASE=PATH CANDIDATE=PATH [PROG=NAME] [MAPS=FILE]
	installed: fizzbuzzfib-cost measure OBJECT [PROG [MAPS]]
	           fizzbuzzfib-cost compare BASE CANDIDATE [PROG [MAPS]]
	EOF
	exit $exit_usage
}

# need_file WHAT PATH: PATH is a readable file, or the run ends here.
need_file()
{
	[ -n "$2" ] || usage
	if [ ! -f "$2" ] || [ ! -r "$2" ]; then
		echo "cost: $1 $2 is not a readable file" >&2
		exit $exit_open
	fi
}

[ "$(id -u)" -eq 0 ] ||
	{ echo "cost: needs root (loading BPF programs, veth pairs): run it with sudo" >&2
	  exit $exit_failed; }
for tool in "$build/bench/cost_run" "$build/xdp_pass.bpf.o"; do
	[ -e "$tool" ] || { echo "cost: $tool is missing: run make bench-build" >&2
			    exit $exit_failed; }
done

cmd=${1:-}
shift || usage
work=$(mktemp -d /tmp/fbf-cost-run.XXXXXX)
trap 'rm -rf "$work"' EXIT
load_args=()

case $cmd in
measure)
	obj=${1:-} prog=${2:-} maps=${3:-}
	need_file OBJ "$obj"
	[ -z "$maps" ] || need_file MAPS "$maps"
	[ -z "$prog" ] || load_args+=(-p "$prog")
	[ -z "$maps" ] || load_args+=(-m "$maps")
	"$build/bench/cost_run" run -r "$rounds" -n "$repeat" "${load_args[@]}" \
		"xdp_pass=$build/xdp_pass.bpf.o" "prog=$obj" >"$work/samples.tsv"
	live=()
	if [ "$live_rounds" -gt 0 ]; then
		command -v ethtool >/dev/null ||
			{ echo "cost: ethtool is missing: install the Debian packages with make deps" >&2
			  exit $exit_failed; }
		FBF_BUILD=$build "$here/cost_live.sh" "$obj" "$prog" "$maps" "$live_rounds" \
			"$flood_seconds" >"$work/live.tsv"
		live=("$work/live.tsv")
	fi
	"$here/cost_report.py" measure "$out" "$obj" "$work/samples.tsv" "${live[@]}"
	;;
compare)
	base=${1:-} candidate=${2:-} prog=${3:-} maps=${4:-}
	need_file BASE "$base"
	need_file CANDIDATE "$candidate"
	[ -z "$maps" ] || need_file MAPS "$maps"
	[ -z "$prog" ] || load_args+=(-p "$prog")
	[ -z "$maps" ] || load_args+=(-m "$maps")
	arms=("base=$base" "base-again=$base" "candidate=$candidate")
	"$build/bench/cost_run" run -r "$rounds" -n "$repeat" "${load_args[@]}" "${arms[@]}" \
		>"$work/samples.tsv"
	status=0
	"$here/cost_report.py" compare "$out" "$work/samples.tsv" || status=$?
	# A timing regression alone is confirmed by a second run, as the gate does.
	if [ "$status" -eq 3 ]; then
		"$build/bench/cost_run" run -r "$rounds" -n "$repeat" "${load_args[@]}" \
			"${arms[@]}" >"$work/confirm.tsv"
		status=0
		"$here/cost_report.py" compare "$out" "$work/samples.tsv" "$work/confirm.tsv" \
			>"$work/confirm.out" || status=$?
		tail -n 1 "$work/confirm.out"
	fi
	exit "$status"
	;;
*)
	usage
	;;
esac
