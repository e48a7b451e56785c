# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The hot lines' samples (make cost LINES=1, sourced by bench/cost/cost.sh): the arms'
# frames run again, on one CPU, while perf samples that process, and each program's line
# table as it was loaded; bench/cost/cost_lines.py places the samples on lines.
#
# Settings, from the environment:
#   FBF_COST_LINES_ROUNDS (5): test_run rounds sampled, every frame shape (and PCAP's
#       frames) in each, FBF_COST_REPEAT runs of each
#   FBF_COST_LINES_HZ (20000): samples a second: often, as the runs that feed the
#       program events spend most of their time emptying its maps, unsampled
# The event: hardware cycles where the CPU counts them, else the cpu-clock software event
# (a VM without a PMU); the table names which.

# lines_event: the event perf samples on this host.
lines_event()
{
	if perf stat -x, -e cycles -- true 2>&1 >/dev/null | grep -q '^[0-9][0-9]*,'; then
		echo cycles
	else
		echo cpu-clock
	fi
}

# lines_record DIR COMMAND...: COMMAND run while perf samples it: perf.data, perf.txt and
# event ("EVENT HZ SECONDS": what was sampled, how often, and how long the sampled runs
# took) in DIR, which cost_lines.py reads beside the line tables COMMAND writes there.
lines_record()
{
	local dir=$1 event hz=${FBF_COST_LINES_HZ:-20000} start=$SECONDS

	shift
	command -v perf >/dev/null ||
		{ echo "cost: LINES=1 samples with perf, which is missing: install the Debian" \
		       "packages with make deps" >&2; exit "$exit_failed"; }
	mkdir -p "$dir"
	event=$(lines_event)
	if ! perf record -q -e "$event" -F "$hz" -g -o "$dir/perf.data" -- "$@" >/dev/null; then
		echo "cost: LINES=1: the sampled runs failed (the lines above say why)" >&2
		exit "$exit_failed"
	fi
	perf script -i "$dir/perf.data" -F ip,sym >"$dir/perf.txt" 2>/dev/null
	echo "$event $hz $((SECONDS - start))" >"$dir/event"
}

# lines_sample DIR ARM=OBJECT...: the arms' frames run again while perf samples them
# (lines_record), and each program's line table, lines.tsv. The runs pinned to the last
# CPU this process may use; perf follows the process, not the CPU, so another process on
# that CPU adds nothing to the profile.
lines_sample()
{
	local dir=$1 cpu

	shift
	cpu=$(python3 -c 'import os; print(max(os.sched_getaffinity(0)))')
	lines_record "$dir" taskset -c "$cpu" "$build/bench/cost_run" run \
		-r "${FBF_COST_LINES_ROUNDS:-5}" -n "$repeat" -L "$dir/lines.tsv" "${load_args[@]}" \
		${pcap:+-P "$pcap"} "$@"
}
