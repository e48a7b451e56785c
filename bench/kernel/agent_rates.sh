#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# How fast agents drain a full queue and what they cost idle: one agent
# binary, or several (the gate's base, the base again for the A/A comparison,
# the candidate), each attached to a veth of its own in one private namespace
# and taking turns on the same work.
#
#   agent_rates.sh ROUNDS EVENTS ARM=AGENT[,ARG...]...
#
# ARGs after the agent, comma-separated, are that arm's own options. With
# FBF_SCRAPE_URL set, a client in the namespace fetches that URL ten times a
# second while the agents run (an arm's --metrics endpoint, say).
#
# Drain throughput, per output mode (--quiet, text, --json, output to
# /dev/null): all agents are started and stopped (SIGSTOP); in each round
# every agent in turn, starting from a different one each round, has its
# queue filled with EVENTS events through BPF_PROG_TEST_RUN of its own
# program, is continued, and is timed until its queue is empty (see
# testing/drain_rate.c), then stopped again. Its queue holds EVENTS, so none is
# lost. Idle cost: each agent in turn runs with nothing to do for
# FBF_IDLE_SECONDS; the scheduler's account of all its threads gives the CPU
# time and the number of times it was put on a CPU.
#
# Prints "ARM<TAB>benchmark<TAB>measure<TAB>value" rows, one per sample. Reads
# nothing the agent prints, so agents of other revisions are measured alike.
set -euo pipefail

. "$(dirname "$0")/../../testing/netns.bash"
. "$(dirname "$0")/flood.bash"

rounds=${1:?usage: agent_rates.sh ROUNDS EVENTS ARM=AGENT...}
events=${2:?usage: agent_rates.sh ROUNDS EVENTS ARM=AGENT...}
shift 2
drain_rate=$FBF_BUILD/testing/drain_rate
idle_seconds=${FBF_IDLE_SECONDS:-1}
idle_rounds=${FBF_IDLE_ROUNDS:-5}
ns=fbf-rates-$$
names=() agents=() pids=() scraper=
for spec in "$@"; do
	names+=("${spec%%=*}")
	agents+=("${spec#*=}")
done
nr=${#names[@]}

work=$(mktemp -d /tmp/fbf-rates.XXXXXX)
agents_stop()
{
	local pid

	for pid in "${pids[@]}"; do
		kill -CONT "$pid" 2>/dev/null && kill -INT "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null || true
	done
	# TERM: a background job of a script ignores SIGINT.
	if [ -n "$scraper" ]; then
		kill "$scraper" 2>/dev/null
		wait "$scraper" 2>/dev/null || true
	fi
	pids=() scraper=
}
cleanup()
{
	agents_stop
	ip netns del "$ns" 2>/dev/null || true
	rm -rf "$work"
}
fbf_cleanup_on_exit cleanup

# One veth pair per agent. No addresses and no IPv6, so nothing but the
# benchmark's own events ever reaches a queue.
ip netns add "$ns"
ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
	net.ipv6.conf.default.disable_ipv6=1
for ((i = 0; i < nr; i++)); do
	ip -n "$ns" link add "rate$i" type veth peer name "rate${i}p"
	ip -n "$ns" link set "rate$i" up
	ip -n "$ns" link set "rate${i}p" up
done

prog_id_on() { fbf_xdp_prog_id "$ns" "$1"; }

# agents_start ARGS...: every agent attached to its veth, then stopped. Sets
# pids, ids (the programs on the interfaces) and own_ids (the agents' own programs).
agents_start()
{
	local i t cmd

	ids=() own_ids=()
	for ((i = 0; i < nr; i++)); do
		IFS=, read -ra cmd <<<"${agents[i]}"
		nsenter --net="/run/netns/$ns" "${cmd[0]}" --iface "rate$i" "${cmd[@]:1}" "$@" \
			>/dev/null 2>"$work/${names[i]}.err" 3>&- &
		pids[i]=$!
	done
	if [ -n "${FBF_SCRAPE_URL:-}" ]; then
		nsenter --net="/run/netns/$ns" bash -c "while :; do
			curl -s --max-time 0.5 -o /dev/null '$FBF_SCRAPE_URL'; sleep 0.1; done" 3>&- &
		scraper=$!
	fi
	for ((i = 0; i < nr; i++)); do
		for t in $(seq 300); do
			ids[i]=$(prog_id_on "rate$i" || true)
			[ -n "${ids[i]}" ] && grep -q attached "$work/${names[i]}.err" && break
			kill -0 "${pids[i]}" 2>/dev/null || break
			sleep 0.1
		done
		if [ -z "${ids[i]}" ]; then
			echo "agent_rates: ${names[i]} (${agents[i]}) did not attach:" >&2
			cat "$work/${names[i]}.err" >&2
			exit 1
		fi
		# An agent older than the start line's prog id runs without libxdp's
		# dispatcher on the gate's kernel: its program is the interface's.
		own_ids[i]=$(fbf_agent_prog_id "$work/${names[i]}.err" || echo "${ids[i]}")
		kill -STOP "${pids[i]}"
	done
}

order() { local k; for ((k = 0; k < nr; k++)); do echo $(((k + $1) % nr)); done; }

for mode in quiet text json; do
	case $mode in
	quiet) args=(--quiet) ;;
	text) args=() ;;
	json) args=(--json) ;;
	esac
	agents_start --queue-size "$events" "${args[@]}"
	for ((round = 0; round < rounds; round++)); do
		for i in $(order "$round"); do
			"$drain_rate" fill "${ids[i]}" "$events"
			seconds=$("$drain_rate" wait "${own_ids[i]}" "${pids[i]}" | cut -d= -f2)
			kill -STOP "${pids[i]}"
			awk -v a="${names[i]}" -v m="$mode" -v n="$events" -v s="$seconds" \
				'BEGIN { printf "%s\tagent/drain/%s\tthroughput\t%.0f\n", a, m, n / s }'
		done
	done
	if [ "$mode" = quiet ]; then
		for ((round = 0; round < idle_rounds; round++)); do
			for i in $(order "$round"); do
				kill -CONT "${pids[i]}"
				read -r ns0 n0 < <(thread_stat "${pids[i]}")
				sleep "$idle_seconds"
				read -r ns1 n1 < <(thread_stat "${pids[i]}")
				kill -STOP "${pids[i]}"
				awk -v a="${names[i]}" -v ns=$((ns1 - ns0)) -v n=$((n1 - n0)) \
					-v s="$idle_seconds" 'BEGIN {
					printf "%s\tagent/idle\tcpu-percent\t%.4f\n", a, ns / 1e7 / s
					printf "%s\tagent/idle\twakeups\t%.1f\n", a, n / s }'
			done
		done
	fi
	agents_stop
done
