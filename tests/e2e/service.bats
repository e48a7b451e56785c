#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The installed units, fizzbuzzfib-agent@.service and fizzbuzzfib-agent.service,
# run by a real systemd: a container booted from this machine's root
# (testing/nspawn/), with the agent installed by make install and a veth pair
# of its own. Start with readiness, traffic, the journal and a scrape, stop,
# SIGKILL and the restart that removes what the killed agent left, crashes
# and a watchdog kill with no restart after which ExecStopPost= left nothing,
# the watchdog, a permanent error, the start limit, the unit for every
# interface its patterns select (started, stopped, with no patterns, against
# the template's instance on the same interface), the interface moved to
# another namespace under the sandbox, and the sandbox's exposure score.

load ../../testing/nspawn/nspawn

UNIT=fizzbuzzfib-agent@veth0.service
# The unit for every interface its patterns select, and the file it reads them from.
ALL=fizzbuzzfib-agent.service
DEFAULTS=/etc/default/fizzbuzzfib-agent

setup_file()
{
	local why

	why=$(fbf_box_missing)
	if [ -n "$why" ]; then
		export FBF_BOX_SKIP="$why"
		return 0
	fi
	mkdir -p "$BATS_FILE_TMPDIR/box"
	fbf_box_up "$BATS_FILE_TMPDIR/box" || { fbf_box_down; return 1; }
	fbf_box_veth_up
	fbf_box_bpffs
}

teardown_file() { fbf_box_down; }

setup()
{
	[ -z "${FBF_BOX_SKIP:-}" ] || skip "$FBF_BOX_SKIP"
	fbf_box journalctl --rotate --vacuum-files=1 -q 2>/dev/null || true
	CURSOR=$(fbf_box journalctl -n 0 --show-cursor -q | sed -n 's/^-- cursor: //p')
}

teardown()
{
	[ -z "${FBF_BOX_SKIP:-}" ] || return 0
	fbf_box systemctl stop "$UNIT" "$ALL"
	fbf_box systemctl reset-failed "$UNIT" "$ALL" 2>/dev/null || true
	fbf_box rm -rf "/run/systemd/system/$UNIT.d" "/run/systemd/system/$ALL.d" \
		/etc/default/fizzbuzzfib-agent@veth0 "$DEFAULTS"
	fbf_box systemctl daemon-reload
}

# dropin TEXT [UNIT]: the unit's settings for this test (teardown removes them).
dropin()
{
	local unit=${2:-$UNIT}

	fbf_box mkdir -p "/run/systemd/system/$unit.d"
	printf '%b' "$1" | fbf_box tee "/run/systemd/system/$unit.d/test.conf" >/dev/null
	fbf_box systemctl daemon-reload
}

# The lock files left in the unit's lock directory, one a line.
lock_files() { fbf_box find /run/fizzbuzzfib -name '*.lock'; }

# A unit's journal (the template's instance's if none named) since the test
# began; the journal can lag a little.
unit_journal()
{
	sleep 1
	fbf_box journalctl -u "${1:-$UNIT}" --after-cursor="$CURSOR" -o cat -q
}

# The id of xdp_fizzbuzzfib on veth0 now; the prog id in the unit's status.
attached_id() { fbf_box_attached_id veth0; }
status_id() { fbf_box_status_id "$UNIT"; }
metric() { fbf_box_metric "$1"; }

# metric_reaching NAME COUNT: NAME's value once it reaches COUNT, or what it is
# after 30 s: frames still in the receive path are counted a moment after the
# flood returns, and the summary read later has them.
metric_reaching()
{
	local i v

	for i in $(seq 300); do
		v=$(metric "$1")
		[ "${v:-0}" -ge "$2" ] && break
		sleep 0.1
	done
	echo "$v"
}

@test "started by systemd: ready once attached, counts traffic, serves metrics, logs to the journal" {
	local id sent packets journal info

	fbf_box systemctl start "$UNIT"	# Type=notify: returns once READY=1 came
	[ "$(fbf_box_prop "$UNIT" ActiveState)" = active ]
	id=$(status_id)
	[ -n "$id" ]
	[ "$(attached_id)" = "$id" ]
	[[ "$(fbf_box_prop "$UNIT" StatusText)" == *" on veth0, skb mode, queue 4096 events" ]]
	sent=$(fbf_box "$FBF_BUILD/rawflood" veth1 0.2 10.213.0.1 16 10.213.0.254)
	packets=$(metric_reaching 'fizzbuzzfib_packets_total{device="veth0"}' "$sent")
	echo "sent $sent, counted $packets"
	[ "$packets" -gt 0 ]
	[ "$packets" -le "$sent" ]
	info='fizzbuzzfib_agent_info{device="veth0",transport="queue",mode="skb",sample="1"}'
	[ "$(metric "$info")" = 1 ]

	fbf_box systemctl stop "$UNIT"
	[ "$(fbf_box_prop "$UNIT" ActiveState)" = inactive ]
	[ "$(fbf_box_prop "$UNIT" ExecMainStatus)" = 0 ]	# 9 if the summary did not balance
	[ -z "$(attached_id)" ]
	journal=$(unit_journal)
	echo "$journal"
	[[ "$journal" == *"attached xdp_fizzbuzzfib (prog id $id) to veth0"* ]]
	[[ "$journal" == *"metrics at http://127.0.0.1:9435/metrics"* ]]
	[[ "$journal" == *"summary packets=$packets non_ipv4=0 malformed=0"* ]]
}

@test "killed: restarted, and the new agent removes the program the killed one left" {
	local old new

	fbf_box systemctl start "$UNIT"
	old=$(status_id)
	fbf_box systemctl kill -s KILL "$UNIT"
	fbf_box_wait "$UNIT" NRestarts 1
	fbf_box_wait "$UNIT" ActiveState active
	new=$(status_id)
	echo "killed prog id $old, restarted with $new"
	[ -n "$new" ]
	[ "$new" != "$old" ]
	[ "$(attached_id)" = "$new" ]
	[[ "$(unit_journal)" == *"removed stale xdp_fizzbuzzfib (prog id $old) left on veth0"* ]]
}

@test "a crash or a watchdog kill, with no restart to follow: nothing left attached, no lock file" {
	local how id journal

	# Restart=no: what is left is what the unit's ExecStopPost= left, not what a new agent removed.
	dropin '[Service]\nRestart=no\nWatchdogSec=1s\nTimeoutAbortSec=5s\n'
	for how in ABRT SEGV BUS watchdog; do
		fbf_box systemctl start "$UNIT"
		id=$(status_id)
		[ -n "$id" ]
		[ "$(attached_id)" = "$id" ]
		if [ "$how" = watchdog ]; then
			# A loop that no longer runs says nothing: SIGSTOP stands in for a hang.
			fbf_box kill -STOP "$(fbf_box_prop "$UNIT" MainPID)"
		else
			# Signals that dump core: no handler of the agent's runs.
			fbf_box systemctl kill -s "$how" --kill-who=main "$UNIT"
		fi
		fbf_box_wait "$UNIT" ActiveState failed
		echo "$how: prog id $id, result $(fbf_box_prop "$UNIT" Result)"
		[ -z "$(attached_id)" ]
		[ -z "$(lock_files)" ]
		journal=$(unit_journal)
		[[ "$journal" == *"removed stale xdp_fizzbuzzfib (prog id $id) left on veth0"* ]]
		fbf_box systemctl reset-failed "$UNIT"
	done
	echo "$journal"
	[[ "$journal" == *"Watchdog timeout"* ]]
	[ "$(fbf_box_prop "$UNIT" WatchdogSignal)" = 6 ]	# SIGABRT, as the unit chooses
}

@test "watchdog: an idle agent keeps it fed; a stuck one is killed and restarted" {
	local pid

	# A short watchdog, so that the test waits seconds, not the unit's 30.
	dropin '[Service]\nWatchdogSec=1s\nTimeoutAbortSec=1s\n'
	fbf_box systemctl start "$UNIT"
	pid=$(fbf_box_prop "$UNIT" MainPID)
	# No traffic: the drain loop sleeps, and still wakes to say it is alive.
	sleep 4
	[ "$(fbf_box_prop "$UNIT" NRestarts)" = 0 ]
	[ "$(fbf_box_prop "$UNIT" MainPID)" = "$pid" ]
	# A loop that no longer runs says nothing: SIGSTOP stands in for a hang.
	fbf_box kill -STOP "$pid"
	fbf_box_wait "$UNIT" NRestarts 1
	fbf_box_wait "$UNIT" ActiveState active
	[ "$(fbf_box_prop "$UNIT" MainPID)" != "$pid" ]
	[[ "$(unit_journal)" == *"Watchdog timeout"* ]]
}

# usage_refused UNIT: its start fails with the agent's usage error, exit 2,
# and is not restarted; nothing attached.
usage_refused()
{
	run fbf_box systemctl start "$1"
	[ "$status" -ne 0 ]
	[ "$(fbf_box_prop "$1" ExecMainStatus)" = 2 ]
	sleep 3	# RestartSec=2: a restart would have come by now
	[ "$(fbf_box_prop "$1" NRestarts)" = 0 ]
	[ "$(fbf_box_prop "$1" ActiveState)" = failed ]
	[ -z "$(attached_id)" ]
}

@test "a permanent error is not restarted: bad options from the environment file" {
	echo 'FIZZBUZZFIB_AGENT_OPTS="--stats-interval soon"' |
		fbf_box tee /etc/default/fizzbuzzfib-agent@veth0 >/dev/null
	usage_refused "$UNIT"
	[[ "$(unit_journal)" == *"fizzbuzzfib-agent: "*"soon"* ]]
}

@test "an agent that cannot attach is retried, and given up after five starts in a minute" {
	# An agent run by hand holds the interface: the unit's exits 6.
	fbf_box systemd-run -q --unit=fbf-by-hand "$FBF_BUILD/agent" --iface veth0 --quiet
	fbf_box_wait fbf-by-hand.service ActiveState active
	sleep 0.5	# attached a moment after it runs
	fbf_box systemctl start "$UNIT" || true
	fbf_box_wait "$UNIT" NRestarts 5
	fbf_box_wait "$UNIT" ActiveState failed
	[ "$(fbf_box_prop "$UNIT" ExecMainStatus)" = 6 ]
	sleep 3	# RestartSec=2: a restart would have come by now
	[ "$(fbf_box_prop "$UNIT" NRestarts)" = 5 ]
	[ "$(fbf_box_prop "$UNIT" ActiveState)" = failed ]
	[[ "$(unit_journal)" == *"Start request repeated too quickly"* ]]
	# The unit's agents left nothing, and the one run by hand was left alone.
	[ "$(lock_files | wc -l)" -eq 1 ]
	[ -n "$(attached_id)" ]
	fbf_box systemctl stop fbf-by-hand.service
	[ -z "$(attached_id)" ]
	[ -z "$(lock_files)" ]
}

@test "the unit for every interface its patterns select: ready, counts traffic, stops leaving nothing" {
	local id sent packets journal status i

	# A regular expression through the file's quoting, a glob and an
	# exclusion: veth0 alone.
	echo 'FIZZBUZZFIB_AGENT_IFACES="/^veth[0-9]+$/,!veth1"' | fbf_box tee "$DEFAULTS" >/dev/null
	fbf_box systemctl start "$ALL"	# Type=notify: returns once READY=1 came
	[ "$(fbf_box_prop "$ALL" ActiveState)" = active ]
	# From its attach line, which the journal may take a moment to show.
	for i in $(seq 30); do
		id=$(unit_journal "$ALL" | grep -Eo 'prog id [0-9]+\) to veth0 ' |
			grep -Eo '^prog id [0-9]+' | grep -Eo '[0-9]+' || true)
		[ -z "$id" ] || break
	done
	[ -n "$id" ]
	[ "$(attached_id)" = "$id" ]
	[[ "$(fbf_box_prop "$ALL" StatusText)" == *" on 1 interface --iface "*" selects, "* ]]
	sent=$(fbf_box "$FBF_BUILD/rawflood" veth1 0.2 10.213.0.1 16 10.213.0.254)
	packets=$(metric_reaching 'fizzbuzzfib_iface_packets_total{device="veth0"}' "$sent")
	echo "sent $sent, counted $packets"
	[ "$packets" -gt 0 ]
	[ "$packets" -le "$sent" ]
	# An interface that comes and goes: taken and let go, the status following.
	status=$(fbf_box_prop "$ALL" StatusText)
	fbf_box ip link add veth7 type veth peer name pv7
	fbf_box_wait "$ALL" StatusText "${status/ on 1 interface / on 2 interfaces }"
	fbf_box ip link del veth7
	fbf_box_wait "$ALL" StatusText "$status"

	fbf_box systemctl stop "$ALL"
	[ "$(fbf_box_prop "$ALL" ActiveState)" = inactive ]
	[ "$(fbf_box_prop "$ALL" ExecMainStatus)" = 0 ]
	[ -z "$(attached_id)" ]
	run fbf_box ip -details link show veth1
	[[ "$output" != *"prog/xdp"* ]]
	[ -z "$(lock_files)" ]
	journal=$(unit_journal "$ALL")
	echo "$journal"
	[[ "$journal" == *"attached xdp_fizzbuzzfib (prog id $id) to veth0"* ]]
	[[ "$journal" == *"summary packets=$packets non_ipv4=0 malformed=0"* ]]
	[[ "$journal" == *"iface iface=veth0 mode=skb packets=$packets "* ]]
	[[ "$journal" == *"iface_gone iface=veth7 "* ]]
}

@test "the unit for every interface, with no patterns set: the agent's one-line usage error, exit 2, no restart" {
	local journal line

	usage_refused "$ALL"
	journal=$(unit_journal "$ALL")
	echo "$journal"
	# The agent's say, and ExecStopPost='s --detach, which refuses the same: each one line.
	line="fizzbuzzfib-agent: --iface '': the interface name is empty; see fizzbuzzfib-agent --help"
	grep -qxF "$line" <<<"$journal"
	[ -z "$(grep '^fizzbuzzfib-agent: ' <<<"$journal" | grep -vxF "$line")" ]
}

@test "both units on one interface: the template's instance keeps it, the other unit serves on" {
	local id journal

	# A metrics address each: the instance's file wins over the shared one.
	printf '%s\n' 'FIZZBUZZFIB_AGENT_IFACES="veth*,!veth1"' \
		'FIZZBUZZFIB_AGENT_OPTS="--quiet --metrics 127.0.0.1:9436"' | fbf_box tee "$DEFAULTS" >/dev/null
	echo 'FIZZBUZZFIB_AGENT_OPTS="--quiet --metrics 127.0.0.1:9435"' |
		fbf_box tee /etc/default/fizzbuzzfib-agent@veth0 >/dev/null
	fbf_box systemctl start "$UNIT"
	id=$(status_id)
	fbf_box systemctl start "$ALL"
	journal=$(unit_journal "$ALL")
	echo "$journal"
	# Said once, in one line; the unit runs on, to serve what it may take.
	[ "$(grep -c 'veth0' <<<"$journal")" -eq 1 ]
	[[ "$journal" == *"another agent (pid "*") is attached to veth0"* ]]
	[ "$(fbf_box_prop "$ALL" ActiveState)" = active ]
	[ "$(fbf_box_prop "$ALL" NRestarts)" = 0 ]
	fbf_box systemctl stop "$ALL"
	# The instance kept its program and lock: ExecStopPost='s --detach left a live agent's alone.
	[ "$(fbf_box_prop "$UNIT" ActiveState)" = active ]
	[ "$(fbf_box_prop "$UNIT" NRestarts)" = 0 ]
	[ "$(attached_id)" = "$id" ]
	[ "$(lock_files | wc -l)" -eq 1 ]
	[[ "$(unit_journal "$ALL")" != *"removed stale"* ]]
}

@test "systemd-analyze security rates both running units' sandboxes OK (below 3.0)" {
	local unit score

	echo 'FIZZBUZZFIB_AGENT_IFACES="veth0"' | fbf_box tee "$DEFAULTS" >/dev/null
	for unit in "$UNIT" "$ALL"; do
		fbf_box systemctl start "$unit"
		score=$(fbf_box systemd-analyze security --no-pager "$unit" |
			sed -n 's/.*Overall exposure level for .*: \([0-9.]*\) .*/\1/p')
		fbf_box systemctl stop "$unit"
		echo "$unit: exposure $score"
		[ -n "$score" ]
		awk -v s="$score" 'BEGIN { exit !(s < 3.0) }'
	done
}

# Last: the interface leaves the container's namespace, and comes back new.
@test "its interface moved to another namespace: under the sandbox it detaches it there, exit 11" {
	local id other=fbf-other journal i

	dropin '[Service]\nRestart=no\n'
	fbf_box ip netns add "$other"
	fbf_box systemctl start "$UNIT"
	id=$(status_id)
	fbf_box ip link set veth0 netns "$other"
	fbf_box_wait "$UNIT" ActiveState failed
	journal=$(unit_journal)
	echo "$journal"
	[ "$(fbf_box_prop "$UNIT" ExecMainStatus)" = 11 ]
	[[ "$journal" == *"interface veth0 moved to network namespace $other; xdp_fizzbuzzfib detached from it there"* ]]
	run fbf_box ip -n "$other" -details link show veth0
	[ "$status" -eq 0 ]
	[[ "$output" != *"prog/xdp"* ]]
	[ -z "$(lock_files)" ]
	# Its namespace gone, veth0 goes with it, and veth1 with its peer, a moment later.
	fbf_box ip netns del "$other"
	for i in $(seq 100); do
		fbf_box ip link show veth1 >/dev/null 2>&1 || break
		sleep 0.1
	done
	fbf_box_veth_up
}
