#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# What any XDP, TC or tracing object costs (make cost, make cost-compare); a tracing
# object's programs (kprobe, fentry, tracepoint, raw_tp, tp_btf, lsm, uprobe, perf_event)
# are measured by bench/cost/trace/trace.sh, which says how:
#
#   cost.sh measure OBJECT [PROG [MAPS [PCAP]]]
#       the verifier's figures, every frame shape of the corpus through
#       BPF_PROG_TEST_RUN beside the bare program of its type (XDP_PASS,
#       TC_ACT_OK: cost_run type names it), on one CPU and on 1, 2, 4, ... CPUs
#       at once, the whole path on a veth in each mode of its type (XDP: native
#       and skb; TC: the hook its section names) (cost_live.sh): one table, and
#       cost.bmf.json and cost.html (bench/cost/cost_html.py) in FBF_COST_OUT
#   cost.sh compare BASE CANDIDATE [PROG [MAPS [BASE_PROG [CANDIDATE_PROG [PCAP]]]]]
#       both objects side by side in one run (the base twice, for the A/A),
#       judged with the regression gate's statistics: exit 0 or 1 and a line;
#       cost-compare.bmf.json and cost.html in FBF_COST_OUT, named before that line;
#       BASE_PROG and CANDIDATE_PROG name each object's program where the
#       names differ (PROG names both)
#   cost.sh figures PROG ARM=OBJECT... FILE
#       (in a guest) the static figures of each arm's object, as the kernel it
#       runs on makes them, into FILE (bench/kernel/matrix.bash)
#
# PROG names the program in an object with several; MAPS is a file of
# map entries to fill before any frame runs, one "MAP KEY VALUE" a line in
# hex bytes ("MAP per-cpu [TYPE KEY_SIZE VALUE_SIZE MAX_ENTRIES]": a map of maps
# given one map per CPU, defined so where the object declares none), or a map's `bpftool map dump -j` named NAME.json after it, or a
# directory of those (docs/benchmarks.md); PCAP is a capture (pcap or pcapng)
# whose frames run too, in its order (cost_replay.h), and which the live part
# floods, looping, in place of its one frame. State, from the environment:
#   FBF_COST_SET (make's SET=): NAME=VALUE,... global variables set before the load
#   FBF_COST_CHAIN (make's CHAIN=): 'MAP[INDEX]=PROG MAP[INDEX]=OBJECT:PROG ...', the prog
#       array slots to fill after the load, over the object's own (bench/cost/chain/cost_chain.h)
#   FBF_COST_CHAIN_MAPS (make's CHAIN_MAPS=): 'OBJECT=MAPS ...', the state of a CHAIN
#       slot's other object, its OBJECT as CHAIN writes it (MAPS= fills the entry's object)
#   FBF_COST_TC (make's TC=): '[OBJECT:]PROG', a TC program the live part attaches on the
#       veth's ingress after the measured XDP program, the two a path: each one's share
#       (bench/cost/packet/cost_path.bash); PROG alone: one of OBJECT's own
#   FBF_COST_BASE_MAPS, FBF_COST_CANDIDATE_MAPS, FBF_COST_BASE_SET, FBF_COST_CANDIDATE_SET
#       (make's BASE_MAPS=...): a compare's side's own MAPS or SET, where the sides differ
# Settings, from the environment:
#   FBF_COST_ROUNDS (10), FBF_COST_REPEAT (100000): test_run rounds (1 or more), runs per
#       sample, on one CPU and on each CPU count
#   FBF_COST_LIVE_ROUNDS (3), FBF_COST_FLOOD_SECONDS (2): the veth floods; rounds 0: none
#   FBF_COST_TC_NO_TCX=1: a TC program attached through a clsact qdisc even where the
#       kernel has tcx (bench/cost/packet/cost_type_tc.c reads it)
#   FBF_COST_OUT ($FBF_BUILD/results): where the BMF files go
#   FBF_COST_LINES=1 (make's LINES=1): the programs' hottest source lines too, sampled
#       with perf (bench/cost/cost_lines.bash, its settings)
#   FBF_COST_KERNELS: kernels of the matrix (names under FBF_KERNELS, or directories, as
#       the gate takes them) to boot under QEMU, once each, for the verifier's figures there
# Exit statuses: bench/cost/cost_exits.h.
set -euo pipefail

here=$(dirname "$0")
build=${FBF_BUILD:-$here/../../build}
rounds=${FBF_COST_ROUNDS:-10}
repeat=${FBF_COST_REPEAT:-100000}
live_rounds=${FBF_COST_LIVE_ROUNDS:-3}
flood_seconds=${FBF_COST_FLOOD_SECONDS:-2}
out=${FBF_COST_OUT:-$build/results}
kernels=${FBF_COST_KERNELS:-}
globals=${FBF_COST_SET:-}
chain=${FBF_COST_CHAIN:-}
lines=${FBF_COST_LINES:-}
exit_usage=2 exit_open=3 exit_failed=10 exit_kernel=11 exit_type_option=12

# FBF_COST_INSTALLED (set by fizzbuzzfib-cost): the user gives positional arguments, not
# make's variables, and is told so.
usage_text()
{
	if [ -n "${FBF_COST_INSTALLED:-}" ]; then
		cat <<-EOF
		usage: fizzbuzzfib-cost measure OBJECT [PROG [MAPS [PCAP]]]
		       fizzbuzzfib-cost compare BASE CANDIDATE [PROG [MAPS [BASE_PROG [CANDIDATE_PROG
		            [PCAP]]]]]
		(PROG, MAPS...: "" to leave one out; globals: FBF_COST_SET=NAME=VALUE,...;
		prog array slots: FBF_COST_CHAIN='MAP[INDEX]=[OBJECT:]PROG ...';
		another object's state there: FBF_COST_CHAIN_MAPS='OBJECT=MAPS ...';
		a TC program after the XDP one, a path: FBF_COST_TC=[OBJECT:]PROG;
		a compare's side's own: FBF_COST_BASE_MAPS, FBF_COST_CANDIDATE_SET...;
		hot lines: FBF_COST_LINES=1; a tracing program's workload: FBF_COST_WORKLOAD=COMMAND;
		man fizzbuzzfib-cost)
		EOF
	else
		cat <<-EOF
		usage: make cost OBJ=PATH [PROG=NAME] [MAPS=FILE|DIR] [SET=NAME=VALUE,...] [PCAP=FILE]
		            [CHAIN='MAP[INDEX]=[OBJECT:]PROG ...'] [CHAIN_MAPS='OBJECT=MAPS ...']
		            [KERNELS=...] [LINES=1] [WORKLOAD="COMMAND"] [TC=[OBJECT:]PROG]
		       make cost-compare BASE=PATH CANDIDATE=PATH [PROG=NAME | BASE_PROG=NAME
		            CANDIDATE_PROG=NAME] [MAPS=FILE|DIR] [SET=NAME=VALUE,...] [PCAP=FILE]
		            [CHAIN=...] [CHAIN_MAPS=...] [KERNELS=...] [LINES=1] [BASE_MAPS=...
		            CANDIDATE_MAPS=... BASE_SET=... CANDIDATE_SET=...]
		EOF
	fi
}

# usage [WHY]: the line that says what was wrong, then the usage; the run ends, exit 2.
usage()
{
	[ -z "${1:-}" ] || echo "cost: $1" >&2
	usage_text >&2
	exit $exit_usage
}

# too_many MAX ARG...: more positional arguments than the command takes end the run here,
# never silently ignored.
too_many()
{
	local max=$1

	shift
	[ $# -le "$max" ] ||
		usage "$cmd takes at most $max arguments, and got $# (the last: ${*: -1})"
}

# need_maps PATH: MAPS is a directory of dumps or a readable file, and not a capture
# given in its place, or the run ends here.
need_maps()
{
	[ -d "$1" ] || need_file MAPS "$1"
	case $(od -An -tx1 -N4 "$1" 2>/dev/null | tr -d ' ') in
	d4c3b2a1 | a1b2c3d4 | 4d3cb2a1 | a1b23c4d | 0a0d0d0a)
		usage "MAPS $1 is a capture (pcap or pcapng): give it as PCAP"
		;;
	esac
}

# side_state MAPS SET ARM...: a compare's side's own MAPS or SET (FBF_COST_BASE_MAPS,
# FBF_COST_CANDIDATE_SET...: make's BASE_MAPS=...), over the shared ones, for its arms: a
# candidate that renamed a map, or added a global.
side_state()
{
	local maps=$1 set=$2 arm

	shift 2
	[ -z "$maps" ] || need_maps "$maps"
	for arm in "$@"; do
		[ -z "$maps" ] || load_args+=(-M "$arm=$maps")
		[ -z "$set" ] || load_args+=(-S "$arm=$set")
	done
}

# need_file WHAT PATH: PATH is a readable file, or the run ends here.
need_file()
{
	[ -n "$2" ] || usage "no $1 given"
	if [ ! -f "$2" ] || [ ! -r "$2" ]; then
		echo "cost: $1 $2 is not a readable file" >&2
		exit $exit_open
	fi
}

# shellcheck source=bench/cost/cost_lines.bash
. "$here/cost_lines.bash"
# shellcheck source=bench/cost/packet/cost_path.bash
. "$here/packet/cost_path.bash"

# A guest's part: no checks, no report, the figures alone.
if [ "${1:-}" = figures ]; then
	# shellcheck source=bench/kernel/matrix.bash
	. "$here/../kernel/matrix.bash"
	shift
	[ $# -ge 3 ] || usage
	prog=$1 file=${*: -1}
	set -- "${@:2:$#-2}"
	# SET's globals too, each side's own where a compare gave one: the verifier prunes what
	# a frozen .rodata value rules out. MAPS are not needed: no frame runs here.
	side_sets=()
	[ -z "${FBF_COST_BASE_SET:-}" ] || side_sets+=(-S "base=$FBF_COST_BASE_SET")
	[ -z "${FBF_COST_CANDIDATE_SET:-}" ] || side_sets+=(-S "candidate=$FBF_COST_CANDIDATE_SET")
	matrix_figures "$file" "$build/bench/cost_run" run -r 0 ${prog:+-p "$prog"} \
		${globals:+-s "$globals"} "${side_sets[@]}" "$@"
	exit
fi

# matrix_prepare ARM=OBJECT...: the kernels of FBF_COST_KERNELS found, and the objects
# copied where a guest sees them (it has its own /tmp); or one line and the run ends.
matrix_prepare()
{
	local kernel arm

	[ -n "$kernels" ] || return 0
	tree=$(cd "$here/../.." && pwd)
	export FBF_KERNELS=${FBF_KERNELS:-$tree/build/kernels}
	if [ ! -x "$tree/testing/vm/vm-run" ]; then
		echo "cost: KERNELS boots kernels with the project's testing/vm/vm-run: run" \
		     "make cost KERNELS=... in its tree" >&2
		exit $exit_kernel
	fi
	# shellcheck source=bench/kernel/matrix.bash
	. "$here/../kernel/matrix.bash"
	for kernel in $kernels; do
		matrix_dir cost "$kernel" >/dev/null || exit $exit_kernel
	done
	matrix_root=$(cd "$build" && pwd)/results/cost-kernels
	guest_arms=()
	mkdir -p "$matrix_root/objects"
	for arm in "$@"; do
		cp "${arm#*=}" "$matrix_root/objects/${arm%%=*}.bpf.o"
		guest_arms+=("${arm%%=*}=$matrix_root/objects/${arm%%=*}.bpf.o")
	done
}

# matrix_run: each kernel booted once for the figures; sets matrix_args (gate.py's on:).
matrix_run()
{
	matrix_args=()
	[ -n "$kernels" ] || return 0
	(cd "$tree" && FBF_BUILD=$(cd "$build" && pwd) matrix_measure cost "$matrix_root" \
		"$kernels" "FBF_BUILD FBF_COST_SET FBF_COST_BASE_SET FBF_COST_CANDIDATE_SET" \
		bench/cost/cost.sh figures "$prog" "${guest_arms[@]}") >&2
	for kernel in $kernels; do
		matrix_args+=("on:$(basename "$kernel")=$matrix_root/$(basename "$kernel")/figures.tsv")
	done
}

# time_arms FILE ARM=OBJECT...: every frame shape on each arm, on one CPU, then on
# 1, 2, 4, ... CPUs at once (bench/cost/packet/cost_run cpus: the capture's frames, where
# there is one), the samples into FILE, and both runs' #map lines: the events each map
# took.
time_arms()
{
	local file=$1

	shift
	"$build/bench/cost_run" run -r "$rounds" -n "$repeat" "${load_args[@]}" \
		${pcap:+-P "$pcap"} "$@" >"$file"
	[ "$rounds" -eq 0 ] ||
		"$build/bench/cost_run" cpus -r "$rounds" -n "$repeat" "${load_args[@]}" \
			${pcap:+-P "$pcap"} "$@" |
		grep -v -e '^#prog' -e '^#object' -e '^#type' -e '^#action' -e '^#refused' \
			-e '^#capture' -e '^#skipped' -e '^#hops' -e '^#fell-through' \
			-e $'\tcost/prog\t' -e $'\tcost/hop/' >>"$file"
}

# --help anywhere: the usage, on stdout, before anything is checked.
for arg in "$@"; do
	case $arg in
	-h | --help) usage_text; exit 0 ;;
	esac
done

[ "$(id -u)" -eq 0 ] ||
	{ echo "cost: needs root (loading BPF programs, veth pairs): run it with sudo" >&2
	  exit $exit_failed; }
for tool in "$build/bench/cost_run" "$build/bench/cost_trace" "$build/xdp_pass.bpf.o" \
	    "$build/tc_ok.bpf.o"; do
	[ -e "$tool" ] || { echo "cost: $tool is missing: run make bench-build" >&2
			    exit $exit_failed; }
done

# prog_type OBJECT PROG: "TYPE BARE_ARM MODE..." of the object's program (cost_run type);
# an object the tool cannot measure ends the run with cost_run's line and status.
prog_type()
{
	"$build/bench/cost_run" type ${2:+-p "$2"} "$1" || exit
}

# family OBJECT PROG: the hook family that measures the object's program (cost_trace
# family): "packet" (XDP, TC: cost_run, here) or "trace" (bench/cost/trace/trace.sh); an
# object of neither ends the run with its line and status.
family()
{
	"$build/bench/cost_trace" family ${2:+-p "$2"} "$1" || exit
}

# trace_only WHAT: an option of the packet family given for a tracing object ends the run.
trace_only()
{
	echo "cost: $1 is for XDP and TC programs; a tracing program's hooks are fired by its" \
	     "workload (WORKLOAD=)" >&2
	exit $exit_type_option
}

# arm NAME OBJECT PROG: the arm as cost_run takes it, NAME:PROG=OBJECT where PROG is given.
arm() { echo "$1${3:+:$3}=$2"; }

cmd=${1:-}
shift || usage "no command: measure or compare"
# No round times nothing: the report has no shape to read and no figure to draw, so a
# count that is no count ends the run here, in one line, before anything is loaded.
if ! [[ $rounds =~ ^[1-9][0-9]*$ ]]; then
	echo "cost: FBF_COST_ROUNDS=$rounds: give 1 or more rounds (none would time nothing)" >&2
	exit $exit_usage
fi
work=$(mktemp -d /tmp/fbf-cost-run.XXXXXX)
trap 'rm -rf "$work"' EXIT
load_args=()
[ -z "$globals" ] || load_args+=(-s "$globals")
[ -z "$chain" ] || load_args+=(-C "$chain")
# shellcheck disable=SC2086 # one OBJECT=MAPS a word
for word in ${FBF_COST_CHAIN_MAPS:-}; do
	if [ -z "$chain" ]; then
		echo "cost: CHAIN_MAPS gives the state of a CHAIN slot's object, and no CHAIN is" \
		     "given: name the slot with CHAIN='MAP[INDEX]=OBJECT:PROG'" >&2
		exit $exit_usage
	fi
	load_args+=(-O "$word")
done
export FBF_COST_SET=$globals
# The settings as run, for the HTML report's header (bench/cost/cost_html.py).
export FBF_COST_ROUNDS=$rounds FBF_COST_REPEAT=$repeat FBF_COST_LIVE_ROUNDS=$live_rounds \
	FBF_COST_FLOOD_SECONDS=$flood_seconds

# check_capture: PCAP read as the runs will read it, before any of them: a bad
# one ends the run here with cost_run's line and status; the frames that run
# into $work/capture.pcap, for the live part, and what it leaves out of that
# (the "#unflooded" line) into $work/unflooded.
check_capture()
{
	[ -n "$pcap" ] || return 0
	need_file PCAP "$pcap"
	"$build/bench/cost_run" capture "$pcap" "$work/capture.pcap" >"$work/capture.out"
	grep '^#unflooded' "$work/capture.out" >"$work/unflooded" || true
}

# flooded: whether any of the capture's frames is in the live part's flood.
flooded()
{
	awk -F'\t' '$1 == "#capture" { run = $3 } $1 == "#unflooded" { left = $2 }
		END { exit !(run > left) }' "$work/capture.out"
}

case $cmd in
measure)
	too_many 4 "$@"
	obj=${1:-} prog=${2:-} maps=${3:-} pcap=${4:-}
	need_file OBJ "$obj"
	[ -z "$maps" ] || need_maps "$maps"
	fam=$(family "$obj" "$prog") || exit
	if [ "$fam" = trace ]; then
		[ -z "$pcap" ] || trace_only PCAP
		[ -z "$kernels" ] || trace_only KERNELS
		[ -z "$chain" ] || trace_only CHAIN
		[ -z "${FBF_COST_TC:-}" ] || trace_only TC
		exec "$here/trace/trace.sh" measure "$obj" "$prog" "$maps"
	fi
	check_capture
	[ -z "$prog" ] || load_args+=(-p "$prog")
	[ -z "$maps" ] || load_args+=(-m "$maps")
	type=$(prog_type "$obj" "$prog")
	read -r type bare modes <<<"$type"
	path_check "$obj" "$prog" "$type" "$live_rounds"
	matrix_prepare "$bare=$build/$bare.bpf.o" "prog=$obj"
	time_arms "$work/samples.tsv" "$bare=$build/$bare.bpf.o" "prog=$obj"
	live=()
	if [ "$live_rounds" -gt 0 ] && [ -n "$pcap" ] && ! flooded; then
		echo "cost: no frame of PCAP fits the veth's 1500-byte MTU (1514 bytes, 1518" \
		     "with a VLAN tag): no live part" >&2
	elif [ "$live_rounds" -gt 0 ]; then
		command -v ethtool >/dev/null ||
			{ echo "cost: ethtool is missing: install the Debian packages with make deps" >&2
			  exit $exit_failed; }
		# shellcheck disable=SC2086 # $modes: one word per mode
		FBF_BUILD=$build FBF_COST_PATH_TC=$path_tc "$here/packet/cost_live.sh" "$type" "$bare" "$obj" "$prog" "$maps" \
			"$live_rounds" "$flood_seconds" "${pcap:+$work/capture.pcap}" $modes \
			>"$work/live.tsv"
		[ -z "$pcap" ] || cat "$work/unflooded" >>"$work/live.tsv"
		live=("$work/live.tsv")
	fi
	matrix_run
	if [ -n "$lines" ]; then
		lines_sample "$out/lines" "prog=$obj"
		matrix_args+=("lines:$out/lines")
	fi
	"$here/cost_report.py" measure "$out" "$obj" "$work/samples.tsv" "${live[@]}" \
		"${matrix_args[@]}"
	;;
compare)
	too_many 7 "$@"
	if [ -n "${FBF_COST_TC:-}" ]; then
		echo "cost: TC= is measured in the live part, which a compare has none of: give" \
		     "it to make cost" >&2
		exit $path_exit_no_live
	fi
	base=${1:-} candidate=${2:-} prog=${3:-} maps=${4:-}
	base_prog=${5:-$prog} candidate_prog=${6:-$prog} pcap=${7:-}
	need_file BASE "$base"
	need_file CANDIDATE "$candidate"
	[ -z "$maps" ] || need_maps "$maps"
	base_fam=$(family "$base" "$base_prog") || exit
	candidate_fam=$(family "$candidate" "$candidate_prog") || exit
	if [ "$base_fam" = trace ] || [ "$candidate_fam" = trace ]; then
		[ -z "$pcap" ] || trace_only PCAP
		[ -z "$kernels" ] || trace_only KERNELS
		[ -z "$chain" ] || trace_only CHAIN
		if [ "$base_fam" != "$candidate_fam" ]; then
			echo "cost: one of BASE and CANDIDATE holds tracing programs, the other" \
			     "packet programs: compare objects of one family" >&2
			exit $exit_type_option
		fi
		if [ "$base_prog" != "$candidate_prog" ] && { [ -z "$base_prog" ] ||
		   [ -z "$candidate_prog" ]; }; then
			echo "cost: BASE_PROG and CANDIDATE_PROG name one program each: give both" \
			     "(or PROG= for both)" >&2
			exit $exit_usage
		fi
		exec "$here/trace/trace.sh" compare "$base" "$candidate" "$base_prog" "$maps" \
			"$candidate_prog"
	fi
	check_capture
	[ -z "$maps" ] || load_args+=(-m "$maps")
	side_state "${FBF_COST_BASE_MAPS:-}" "${FBF_COST_BASE_SET:-}" base base-again
	side_state "${FBF_COST_CANDIDATE_MAPS:-}" "${FBF_COST_CANDIDATE_SET:-}" candidate
	base_type=$(prog_type "$base" "$base_prog")
	candidate_type=$(prog_type "$candidate" "$candidate_prog")
	if [ "${base_type%%$'\t'*}" != "${candidate_type%%$'\t'*}" ]; then
		echo "cost: the base's program is ${base_type%%$'\t'*}, the candidate's" \
		     "${candidate_type%%$'\t'*}: compare programs of one type" >&2
		exit $exit_type_option
	fi
	arms=("$(arm base "$base" "$base_prog")" "$(arm base-again "$base" "$base_prog")"
	      "$(arm candidate "$candidate" "$candidate_prog")")
	matrix_prepare "$(arm base "$base" "$base_prog")" \
		"$(arm candidate "$candidate" "$candidate_prog")"
	time_arms "$work/samples.tsv" "${arms[@]}"
	matrix_run
	if [ -n "$lines" ]; then
		lines_sample "$out/lines" "${arms[0]}" "${arms[2]}"
		matrix_args+=("lines:$out/lines")
	fi
	status=0
	"$here/cost_report.py" compare "$out" "$work/samples.tsv" "${matrix_args[@]}" ||
		status=$?
	# A timing regression alone is confirmed by a second run, as the gate does.
	if [ "$status" -eq 3 ]; then
		time_arms "$work/confirm.tsv" "${arms[@]}"
		status=0
		"$here/cost_report.py" compare "$out" "$work/samples.tsv" "${matrix_args[@]}" \
			"$work/confirm.tsv" >"$work/confirm.out" || status=$?
		tail -n 1 "$work/confirm.out"
	fi
	exit "$status"
	;;
*)
	usage "$cmd is no command: measure or compare comes first"
	;;
esac
