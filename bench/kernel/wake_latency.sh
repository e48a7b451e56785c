#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# How soon a single event reaches an agent that sleeps, per transport: EVENTS
# frames, each GAP_US after the agent printed the one before (by default a
# quiet second, so the agent is asleep in epoll and only the program's
# doorbell wakes it), sent by testing/wake_probe. The age of each event, from
# classification to the agent's read (its --json age_ns), at p50 and p99.
# FBF_BASE_AGENT=PATH measures another agent binary too (arms -base...).
# Samples for bench/report.py on stdout.
#
#   wake_latency.sh [ROUNDS [EVENTS [GAP_US]]]
set -euo pipefail

. "$(dirname "$0")/../../testing/netns.bash"

rounds=${1:-1}
events=${2:-10}
gap_us=${3:-1000000}
work=$(mktemp -d /tmp/fbf-wake.XXXXXX)
cleanup()
{
	[ -n "${FBF_AGENT_PID:-}" ] && kill "$FBF_AGENT_PID" 2>/dev/null &&
		wait "$FBF_AGENT_PID" 2>/dev/null
	fbf_net_down
	rm -rf "$work"
}
fbf_cleanup_on_exit cleanup
fbf_net_up "$work"

declare -A arm_agent=([queue]=$AGENT [ringbuf]=$AGENT)
arms=(queue ringbuf)
if [ -n "${FBF_BASE_AGENT:-}" ]; then
	arm_agent[base]=$FBF_BASE_AGENT
	arm_agent[base-ringbuf]=$FBF_BASE_AGENT
	arms+=(base base-ringbuf)
fi

for round in $(seq "$rounds"); do
	for arm in "${arms[@]}"; do
		transport=queue
		[[ "$arm" == *ringbuf ]] && transport=ringbuf
		AGENT=${arm_agent[$arm]} fbf_agent_start "$work/out" "$work/err" --json \
			--transport "$transport"
		# The first event after the agent has slept GAP_US too.
		line=$(fbf_in_cli "$FBF_BUILD/testing/wake_probe" "$FBF_VETH_CLI" "$work/out" \
			"$events" "$gap_us" "$gap_us" "$round")
		kill -INT "$FBF_AGENT_PID" && wait "$FBF_AGENT_PID"
		FBF_AGENT_PID=
		read -r _ _ _ _ _ p50 _ p99 _ <<<"$line"
		printf 'macro/wake/%s\tage-p50\t%s\n' "$arm" "$p50"
		printf 'macro/wake/%s\tage-p99\t%s\n' "$arm" "$p99"
	done
done
