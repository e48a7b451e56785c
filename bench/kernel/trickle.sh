#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make bench-macro's trickle: what the reader costs while events come
# slowly, from one CPU. HTTP with one request in flight from CPU 0 (a new
# connection each, so some ten frames a request) keeps the agent, pinned to
# the last CPU, catching up and polling at its shortest, where each round
# looks at every CPU's map: a queue per CPU is one pop per CPU a round, a
# system call each, where one shared queue was one and a ring per CPU one
# load each. Per arm, in an order that rotates each round: the queue and the
# ring of this build's agent (FBF_AGENT), and with FBF_BASE_AGENT=PATH the
# same of another build ("base-queue", "base-ring"). Rows
# "trickle/ARM<TAB>measure<TAB>value": agent-cpu-percent (the agent's CPU
# time over the traffic's, all threads), wakeups-per-s (times its threads
# were put on a CPU) and events-per-s (delivered, from its summary).
#
#   trickle.sh [ROUNDS [SECONDS]]
set -euo pipefail

. "$(dirname "$0")/../../testing/netns.bash"
. "$(dirname "$0")/flood.bash"
. "$(dirname "$0")/curve.bash"

rounds=${1:-3}
rounds_list=$(curve_rounds trickle "$rounds")
seconds=${2:-4}
declare -A agent=([queue]=$AGENT [ring]=$AGENT)
declare -A args=([queue]="--quiet" [ring]="--transport ringbuf --quiet")
arms=(queue ring)
if [ -n "${FBF_BASE_AGENT:-}" ]; then
	agent[base-queue]=$FBF_BASE_AGENT agent[base-ring]=$FBF_BASE_AGENT
	args[base-queue]=${args[queue]} args[base-ring]=${args[ring]}
	arms+=(base-queue base-ring)
fi

curve_lab_up trickle 1
# The HTTP server beside the client on CPU 0: the client's acknowledgements of its
# replies leave from the CPU the replies were sent on, and pass XDP there.
taskset -a -p -c 0 "$FBF_HTTP_PID" >/dev/null
# A connection a request leaves the client's ports in TIME_WAIT: let them be reused, in
# the client's namespace alone, so that a long run does not run out of them.
fbf_in_cli sh -c 'echo 1 >/proc/sys/net/ipv4/tcp_tw_reuse'

# run ARM: the traffic through ARM's agent; prints its rows.
run()
{
	local arm=$1 ns0 n0 ns1 n1 t0 t1 delivered

	# shellcheck disable=SC2086 # the arm's options are words
	fbf_srv_start "$work/agent.out" "$work/agent.err" taskset -c "$curve_agent_cpu" \
		"${agent[$arm]}" --iface "$FBF_VETH_SRV" ${args[$arm]}
	agent_pid=$FBF_AGENT_PID
	read -r ns0 n0 < <(thread_stat "$agent_pid")
	t0=$(date +%s%N)
	taskset -c 0 nsenter --net="/run/netns/$FBF_NS_CLI" "$TRAFFICGEN" --url "$FBF_URL" \
		--source "$(fbf_source_list)" --duration "$seconds" --concurrency 1 --quiet >/dev/null
	t1=$(date +%s%N)
	read -r ns1 n1 < <(thread_stat "$agent_pid")
	kill -INT "$agent_pid"
	wait "$agent_pid"
	agent_pid=
	delivered=$(curve_delivered "trickle/$arm")
	awk -v a="trickle/$arm" -v ns=$((ns1 - ns0)) -v n=$((n1 - n0)) -v t=$((t1 - t0)) \
		-v d="$delivered" 'BEGIN {
		printf "%s\tagent-cpu-percent\t%.3f\n", a, 100 * ns / t
		printf "%s\twakeups-per-s\t%.0f\n", a, n / (t / 1e9)
		printf "%s\tevents-per-s\t%.0f\n", a, d / (t / 1e9)
	}'
}

for round in $rounds_list; do
	for ((i = 0; i < ${#arms[@]}; i++)); do
		run "${arms[(i + round) % ${#arms[@]}]}"
	done
done
