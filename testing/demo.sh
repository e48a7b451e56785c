#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make demo: the agent on a throwaway veth pair for a few seconds, with HTTP
# traffic from sources of every class, then everything it made is removed.
set -euo pipefail

. "$(dirname "$0")/netns.bash"

if [ "$(id -u)" -ne 0 ]; then
	echo "demo: needs root (network namespaces, veth pairs, XDP); run: sudo make demo" >&2
	exit 1
fi

work=$(mktemp -d /tmp/fbf-demo.XXXXXX)
cleanup()
{
	fbf_net_down
	rm -rf "$work"
}
fbf_cleanup_on_exit cleanup

fbf_net_up "$work"
echo "demo: client namespace $FBF_NS_CLI (${FBF_SOURCES[*]})"
echo "demo: server namespace $FBF_NS_SRV ($FBF_SERVER, HTTP on port $FBF_PORT)"
# The command as typed from the checkout, not with this machine's path to it.
echo "demo: $ nsenter --net=/run/netns/$FBF_NS_SRV ${AGENT#"$PWD"/} --iface $FBF_VETH_SRV" \
	"--duration 4"
echo

# The agent prints events on stdout and its summary on stderr, straight to
# the terminal; a copy of stderr tells when it has attached.
nsenter --net="/run/netns/$FBF_NS_SRV" "$AGENT" --iface "$FBF_VETH_SRV" --duration 4 \
	2> >(tee "$work/agent.err" >&2) &
agent=$!
for _ in $(seq 50); do
	grep -q attached "$work/agent.err" 2>/dev/null && break
	sleep 0.1
done
fbf_traffic 2 >/dev/null
wait "$agent"

echo
echo "demo: one line per classified packet: the client's source address and its class."
echo "demo: 'none' sources (${FBF_SOURCES[*]: -3}) were counted but not pushed."
echo "demo: after the agent exits, $FBF_VETH_SRV carries no XDP program:"
ip -n "$FBF_NS_SRV" -brief link show "$FBF_VETH_SRV"
