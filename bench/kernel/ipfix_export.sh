#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make bench-macro's IPFIX arm: what it costs the agent to export one
# interval of 65,536 sources, beside the same interval to stdout and to
# NATS, and with no output at all (--quiet, the counts on an idle
# --metrics only). Each run: the agent under
# --aggregate 3600 on a veth in a namespace of its own, raw frames from
# 132,726 addresses (65,536 of them of a class other than none, as many as
# --max-sources holds) until one flood has sent each at least once, then
# SIGTERM: the agent detaches, takes the interval and its outputs send it
# before it exits. IPFIX goes to nfcapd on the namespace's loopback, and
# nfdump counts what it stored; NATS to a nats-server with JetStream there.
# stdout and NATS carry the interval's line (the top 10 sources per class),
# IPFIX a record per source.
#
#   ipfix_export.sh [ROUNDS]
#
# Prints "agent/export-65536/ARM<TAB>measure<TAB>value" samples for
# bench/report.py: stop-ms (SIGTERM to exit: detach, the last take and the
# export, IPFIX's pacing included), cpu-ms (the agent's user and system time
# over the whole run, its start included: the same in every arm but for
# the export, within the spread of the start), writer-cpu-ms (the CPU time
# of the agent's threads but the main one: the output's writer, which does
# nothing but send this interval, and nats.c's threads), delivered (the
# output's NAME_delivered, 1), and for IPFIX collector-sources, the sources
# nfdump found (65,536). The arms run in a rotated order each round.
set -euo pipefail

rounds=${1:-3}
build=${FBF_BUILD:?FBF_BUILD is set by make}
first=10.216.0.0
count=132726
ns=fbf-ipfixb-$$
work=$(mktemp -d /tmp/fbf-ipfixb.XXXXXX)
sub='' nats='' nfcapd=''
cleanup()
{
	if [ -n "$sub" ]; then
		pkill -KILL -P "$sub" 2>/dev/null || true
		wait "$sub" 2>/dev/null || true
	fi
	[ -z "$nats" ] || { kill "$nats"; wait "$nats"; } 2>/dev/null || true
	[ -z "$nfcapd" ] || { kill "$nfcapd"; wait "$nfcapd"; } 2>/dev/null || true
	ip netns del "$ns" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

in_ns() { nsenter --net="/run/netns/$ns" "$@"; }

ip netns add "$ns"
ip -n "$ns" link add fbfipx0 type veth peer name fbfipx1
for dev in fbfipx0 fbfipx1 lo; do ip -n "$ns" link set "$dev" up; done

arms=(quiet stdout)
port=$((20000 + $$ % 20000))
if command -v nfcapd >/dev/null && command -v nfdump >/dev/null; then
	arms+=(ipfix)
else
	echo "ipfix_export: nfcapd or nfdump not installed, no IPFIX arm (apt-get install nfdump)" >&2
fi
if command -v nats-server >/dev/null; then
	nsenter --net="/run/netns/$ns" nats-server -js -sd "$work/nats" -a 127.0.0.1 -p $((port + 1)) \
		>"$work/nats.log" 2>&1 &
	nats=$!
	for _ in $(seq 200); do
		grep -q 'Server is ready' "$work/nats.log" && break
		sleep 0.05
	done
	arms+=(nats)
else
	echo "ipfix_export: nats-server not installed, no NATS arm (apt-get install nats-server)" >&2
fi

# The agent's options for ARM.
arm_options()
{
	case $1 in
	# --quiet --aggregate needs somewhere to read the counts: an idle --metrics.
	quiet) echo "--quiet --metrics 127.0.0.1:$((port + 2))" ;;
	stdout) echo --output stdout ;;
	ipfix) echo "--output ipfix://127.0.0.1:$port" ;;
	nats) echo "--output nats://127.0.0.1:$((port + 1))/fbf.bench" ;;
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

# flood: every address at least once, however fast this machine sends.
flood()
{
	local seconds sent

	for seconds in 1 2 4 8 16; do
		sent=$(in_ns "$build/rawflood" fbfipx1 "$seconds" "$first" "$count" 10.0.0.1 \
			2>/dev/null)
		[ "${sent:-0}" -ge "$count" ] && return 0
	done
	echo "ipfix_export: rawflood sent $sent frames, fewer than $count" >&2
	exit 1
}

nfcapd_start()
{
	rm -rf "$work/flows"
	mkdir -p "$work/flows"
	nsenter --net="/run/netns/$ns" nfcapd -p "$port" -b 127.0.0.1 -w "$work/flows" -t 3600 >"$work/nfcapd.log" 2>&1 &
	nfcapd=$!
	for _ in $(seq 100); do
		in_ns ss -Hlun "sport = :$port" | grep -q . && return 0
		sleep 0.05
	done
	echo "ipfix_export: nfcapd did not start" >&2
	exit 1
}

# nfcapd_stop: SIGTERM, which makes nfcapd write its file; in this shell, to wait for it.
nfcapd_stop()
{
	kill -TERM "$nfcapd"
	wait "$nfcapd" || true
	nfcapd=
}

# nfcapd_sources: the sources nfcapd stored.
nfcapd_sources() { nfdump -R "$work/flows" -q -N -A srcip -o 'fmt:%sa' | grep -c .; }

# thread_cpu PID READY: the CPU time (ms) of PID's threads but its main one (the
# outputs' writers, and nats.c's own), each as last seen in its schedstat
# (nanoseconds on CPU), looked at every half millisecond until PID is gone:
# short of the truth by at most what a thread ran in its last half
# millisecond. Creates READY once it has looked.
thread_cpu()
{
	python3 - "$1" "$2" <<-'EOF'
	import os, sys, time
	pid = sys.argv[1]
	last, ready = {}, False
	while True:
	    try:
	        tids = os.listdir(f"/proc/{pid}/task")
	    except (FileNotFoundError, ProcessLookupError):
	        # Gone, or a zombie whose task list is already torn down.
	        break
	    for tid in tids:
	        if tid == pid:
	            continue
	        try:
	            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
	                last[tid] = int(f.read().split()[0])
	        except (FileNotFoundError, ProcessLookupError):
	            pass
	    if not ready:
	        open(sys.argv[2], "a").close()
	        ready = True
	    time.sleep(0.0005)
	print(f"{sum(last.values()) / 1e6:.1f}")
	EOF
}

# run ARM: one export; prints its samples.
run()
{
	local arm=$1 agent poller start end user sys

	[ "$arm" != ipfix ] || nfcapd_start
	# shellcheck disable=SC2046 # the options are words
	(
		status=0
		in_ns "$build/agent" --iface fbfipx0 --json --aggregate 3600 --lock-dir "$work" \
			--output-timeout 3600 $(arm_options "$arm") >"$work/stdout" 2>"$work/err" ||
			status=$?
		echo "$status" >"$work/status"
		times >"$work/times"
	) &
	sub=$!
	for _ in $(seq 600); do
		grep -q '"attached' "$work/err" 2>/dev/null && break
		[ ! -s "$work/status" ] || break
		sleep 0.05
	done
	grep -q '"attached' "$work/err" ||
		{ echo "ipfix_export: the agent did not attach" >&2; cat "$work/err" >&2; exit 1; }
	agent=$(pgrep -P "$sub")
	flood
	rm -f "$work/ready"
	thread_cpu "$agent" "$work/ready" >"$work/threads" &
	poller=$!
	# Python takes longer to start than the agent to stop: not before it looks.
	for _ in $(seq 200); do
		[ ! -e "$work/ready" ] || break
		sleep 0.05
	done
	start=$(date +%s%N)
	kill -TERM "$agent"
	wait "$sub"
	end=$(date +%s%N)
	sub=
	wait "$poller"
	[ "$(cat "$work/status")" -eq 0 ] ||
		{ echo "ipfix_export: the agent exited $(cat "$work/status")" >&2; cat "$work/err" >&2; exit 1; }
	# The children's line of `times`: user and system, as 0m1.234s.
	read -r user sys < <(sed -n 2p "$work/times" | sed 's/\([0-9]*\)m\([0-9.]*\)s/\1 \2/g' |
		awk '{ print $1 * 60 + $2, $3 * 60 + $4 }')
	printf 'agent/export-65536/%s\tstop-ms\t%s\n' "$arm" \
		"$(awk -v ns=$((end - start)) 'BEGIN { printf "%.1f", ns / 1e6 }')"
	printf 'agent/export-65536/%s\tcpu-ms\t%s\n' "$arm" \
		"$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f", (u + s) * 1e3 }')"
	printf 'agent/export-65536/%s\twriter-cpu-ms\t%s\n' "$arm" "$(cat "$work/threads")"
	[ "$arm" = quiet ] ||
		printf 'agent/export-65536/%s\tdelivered\t%s\n' "$arm" "$(summary_value "${arm}_delivered")"
	if [ "$arm" = ipfix ]; then
		nfcapd_stop
		printf 'agent/export-65536/ipfix\tcollector-sources\t%s\n' "$(nfcapd_sources)"
	fi
	rm -f "$work/stdout" "$work/status" "$work/err"
}

for round in $(seq "$rounds"); do
	# Rotate the order, so that no arm always follows the same one.
	for i in $(seq 0 $((${#arms[@]} - 1))); do
		run "${arms[$(((i + round) % ${#arms[@]}))]}"
	done
done
