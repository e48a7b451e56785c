#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The captures beside this script, made again (as root, after make all): the
# test network of testing/netns.bash, tcpdump on the server's veth while real
# traffic crosses it, and tcpdump -i any for the cooked one. Needs tcpdump,
# tcpreplay, iputils-ping and bind9-dnsutils (dig). README.md says what each
# holds. The kernels here have no 802.1Q devices (nor bridges): the VLAN
# frames are the lab's own HTTP exchange, tagged (VLAN 100) by tcprewrite and
# sent over the veth by tcpreplay, where tcpdump captures them with the rest.
#
#   make-captures.sh [DIR]    (DIR: this script's own)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-$here}
. "$here/../netns.bash"

work=$(mktemp -d /tmp/fbf-captures.XXXXXX)
cleanup() { fbf_net_down; [ -n "${FBF_KEEP:-}" ] || rm -rf "$work"; }
fbf_cleanup_on_exit cleanup
fbf_net_up "$work"

# IPv6 on the same veth, so one capture holds every kind.
ip -n "$FBF_NS_CLI" addr add fd00:fbf::1/64 dev "$FBF_VETH_CLI" nodad
ip -n "$FBF_NS_SRV" addr add fd00:fbf::254/64 dev "$FBF_VETH_SRV" nodad

# capture FILE IFACE: tcpdump in the server's namespace until stop_capture.
capture()
{
	nsenter --net="/run/netns/$FBF_NS_SRV" tcpdump -i "$2" -s 0 -U -w "$1" \
		2>"$work/$(basename "$1").err" &
	tcpdump_pid=$!
	for _ in $(seq 100); do
		! grep -qs 'listening on' "$work/$(basename "$1").err" || return 0
		sleep 0.1
	done
	echo "make-captures: tcpdump did not start: $(cat "$work/$(basename "$1").err")" >&2
	return 1
}

stop_capture()
{
	sleep 0.5
	kill -TERM "$tcpdump_pid"
	wait "$tcpdump_pid" || true
}

traffic()
{
	fbf_traffic 2
	fbf_in_cli ping -c 3 -i 0.2 "$FBF_SERVER" >/dev/null
	fbf_in_cli ping -c 3 -i 0.2 fd00:fbf::254 >/dev/null
	fbf_in_cli curl -s -o /dev/null -g "http://[fd00:fbf::254]:$FBF_PORT/" || true
	# No server answers DNS here: the queries, and the port-unreachable replies.
	fbf_in_cli dig +tries=1 +timeout=1 @"$FBF_SERVER" example.org A >/dev/null || true
	fbf_in_cli dig +tries=1 +timeout=1 @fd00:fbf::254 example.org AAAA >/dev/null || true
}

# The HTTP server listens on the IPv4 address alone: another answers IPv6.
fbf_in_srv python3 "$FBF_ROOT/testing/http_server.py" :: "$FBF_PORT" >/dev/null 2>&1 3>&- &
servers=($!)
sleep 0.5
capture "$work/http.pcap" "$FBF_VETH_SRV"
fbf_in_cli curl -s -o /dev/null "$FBF_URL"
stop_capture
tcprewrite --enet-vlan=add --enet-vlan-tag=100 --enet-vlan-cfi=0 --enet-vlan-pri=0 \
	-i "$work/http.pcap" -o "$work/vlan.pcap"
capture "$dir/lab.pcap" "$FBF_VETH_SRV"
traffic
fbf_in_cli tcpreplay -q --topspeed -i "$FBF_VETH_CLI" "$work/vlan.pcap" >/dev/null
stop_capture
capture "$dir/lab-any.pcap" any
fbf_in_cli ping -c 3 -i 0.2 "$FBF_SERVER" >/dev/null
stop_capture
kill "${servers[@]}" 2>/dev/null || true
wait "${servers[@]}" 2>/dev/null || true
