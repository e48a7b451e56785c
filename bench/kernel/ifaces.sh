#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# One agent over many interfaces (--iface with a pattern): what each one
# costs it. Veth pairs in a namespace of this script's own, their peers in
# another, all up, IPv6 off in both (no autoconf, so no link events but the
# benchmark's own). For each count N of FBF_IFACES_COUNTS (default 1 16 256),
# interfaces bi0.. added up to N and an agent started over 'bi*':
#
#   ifaces/start/n=N     attach-ms: from the agent's exec to its "serving every
#                        interface" line (its --json log time against the
#                        clock read just before the exec), and attach-ms-per-iface;
#                        attached: the interfaces it says it serves
#   ifaces/idle/n=N      over FBF_IFACES_IDLE_SECONDS (5) with no traffic, a
#                        second after it serves: its CPU (all threads,
#                        schedstat), wakeups-per-s (times a thread was put on
#                        a CPU) and voluntary-switches-per-s; link-events in
#                        the namespace meanwhile (ip monitor link)
#   ifaces/memory/n=N    rss-kib and hwm-kib (/proc/PID/status) after that;
#                        bpf-prog-kib, bpf-map-kib (bytes_memlock of the
#                        programs and maps it holds), progs, maps
#   ifaces/appear/n=N    FBF_IFACES_APPEAR (16) interfaces added one by one
#                        while it serves: from just before `ip link add` (the
#                        clock read then) to the --json log time of its
#                        "attached ... to NAME" line: attach-ms-p50, -max;
#                        attached: how many it did attach. Deleted after.
#
# and ifaces/memory/per-iface: the growth per interface from the smallest
# count to the largest. Every agent gets --max-ifaces of the largest count
# plus those that appear, so that its shared maps are the same size for all.
#
# Then the cost per packet: FBF_IFACES_SIDE (16) more pairs bf0.., a raw
# flood from one CPU into bf0's peer for FBF_IFACES_FLOOD_SECONDS (2), and
# the run_time_ns / run_cnt of the program on bf0 (its prog id from the
# agent's line; bench/bpf_run_stats turns the statistics on while the flood
# runs) with the agent over bf0 alone ('bf*,!bf[1-9]*', ifaces=1) and over all
# of them ('bf*', ifaces=16), taking turns FBF_IFACES_ROUNDS (3) times in an
# order that alternates: ifaces/flood/ifaces=K latency (ns per packet),
# throughput (frames/s the flood reached), packets; ifaces/flood/ratio
# ratio (the round's many over its one).
#
# Prints "benchmark<TAB>measure<TAB>value" rows for bench/report.py samples.
#
#   ifaces.sh
set -euo pipefail

. "$(dirname "$0")/../../testing/netns.bash"
. "$(dirname "$0")/flood.bash"

read -ra counts <<<"${FBF_IFACES_COUNTS:-1 16 256}"
mapfile -t counts < <(printf '%s\n' "${counts[@]}" | sort -nu)
appear=${FBF_IFACES_APPEAR:-16}
idle_seconds=${FBF_IFACES_IDLE_SECONDS:-5}
side=${FBF_IFACES_SIDE:-16}
rounds=${FBF_IFACES_ROUNDS:-3}
flood_seconds=${FBF_IFACES_FLOOD_SECONDS:-2}
most=${counts[-1]}
max_ifaces=$((most + appear > side ? most + appear : side))

[ "$side" -ge 2 ] || { echo "ifaces: FBF_IFACES_SIDE must be 2 or more (the flood's many arm)" >&2
	exit 1; }
if [ "$(id -u)" -ne 0 ]; then
	echo "ifaces: needs root (network namespaces, veth pairs, XDP)" >&2
	exit 1
fi
[ -x "$rawflood" ] || { echo "ifaces: $rawflood is missing: run make" >&2; exit 1; }
[ -x "$FBF_BUILD/bench/bpf_run_stats" ] ||
	{ echo "ifaces: $FBF_BUILD/bench/bpf_run_stats is missing: run make bench-build" >&2; exit 1; }

ns=fbfbi-$$
peer=fbfbi-$$-p
work=$(mktemp -d /tmp/fbf-ifaces.XXXXXX)
agent_pid=
cleanup()
{
	# TERM: a background job of a script ignores SIGINT until the agent
	# sets its handler. Under set -e, a wait that reports the signal would
	# end the trap here.
	if [ -n "$agent_pid" ] && kill -TERM "$agent_pid" 2>/dev/null; then
		wait "$agent_pid" 2>/dev/null || true
	fi
	ip netns del "$ns" 2>/dev/null || true
	ip netns del "$peer" 2>/dev/null || true
	rm -rf "$work"
}
fbf_cleanup_on_exit cleanup

for n in "$ns" "$peer"; do
	ip netns add "$n"
	ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
done

# veths_add PREFIX FROM TO: pairs PREFIX$FROM.. PREFIX$((TO - 1)), peers
# PREFIXp$i in the peer namespace, all up.
veths_add()
{
	local i

	for ((i = $2; i < $3; i++)); do
		echo "link add $1$i type veth peer name $1p$i netns $peer"
		echo "link set $1$i up"
	done | ip -n "$ns" -batch -
	for ((i = $2; i < $3; i++)); do echo "link set $1p$i up"; done | ip -n "$peer" -batch -
}

# now_us: the wall clock, as the agent's log times are, in us; no fork.
now_us() { echo "${EPOCHREALTIME//[.,]/}"; }

# log_us REGEX: the time of the agent's first --json log line whose message
# matches REGEX, in us since the epoch.
log_us()
{
	local line

	line=$(grep -m1 -E "\"type\":\"log\".*\"message\":\"$1" "$work/err") || return 1
	date -d "$(grep -o '"time":"[^"]*"' <<<"$line" | cut -d'"' -f4)" +%s%6N
}

# wait_log REGEX: until the agent logs REGEX (up to 300 s: 256 attaches on a
# busy host); fails, showing its log, if it exits first.
wait_log()
{
	fbf_until_or_gone "$agent_pid" 15000 0.02 grep -qE "\"message\":\"$1" "$work/err" &&
		return 0
	echo "ifaces: the agent never logged \"$1\":" >&2
	tail -n 20 "$work/err" >&2
	return 1
}

# agent_start SELECTION: the agent over SELECTION in $ns, serving; sets
# agent_pid, and start_us: the us from just before its exec to its "serving" line.
agent_start()
{
	local t0

	# Emptied here, not only by the redirect below, which runs in the
	# background child, maybe after the first look for the line.
	: >"$work/err"
	t0=$(now_us)
	nsenter --net="/run/netns/$ns" "$AGENT" --iface "$1" --max-ifaces "$max_ifaces" --json \
		--quiet >/dev/null 2>"$work/err" 3>&- &
	agent_pid=$!
	wait_log 'serving every interface'
	start_us=$(($(log_us 'serving every interface') - t0))
}

agent_stop()
{
	local status=0

	kill -TERM "$agent_pid"
	wait "$agent_pid" || status=$?
	agent_pid=
	[ "$status" -eq 0 ] || { echo "ifaces: the agent exited $status:" >&2
		tail -n 20 "$work/err" >&2; return 1; }
}

# voluntary PID: the voluntary context switches of all its threads.
voluntary()
{
	cat /proc/"$1"/task/*/status | awk '/^voluntary_ctxt_switches/ { n += $2 } END { print n }'
}

# The agent over N interfaces: start, idle, memory, interfaces that appear.
have=0
for n in "${counts[@]}"; do
	veths_add bi "$have" "$n"
	have=$n
	bench=ifaces/start/n=$n
	agent_start 'bi*'
	attached=$(grep -m1 -o '([0-9]* now' "$work/err" | grep -o '[0-9]*')
	awk -v b="$bench" -v us="$start_us" -v n="$n" -v a="$attached" 'BEGIN {
		printf "%s\tattach-ms\t%.3f\n%s\tattach-ms-per-iface\t%.3f\n", b, us / 1e3, b, us / 1e3 / n
		printf "%s\tattached\t%d\n", b, a }'

	# Its own attaches make link events: a second for them to pass.
	sleep 1
	timeout "$idle_seconds" ip -n "$ns" monitor link >"$work/monitor" 2>&1 &
	monitor=$!
	read -r cpu0 slices0 < <(thread_stat "$agent_pid")
	vol0=$(voluntary "$agent_pid")
	sleep "$idle_seconds"
	read -r cpu1 slices1 < <(thread_stat "$agent_pid")
	vol1=$(voluntary "$agent_pid")
	wait "$monitor" || true
	awk -v b="ifaces/idle/n=$n" -v s="$idle_seconds" -v cpu=$((cpu1 - cpu0)) \
		-v w=$((slices1 - slices0)) -v v=$((vol1 - vol0)) \
		-v e="$(grep -cE '^([0-9]+:|Deleted)' "$work/monitor" || true)" 'BEGIN {
		printf "%s\tcpu-percent\t%.4f\n", b, cpu / 1e7 / s
		printf "%s\twakeups-per-s\t%.2f\n", b, w / s
		printf "%s\tvoluntary-switches-per-s\t%.2f\n", b, v / s
		printf "%s\tlink-events\t%d\n", b, e }'

	read -r progs prog_kb maps map_kb < <(bpf_kb "$agent_pid")
	awk -v b="ifaces/memory/n=$n" -v p="$progs" -v pk="$prog_kb" -v m="$maps" -v mk="$map_kb" '
		/^VmRSS/ { printf "%s\trss-kib\t%d\n", b, $2 }
		/^VmHWM/ { printf "%s\thwm-kib\t%d\n", b, $2 }
		END {
			printf "%s\tprogs\t%d\n%s\tbpf-prog-kib\t%.1f\n", b, p, b, pk
			printf "%s\tmaps\t%d\n%s\tbpf-map-kib\t%.1f\n", b, m, b, mk
			printf "%s\tbpf-kib\t%.1f\n", b, pk + mk }' "/proc/$agent_pid/status" |
		tee "$work/memory-$n"

	: >"$work/appear"
	for ((k = 0; k < appear; k++)); do
		t0=$(now_us)
		ip -n "$ns" link add "bin$k" type veth peer name "binp$k" netns "$peer"
		wait_log "attached .* to bin$k [(]"
		echo "$(($(log_us "attached .* to bin$k [(]") - t0))" >>"$work/appear"
	done
	for ((k = 0; k < appear; k++)); do echo "link del bin$k"; done | ip -n "$ns" -batch -
	awk -v b="ifaces/appear/n=$n" -v p50="$(percentile 50 "$work/appear")" \
		-v max="$(percentile 100 "$work/appear")" -v c="$(grep -c . "$work/appear" || true)" \
		'BEGIN { printf "%s\tattach-ms-p50\t%.3f\n%s\tattach-ms-max\t%.3f\n%s\tattached\t%d\n",
		b, p50 / 1000, b, max / 1000, b, c }'
	agent_stop
done

# The growth per interface, smallest count to largest.
if [ "${#counts[@]}" -gt 1 ]; then
	join -t$'\t' -j 1 <(cut -f2,3 "$work/memory-${counts[0]}" | sort) \
		<(cut -f2,3 "$work/memory-$most" | sort) |
		awk -F'\t' -v d=$((most - counts[0])) '$1 ~ /kib$/ {
			printf "ifaces/memory/per-iface\t%s\t%.2f\n", $1, ($3 - $2) / d }
			$1 == "maps" || $1 == "progs" {
			printf "ifaces/memory/per-iface\t%s\t%.3f\n", $1, ($3 - $2) / d }'
fi

# The cost per packet on one interface, the agent over it alone and over $side.
veths_add bf 0 "$side"
FBF_NS_CLI=$peer FBF_VETH_CLI=bfp0 FBF_SERVER=10.213.0.254
export -f flood
export rawflood flood_seconds flood_first flood_count work FBF_NS_CLI FBF_VETH_CLI FBF_SERVER
declare -A selection=([1]='bf*,!bf[1-9]*' [$side]='bf*')
for ((round = 0; round < rounds; round++)); do
	arms=(1 "$side")
	[ $((round % 2)) -eq 1 ] && arms=("$side" 1)
	for arm in "${arms[@]}"; do
		agent_start "${selection[$arm]}"
		prog=$(sed -nE 's/.*prog id ([0-9]+)\) to bf0 .*/\1/p' "$work/err" | head -n 1)
		"$FBF_BUILD/bench/bpf_run_stats" "$prog" -- bash -c "flood 0" >"$work/run.out"
		agent_stop
		read -r cnt ns_total < <(grep '^run_cnt=' "$work/run.out" | tr -c '0-9\n' ' ')
		sent=$(grep -E '^[0-9]+$' "$work/run.out" | tail -n 1)
		[ "$cnt" -gt 0 ] || { echo "ifaces: the program on bf0 never ran" >&2; exit 1; }
		echo "$ns_total $cnt" >"$work/last-$arm"
		awk -v b="ifaces/flood/ifaces=$arm" -v ns="$ns_total" -v c="$cnt" -v s="$sent" \
			-v t="$flood_seconds" 'BEGIN {
			printf "%s\tlatency\t%.2f\n%s\tpackets\t%d\n", b, ns / c, b, c
			printf "%s\tthroughput\t%.0f\n", b, s / t }'
	done
	read -r a b <"$work/last-$side"
	read -r c d <"$work/last-1"
	awk -v a="$a" -v b="$b" -v c="$c" -v d="$d" \
		'BEGIN { printf "ifaces/flood/ratio\tratio\t%.3f\n", (a / b) / (c / d) }'
done
