#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make bench-macro's scrape under idle connections: how long a scrape of
# /metrics takes while a thousand connections sit open and send nothing, as
# a port scanner or a stuck client would leave them (Prometheus gives up
# after 10 s). Each arm, in turn and in one private namespace: start the
# agent with --metrics, open the idle connections, time SCRAPES scrapes with
# curl, close them, stop the agent.
#
#   scrape_idle.sh [SCRAPES [ARM=AGENT]...]
#
# Without arms, this build's agent; FBF_BASE_AGENT=PATH adds another build
# as the arm "base". Prints "agent/metrics/scrape-1000-idle[/ARM]<TAB>latency<TAB>ns"
# samples for bench/report.py; a scrape that times out counts at curl's 20 s bound.
set -euo pipefail

scrapes=${1:-5}
shift || true
build=${FBF_BUILD:?FBF_BUILD is set by make}
arms=("$@")
[ ${#arms[@]} -gt 0 ] || arms=("this=$build/agent")
[ -z "${FBF_BASE_AGENT:-}" ] || arms+=("base=$FBF_BASE_AGENT")
idle=1000
addr=127.0.0.1:19436
ns=fbf-scrape-$$
work=$(mktemp -d /tmp/fbf-scrape.XXXXXX)
agent= clients=
# TERM: a background job of a script ignores SIGINT.
stop_arm()
{
	local pid

	for pid in $clients $agent; do
		kill -TERM "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null || true
	done
	agent= clients=
}
cleanup()
{
	stop_arm
	ip netns del "$ns" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

ip netns add "$ns"
ip -n "$ns" link set lo up
ip -n "$ns" link add fbfscr0 type veth peer name fbfscr1
ip -n "$ns" link set fbfscr0 up
ip -n "$ns" link set fbfscr1 up
in_ns() { ip netns exec "$ns" "$@"; }
scrape() { in_ns curl -sS -o /dev/null --max-time 20 -w '%{time_total}' "http://$addr/metrics"; }

for spec in "${arms[@]}"; do
	name=${spec%%=*}
	# Not through in_ns: $! must be the agent's own pid, not a subshell's.
	ip netns exec "$ns" "${spec#*=}" --iface fbfscr0 --quiet --metrics "$addr" --lock-dir "$work" \
		2>"$work/err" &
	agent=$!
	for _ in $(seq 100); do scrape >/dev/null 2>&1 && break; sleep 0.1; done
	scrape >/dev/null || { echo "scrape_idle: the $name agent does not serve $addr:" >&2
			       cat "$work/err" >&2; exit 1; }
	# The connections stay open until the scrapes are done (the agent closes
	# idle ones after its own timeout, which the first scrape must not wait for).
	rm -f "$work/opened"
	ip netns exec "$ns" python3 - "$addr" "$idle" "$work/opened" <<-'PY' &
	import socket, sys, time
	host, port = sys.argv[1].split(":")
	socks = []
	for _ in range(int(sys.argv[2])):
	    try:
	        socks.append(socket.create_connection((host, int(port)), timeout=1))
	    except OSError:
	        pass  # a full accept queue: an agent with few slots refuses the rest
	open(sys.argv[3], "w").write(str(len(socks)))
	time.sleep(60)
	PY
	clients=$!
	until [ -s "$work/opened" ]; do
		kill -0 "$clients" 2>/dev/null || { echo "scrape_idle: the clients failed" >&2; exit 1; }
		sleep 0.1
	done
	echo "scrape_idle: $name: $(cat "$work/opened") of $idle idle connections open" >&2
	suffix=$([ "$name" = this ] && echo "" || echo "/$name")
	for _ in $(seq "$scrapes"); do
		# A scrape that times out counts at the bound; any other failure is the benchmark's.
		rc=0
		t=$(scrape) || rc=$?
		[ "$rc" -eq 0 ] || [ "$rc" -eq 28 ] ||
			{ echo "scrape_idle: a scrape of the $name agent failed (curl $rc)" >&2; exit 1; }
		awk -v t="$t" -v b="agent/metrics/scrape-$idle-idle$suffix" \
			'BEGIN { printf "%s\tlatency\t%.0f\n", b, t * 1e9 }'
	done
	stop_arm
done
