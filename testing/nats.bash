# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# NATS JetStream servers for the suites that check the agent's NATS output
# (tests/e2e/outputs.bats), sourced after netns.bash: one server, or a
# three-node cluster, each nats-server on loopback ports of its own inside the
# test's server namespace, where the agent runs. fbf_nats_stop_all stops
# every server these functions started; a suite's teardown calls it.
#
# nats_stream (testing/nats_stream.c) reads a stream back through the
# JetStream API: Debian 12 has no NATS command-line client.

NATS_STREAM_TOOL=$FBF_BUILD/testing/nats_stream
# Debian installs it in /usr/sbin, which a user's PATH may not have.
NATS_SERVER=$(command -v nats-server || echo /usr/sbin/nats-server)

# The pids of the servers started, by name ("single", "n1", ...): SIGKILLed
# ones are taken out by fbf_nats_kill.
declare -gA FBF_NATS_PIDS=()

# fbf_nats_skip_reason: why the NATS tests cannot run here, or nothing.
fbf_nats_skip_reason()
{
	[ -x "$NATS_SERVER" ] ||
		{ echo "nats-server is not installed (Debian: apt-get install nats-server)"; return; }
	[ -x "$NATS_STREAM_TOOL" ] ||
		echo "$NATS_STREAM_TOOL is not built (make test-build; needs libnats-dev)"
}

# fbf_nats_free_port VAR: set VAR to a TCP port nothing listens on in the
# server namespace, and that this test was not given yet; below the kernel's
# ephemeral range (32768 and up), so that no connection's own end takes it.
fbf_nats_free_port()
{
	local fbf_port

	for _ in $(seq 200); do
		fbf_port=$((20000 + RANDOM % 12000))
		[[ " ${FBF_NATS_PORTS_GIVEN:-} " == *" $fbf_port "* ]] && continue
		fbf_in_srv ss -Hltn "sport = :$fbf_port" | grep -q . && continue
		FBF_NATS_PORTS_GIVEN="${FBF_NATS_PORTS_GIVEN:-} $fbf_port"
		printf -v "$1" '%s' "$fbf_port"
		return 0
	done
	echo "nats: no free port found" >&2
	return 1
}

# fbf_nats_listening PORT: true if PORT listens in the server namespace.
fbf_nats_listening() { fbf_in_srv ss -Hltn "sport = :$1" | grep -q .; }

# fbf_nats_wait_listen PORT PID LOG: wait until PORT listens in the server
# namespace, up to 20 s; fails at once if PID is gone, and shows LOG.
fbf_nats_wait_listen()
{
	local port=$1 pid=$2 log=$3

	fbf_until_or_gone "$pid" 200 0.1 fbf_nats_listening "$port" && return 0
	echo "nats-server did not listen on $port:" >&2
	tail -n 20 "$log" >&2
	return 1
}

# fbf_nats_start NAME DIR PORT [CONFIG_LINE...]: one JetStream server on
# 127.0.0.1:PORT in the server namespace, its store in DIR/NAME.store (kept
# across restarts), its log in DIR/NAME.log. With CONFIG_LINEs (settings the
# command line has no flag for, "max_payload: 65536" say), from a config file
# DIR/NAME.conf of the same and those. Waits until it listens.
fbf_nats_start()
{
	local name=$1 dir=$2 port=$3 line args

	shift 3
	args=(-js -sd "$dir/$name.store" -p "$port" -a 127.0.0.1)
	if [ $# -gt 0 ]; then
		{
			echo "listen: 127.0.0.1:$port"
			echo "jetstream { store_dir: \"$dir/$name.store\" }"
			for line in "$@"; do echo "$line"; done
		} >"$dir/$name.conf"
		args=(-c "$dir/$name.conf")
	fi
	# nsenter execs the server: $! is its own pid. 3>&-: bats waits for
	# every holder of its fd 3.
	nsenter --net="/run/netns/$FBF_NS_SRV" "$NATS_SERVER" "${args[@]}" \
		>>"$dir/$name.log" 2>&1 3>&- &
	FBF_NATS_PIDS[$name]=$!
	fbf_nats_wait_listen "$port" "$!" "$dir/$name.log"
}

# fbf_nats_cluster_start DIR: three JetStream servers n1, n2, n3 in one
# cluster on loopback, each with its config file DIR/nN.conf; sets
# FBF_NATS_CLUSTER (the agent's HOST:PORT,HOST:PORT,HOST:PORT),
# FBF_NATS_PORT[nN] and FBF_NATS_HTTP[nN] (its monitoring port). Waits,
# up to 60 s, until a stream of three replicas can be created and written.
fbf_nats_cluster_start()
{
	local dir=$1 n routes="" servers=""
	declare -gA FBF_NATS_PORT=() FBF_NATS_HTTP=() FBF_NATS_ROUTE=()

	for n in n1 n2 n3; do
		fbf_nats_free_port "FBF_NATS_PORT[$n]" || return 1
		fbf_nats_free_port "FBF_NATS_HTTP[$n]" || return 1
		fbf_nats_free_port "FBF_NATS_ROUTE[$n]" || return 1
		routes+="${routes:+, }nats-route://127.0.0.1:${FBF_NATS_ROUTE[$n]}"
		servers+="${servers:+,}127.0.0.1:${FBF_NATS_PORT[$n]}"
	done
	for n in n1 n2 n3; do
		cat >"$dir/$n.conf" <<-EOF
		server_name: $n
		listen: 127.0.0.1:${FBF_NATS_PORT[$n]}
		http: 127.0.0.1:${FBF_NATS_HTTP[$n]}
		jetstream {
		  store_dir: "$dir/$n.store"
		}
		cluster {
		  name: fbf
		  listen: 127.0.0.1:${FBF_NATS_ROUTE[$n]}
		  routes: [ $routes ]
		}
		EOF
		fbf_nats_restart "$n" "$dir" || return 1
	done
	# shellcheck disable=SC2034 # for the caller
	FBF_NATS_CLUSTER=$servers
	# The cluster has elected its meta leader and knows every peer once a
	# stream of three replicas can be created: about 5 s after the start.
	for _ in $(seq 60); do
		fbf_nats_stream "$servers" FBF_PROBE probe fbf.probe 3 2>/dev/null && return 0
		sleep 1
	done
	echo "nats: the cluster took no stream of three replicas in 60 s:" >&2
	fbf_nats_stream "$servers" FBF_PROBE probe fbf.probe 3 >&2
	tail -n 20 "$dir"/n?.log >&2
	return 1
}

# fbf_nats_restart NAME DIR: start cluster node NAME from DIR/NAME.conf, the
# first time or again after fbf_nats_kill, on the same ports and store.
fbf_nats_restart()
{
	local name=$1 dir=$2

	nsenter --net="/run/netns/$FBF_NS_SRV" "$NATS_SERVER" -c "$dir/$name.conf" \
		>>"$dir/$name.log" 2>&1 3>&- &
	FBF_NATS_PIDS[$name]=$!
	fbf_nats_wait_listen "${FBF_NATS_PORT[$name]}" "$!" "$dir/$name.log"
}

# fbf_nats_kill NAME SIGNAL: signal server NAME and wait for it to end (it does:
# SIGKILL, or SIGTERM, which a server obeys within seconds).
fbf_nats_kill()
{
	local name=$1 pid=${FBF_NATS_PIDS[$1]:-}

	[ -n "$pid" ] || { echo "nats: no server $name" >&2; return 1; }
	kill -"$2" "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	unset "FBF_NATS_PIDS[$name]"
}

# Stop every server still running: SIGCONT and SIGTERM, and SIGKILL after 10 s.
# Callers may run under set -e: nothing in here may fail the caller.
fbf_nats_stop_all()
{
	local name pid

	for name in "${!FBF_NATS_PIDS[@]}"; do
		# A server a test stopped (SIGSTOP) must run to take SIGTERM.
		kill -CONT "${FBF_NATS_PIDS[$name]}" 2>/dev/null || true
		kill -TERM "${FBF_NATS_PIDS[$name]}" 2>/dev/null || true
	done
	for name in "${!FBF_NATS_PIDS[@]}"; do
		pid=${FBF_NATS_PIDS[$name]}
		for _ in $(seq 100); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		unset "FBF_NATS_PIDS[$name]"
	done
	return 0
}

# fbf_nats_stream SERVERS STREAM info|dump|ids|probe...: nats_stream in the
# server namespace (testing/nats_stream.c says what each command prints).
fbf_nats_stream() { fbf_in_srv "$NATS_STREAM_TOOL" "$@"; }

# fbf_nats_info_value SERVERS STREAM KEY: one value of nats_stream's info line
# (msgs, first_seq, last_seq, leader); nothing if the stream cannot be read.
fbf_nats_info_value()
{
	fbf_nats_stream "$1" "$2" info 2>/dev/null | grep -o "\b$3=[^ ]*" | cut -d= -f2 || true
}

# fbf_nats_client_node NAME: the cluster node (n1, n2, n3) the client named
# NAME is connected to, from each node's monitoring endpoint /connz.
fbf_nats_client_node()
{
	local n

	for n in n1 n2 n3; do
		[ -n "${FBF_NATS_PIDS[$n]:-}" ] || continue
		fbf_in_srv curl -sf --max-time 5 \
			"http://127.0.0.1:${FBF_NATS_HTTP[$n]}/connz?limit=1024" |
			grep -q "\"name\": *\"$1\"" && { echo "$n"; return 0; }
	done
	return 1
}
