#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make bench-macro's agent figures: how fast a bare pop loop empties a full
# queue, and how fast the agent does, printing nothing, text or JSON (to
# /dev/null); and what it costs idle, in CPU time and wake-ups per second.
# Samples for bench/report.py; bench/agent_rates.sh measures the agent.
#
#   drain_rate.sh [ROUNDS [EVENTS]]
set -euo pipefail

rounds=${1:-3}
events=${2:-1000000}
build=${FBF_BUILD:?FBF_BUILD is set by make}

for round in $(seq "$rounds"); do
	"$build/bench/drain_rate" raw "$events" | awk -v n="$events" -F'[= ]' \
		'{ printf "agent/drain/raw-pop-loop\tthroughput\t%.0f\n", n / $2 }'
done
# One long idle sample: the agent's back-off settles within its first 20 ms.
FBF_IDLE_SECONDS=${FBF_IDLE_SECONDS:-5} FBF_IDLE_ROUNDS=1 \
	"$(dirname "$0")/agent_rates.sh" "$rounds" "$events" "agent=$build/agent" | cut -f2-
