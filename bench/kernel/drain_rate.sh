#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make bench-macro's agent figures, on both transports side by side: how
# fast a bare loop empties a full queue or ring, and how fast the agent
# does, printing nothing, text or JSON (to /dev/null); and what it costs
# idle, in CPU time and wake-ups per second.
# Samples for bench/report.py; bench/kernel/agent_rates.sh measures the agents.
# The queue's benchmarks keep their names; the others end in /ARM.
#
#   drain_rate.sh [ROUNDS [EVENTS]]
set -euo pipefail

rounds=${1:-3}
events=${2:-1000000}
build=${FBF_BUILD:?FBF_BUILD is set by make}

for round in $(seq "$rounds"); do
	for transport in queue ringbuf; do
		"$build/testing/drain_rate" raw "$events" "$transport" |
			awk -v n="$events" -v t="$transport" -F'[= ]' '{
			printf "agent/drain/raw-%s\tthroughput\t%.0f\n",
				t == "queue" ? "pop-loop" : "ring-read", n / $2 }'
	done
done
# One long idle sample: the queue's back-off settles within its first 20 ms.
FBF_IDLE_SECONDS=${FBF_IDLE_SECONDS:-5} FBF_IDLE_ROUNDS=1 \
	"$(dirname "$0")/agent_rates.sh" "$rounds" "$events" "queue=$build/agent" \
	"ringbuf=$build/agent,--transport,ringbuf" |
	awk -F'\t' -v OFS='\t' '{ print $2 ($1 == "queue" ? "" : "/" $1), $3, $4 }'
