#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The XDP program in the kernel under real traffic, each way of reporting
# side by side: the classifier attached by the agent sending an event per
# packet (queue map, ring buffer), 1 event in 16 and in 256 (--sample, on
# both), or none, counting packets per source in the kernel and reading the
# counts every second (--aggregate 1), each in the agent's default mode; then
# a bare XDP_PASS program attached by xdp-loader in that mode, taking turns
# round after round on one veth pair with two queues. FBF_BASE_AGENT=PATH adds another agent's two transports and its
# --aggregate 1 as arms of their own (-base, -base-ringbuf, -base-aggregate):
# a change to the event path or the counting measured against what it
# changes, in one run. FBF_MACRO_ARMS="ARM ..." runs those arms only (with
# xdp_pass always, which the ratios need). Each arm gets
#
#   - HTTP requests from the traffic generator: ns per packet, and the age
#     of the events the agent printed (p50, p99 of age_ns, from --json);
#   - the same HTTP with the agent reading, then stopped: the reader's share
#     (only for the arms that send every event);
#   - a raw flood of minimum-size frames from one CPU, then from two CPUs at
#     once (one rawflood pinned to each), so that two CPUs produce events
#     into the one queue or ring, or count into the one per-CPU hash: ns per
#     packet and its ratio to XDP_PASS's in the same round, what was lost
#     (events lost, or for --aggregate the frames counted as no_room), the
#     agent's CPU share over the flood, its peak RSS and the kernel memory of
#     its maps, and accuracy: the IPv4 frames XDP saw against those rawflood
#     sent, and what the agent accounted for against the frames XDP
#     classified.
#
# The run_time_ns / run_cnt read are those of the program attached to the
# interface: libxdp's dispatcher where it loads (the component programs are
# called from it and have no statistics of their own), else the program
# itself. The difference of the classifier's and XDP_PASS's means is the
# classifier's cost per packet in the path production traffic takes; their
# ratio is printed too, for goals stated as one, but most of XDP_PASS's
# figure is the statistics' own clock reads (about 20 ns a run), which flatter
# it. Prints raw samples for bench/report.py on stdout; `report.py designs`
# turns them into the side-by-side table. The queue's benchmarks keep the
# names they had before the ring.
#
#   macro_live.sh [ROUNDS [REQUESTS [FLOOD_SECONDS]]]
set -euo pipefail

. "$(dirname "$0")/../../testing/netns.bash"
. "$(dirname "$0")/flood.bash"

rounds=${1:-5}
requests=${2:-2000}
flood_seconds=${3:-2}
progress=
[ -t 2 ] && [ -z "${CI:-}" ] && progress=1

if [ "$(id -u)" -ne 0 ]; then
	echo "macro_live: needs root (network namespaces, veth pairs, XDP)" >&2
	exit 1
fi
[ -x "$rawflood" ] || { echo "macro_live: $rawflood is missing: run make" >&2; exit 1; }

# Arm names and the agent's options for each; xdp_pass is attached by xdp-loader.
arms=(xdp_fizzbuzzfib xdp_fizzbuzzfib-ringbuf xdp_fizzbuzzfib-sample16
      xdp_fizzbuzzfib-sample256 xdp_fizzbuzzfib-ringbuf-sample16
      xdp_fizzbuzzfib-ringbuf-sample256 xdp_fizzbuzzfib-aggregate xdp_pass)
declare -A arm_args=(
	[xdp_fizzbuzzfib]=""
	[xdp_fizzbuzzfib-ringbuf]="--transport ringbuf"
	[xdp_fizzbuzzfib-sample16]="--sample 16"
	[xdp_fizzbuzzfib-sample256]="--sample 256"
	[xdp_fizzbuzzfib-ringbuf-sample16]="--transport ringbuf --sample 16"
	[xdp_fizzbuzzfib-ringbuf-sample256]="--transport ringbuf --sample 256"
	# Its intervals are a few lines a second: printed to a file, they are
	# the totals a user reads, and the accuracy below sums them.
	[xdp_fizzbuzzfib-aggregate]="--aggregate 1"
)
declare -A arm_agent=()
if [ -n "${FBF_BASE_AGENT:-}" ]; then
	arms=(xdp_fizzbuzzfib-base xdp_fizzbuzzfib-base-ringbuf xdp_fizzbuzzfib-base-aggregate
	      "${arms[@]}")
	arm_args[xdp_fizzbuzzfib-base]=""
	arm_args[xdp_fizzbuzzfib-base-ringbuf]="--transport ringbuf"
	arm_args[xdp_fizzbuzzfib-base-aggregate]=${arm_args[xdp_fizzbuzzfib-aggregate]}
	arm_agent[xdp_fizzbuzzfib-base]=$FBF_BASE_AGENT
	arm_agent[xdp_fizzbuzzfib-base-ringbuf]=$FBF_BASE_AGENT
	arm_agent[xdp_fizzbuzzfib-base-aggregate]=$FBF_BASE_AGENT
fi
if [ -n "${FBF_MACRO_ARMS:-}" ]; then
	chosen=()
	for arm in "${arms[@]}"; do
		[[ " $FBF_MACRO_ARMS xdp_pass " == *" $arm "* ]] && chosen+=("$arm")
	done
	arms=("${chosen[@]}")
fi

work=$(mktemp -d /tmp/fbf-macro.XXXXXX)
agent_pid=
fbf_lab_up agent_pid 2

# The mode the agents attached in, from their start lines: XDP_PASS is
# attached in it too, so that each ratio compares programs, not modes.
arms_mode=

# attach ARM [AGENT ARGS...]: the arm's program on the server veth. The
# agents in their default mode, the one a user gets: on a veth that is skb
# mode, which runs the program on the sending CPU; native mode there funnels
# the floods through the veth's NAPI receive queues and would measure those.
attach()
{
	local arm=$1 mode

	shift
	if [ "$arm" = xdp_pass ]; then
		fbf_in_srv xdp-loader load --mode "${arms_mode:?an agent arm runs first}" \
			"$FBF_VETH_SRV" "$FBF_BUILD/xdp_pass.bpf.o"
		return
	fi
	# shellcheck disable=SC2086 # the arm's options are words
	AGENT=${arm_agent[$arm]:-$AGENT} fbf_agent_start "$work/agent.out" "$work/agent.err" \
		${arm_args[$arm]} "$@"
	agent_pid=$FBF_AGENT_PID
	mode=$(agent_mode "$work/agent.err")
	[ "${arms_mode:=$mode}" = "$mode" ] ||
		{ echo "macro_live: $arm attached in $mode mode, the others in $arms_mode" >&2; exit 1; }
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

# ratio NAME PASS_NAME: ns per packet of NAME's last sample as a multiple of PASS_NAME's.
ratio()
{
	local a b c d

	read -r a b <"$work/${1//\//_}.last"
	read -r c d <"$work/${2//\//_}.last"
	awk -v a="$a" -v b="$b" -v c="$c" -v d="$d" 'BEGIN { printf "%.3f", (a / b) / (c / d) }'
}

# flood_figures NAME SENT CPU_NS WALL_NS RSS_KB MAP_KB: what was lost, what the
# agent cost, and how its totals compare with the frames sent and classified,
# from the summary in $work/agent.err and, for --aggregate, the intervals it
# printed in $work/agent.out.
flood_figures()
{
	local name=$1 sent=$2 cpu=$3 wall=$4 rss=$5 maps=$6 key reported=-1
	local packets non_ipv4 fizz buzz fizzbuzz fibonacci produced delivered lost_queue_full
	local lost_queue_busy queued not_sampled no_room aggregated_read

	for key in packets non_ipv4 fizz buzz fizzbuzz fibonacci produced delivered \
		lost_queue_full lost_queue_busy queued not_sampled no_room aggregated_read; do
		printf -v "$key" '%s' "$(fbf_summary_value "$work/agent.err" "$key")"
		printf -v "$key" '%s' "${!key:-0}"
	done
	# What a user of --aggregate reads: the per-class totals and no_room of
	# every interval printed, summed; they should be what the summary read.
	if [[ "$name" == *-aggregate/* ]]; then
		reported=$(aggregate_reported "$work/agent.out")
		[ "$reported" -eq $((aggregated_read + no_room)) ] ||
			echo "macro_live: $name: the intervals printed $reported frames," \
				"the summary read $aggregated_read and no_room $no_room" >&2
	fi
	awk -v n="$name" -v sent="$sent" -v cpu="$cpu" -v wall="$wall" -v rss="$rss" \
		-v maps="$maps" -v seen=$((packets - non_ipv4)) \
		-v classified=$((fizz + buzz + fizzbuzz + fibonacci)) -v produced="$produced" \
		-v events_lost=$((lost_queue_full + lost_queue_busy)) -v no_room="$no_room" \
		-v events_accounted=$((delivered + lost_queue_full + lost_queue_busy + queued + not_sampled)) \
		-v reported="$reported" 'BEGIN {
		# Events lost, of those produced; or counts lost, of the frames classified.
		if (reported >= 0) {
			lost = no_room; of = classified; accounted = reported
		} else {
			lost = events_lost; of = produced; accounted = events_accounted
		}
		printf "%s\tlost\t%d\n", n, lost
		printf "%s\tlost-percent\t%.4f\n", n, of ? 100 * lost / of : 0
		printf "%s\tagent-cpu-percent\t%.3f\n", n, wall ? 100 * cpu / wall : 0
		printf "%s\tagent-rss-kb\t%d\n", n, rss
		printf "%s\tmap-kb\t%.1f\n", n, maps
		printf "%s\txdp-seen-percent\t%.3f\n", n, sent ? 100 * seen / sent : 0
		printf "%s\taccounted-percent\t%.4f\n", n, classified ? 100 * accounted / classified : 100
	}'
}

for round in $(seq "$rounds"); do
	for arm in "${arms[@]}"; do
		# HTTP, and for the agents that send events the age of every one printed.
		case $arm in
		xdp_pass|*-aggregate) attach "$arm" ;;
		*) attach "$arm" --json ;;
		esac
		http "$arm"
		detach "$arm"
		case $arm in
		xdp_pass|*-aggregate) ;;
		*)
			grep -o '"age_ns":[0-9]*' "$work/agent.out" | cut -d: -f2 >"$work/ages"
			printf 'macro/live/%s\tage-p50\t%s\n' "$arm" "$(percentile 50 "$work/ages")"
			printf 'macro/live/%s\tage-p99\t%s\n' "$arm" "$(percentile 99 "$work/ages")"
			[[ "$arm" == *-sample* ]] || reader_share "$arm"
			;;
		esac

		# Raw floods from one CPU, then from two.
		for cpus in 1 2; do
			name=macro/flood/$arm/$cpus-cpu
			case $arm in
			xdp_pass|*-aggregate) attach "$arm" ;;
			*) attach "$arm" --quiet ;;
			esac
			if [ "$arm" != xdp_pass ]; then
				cpu0=$(cpu_ns "$agent_pid")
				wall0=$(date +%s%N)
			fi
			stats "$name" bash -c "flood $(seq -s ' ' 0 $((cpus - 1)))"
			# flood's own line in bpf_run_stats's output: the frames sent.
			sent=$(grep -E '^[0-9]+$' "$work/run.out" | tail -n 1)
			printf '%s\tsent\t%s\n' "$name" "$sent"
			if [ "$arm" = xdp_pass ]; then
				detach "$arm"
				# Its run count is all XDP_PASS has: any ARP or IPv6 included.
				awk -v n="$name" -v s="$sent" -v c="$(cut -d' ' -f2 "$work/${name//\//_}.last")" \
					'BEGIN { printf "%s\txdp-seen-percent\t%.3f\n", n, s ? 100 * c / s : 0 }'
				continue
			fi
			cpu1=$(cpu_ns "$agent_pid")
			wall1=$(date +%s%N)
			rss=$(awk '/^VmHWM/ { print $2 }' "/proc/$agent_pid/status")
			maps=$(map_kb "$agent_pid" "$work/agent.err")
			detach "$arm"
			flood_figures "$name" "$sent" $((cpu1 - cpu0)) $((wall1 - wall0)) "$rss" "$maps"
		done
	done

	# Each arm's cost over XDP_PASS's, from this round's samples: the
	# difference (latency) and the multiple (ratio).
	for arm in "${arms[@]}"; do
		[ "$arm" = xdp_pass ] && continue
		suffix=${arm#xdp_fizzbuzzfib}
		printf 'macro/live/overhead%s\tlatency\t%s\n' "$suffix" \
			"$(overhead "macro/live/$arm" macro/live/xdp_pass)"
		printf 'macro/live/overhead%s\tratio\t%s\n' "$suffix" \
			"$(ratio "macro/live/$arm" macro/live/xdp_pass)"
		for cpus in 1 2; do
			printf 'macro/flood/overhead%s/%s-cpu\tlatency\t%s\n' "$suffix" "$cpus" \
				"$(overhead "macro/flood/$arm/$cpus-cpu" "macro/flood/xdp_pass/$cpus-cpu")"
			printf 'macro/flood/overhead%s/%s-cpu\tratio\t%s\n' "$suffix" "$cpus" \
				"$(ratio "macro/flood/$arm/$cpus-cpu" "macro/flood/xdp_pass/$cpus-cpu")"
		done
	done
	[ -n "$progress" ] && printf '\rmacro_live: round %d/%d' "$round" "$rounds" >&2
done
[ -n "$progress" ] && echo >&2
exit 0
