#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# What a tracing object costs the workload it hooks (bench/cost/cost.sh runs this for an
# object whose programs are kprobes, fentry, tracepoints, raw tracepoints, LSM, uprobes or
# perf_event programs; cost_trace family decides):
#
#   trace.sh measure OBJECT [PROG [MAPS]]
#       each program attached at its section's hook, the hooks fired by the built-in
#       triggers its sections call for (or WORKLOAD), bare and attached in turns: the
#       programs' ns per run and runs per call (bpf_stats), the workloads' ns per call
#       and what the programs add, the events read; then the same on 1, 2, 4 ... CPUs at
#       once: one table, and cost.bmf.json and cost.html (trace_html.py) in FBF_COST_OUT
#   trace.sh compare BASE CANDIDATE [BASE_PROG [MAPS [CANDIDATE_PROG]]]
#       both objects in the same rounds (the base twice, for the A/A), judged with the
#       regression gate's statistics: cost.html named, then exit 0 or 1 and a line;
#       programs of different names (BASE_PROG, CANDIDATE_PROG) are paired under the
#       base's
#
# Settings, from the environment (cost.sh's, and):
#   FBF_COST_WORKLOAD (make's WORKLOAD=): a command run as each workload call, in place
#       of the built-in triggers
#   FBF_COST_ROUNDS (10): rounds; FBF_COST_TRACE_PHASE_MS (100): how long each phase of a
#       round calls the workload
#   FBF_COST_CPU_ROUNDS (3): the CPU curve's rounds; 0: no curve
#   FBF_COST_TRACE_HZ (100): a perf_event program's cpu-clock samples a second per CPU
#   FBF_COST_LINES=1: the programs' hottest source lines, sampled with perf while the
#       workloads run (bench/cost/cost_lines.bash's settings)
# Exit statuses: bench/cost/cost_exits.h.
set -euo pipefail

here=$(dirname "$0")
build=${FBF_BUILD:-$here/../../../build}
out=${FBF_COST_OUT:-$(realpath -m "$build/results")}
rounds=${FBF_COST_ROUNDS:-10}
phase_ms=${FBF_COST_TRACE_PHASE_MS:-100}
cpu_rounds=${FBF_COST_CPU_ROUNDS:-3}
hz=${FBF_COST_TRACE_HZ:-100}
workload=${FBF_COST_WORKLOAD:-}
# The settings as run, for the HTML report's header (bench/cost/trace/trace_html.py).
export FBF_COST_ROUNDS=$rounds FBF_COST_TRACE_PHASE_MS=$phase_ms FBF_COST_CPU_ROUNDS=$cpu_rounds \
	FBF_COST_TRACE_HZ=$hz
lines=${FBF_COST_LINES:-}
globals=${FBF_COST_SET:-}
exit_failed=10
runner=$build/bench/cost_trace

[ -x "$runner" ] || { echo "cost: $runner is missing: run make bench-build" >&2; exit 10; }
work=$(mktemp -d /tmp/fbf-cost-trace.XXXXXX)
trap 'rm -rf "$work"' EXIT

cmd=$1
shift
args=(-t "$phase_ms" -F "$hz")
[ -z "$globals" ] || args+=(-s "$globals")
[ -z "$workload" ] || args+=(-c "$workload")

# shellcheck source=bench/cost/cost_lines.bash
. "$here/../cost_lines.bash"

# trace_lines DIR ARM=OBJECT...: the workloads run again while perf samples them
# (lines_record), and each program's line table. The programs run in the workload's
# threads: perf follows the process, and its kernel samples land in their JIT images.
trace_lines()
{
	local dir=$1

	shift
	mkdir -p "$dir"
	rm -f "$dir"/*
	lines_record "$dir" "$runner" run -r "${FBF_COST_LINES_ROUNDS:-5}" -L "$dir/lines.tsv" \
		"${args[@]}" "$@"
}

case $cmd in
measure)
	obj=$1 prog=${2:-} maps=${3:-}
	[ -z "$prog" ] || args+=(-p "$prog")
	[ -z "$maps" ] || args+=(-m "$maps")
	"$runner" run -r "$rounds" "${args[@]}" "prog=$obj" >"$work/samples.tsv"
	# The object's path, for the page's header (trace_html.py), as cost_run's lines give it.
	printf '#object\tprog\t%s\n' "$obj" >>"$work/samples.tsv"
	report=("$work/samples.tsv")
	if [ "$cpu_rounds" -gt 0 ] && [ -z "$workload" ]; then
		"$runner" cpus -r "$cpu_rounds" "${args[@]}" "prog=$obj" | grep -v '^#' \
			>"$work/cpus.tsv"
		report+=("$work/cpus.tsv")
	fi
	if [ -n "$lines" ]; then
		trace_lines "$out/lines" "prog=$obj"
		report+=("lines:$out/lines")
	fi
	"$here/trace_report.py" measure "$out" "$obj" "${report[@]}"
	;;
compare)
	base=$1 candidate=$2 base_prog=${3:-} maps=${4:-} candidate_prog=${5:-${3:-}}
	[ -z "$maps" ] || args+=(-m "$maps")
	# Programs of different names pair under the base's name.
	[ "$base_prog" = "$candidate_prog" ] || args+=(-N "$base_prog")
	arms=("base${base_prog:+:$base_prog}=$base" "base-again${base_prog:+:$base_prog}=$base"
	      "candidate${candidate_prog:+:$candidate_prog}=$candidate")
	# A side's own MAPS or SET (make's BASE_MAPS=... CANDIDATE_SET=...), where they differ.
	for side in base:BASE base-again:BASE candidate:CANDIDATE; do
		var_maps=FBF_COST_${side#*:}_MAPS var_set=FBF_COST_${side#*:}_SET
		[ -z "${!var_maps:-}" ] || args+=(-M "${side%%:*}=${!var_maps}")
		[ -z "${!var_set:-}" ] || args+=(-S "${side%%:*}=${!var_set}")
	done
	"$runner" run -r "$rounds" "${args[@]}" "${arms[@]}" >"$work/samples.tsv"
	printf '#object\t%s\t%s\n' base "$base" candidate "$candidate" >>"$work/samples.tsv"
	if [ "$cpu_rounds" -gt 0 ] && [ -z "$workload" ]; then
		"$runner" cpus -r "$cpu_rounds" "${args[@]}" "${arms[@]}" | grep -v '^#' \
			>>"$work/samples.tsv"
	fi
	extra=()
	if [ -n "$lines" ]; then
		trace_lines "$out/lines" "${arms[0]}" "${arms[2]}"
		extra+=("lines:$out/lines")
	fi
	status=0
	"$here/trace_report.py" compare "$out" "$work/samples.tsv" "${extra[@]}" || status=$?
	# A timing regression alone is confirmed by a second run, as the gate does.
	if [ "$status" -eq 3 ]; then
		"$runner" run -r "$rounds" "${args[@]}" "${arms[@]}" | grep -v '^#' \
			>"$work/confirm.tsv"
		status=0
		"$here/trace_report.py" compare "$out" "$work/samples.tsv" "$work/confirm.tsv" \
			"${extra[@]}" >"$work/confirm.out" || status=$?
		# The page's line, then the verdict, the last line.
		tail -n 2 "$work/confirm.out"
	fi
	exit "$status"
	;;
*)
	echo "usage: trace.sh measure OBJECT [PROG [MAPS]] | compare BASE CANDIDATE [PROG [MAPS]]" >&2
	exit 2
	;;
esac
