# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Shared by the profile_*.sh scripts: the test network, a work directory,
# cleanup on every way out, steady traffic and the program on the interface.
#
# The scripts profile the build in $FBF_BUILD, so `make profile-kernel
# CANARY=1` profiles build-canary/ and leaves its results beside it.

. "$(dirname "${BASH_SOURCE[0]}")/../../testing/netns.bash"

PROFILE_SECONDS=${FBF_PROFILE_SECONDS:-10}
profile_agent_pid=
profile_traffic_pid=

FBF_PROG_NAME=xdp_fizzbuzzfib

# profile_init OUTDIR: check, then build the network. The caller sets
# PROFILE_NAME first. Sets PROFILE_OUT (results, kept) and PROFILE_WORK
# (scratch, removed on exit).
profile_init()
{
	PROFILE_OUT=$1
	if [ "$(id -u)" -ne 0 ]; then
		echo "$PROFILE_NAME: needs root (network namespaces, veth pairs, XDP); run it with sudo" >&2
		exit 4
	fi
	if ! [[ "$PROFILE_SECONDS" =~ ^[1-9][0-9]*$ ]]; then
		echo "$PROFILE_NAME: FBF_PROFILE_SECONDS='$PROFILE_SECONDS' is not a whole number of seconds" >&2
		exit 2
	fi
	# Results replace the last run's, but never files this script did not write.
	if [ -d "$PROFILE_OUT" ] && [ ! -e "$PROFILE_OUT/.fbf-profile" ] &&
	   [ -n "$(ls -A "$PROFILE_OUT")" ]; then
		echo "$PROFILE_NAME: $PROFILE_OUT holds files of its own; name a new or empty directory" >&2
		exit 2
	fi
	rm -rf "$PROFILE_OUT" && mkdir -p "$PROFILE_OUT" && touch "$PROFILE_OUT/.fbf-profile"
	PROFILE_WORK=$(mktemp -d "/tmp/fbf-$PROFILE_NAME.XXXXXX")
	fbf_cleanup_on_exit profile_cleanup
	fbf_net_up "$PROFILE_WORK"
}

profile_cleanup()
{
	local pid

	for pid in "$profile_traffic_pid" "$profile_agent_pid"; do
		[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
	done
	fbf_net_down
	rm -rf "$PROFILE_WORK"
}

# profile_need CMD HINT: fail with one line if CMD is missing.
profile_need()
{
	command -v "$1" >/dev/null && return 0
	echo "$PROFILE_NAME: $1 not found; $2" >&2
	exit 3
}

# profile_agent_start [ARGS...]: the agent on the server veth, events to
# /dev/null, its stderr in $PROFILE_OUT/agent.log.
profile_agent_start()
{
	fbf_agent_start /dev/null "$PROFILE_OUT/agent.log" "$@" || exit 1
	profile_agent_pid=$FBF_AGENT_PID
}

# profile_agent_stop: SIGINT, which makes the agent drain and print its summary.
profile_agent_stop()
{
	kill -INT "$profile_agent_pid"
	wait "$profile_agent_pid" || {
		echo "$PROFILE_NAME: the agent failed, see $PROFILE_OUT/agent.log" >&2
		exit 1
	}
	profile_agent_pid=
}

# profile_traffic_start SECONDS: HTTP from every source in the background, a
# new TCP connection per request, for SECONDS.
profile_traffic_start()
{
	fbf_in_cli "$TRAFFICGEN" --url "$FBF_URL" --source "$(fbf_source_list)" \
		--duration "$1" --concurrency 8 --quiet >"$PROFILE_OUT/traffic.log" 2>&1 3>&- &
	profile_traffic_pid=$!
}

profile_traffic_wait()
{
	wait "$profile_traffic_pid" || {
		echo "$PROFILE_NAME: the traffic generator failed, see $PROFILE_OUT/traffic.log" >&2
		exit 1
	}
	profile_traffic_pid=
}

# The classifier's own id (behind a dispatcher, a component program), as the
# agent's start line says it.
profile_classifier_id()
{
	grep -om1 'prog id [0-9]*' "$PROFILE_OUT/agent.log" | grep -o '[0-9]*$'
}

# The agent's summary lines, without the "agent: summary" prefix.
profile_agent_summary()
{
	sed -n 's/.* agent: summary /  /p' "$PROFILE_OUT/agent.log"
}
