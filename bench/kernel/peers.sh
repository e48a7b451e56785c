#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The whole path a user pays for, beside the tools a user would run instead:
# a raw flood of 60-byte frames from 4,096 sources (tools/rawflood) into the
# test network's veth, from one CPU and then from two, with each arm in turn
# on the receiving end:
#
#   none                 nothing attached
#   xdp_pass-native/-skb a bare XDP_PASS program (xdp-loader), native and skb mode
#   agent-aggregate      the agent, --aggregate 1, in its default mode
#   agent-aggregate-skb  the same with --mode skb
#   agent-sample256      the agent sending 1 event in 256 (--sample 256), text to a file
#   softflowd            softflowd 1.1.0 (libpcap), flows per source address
#   pmacctd              pmacct's pmacctd 1.7.7 (libpcap), per source (print plugin)
#
# Each meter is configured as its operator would for this rate and this many
# sources (the agent's default --max-sources, 65,536, for all of them), and
# pinned to the last CPU; the flood's senders are pinned to the first (and
# second). softflowd: -T ip (a flow per address pair), -m 65536 flows, a
# 64 MiB libpcap buffer (-B), maxlife 60 s (the usual active timeout), IPFIX
# to a port on loopback; it counts what it processed (softflowctl
# statistics). pmacctd: aggregate src_host into the print plugin (CSV written
# at exit; the memory plugin's table, read with `pmacct -s` under load, came
# back short), print_cache_entries 65537, plugin_pipe_size 100 MB with
# plugin_buffer_size 100 kB (CONFIG-KEYS' 1:1000), the libpcap buffer at
# libpcap's default (1.7.7 has no key for it).
#
# Per arm and flood, rows "macro/peers/ARM/N-cpu<TAB>measure<TAB>value":
# throughput (frames/s the flood reached: frames sent over the seconds), sent,
# counted-percent (packets the meter counted per source of those sent; the
# agent counts those of class none by class only, and they are added from
# its summary; for the sampled agent its estimate, events x 256),
# meter-cpu-ms-per-mpkt (the meter's own CPU, all its processes and threads,
# per million frames sent), rx-cpu-ms-per-mpkt (softirq time of every CPU,
# /proc/stat: the receive path, where XDP and the packet taps run), pss-kb
# (the meter's memory, proportional so that processes sharing a buffer count
# it once); for the agent map-kb (its maps' kernel memory) and
# xdp-seen-percent (the IPv4 frames its program saw of those sent), for
# softflowd and pmacctd capture-dropped (frames their libpcap capture
# dropped). The arms take turns in an order that rotates each round.
#
#   peers.sh [ROUNDS [FLOOD_SECONDS]]
set -euo pipefail

. "$(dirname "$0")/../../testing/netns.bash"
. "$(dirname "$0")/flood.bash"

rounds=${1:-2}
flood_seconds=${2:-4}
sample=256
arms=(none xdp_pass-native xdp_pass-skb agent-aggregate agent-aggregate-skb
      "agent-sample$sample" softflowd pmacctd)
meter_cpu=$(($(nproc) - 1))
hz=$(getconf CLK_TCK)

if [ "$(id -u)" -ne 0 ]; then
	echo "peers: needs root (network namespaces, veth pairs, XDP, packet capture)" >&2
	exit 1
fi
[ -x "$rawflood" ] || { echo "peers: $rawflood is missing: run make" >&2; exit 1; }
for tool in softflowd softflowctl pmacctd; do
	command -v "$tool" >/dev/null ||
		{ echo "peers: $tool is missing: install the Debian packages with make deps" >&2; exit 1; }
done

work=$(mktemp -d /tmp/fbf-peers.XXXXXX)
meter_pid=
fbf_lab_up meter_pid 2

cat >"$work/pmacctd.conf" <<EOF
daemonize: false
pcap_interface: $FBF_VETH_SRV
aggregate: src_host
plugins: print
print_output: csv
print_output_file: $work/pmacctd.csv
print_refresh_time: 60
print_cache_entries: 65537
plugin_pipe_size: 102400000
plugin_buffer_size: 102400
logfile: $work/pmacctd.log
EOF

# meter_pids: the running meter's processes (pmacctd's plugin is a child).
meter_pids()
{
	[ -n "$meter_pid" ] || return 0
	echo "$meter_pid"
	cat /proc/"$meter_pid"/task/*/children 2>/dev/null | tr ' ' '\n' | grep . || true
}

# The meter's CPU time (cpu_ns) and memory (pss_kb), over all its processes.
# shellcheck disable=SC2046 # one word a pid
meter_cpu_ns() { cpu_ns $(meter_pids); }
# shellcheck disable=SC2046 # one word a pid
meter_pss_kb() { pss_kb $(meter_pids); }

# wait_until WHAT COMMAND...: retry COMMAND for up to 10 s; fail naming WHAT.
wait_until()
{
	local what=$1

	shift
	for _ in $(seq 100); do
		"$@" >/dev/null 2>&1 && return 0
		kill -0 "$meter_pid" 2>/dev/null || break
		sleep 0.1
	done
	echo "peers: $what did not start:" >&2
	cat "$work"/meter.err "$work"/pmacctd.log 2>/dev/null | tail -n 20 >&2
	return 1
}

softflowctl_stat() { fbf_in_srv softflowctl -c "$work/softflowd.ctl" statistics; }
pmacctd_ready() { grep -q 'cache entries=' "$work/pmacctd.log"; }

# attach ARM: the arm on the server veth, ready for the flood.
attach()
{
	local agent_args=()

	: >"$work/meter.out"
	case $1 in
	none) ;;
	xdp_pass-*)
		fbf_in_srv xdp-loader load --mode "${1#xdp_pass-}" "$FBF_VETH_SRV" \
			"$FBF_BUILD/xdp_pass.bpf.o" ;;
	agent-*)
		case $1 in
		agent-aggregate) agent_args=(--aggregate 1) ;;
		agent-aggregate-skb) agent_args=(--aggregate 1 --mode skb) ;;
		agent-sample*) agent_args=(--sample "$sample") ;;
		esac
		fbf_srv_start "$work/meter.out" "$work/meter.err" taskset -c "$meter_cpu" \
			"$AGENT" --iface "$FBF_VETH_SRV" "${agent_args[@]}"
		meter_pid=$FBF_AGENT_PID ;;
	softflowd)
		rm -f "$work/softflowd.ctl"
		nsenter --net="/run/netns/$FBF_NS_SRV" taskset -c "$meter_cpu" softflowd -d \
			-i "$FBF_VETH_SRV" -n 127.0.0.1:4739 -v 10 -T ip -m 65536 -B 67108864 \
			-t maxlife=60 -c "$work/softflowd.ctl" -p "$work/softflowd.pid" \
			>"$work/meter.out" 2>"$work/meter.err" 3>&- &
		meter_pid=$!
		wait_until softflowd softflowctl_stat ;;
	pmacctd)
		rm -f "$work/pmacctd.csv" "$work/pmacctd.log"
		nsenter --net="/run/netns/$FBF_NS_SRV" taskset -c "$meter_cpu" pmacctd \
			-f "$work/pmacctd.conf" >"$work/meter.out" 2>"$work/meter.err" 3>&- &
		meter_pid=$!
		wait_until pmacctd pmacctd_ready ;;
	esac
}

# settle: wait until the meter has read what the flood left queued for it:
# its CPU time grows by less than 2 ms in 200 ms (at most 10 s).
settle()
{
	local a b

	[ -n "$meter_pid" ] || return 0
	b=$(meter_cpu_ns)
	for _ in $(seq 50); do
		sleep 0.2
		a=$b
		b=$(meter_cpu_ns)
		[ $((b - a)) -lt 2000000 ] && return 0
	done
}

# detach ARM: stop the arm; sets counted to the packets it counted per
# source, if it counts, and dropped to those its packet capture dropped.
detach()
{
	counted='' dropped='' seen=''
	case $1 in
	none) return ;;
	xdp_pass-*) fbf_in_srv xdp-loader unload --all "$FBF_VETH_SRV"; return ;;
	softflowd)
		softflowctl_stat >"$work/softflowd.stat"
		counted=$(awk '/^Packets processed:/ { print $3 }' "$work/softflowd.stat")
		dropped=$(awk '/^Packets dropped by libpcap:/ { print $5 }' "$work/softflowd.stat")
		fbf_in_srv softflowctl -c "$work/softflowd.ctl" shutdown >/dev/null
		# softflowd 1.1.0 exits 1 after a shutdown it was asked for.
		wait "$meter_pid" || [ $? -eq 1 ] ;;
	*)
		kill -INT "$meter_pid"
		wait "$meter_pid" ;;
	esac
	meter_pid=
	# The IPv4 frames the agent's program saw: the veth drops what its ring
	# cannot take before XDP runs.
	[[ "$1" != agent-* ]] || seen=$(($(fbf_summary_value "$work/meter.err" packets) - \
		$(fbf_summary_value "$work/meter.err" non_ipv4)))
	case $1 in
	# The agent counts the frames of class none by class only (its summary).
	agent-aggregate*)
		counted=$(($(aggregate_reported "$work/meter.out") + \
			$(fbf_summary_value "$work/meter.err" none))) ;;
	agent-sample*)
		counted=$(($(fbf_summary_value "$work/meter.err" delivered) * sample + \
			$(fbf_summary_value "$work/meter.err" none))) ;;
	pmacctd)
		[ -s "$work/pmacctd.csv" ] ||
			{ echo "peers: pmacctd wrote no table:" >&2; tail -n 20 "$work/pmacctd.log" >&2
			  return 1; }
		counted=$(awk -F, 'NR > 1 { p += $2 } END { printf "%d", p }' "$work/pmacctd.csv")
		# Its exit notice, on stdout or stderr: "[IFACE,0] received_packets=N dropped_packets=N".
		dropped=$(cat "$work/meter.out" "$work/meter.err" |
			grep -o 'dropped_packets=[0-9]*' | cut -d= -f2) ;;
	esac
}

softirq_ticks() { awk '$1 == "cpu" { print $8 }' /proc/stat; }

# pss_kb PID...: the processes' proportional memory.
pss_kb()
{
	local pid

	for pid in "$@"; do
		cat /proc/"$pid"/smaps_rollup 2>/dev/null
	done | awk '/^Pss:/ { t += $2 } END { printf "%d", t }'
}

# run ARM CPUS: one flood through ARM; prints its rows.
run()
{
	local arm=$1 cpus=$2 name=macro/peers/$1/$2-cpu sent maps=
	local cpu0 cpu1=0 irq0 irq1 pss=0

	attach "$arm"
	cpu0=$(meter_cpu_ns)
	irq0=$(softirq_ticks)
	sent=$(flood $(seq 0 $((cpus - 1))))
	irq1=$(softirq_ticks)
	settle
	if [ -n "$meter_pid" ]; then
		cpu1=$(meter_cpu_ns)
		pss=$(meter_pss_kb)
		[[ "$arm" != agent-* ]] || maps=$(map_kb "$meter_pid" "$work/meter.err")
	fi
	detach "$arm"
	awk -v n="$name" -v sent="$sent" -v s="$flood_seconds" -v cpu=$((cpu1 - cpu0)) \
		-v irq=$((irq1 - irq0)) -v hz="$hz" -v counted="$counted" -v pss="$pss" \
		-v maps="$maps" -v dropped="$dropped" -v seen="$seen" 'BEGIN {
		m = sent / 1e6
		printf "%s\tthroughput\t%.0f\n", n, sent / s
		printf "%s\tsent\t%d\n", n, sent
		printf "%s\trx-cpu-ms-per-mpkt\t%.1f\n", n, irq * 1000 / hz / m
		if (counted != "") {
			printf "%s\tcounted-percent\t%.3f\n", n, 100 * counted / sent
			printf "%s\tmeter-cpu-ms-per-mpkt\t%.2f\n", n, cpu / 1e6 / m
			printf "%s\tpss-kb\t%d\n", n, pss
		}
		if (seen != "")
			printf "%s\txdp-seen-percent\t%.3f\n", n, 100 * seen / sent
		if (dropped != "")
			printf "%s\tcapture-dropped\t%d\n", n, dropped
		if (maps != "")
			printf "%s\tmap-kb\t%.1f\n", n, maps
	}'
}

for round in $(seq "$rounds"); do
	for cpus in 1 2; do
		for ((k = 0; k < ${#arms[@]}; k++)); do
			run "${arms[(k + round) % ${#arms[@]}]}" "$cpus"
		done
	done
done
