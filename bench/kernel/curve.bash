# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# What the CPU-curve benchmarks share (curve_test_run.sh, curve_flood.sh, and
# trickle.sh some of it): the agent's designs, the CPU the agent drains on,
# the CPU counts measured, and what the agent's summary says it delivered and
# lost. Load it after testing/netns.bash and flood.bash.

# curve_rounds NAME ROUNDS: 1 to ROUNDS, one a line; a ROUNDS that is not a
# count ends the script NAME with exit 2, before anything is measured.
curve_rounds()
{
	[[ $2 =~ ^[1-9][0-9]*$ ]] || { echo "$1: ROUNDS '$2' is not a count of rounds" >&2; exit 2; }
	seq "$2"
}

# The designs, and the agent's options for each; every one in the agent's
# default mode, the one a user gets. Events are read and counted, not printed.
# FBF_CURVE_DESIGNS measures some of them (an older agent's shared maps
# beside this one's, say, where the others need not be measured again).
read -ra curve_designs <<<"${FBF_CURVE_DESIGNS:-queue ring aggregate sample64}"
declare -A curve_design_args=(
	[queue]="--quiet"
	[ring]="--transport ringbuf --quiet"
	# Its intervals go to a file: the counts read are what it delivers.
	[aggregate]="--aggregate 1"
	[sample64]="--sample 64 --quiet"
)
for design in "${curve_designs[@]}"; do
	[ -n "${curve_design_args[$design]+set}" ] || {
		echo "curve: FBF_CURVE_DESIGNS: no design '$design' (${!curve_design_args[*]})" >&2
		exit 2
	}
done

# The agent drains on the last CPU; the producers (test_run threads, floods)
# take the others, from CPU 0 up.
curve_agent_cpu=$(($(nproc) - 1))

# curve_lab_up NAME QUEUES: as root on 2 CPUs or more, the test network in a
# new $work, QUEUES queues per veth; the agent whose pid agent_pid holds is
# stopped at exit. NAME: the script's, for its errors. Its first row names
# this host (bench/measured_on.py), for a report made on another.
curve_lab_up()
{
	local model

	model=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
	printf '# measured-on\t%s, %s CPUs\t%s\n' "${model:-unknown}" \
		"$(getconf _NPROCESSORS_ONLN)" "$(uname -r)"
	if [ "$(id -u)" -ne 0 ]; then
		echo "$1: needs root (network namespaces, veth pairs, XDP)" >&2
		exit 1
	fi
	if [ "$curve_agent_cpu" -lt 1 ]; then
		echo "$1: needs 2 CPUs or more: one for the agent, one for what it drains" >&2
		exit 1
	fi
	work=$(mktemp -d /tmp/fbf-curve.XXXXXX)
	agent_pid=
	fbf_lab_up agent_pid "$2"
}

# curve_counts MAX: 1, 2, 4, ... below MAX, then MAX: the CPU counts measured;
# or those FBF_CURVE_CPUS lists ("1 8 63": a big host's ends and middle in
# less time), none above MAX.
curve_counts()
{
	local n=1

	if [ -n "${FBF_CURVE_CPUS:-}" ]; then
		for n in $FBF_CURVE_CPUS; do
			[[ $n =~ ^[1-9][0-9]*$ ]] && [ "$n" -le "$1" ] || {
				echo "curve: FBF_CURVE_CPUS: '$n' is not a CPU count from 1 to $1" >&2
				return 2
			}
		done
		echo "$FBF_CURVE_CPUS" | tr -s ' ' '\n'
		return 0
	fi
	while [ "$n" -lt "$1" ]; do
		echo "$n"
		n=$((n * 2))
	done
	echo "$1"
}

# curve_agent_start DESIGN: the agent of DESIGN on the server veth, pinned to
# its CPU, output to $work/agent.out and $work/agent.err; sets agent_pid.
curve_agent_start()
{
	# shellcheck disable=SC2086 # the design's options are words
	fbf_srv_start "$work/agent.out" "$work/agent.err" taskset -c "$curve_agent_cpu" \
		"$AGENT" --iface "$FBF_VETH_SRV" ${curve_design_args[$1]}
	agent_pid=$FBF_AGENT_PID
}

# curve_agent_stop NAME SECONDS: stop the agent and print NAME's delivered and
# lost per second of SECONDS, and the percent lost, from its summary: events,
# or under --aggregate the frames counted and read, and those counted as
# no_room.
curve_agent_stop()
{
	local name=$1 seconds=$2 delivered lost key

	kill -INT "$agent_pid"
	wait "$agent_pid"
	agent_pid=
	curve_delivered "$name" >/dev/null || return 1
	for key in delivered lost_queue_full lost_queue_busy aggregated_read no_room; do
		printf -v "$key" '%s' "$(fbf_summary_value "$work/agent.err" "$key")"
		printf -v "$key" '%s' "${!key:-0}"
	done
	delivered=$((delivered + aggregated_read))
	lost=$((lost_queue_full + lost_queue_busy + no_room))
	awk -v n="$name" -v d="$delivered" -v l="$lost" -v s="$seconds" 'BEGIN {
		printf "%s\tdelivered-per-s\t%.0f\n", n, d / s
		printf "%s\tlost-per-s\t%.0f\n", n, l / s
		printf "%s\tlost-percent\t%.3f\n", n, d + l ? 100 * l / (d + l) : 0
	}'
}

# curve_delivered NAME: the events the stopped agent's summary says it
# delivered; fails, showing what it said, where it has none: every agent's
# summary has delivered, and without it the figures would read 0.
curve_delivered()
{
	local delivered

	delivered=$(fbf_summary_value "$work/agent.err" delivered)
	[ -n "$delivered" ] ||
		{ echo "$1: no summary from the agent:" >&2; cat "$work/agent.err" >&2; return 1; }
	echo "$delivered"
}
