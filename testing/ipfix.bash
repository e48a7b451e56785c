# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# A real IPFIX collector for the tests and benchmarks: nfdump's nfcapd on a
# loopback port of its own, in the server namespace where the agent runs
# (testing/netns.bash), and nfdump to read what it stored. Sourced after
# netns.bash.

# fbf_ipfix_tools: true if nfcapd and nfdump are installed (Debian: nfdump).
fbf_ipfix_tools() { command -v nfcapd >/dev/null && command -v nfdump >/dev/null; }

# fbf_ipfix_port: a UDP port no socket of the server namespace holds, from
# the dynamic range, different for each caller.
fbf_ipfix_port()
{
	local port

	for _ in $(seq 50); do
		port=$((20000 + (RANDOM % 20000)))
		fbf_in_srv ss -Hlun "sport = :$port" | grep -q . || { echo "$port"; return 0; }
	done
	return 1
}

# fbf_nfcapd_start PORT DIR: nfcapd on 127.0.0.1:PORT of the server
# namespace, storing into DIR (made if missing). Sets FBF_NFCAPD_PID; waits
# until it listens (up to 5 s).
fbf_nfcapd_start()
{
	local port=$1 dir=$2

	mkdir -p "$dir"
	# -t 3600: one file for the whole test, written when nfcapd stops. -B: a
	# socket buffer that holds an interval of 65,536 sources (some 1,200
	# datagrams) if nfcapd is not scheduled while it comes; the kernel grants
	# up to net.core.rmem_max of it.
	nsenter --net="/run/netns/$FBF_NS_SRV" nfcapd -p "$port" -b 127.0.0.1 -w "$dir" \
		-t 3600 -B 8388608 -v >"$dir.log" 2>&1 3>&- &
	FBF_NFCAPD_PID=$!
	for _ in $(seq 50); do
		fbf_in_srv ss -Hlun "sport = :$port" | grep -q . && return 0
		kill -0 "$FBF_NFCAPD_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "nfcapd did not start on 127.0.0.1:$port:" >&2
	cat "$dir.log" >&2
	return 1
}

# fbf_nfcapd_stop: SIGTERM, which makes nfcapd write what it holds, and wait
# for it (up to 10 s).
fbf_nfcapd_stop()
{
	[ -n "${FBF_NFCAPD_PID:-}" ] || return 0
	kill -TERM "$FBF_NFCAPD_PID" 2>/dev/null || true
	for _ in $(seq 100); do
		kill -0 "$FBF_NFCAPD_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$FBF_NFCAPD_PID" 2>/dev/null || true
	wait "$FBF_NFCAPD_PID" 2>/dev/null || true
	FBF_NFCAPD_PID=
}

# fbf_nfdump_sources DIR: "ADDRESS PACKETS" per source, summed over every
# record nfcapd stored in DIR, sorted by address; exact counts (-N).
fbf_nfdump_sources()
{
	nfdump -R "$1" -q -N -A srcip -o 'fmt:%sa %pkt' | awk 'NF == 2 { print $1, $2 }' | sort
}
