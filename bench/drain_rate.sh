#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# How fast the agent drains a full queue, printing nothing, text or JSON
# (to /dev/null), against a bare pop loop: events per second; and how much
# of a core it uses idle. Samples for bench/report.py; see
# bench/drain_rate.c for how the queue is filled and watched.
#
#   drain_rate.sh [ROUNDS [EVENTS]]
set -euo pipefail

. "$(dirname "$0")/../tests/netns.bash"

rounds=${1:-3}
events=${2:-1000000}
drain_rate=$FBF_BUILD/bench/drain_rate

work=$(mktemp -d /tmp/fbf-drain.XXXXXX)
cleanup()
{
	[ -n "${FBF_AGENT_PID:-}" ] && kill -CONT "$FBF_AGENT_PID" 2>/dev/null &&
		kill "$FBF_AGENT_PID" 2>/dev/null
	fbf_net_down
	rm -rf "$work"
}
trap cleanup EXIT
# Run the cleanup on Ctrl-C and kill too, not only on a normal exit.
trap "exit 130" INT TERM
fbf_net_up "$work"

rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.0f", n / s }'; }

for round in $(seq "$rounds"); do
	seconds=$("$drain_rate" raw "$events" | grep -o 'seconds=[0-9.]*' | cut -d= -f2)
	printf 'agent/drain/raw-pop-loop\tthroughput\t%s\n' "$(rate "$events" "$seconds")"

	for output in quiet text json; do
		case $output in
		quiet) args=(--quiet) ;;
		text) args=() ;;
		json) args=(--json) ;;
		esac
		fbf_agent_start /dev/null "$work/agent.err" --queue-size "$events" "${args[@]}"
		kill -STOP "$FBF_AGENT_PID"
		id=$(fbf_attached_prog_id)
		"$drain_rate" fill "$id" "$events"
		seconds=$("$drain_rate" wait "$id" "$FBF_AGENT_PID" | cut -d= -f2)
		kill -INT "$FBF_AGENT_PID"
		wait "$FBF_AGENT_PID"
		FBF_AGENT_PID=
		lost=$(fbf_summary_value "$work/agent.err" lost_queue_full)
		[ "$lost" -eq 0 ] || { echo "drain_rate: $lost events lost" >&2; exit 1; }
		printf 'agent/drain/%s\tthroughput\t%s\n' "$output" "$(rate "$events" "$seconds")"
	done
done

# Idle: time on a CPU from the scheduler's own account, over IDLE_SECONDS.
idle_seconds=${FBF_IDLE_SECONDS:-5}
fbf_agent_start /dev/null "$work/agent.err" --quiet
before=$(cut -d' ' -f1 "/proc/$FBF_AGENT_PID/schedstat")
sleep "$idle_seconds"
after=$(cut -d' ' -f1 "/proc/$FBF_AGENT_PID/schedstat")
kill -INT "$FBF_AGENT_PID"
wait "$FBF_AGENT_PID"
FBF_AGENT_PID=
percent=$(awk -v ns=$((after - before)) -v s="$idle_seconds" \
	'BEGIN { printf "%.3f", ns / 1e7 / s }')
printf 'agent/idle\tcpu-percent\t%s\n' "$percent"
