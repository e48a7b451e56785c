# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# A two-host test network, sourced by the end-to-end tests, the demo and the
# benchmarks: a client namespace and a server namespace joined by a veth pair,
# an HTTP server on the server side, and client source addresses that cover
# every class. Names carry the caller's pid, so runs never collide, and
# fbf_net_down removes everything fbf_net_up made.
#
# The agent runs in the server namespace through nsenter --net, which keeps
# the mount namespace: `ip netns exec` remounts /sys and would hide bpffs
# from libxdp.

FBF_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FBF_BUILD=${FBF_BUILD:-$FBF_ROOT/build}
# FBF_AGENT runs the suites against another agent binary, an older one say;
# FBF_TRANSPORT names the transport it uses (tests/run-suite sets both).
AGENT=${FBF_AGENT:-$FBF_BUILD/agent}
FBF_TRANSPORT=${FBF_TRANSPORT:-queue}
TRAFFICGEN=$FBF_BUILD/trafficgen

# Addresses exist only inside the namespaces below.
FBF_SUBNET=10.213.0
FBF_SERVER=$FBF_SUBNET.254
FBF_PORT=8080
FBF_URL=http://$FBF_SERVER:$FBF_PORT/
# Two sources per class, three that classify as none.
FBF_SOURCES=(
	"$FBF_SUBNET.1" "$FBF_SUBNET.13"		# Fibonacci
	"$FBF_SUBNET.11" "$FBF_SUBNET.14"		# Fizz
	"$FBF_SUBNET.7" "$FBF_SUBNET.12"		# Buzz
	"$FBF_SUBNET.17" "$FBF_SUBNET.32"		# FizzBuzz
	"$FBF_SUBNET.4" "$FBF_SUBNET.6" "$FBF_SUBNET.9"	# none
)

# The class of dotted address $1, from the reference model (testing/ref_parser.c):
# what the agent must print for it.
fbf_expected_class() { "$FBF_BUILD/testing/ref_classify" "$1"; }

fbf_in_srv() { nsenter --net="/run/netns/$FBF_NS_SRV" "$@"; }
fbf_in_cli() { nsenter --net="/run/netns/$FBF_NS_CLI" "$@"; }

# fbf_net_up DIR: build the network; DIR holds the server's log.
fbf_net_up()
{
	local dir=$1 tag addr i q

	tag=$(printf '%x%x' $$ $((RANDOM % 256)))
	FBF_NS_CLI=fbf-$tag-cli
	FBF_NS_SRV=fbf-$tag-srv
	FBF_VETH_CLI=fbfc$tag
	FBF_VETH_SRV=fbfs$tag
	FBF_NET_DIR=$dir
	export FBF_NS_CLI FBF_NS_SRV FBF_VETH_CLI FBF_VETH_SRV FBF_NET_DIR

	ip netns add "$FBF_NS_CLI" || return 1
	ip netns add "$FBF_NS_SRV" || return 1
	# FBF_VETH_QUEUES > 1: traffic sent from several CPUs reaches XDP on each of them.
	q=${FBF_VETH_QUEUES:-1}
	ip link add "$FBF_VETH_CLI" netns "$FBF_NS_CLI" numtxqueues "$q" numrxqueues "$q" \
		type veth peer name "$FBF_VETH_SRV" netns "$FBF_NS_SRV" numtxqueues "$q" \
		numrxqueues "$q" || return 1
	for addr in "${FBF_SOURCES[@]}"; do
		ip -n "$FBF_NS_CLI" addr add "$addr/24" dev "$FBF_VETH_CLI" || return 1
	done
	ip -n "$FBF_NS_SRV" addr add "$FBF_SERVER/24" dev "$FBF_VETH_SRV" || return 1
	for i in lo "$FBF_VETH_CLI"; do ip -n "$FBF_NS_CLI" link set "$i" up || return 1; done
	for i in lo "$FBF_VETH_SRV"; do ip -n "$FBF_NS_SRV" link set "$i" up || return 1; done

	nsenter --net="/run/netns/$FBF_NS_SRV" python3 "$FBF_ROOT/testing/http_server.py" \
		"$FBF_SERVER" "$FBF_PORT" >"$dir/http.log" 2>&1 3>&- &
	FBF_HTTP_PID=$!
	export FBF_HTTP_PID
	for i in $(seq 50); do
		fbf_in_srv ss -Hltn "sport = :$FBF_PORT" | grep -q . && return 0
		sleep 0.1
	done
	echo "netns: HTTP server did not start, see $dir/http.log" >&2
	return 1
}

fbf_net_down()
{
	# Callers may run under set -e: nothing in here may fail the caller.
	if [ -n "${FBF_HTTP_PID:-}" ] && kill "$FBF_HTTP_PID" 2>/dev/null; then
		wait "$FBF_HTTP_PID" 2>/dev/null || true
	fi
	# Detach through libxdp first, so no dispatcher pins outlive the interface.
	if [ -n "${FBF_NS_SRV:-}" ] && [ -e "/run/netns/$FBF_NS_SRV" ]; then
		fbf_in_srv xdp-loader unload --all "$FBF_VETH_SRV" >/dev/null 2>&1 || true
		ip netns del "$FBF_NS_SRV" || true
	fi
	if [ -n "${FBF_NS_CLI:-}" ] && [ -e "/run/netns/$FBF_NS_CLI" ]; then
		ip netns del "$FBF_NS_CLI" || true
	fi
}

# fbf_cleanup_on_exit FUNC: run FUNC on every way out of the script: a normal
# exit, a failure under set -e, Ctrl-C and kill.
fbf_cleanup_on_exit()
{
	# shellcheck disable=SC2064 # FUNC's name, expanded now on purpose
	trap "$1" EXIT
	trap "exit 130" INT TERM
}

# fbf_xdp_prog_id NETNS IFACE: the id of the XDP program attached to IFACE in
# NETNS (libxdp's dispatcher, if it is used), from ip's "prog/xdp id N"
# (prog/xdpdrv, prog/xdpgeneric when several modes are in use); fails if
# none. Not from ip's JSON through python3: every test's teardown asks, and
# a python3 start costs up to a second in a kernel under emulation.
fbf_xdp_prog_id()
{
	local prog

	prog=$(ip -n "$1" -details link show dev "$2" | grep -Eom1 'prog/xdp[a-z]* id [0-9]+') ||
		return 1
	echo "${prog##* }"
}

# True if the server-side veth carries any XDP program.
fbf_xdp_attached() { fbf_xdp_prog_id "$FBF_NS_SRV" "$FBF_VETH_SRV" >/dev/null; }
# The id of the program attached to the server veth: what its traffic runs.
fbf_attached_prog_id() { fbf_xdp_prog_id "$FBF_NS_SRV" "$FBF_VETH_SRV"; }

# fbf_agent_prog_id ERR: the id of the agent's own program, from its start line
# in ERR. Behind libxdp's dispatcher it is not the interface's program.
fbf_agent_prog_id() { grep -Eom1 'prog id [0-9]+' "$1" | grep -Eo '[0-9]+$'; }

# A function, not "! fbf_xdp_attached": bats (set -e) ignores a negated command's status.
fbf_xdp_detached() { ! fbf_xdp_attached; }

# fbf_until_or_gone PID TRIES PAUSE COMMAND...: until COMMAND succeeds, trying
# it up to TRIES times PAUSE seconds apart while process PID lives. Fails if
# PID exits or the tries run out first.
fbf_until_or_gone()
{
	local pid=$1 tries=$2 pause=$3 i

	shift 3
	for ((i = 0; i < tries; i++)); do
		"$@" && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep "$pause"
	done
	return 1
}

# fbf_wait_for SECONDS COMMAND...: until COMMAND succeeds, tried every 0.1 s;
# bounded only to fail a hang, never to time what is tested.
fbf_wait_for()
{
	local i tries=$(($1 * 10))

	shift
	for ((i = 0; i < tries; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	echo "timed out waiting for: $*" >&2
	return 1
}

# fbf_srv_start OUT ERR COMMAND...: run COMMAND (an agent, or the agent under
# a tool) in the server namespace in the background, and wait until it says
# it has attached (or what FBF_START_SAYS says: an agent over patterns
# "serving every interface"): up to 30 s, since Valgrind is slow to start.
# Sets FBF_AGENT_PID to COMMAND's own pid.
fbf_srv_start()
{
	local out=$1 err=$2

	shift 2
	# Emptied here, not only by the redirect below: that one runs in the
	# background child, maybe after the first look, which would then find a
	# previous start's "attached" in a file a test reuses.
	: >"$err"
	# nsenter, not fbf_in_srv: $! must be the command itself (nsenter execs it),
	# not a subshell that would swallow the signals meant for it.
	# 3>&-: bats waits for every holder of its fd 3 before it reports.
	nsenter --net="/run/netns/$FBF_NS_SRV" "$@" >"$out" 2>"$err" 3>&- &
	FBF_AGENT_PID=$!
	fbf_until_or_gone "$FBF_AGENT_PID" 300 0.1 grep -q "${FBF_START_SAYS:-attached}" "$err" &&
		return 0
	echo "agent did not attach:" >&2
	cat "$err" >&2
	return 1
}

# fbf_agent_start OUT ERR [ARGS...]: the agent on the server veth, attached.
fbf_agent_start()
{
	local out=$1 err=$2

	shift 2
	fbf_srv_start "$out" "$err" "$AGENT" --iface "$FBF_VETH_SRV" "$@"
}

# fbf_capacity ERR: how many events the agent's queue or ring holds, from its start line.
fbf_capacity()
{
	grep -Eom1 '(queue |\()[0-9]+ events' "$1" | grep -Eo '[0-9]+'
}

# fbf_possible_cpus: how many CPUs the kernel may ever run, as many as the event maps.
fbf_possible_cpus() { awk -F'[-,]' '{ print $NF + 1 }' /sys/devices/system/cpu/possible; }

# fbf_syscall_nr NAME: this machine's number of system call NAME, from its C headers.
fbf_syscall_nr() { printf '#include <sys/syscall.h>\nSYS_%s\n' "$1" | cc -E -P - | tail -n 1; }

# fbf_sleeps_in_epoll PID: true if PID's main thread is blocked in epoll_wait or
# epoll_pwait with no timeout. /proc/PID/syscall gives the call's number and
# arguments, the timeout fourth, on every kernel; the kernel function a
# sleeper waits in (wchan) has another name on each.
fbf_sleeps_in_epoll()
{
	local nr fd events max timeout rest

	read -r nr fd events max timeout rest <"/proc/$1/syscall" || return 1
	[ "$nr" = "$(fbf_syscall_nr epoll_wait)" ] || [ "$nr" = "$(fbf_syscall_nr epoll_pwait)" ] ||
		return 1
	# The timeout is an int: -1, however wide the register shows it.
	[ $((timeout & 0xffffffff)) -eq $((0xffffffff)) ]
}

# True if binary $1 is built with AddressSanitizer (make SANITIZE=1).
fbf_is_sanitized() { ldd "$1" 2>/dev/null | grep -q libasan; }

# The lifecycle of a bats suite that shares one test network among its tests;
# the suite's setup_file, teardown_file, setup and teardown call these.
fbf_bats_setup_file()
{
	# A test that hangs (an agent that ignores a signal, say) fails instead.
	export BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-120}
	[ "$(id -u)" -eq 0 ] || return 0
	FBF_WORK=$(mktemp -d "/tmp/fbf-$1.XXXXXX")
	export FBF_WORK
	fbf_net_up "$FBF_WORK"
}

fbf_bats_teardown_file()
{
	fbf_net_down
	[ -n "${FBF_WORK:-}" ] && rm -rf "$FBF_WORK"
	return 0
}

fbf_bats_setup()
{
	[ "$(id -u)" -eq 0 ] || skip "needs root: network namespaces, veth and XDP"
	OUT=$FBF_WORK/$BATS_TEST_NUMBER.out
	ERR=$FBF_WORK/$BATS_TEST_NUMBER.err
	FBF_AGENT_PID=
}

# A failed test must not leave its agent or a program attached for the next
# one, and shows what the agent said.
fbf_bats_teardown()
{
	if [ -n "${FBF_AGENT_PID:-}" ] && kill -0 "$FBF_AGENT_PID" 2>/dev/null; then
		kill -KILL "$FBF_AGENT_PID"
		wait "$FBF_AGENT_PID" 2>/dev/null || true
	fi
	if [ -n "${FBF_VETH_SRV:-}" ] && fbf_xdp_attached; then
		fbf_in_srv xdp-loader unload --all "$FBF_VETH_SRV" >/dev/null 2>&1 || true
	fi
	[ -n "${BATS_TEST_COMPLETED:-}" ] && return 0
	echo "# agent stdout:" && sed 's/^/#   /' "$OUT" 2>/dev/null | tail -n 20
	echo "# agent stderr:" && sed 's/^/#   /' "$ERR" 2>/dev/null | tail -n 40
	return 0
}

# The client's source addresses as trafficgen's --source list.
fbf_source_list()
{
	local IFS=,

	echo "${FBF_SOURCES[*]}"
}

# fbf_traffic REQUESTS_PER_SOURCE [TRAFFICGEN ARGS...]: HTTP from every source.
fbf_traffic()
{
	local per_source=$1

	shift
	fbf_in_cli "$TRAFFICGEN" --url "$FBF_URL" --source "$(fbf_source_list)" \
		--requests $((per_source * ${#FBF_SOURCES[@]})) --concurrency 4 --quiet "$@"
}

# The start of a line of the agent's log: time (UTC, RFC 3339), level, its
# name as invoked ("agent: ", "fizzbuzzfib-agent: " as installed).
FBF_LOG_TIME='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z'
FBF_LOG="^$FBF_LOG_TIME (error|warning|info|debug) [^ ]*agent: "

# fbf_summary_value FILE KEY: a value from the agent's summary: its lines, or
# under --json its object.
fbf_summary_value()
{
	# Each format may be absent: callers under set -e -o pipefail must not fail for that.
	{
		grep -E "${FBF_LOG}summary " "$1" | grep -o "\b$2=[0-9.]*" | cut -d= -f2 || true
		grep '^{"type":"summary"' "$1" | grep -o "\"$2\":[0-9.]*" | cut -d: -f2 || true
	} | head -n 1
}

# fbf_stop_agent SIGNAL: send it and check the agent exits 0 and leaves no program.
fbf_stop_agent()
{
	local status=0

	kill -"$1" "$FBF_AGENT_PID"
	wait "$FBF_AGENT_PID" || status=$?
	FBF_AGENT_PID=
	[ "$status" -eq 0 ] || { echo "agent exited $status after SIG$1" >&2; return 1; }
	! fbf_xdp_attached || { echo "XDP program left on $FBF_VETH_SRV" >&2; return 1; }
}

# fbf_check_summary ERR EVENTS: the summary reconciles with itself and with the
# number of events printed.
fbf_check_summary()
{
	local err=$1 events=$2 key
	local packets non_ipv4 malformed none fizz buzz fizzbuzz fibonacci not_sampled produced
	local delivered lost_queue_full lost_queue_busy aggregated no_room no_event

	for key in packets non_ipv4 malformed none fizz buzz fizzbuzz fibonacci not_sampled \
		aggregated no_room produced delivered lost_queue_full lost_queue_busy; do
		printf -v "$key" '%s' "$(fbf_summary_value "$err" "$key")"
		[ -n "${!key}" ] || { echo "summary incomplete: no $key" >&2; return 1; }
	done
	# Classified frames that made no event: not sampled, or counted by source (--aggregate).
	no_event=$((not_sampled + aggregated + no_room))
	[ "$packets" -eq $((non_ipv4 + malformed + none + no_event + produced)) ] ||
		{ echo "packets $packets != sum of outcomes" >&2; return 1; }
	[ $((produced + no_event)) -eq $((fizz + buzz + fizzbuzz + fibonacci)) ] ||
		{ echo "produced $produced + not_sampled $not_sampled + aggregated $aggregated" \
		       "+ no_room $no_room != sum of classes" >&2
		  return 1; }
	[ "$produced" -eq $((delivered + lost_queue_full + lost_queue_busy)) ] ||
		{ echo "produced $produced != delivered $delivered + lost" \
		       "$((lost_queue_full + lost_queue_busy))" >&2; return 1; }
	[ "$delivered" -eq "$events" ] ||
		{ echo "delivered $delivered but $events events printed" >&2; return 1; }
	# Each output wrote every event it was given, or counted it lost (under
	# --aggregate, which has aggregated_read, its records are the intervals).
	if grep -q 'stdout_delivered' "$err" && ! grep -q 'aggregated_read' "$err"; then
		[ "$delivered" -eq $(($(fbf_summary_value "$err" stdout_delivered) + \
			$(fbf_summary_value "$err" stdout_lost))) ] ||
			{ echo "stdout's delivered and lost do not add up to $delivered" >&2; return 1; }
	fi
}
