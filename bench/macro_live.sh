#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The XDP program in the kernel under real traffic: HTTP requests from the
# traffic generator through a veth pair, with the classifier attached by the
# agent, then a bare XDP_PASS program attached by xdp-loader, round after
# round. The run_time_ns / run_cnt read are those of the program attached to
# the interface: libxdp's dispatcher where it loads (the component programs
# are called from it and have no statistics of their own), else the program
# itself. The difference of the two means is the classifier's cost per packet
# in the path production traffic takes; not their ratio, since most of
# XDP_PASS's figure is the statistics' own clock reads (about 20 ns a run).
# Prints raw samples for bench/report.py on stdout.
#
#   macro_live.sh [ROUNDS [REQUESTS]]
set -euo pipefail

. "$(dirname "$0")/../tests/netns.bash"

rounds=${1:-5}
requests=${2:-2000}
progress=
[ -t 2 ] && [ -z "${CI:-}" ] && progress=1

if [ "$(id -u)" -ne 0 ]; then
	echo "macro_live: needs root (network namespaces, veth pairs, XDP)" >&2
	exit 1
fi

work=$(mktemp -d /tmp/fbf-macro.XXXXXX)
agent_pid=
cleanup()
{
	[ -n "$agent_pid" ] && kill "$agent_pid" 2>/dev/null && wait "$agent_pid" 2>/dev/null
	fbf_net_down
	rm -rf "$work"
}
trap cleanup EXIT
# Run the cleanup on Ctrl-C and kill too, not only on a normal exit.
trap "exit 130" INT TERM
fbf_net_up "$work"

# measure NAME: drive the traffic through whatever is attached and print samples.
measure()
{
	local name=$1 id stats traffic cnt ns

	id=$(fbf_attached_prog_id)
	# bpf_run_stats and trafficgen each print one line of results.
	"$FBF_BUILD/bench/bpf_run_stats" "$id" -- \
		nsenter --net="/run/netns/$FBF_NS_CLI" "$TRAFFICGEN" --url "$FBF_URL" \
		--source "$(fbf_source_list)" --requests "$requests" --concurrency 8 --quiet \
		>"$work/run.out"
	stats=$(grep '^run_cnt=' "$work/run.out")
	traffic=$(grep '^trafficgen:' "$work/run.out")
	cnt=$(grep -o 'run_cnt=[0-9]*' <<<"$stats" | cut -d= -f2)
	ns=$(grep -o 'run_time_ns=[0-9]*' <<<"$stats" | cut -d= -f2)
	[ "$cnt" -gt 0 ] || { echo "macro_live: $name never ran" >&2; exit 1; }
	printf 'macro/live/%s\tlatency\t%s\n' "$name" "$(awk -v n="$ns" -v c="$cnt" \
		'BEGIN { printf "%.2f", n / c }')"
	printf 'macro/live/%s\tpackets\t%s\n' "$name" "$cnt"
	printf 'macro/live/%s\tthroughput\t%s\n' "$name" \
		"$(grep -o 'rate=[0-9.]*' <<<"$traffic" | cut -d= -f2)"
	echo "$ns $cnt" >"$work/$name.last"
}

for round in $(seq "$rounds"); do
	fbf_agent_start "$work/agent.out" "$work/agent.err" --quiet --mode native
	agent_pid=$FBF_AGENT_PID
	measure xdp_fizzbuzzfib
	kill -INT "$agent_pid" && wait "$agent_pid"
	agent_pid=

	fbf_in_srv xdp-loader load --mode native "$FBF_VETH_SRV" "$FBF_BUILD/xdp_pass.bpf.o"
	measure xdp_pass
	fbf_in_srv xdp-loader unload --all "$FBF_VETH_SRV"

	read -r fbf_ns fbf_cnt <"$work/xdp_fizzbuzzfib.last"
	read -r pass_ns pass_cnt <"$work/xdp_pass.last"
	printf 'macro/live/overhead\tlatency\t%s\n' "$(awk -v a="$fbf_ns" -v b="$fbf_cnt" \
		-v c="$pass_ns" -v d="$pass_cnt" 'BEGIN { printf "%.2f", a / b - c / d }')"
	[ -n "$progress" ] && printf '\rmacro_live: round %d/%d' "$round" "$rounds" >&2
done
[ -n "$progress" ] && echo >&2
exit 0
