#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make bench-macro's stop with a backlog, per transport: the agent is stopped
# (SIGSTOP), EVENTS events are queued through BPF_PROG_TEST_RUN of its own
# program (testing/drain_rate.c), and it is continued and sent SIGTERM. Timed
# to its exit: once draining all of it, and once cut short by a second
# SIGTERM CUT seconds after the first, with what the summary counted as
# delivered and queued then.
#
#   stop_drain.sh [EVENTS [CUT]]
#
# Prints "agent/stop/BENCH[/ringbuf]<TAB>measure<TAB>value" samples for bench/report.py.
set -euo pipefail

events=${1:-2000000}
cut=${2:-0.1}
build=${FBF_BUILD:?FBF_BUILD is set by make}
ns=fbf-stop-$$
work=$(mktemp -d /tmp/fbf-stop.XXXXXX)
agent=
cleanup()
{
	[ -z "$agent" ] || { kill -CONT "$agent"; kill -KILL "$agent"; wait "$agent"; } 2>/dev/null || true
	ip netns del "$ns" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

ip netns add "$ns"
ip -n "$ns" link add fbfstop0 type veth peer name fbfstop1
ip -n "$ns" link set fbfstop0 up
ip -n "$ns" link set fbfstop1 up

# summary_value KEY: KEY's value in the agent's JSON summary.
summary_value()
{
	python3 -c 'import json, sys
for line in open(sys.argv[1]):
    o = json.loads(line)
    if o.get("type") == "summary":
        print(o[sys.argv[2]])' "$work/err" "$1"
}

for transport in queue ringbuf; do
	suffix=$([ "$transport" = queue ] && echo "" || echo "/ringbuf")
	for how in all cut; do
		# Room for every event: the backlog is the point, not losses.
		ip netns exec "$ns" "$build/agent" --iface fbfstop0 --quiet --json \
			--transport "$transport" --queue-size 16777216 --lock-dir "$work" \
			2>"$work/err" &
		agent=$!
		until grep -q '"attached' "$work/err"; do
			kill -0 "$agent" 2>/dev/null || { cat "$work/err" >&2; exit 1; }
			sleep 0.05
		done
		prog=$(ip -n "$ns" -j link show fbfstop0 | python3 -c \
			'import json, sys; print(json.load(sys.stdin)[0]["xdp"]["prog"]["id"])')
		kill -STOP "$agent"
		"$build/testing/drain_rate" fill "$prog" "$events" >/dev/null
		kill -CONT "$agent"
		start=$(date +%s%N)
		kill -TERM "$agent"
		if [ "$how" = cut ]; then
			sleep "$cut"
			kill -TERM "$agent" 2>/dev/null || true
		fi
		wait "$agent" || { echo "stop_drain: the agent exited $?" >&2; cat "$work/err" >&2; exit 1; }
		end=$(date +%s%N)
		agent=
		bench=agent/stop/$([ "$how" = all ] && echo "drain-$events" || echo "cut-after-$cut-s")
		printf '%s%s\tlatency\t%s\n' "$bench" "$suffix" $((end - start))
		printf '%s%s\tdelivered\t%s\n' "$bench" "$suffix" "$(summary_value delivered)"
		printf '%s%s\tqueued\t%s\n' "$bench" "$suffix" "$(summary_value queued)"
	done
done
