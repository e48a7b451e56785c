#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The XDP program in the kernel under real traffic, on both transports side
# by side: the classifier attached by the agent (queue map, ring buffer, and
# on the queue sampled at 1 in 16 and 1 in 256, --sample), then a bare
# XDP_PASS program attached by xdp-loader, taking turns round after round on
# one veth pair with two queues. FBF_BASE_AGENT=PATH adds
# another agent's two transports as arms of their own (-base, -base-ringbuf):
# a change to the event path measured against what it changes, in one run.
# Each arm gets
#
#   - HTTP requests from the traffic generator: ns per packet, and the age
#     of the events the agent printed (p50, p99 of age_ns, from --json);
#   - the same HTTP with the agent reading, then stopped: the reader's share
#     (not for the sampled arms, whose reader has little to read);
#   - a raw flood of minimum-size frames from one CPU, then from two CPUs at
#     once (one rawflood pinned to each), so that two CPUs produce events
#     into the one queue or ring: ns per packet, and the events lost.
#
# The run_time_ns / run_cnt read are those of the program attached to the
# interface: libxdp's dispatcher where it loads (the component programs are
# called from it and have no statistics of their own), else the program
# itself. The difference of the classifier's and XDP_PASS's means is the
# classifier's cost per packet in the path production traffic takes; not
# their ratio, since most of XDP_PASS's figure is the statistics' own clock
# reads (about 20 ns a run). Prints raw samples for bench/report.py on
# stdout. The queue's benchmarks keep the names they had before the ring.
#
#   macro_live.sh [ROUNDS [REQUESTS [FLOOD_SECONDS]]]
set -euo pipefail

. "$(dirname "$0")/../../testing/netns.bash"

rounds=${1:-5}
requests=${2:-2000}
flood_seconds=${3:-2}
rawflood=$FBF_BUILD/rawflood
# Raw frames' (spoofed) sources: 4096 addresses of every class.
flood_first=10.213.16.1
flood_count=4096
progress=
[ -t 2 ] && [ -z "${CI:-}" ] && progress=1

if [ "$(id -u)" -ne 0 ]; then
	echo "macro_live: needs root (network namespaces, veth pairs, XDP)" >&2
	exit 1
fi
[ -x "$rawflood" ] || { echo "macro_live: $rawflood is missing: run make" >&2; exit 1; }

# Arm names and the agent's options for each; xdp_pass is attached by xdp-loader.
arms=(xdp_fizzbuzzfib xdp_fizzbuzzfib-ringbuf xdp_fizzbuzzfib-sample16
      xdp_fizzbuzzfib-sample256 xdp_pass)
declare -A arm_args=(
	[xdp_fizzbuzzfib]=""
	[xdp_fizzbuzzfib-ringbuf]="--transport ringbuf"
	[xdp_fizzbuzzfib-sample16]="--sample 16"
	[xdp_fizzbuzzfib-sample256]="--sample 256"
)
declare -A arm_agent=()
if [ -n "${FBF_BASE_AGENT:-}" ]; then
	arms=(xdp_fizzbuzzfib-base xdp_fizzbuzzfib-base-ringbuf "${arms[@]}")
	arm_args[xdp_fizzbuzzfib-base]=""
	arm_args[xdp_fizzbuzzfib-base-ringbuf]="--transport ringbuf"
	arm_agent[xdp_fizzbuzzfib-base]=$FBF_BASE_AGENT
	arm_agent[xdp_fizzbuzzfib-base-ringbuf]=$FBF_BASE_AGENT
fi

work=$(mktemp -d /tmp/fbf-macro.XXXXXX)
agent_pid=
cleanup()
{
	[ -n "$agent_pid" ] && kill "$agent_pid" 2>/dev/null && wait "$agent_pid" 2>/dev/null
	fbf_net_down
	rm -rf "$work"
}
fbf_cleanup_on_exit cleanup
FBF_VETH_QUEUES=2 fbf_net_up "$work"

# attach ARM [AGENT ARGS...]: the arm's program on the server veth.
attach()
{
	local arm=$1

	shift
	if [ "$arm" = xdp_pass ]; then
		fbf_in_srv xdp-loader load --mode native "$FBF_VETH_SRV" "$FBF_BUILD/xdp_pass.bpf.o"
		return
	fi
	# shellcheck disable=SC2086 # the arm's options are words
	AGENT=${arm_agent[$arm]:-$AGENT} fbf_agent_start "$work/agent.out" "$work/agent.err" \
		--mode native ${arm_args[$arm]} "$@"
	agent_pid=$FBF_AGENT_PID
}

detach()
{
	if [ "$1" = xdp_pass ]; then
		fbf_in_srv xdp-loader unload --all "$FBF_VETH_SRV"
		return
	fi
	kill -INT "$agent_pid" && wait "$agent_pid"
	agent_pid=
}

# stats NAME COMMAND...: run COMMAND with BPF run-time statistics on, print
# NAME's ns per packet and packet count, and keep "NS CNT" in $work/NAME.last.
stats()
{
	local name=$1 line cnt ns

	shift
	"$FBF_BUILD/bench/bpf_run_stats" "$(fbf_attached_prog_id)" -- "$@" >"$work/run.out"
	line=$(grep '^run_cnt=' "$work/run.out")
	cnt=$(grep -o 'run_cnt=[0-9]*' <<<"$line" | cut -d= -f2)
	ns=$(grep -o 'run_time_ns=[0-9]*' <<<"$line" | cut -d= -f2)
	[ "$cnt" -gt 0 ] || { echo "macro_live: $name never ran" >&2; exit 1; }
	printf '%s\tlatency\t%s\n' "$name" "$(awk -v n="$ns" -v c="$cnt" \
		'BEGIN { printf "%.2f", n / c }')"
	printf '%s\tpackets\t%s\n' "$name" "$cnt"
	echo "$ns $cnt" >"$work/${name//\//_}.last"
}

# overhead NAME PASS_NAME: ns per packet of NAME's last sample over PASS_NAME's.
overhead()
{
	local a b c d

	read -r a b <"$work/${1//\//_}.last"
	read -r c d <"$work/${2//\//_}.last"
	awk -v a="$a" -v b="$b" -v c="$c" -v d="$d" 'BEGIN { printf "%.2f", a / b - c / d }'
}

# The HTTP requests through the arm's program, and the age of what it printed.
http()
{
	local arm=$1 name=macro/live/$1

	stats "$name" nsenter --net="/run/netns/$FBF_NS_CLI" "$TRAFFICGEN" --url "$FBF_URL" \
		--source "$(fbf_source_list)" --requests "$requests" --concurrency 8 --quiet
	printf '%s\tthroughput\t%s\n' "$name" \
		"$(grep -o 'rate=[0-9.]*' "$work/run.out" | cut -d= -f2)"
}

# flood CPUS...: one rawflood pinned to each CPU, all at once; prints frames sent.
flood()
{
	local cpu pids=() total=0 n

	for cpu in "$@"; do
		taskset -c "$cpu" nsenter --net="/run/netns/$FBF_NS_CLI" "$rawflood" \
			"$FBF_VETH_CLI" "$flood_seconds" "$flood_first" "$flood_count" \
			"$FBF_SERVER" >"$work/flood-$cpu.out" 2>"$work/flood-$cpu.err" &
		pids+=($!)
	done
	for cpu in "${!pids[@]}"; do
		wait "${pids[cpu]}" || { cat "$work"/flood-*.err >&2; return 1; }
	done
	for cpu in "$@"; do
		read -r n <"$work/flood-$cpu.out"
		total=$((total + n))
	done
	echo "$total"
}
export -f flood
export rawflood flood_seconds flood_first flood_count work FBF_SERVER

# reader_share ARM: the same HTTP with the agent reading, then stopped (SIGSTOP)
# while the program runs: what the reader beside the program costs it, in
# cache lines the two share. Both with a buffer that holds every event, so
# that none is lost (a lost event is cheaper) and the two runs differ in the
# reader only.
reader_share()
{
	local arm=$1 state

	for state in running stopped; do
		attach "$arm" --quiet --queue-size 1048576
		[ "$state" = stopped ] && kill -STOP "$agent_pid"
		http "$arm/reader-$state"
		[ "$state" = stopped ] && kill -CONT "$agent_pid"
		detach "$arm"
	done
}

# percentile P FILE: the P-th percentile of the numbers in FILE, one per line.
percentile()
{
	sort -n "$2" | awk -v p="$1" '{ v[NR] = $1 } END {
		if (NR) { i = int(NR * p / 100 + 0.999); printf "%d", v[i < 1 ? 1 : i] } }'
}

for round in $(seq "$rounds"); do
	for arm in "${arms[@]}"; do
		# HTTP, and for the agents the age of every event they printed.
		if [ "$arm" = xdp_pass ]; then
			attach "$arm"
		else
			attach "$arm" --json
		fi
		http "$arm"
		detach "$arm"
		if [ "$arm" != xdp_pass ]; then
			grep -o '"age_ns":[0-9]*' "$work/agent.out" | cut -d: -f2 >"$work/ages"
			printf 'macro/live/%s\tage-p50\t%s\n' "$arm" "$(percentile 50 "$work/ages")"
			printf 'macro/live/%s\tage-p99\t%s\n' "$arm" "$(percentile 99 "$work/ages")"
			[[ "$arm" == *-sample* ]] || reader_share "$arm"
		fi

		# Raw floods from one CPU, then from two.
		for cpus in 1 2; do
			attach "$arm" --quiet
			stats "macro/flood/$arm/$cpus-cpu" bash -c "flood $(seq -s ' ' 0 $((cpus - 1)))"
			detach "$arm"
			[ "$arm" = xdp_pass ] && continue
			awk -v p="$(fbf_summary_value "$work/agent.err" produced)" \
				-v l="$(fbf_summary_value "$work/agent.err" lost_queue_full)" \
				-v n="macro/flood/$arm/$cpus-cpu" 'BEGIN {
				printf "%s\tlost-percent\t%.2f\n", n, p ? 100 * l / p : 0 }'
		done
	done

	# Each arm's cost over XDP_PASS's, from this round's samples.
	for arm in "${arms[@]}"; do
		[ "$arm" = xdp_pass ] && continue
		suffix=${arm#xdp_fizzbuzzfib}
		printf 'macro/live/overhead%s\tlatency\t%s\n' "$suffix" \
			"$(overhead "macro/live/$arm" macro/live/xdp_pass)"
		for cpus in 1 2; do
			printf 'macro/flood/overhead%s/%s-cpu\tlatency\t%s\n' "$suffix" "$cpus" \
				"$(overhead "macro/flood/$arm/$cpus-cpu" "macro/flood/xdp_pass/$cpus-cpu")"
		done
	done
	[ -n "$progress" ] && printf '\rmacro_live: round %d/%d' "$round" "$rounds" >&2
done
[ -n "$progress" ] && echo >&2
exit 0
