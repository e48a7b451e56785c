#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make bench-macro's outputs, side by side: how fast the agent takes a
# backlog of EVENTS events from its queue and gets them out, to stdout (a
# file), to --output file:PATH and to --output nats://.../SUBJECT (a
# nats-server with JetStream on loopback, started here), and with no output
# at all (--quiet: the drain alone). The agent is stopped (SIGSTOP), its
# queue filled through BPF_PROG_TEST_RUN of its own program
# (testing/drain_rate.c), then continued and sent SIGTERM: it detaches,
# drains, and its outputs write all of it (a buffer that holds every event,
# and no timeout that could cut them short) before it exits. Timed to its
# exit, with its CPU time; ROUNDS rounds, the arms in a rotated order each
# round, so that every arm sees the same machine.
#
#   output_rates.sh [ROUNDS [EVENTS]]
#
# Prints "agent/output/ARM<TAB>measure<TAB>value" samples for bench/report.py:
# throughput (events a second, read and written), cpu-ms-per-million (the
# agent's user and system time per million events), delivered (the
# output's NAME_delivered, which must be EVENTS), and for the file and NATS
# arms vs-stdout-percent, their throughput against stdout's in the same round.
set -euo pipefail

rounds=${1:-3}
events=${2:-500000}
build=${FBF_BUILD:?FBF_BUILD is set by make}
ns=fbf-outrate-$$
work=$(mktemp -d /tmp/fbf-outrate.XXXXXX)
sub= nats=
cleanup()
{
	if [ -n "$sub" ]; then
		pkill -CONT -P "$sub" 2>/dev/null || true
		pkill -KILL -P "$sub" 2>/dev/null || true
		wait "$sub" 2>/dev/null || true
	fi
	[ -z "$nats" ] || { kill "$nats"; wait "$nats"; } 2>/dev/null || true
	ip netns del "$ns" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

ip netns add "$ns"
ip -n "$ns" link add fbfout0 type veth peer name fbfout1
ip -n "$ns" link set fbfout0 up
ip -n "$ns" link set fbfout1 up
ip -n "$ns" link set lo up

arms=(quiet stdout file)
if command -v nats-server >/dev/null; then
	port=$((20000 + $$ % 20000))
	# In the agent's namespace, on its loopback.
	nsenter --net="/run/netns/$ns" nats-server -js -sd "$work/nats" -a 127.0.0.1 -p "$port" \
		>"$work/nats.log" 2>&1 &
	nats=$!
	for _ in $(seq 200); do
		grep -q 'Server is ready' "$work/nats.log" && break
		sleep 0.05
	done
	arms+=(nats)
else
	echo "output_rates: nats-server not installed, no NATS arm (apt-get install nats-server)" >&2
fi

# The agent's options for ARM.
arm_options()
{
	case $1 in
	quiet) echo --quiet ;;
	stdout) echo --json ;;
	file) echo "--output file:$work/events.jsonl" ;;
	nats) echo "--output nats://127.0.0.1:$port/fbf.bench" ;;
	esac
}

# summary_value KEY: KEY's value in the agent's JSON summary.
summary_value()
{
	python3 -c 'import json, sys
for line in open(sys.argv[1]):
    o = json.loads(line)
    if o.get("type") == "summary":
        print(o.get(sys.argv[2], 0))' "$work/err" "$1"
}

# run ARM: one timed drain; sets RATE (events a second) and prints the samples.
run()
{
	local arm=$1 agent prog start end user sys
	# shellcheck disable=SC2046 # the options are words
	(
		nsenter --net="/run/netns/$ns" "$build/agent" --iface fbfout0 --json \
			--queue-size "$events" --lock-dir "$work" --output-buffer 1073741824 \
			--output-timeout 3600 $(arm_options "$arm") >"$work/stdout" 2>"$work/err"
		echo $? >"$work/status"
		times >"$work/times"
	) &
	sub=$!
	until grep -q '"attached' "$work/err" 2>/dev/null; do
		[ ! -s "$work/status" ] || { cat "$work/err" >&2; exit 1; }
		sleep 0.05
	done
	agent=$(pgrep -P "$sub")
	prog=$(ip -n "$ns" -j link show fbfout0 | python3 -c \
		'import json, sys; print(json.load(sys.stdin)[0]["xdp"]["prog"]["id"])')
	kill -STOP "$agent"
	"$build/testing/drain_rate" fill "$prog" "$events" >/dev/null
	start=$(date +%s%N)
	kill -CONT "$agent"
	kill -TERM "$agent"
	wait "$sub"
	end=$(date +%s%N)
	sub=
	[ "$(cat "$work/status")" -eq 0 ] ||
		{ echo "output_rates: the agent exited $(cat "$work/status")" >&2; cat "$work/err" >&2; exit 1; }
	# The children's line of `times`: user and system, as 0m1.234s.
	read -r user sys < <(sed -n 2p "$work/times" | sed 's/\([0-9]*\)m\([0-9.]*\)s/\1 \2/g' |
		awk '{ print $1 * 60 + $2, $3 * 60 + $4 }')
	RATE=$(awk -v n="$events" -v ns=$((end - start)) 'BEGIN { printf "%.0f", n / (ns / 1e9) }')
	printf 'agent/output/%s\tthroughput\t%s\n' "$arm" "$RATE"
	printf 'agent/output/%s\tcpu-ms-per-million\t%s\n' "$arm" \
		"$(awk -v u="$user" -v s="$sys" -v n="$events" 'BEGIN { printf "%.1f", (u + s) * 1e3 / (n / 1e6) }')"
	[ "$arm" = quiet ] ||
		printf 'agent/output/%s\tdelivered\t%s\n' "$arm" "$(summary_value "${arm}_delivered")"
	rm -f "$work/events.jsonl" "$work/stdout" "$work/status" "$work/err"
}

for round in $(seq "$rounds"); do
	declare -A rate=()
	# Rotate the order, so that no arm always follows the same one.
	for i in $(seq 0 $((${#arms[@]} - 1))); do
		arm=${arms[$(((i + round) % ${#arms[@]}))]}
		run "$arm"
		rate[$arm]=$RATE
	done
	for arm in file nats; do
		[ -n "${rate[$arm]:-}" ] || continue
		printf 'agent/output/%s\tvs-stdout-percent\t%s\n' "$arm" \
			"$(awk -v a="${rate[$arm]}" -v b="${rate[stdout]}" 'BEGIN { printf "%.1f", 100 * a / b }')"
	done
done
