#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The edges of the agent's life as a daemon: closed standard fds, every
# signal that would end it, its program replaced or its interface moved to
# another namespace under it, running counters, the command line's errors;
# what signals that dump core leave and --detach removes, a second agent
# however started, lock files after every exit, and other programs loaded
# beside it through libxdp's dispatcher.

load ../../testing/netns

setup_file() { fbf_bats_setup_file lifecycle; }
teardown_file() { fbf_bats_teardown_file; }
setup() { fbf_bats_setup; }
teardown()
{
	[ -n "${FBF_NS_OTHER:-}" ] && ip netns del "$FBF_NS_OTHER" 2>/dev/null
	fbf_bats_teardown
}

# The lock file of the server veth, in the agent's default lock directory.
lock_file()
{
	local ifindex netns

	ifindex=$(ip -n "$FBF_NS_SRV" -o link show "$FBF_VETH_SRV" | cut -d: -f1)
	netns=$(stat -L -c %i "/run/netns/$FBF_NS_SRV")
	echo "/run/fizzbuzzfib/netns-$netns-ifindex-$ifindex.lock"
}

# The event lines on $OUT: not the record an output writes of what it lost
# ("lost records=N from=... to=...") once it can write again.
event_lines() { grep -cv '^lost records=' "$OUT" || true; }

# wait_exit SECONDS: wait for the agent to end by itself and set EXIT to its
# status; bounded only so that a hang fails the test. Not in $(...): only this
# shell can wait for its child.
wait_exit()
{
	local i

	for i in $(seq $(($1 * 10))); do
		kill -0 "$FBF_AGENT_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$FBF_AGENT_PID" 2>/dev/null && { echo "agent still running" >&2; return 1; }
	EXIT=0
	wait "$FBF_AGENT_PID" || EXIT=$?
	FBF_AGENT_PID=
}

@test "a closed stdout is an error up front, never the lock file's content" {
	local status=0

	# Not through bats' run, which gives the command a stdout of its own.
	fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --duration 0.5 >&- 2>"$ERR" || status=$?
	cat "$ERR"
	[ "$status" -eq 2 ]
	[ "$(wc -l <"$ERR")" -eq 1 ]
	grep -q 'stdout is closed.*--quiet' "$ERR"
	fbf_xdp_detached

	# Under --json every line on stderr is one JSON object, this one too.
	status=0
	fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --duration 0.5 --json >&- 2>"$ERR" || status=$?
	cat "$ERR"
	[ "$status" -eq 2 ]
	[ "$(wc -l <"$ERR")" -eq 1 ]
	python3 -c 'import json, sys; o = json.load(sys.stdin); assert o["type"] == "log" and \
		o["level"] == "error" and "stdout is closed" in o["message"], o' <"$ERR"
	fbf_xdp_detached
}

# lock_holds_record LOCK: while the agent runs, its lock file is one "PID MAP_ID"
# line and nothing else; bounded only to fail a hang.
lock_holds_record()
{
	local i

	for i in $(seq 300); do
		grep -Eqx '[0-9]+ [1-9][0-9]*' "$1" 2>/dev/null && [ "$(wc -l <"$1")" -eq 1 ] &&
			return 0
		sleep 0.1
	done
	return 1
}

@test "a closed stderr: the lock file still holds only the lock record" {
	local lock pid

	lock=$(lock_file)
	fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --duration 3 --quiet 2>&- 3>&- &
	pid=$!
	lock_holds_record "$lock"
	wait "$pid"
	fbf_xdp_detached
	# With --quiet a closed stdout is fine too.
	fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --duration 3 --quiet >&- 2>/dev/null 3>&- &
	pid=$!
	lock_holds_record "$lock"
	wait "$pid"
}

@test "SIGHUP, SIGQUIT, SIGALRM and SIGUSR2 stop it cleanly: summary, exit 0, detached" {
	local sig

	for sig in HUP QUIT ALRM USR2; do
		fbf_agent_start "$OUT" "$ERR"
		fbf_traffic 1
		fbf_stop_agent "$sig"
		fbf_check_summary "$ERR" "$(wc -l <"$OUT")"
	done
}

@test "SIGUSR1 and --stats-interval print the running counters and it runs on" {
	fbf_agent_start "$OUT" "$ERR" --stats-interval 0.2
	fbf_traffic 2
	# Each account is one line; at least one is due within 0.2 s of idling.
	for i in $(seq 100); do
		grep -Eq "${FBF_LOG}stats .*produced=[1-9]" "$ERR" && break
		sleep 0.1
	done
	grep -Eq "${FBF_LOG}stats seconds=[0-9.]+ packets=[0-9]+ .* queued=[0-9]+ stdout_delivered=[0-9]+ stdout_lost=[0-9]+ stdout_buffer_peak=[0-9]+\$" "$ERR"
	fbf_stop_agent INT
	fbf_check_summary "$ERR" "$(wc -l <"$OUT")"

	fbf_agent_start "$OUT" "$ERR" --json
	kill -USR1 "$FBF_AGENT_PID"
	for i in $(seq 100); do
		grep -q '^{"type":"stats"' "$ERR" && break
		sleep 0.1
	done
	kill -0 "$FBF_AGENT_PID"
	fbf_stop_agent INT
	python3 -c 'import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
objs = [o for o in objs if o["type"] != "log"]
assert [o["type"] for o in objs] == ["stats", "summary"], objs
assert objs[0]["produced"] == objs[0]["delivered"] + objs[0]["lost_queue_full"] + \
    objs[0]["lost_queue_busy"] + objs[0]["queued"], objs[0]' "$ERR"
}

@test "its program replaced under it: exit 10 within seconds, the new program left alone" {
	fbf_agent_start "$OUT" "$ERR" --mode skb
	fbf_in_srv ip -force link set dev "$FBF_VETH_SRV" xdpgeneric \
		obj "$FBF_BUILD/xdp_pass.bpf.o" sec xdp
	wait_exit 30
	[ "$EXIT" -eq 10 ]
	grep -q "someone replaced or removed xdp_fizzbuzzfib on $FBF_VETH_SRV" "$ERR"
	fbf_xdp_attached
	fbf_check_summary "$ERR" "$(wc -l <"$OUT")"
	fbf_in_srv ip link set dev "$FBF_VETH_SRV" xdpgeneric off
}

@test "its interface moved to another namespace: exit 11, the program detached there" {
	FBF_NS_OTHER=fbf-$$-other
	ip netns add "$FBF_NS_OTHER"
	fbf_in_srv ip link add fbfmove0 type veth peer name fbfmove1
	fbf_in_srv ip link set fbfmove0 up
	fbf_srv_start "$OUT" "$ERR" "$AGENT" --iface fbfmove0
	fbf_in_srv ip link set fbfmove0 netns "$FBF_NS_OTHER"
	wait_exit 30
	[ "$EXIT" -eq 11 ]
	grep -q "interface fbfmove0 moved to network namespace $FBF_NS_OTHER" "$ERR"
	grep -q "xdp_fizzbuzzfib detached from it there" "$ERR"
	run fbf_xdp_prog_id "$FBF_NS_OTHER" fbfmove0
	[ "$status" -ne 0 ]
	# No program left over there: an agent started there attaches at once.
	run nsenter --net="/run/netns/$FBF_NS_OTHER" "$AGENT" --iface fbfmove0 --duration 0.3
	[ "$status" -eq 0 ]
}

@test "usage errors: one line each, a distinct exit status; -h is help" {
	local args

	for args in "" "--iface" "--bogus" "-i a,!" "-i a -c 18446744073709551616" \
		"-i a -c 0" "-i a extra" "-i a --stats-interval 0" "-i a --lock-dir=" \
		"-i a --quiet --aggregate 1"; do
		# shellcheck disable=SC2086
		run "$AGENT" $args
		echo "agent $args: $output"
		[ "$status" -eq 2 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == "agent: "*"; see agent --help" ]]
	done
	run "$AGENT" -i a -c 18446744073709551616
	[[ "$output" == *"too large"* ]]
	run "$AGENT" -i a,!
	[[ "$output" == *"--iface 'a,!': '!' excludes nothing"* ]]
	# Values are shown escaped, as the log shows names: no byte can reach the terminal raw.
	run "$AGENT" -i a -i "$(printf '/b\033[2J(/')"
	[ "$status" -eq 2 ]
	[[ "$output" == *"--iface '/b\x1b[2J(/': not a POSIX extended regular expression"* ]]
	run "$AGENT" -i a --mode "$(printf 'x\ny')"
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "agent: --mode 'x\x0ay': use native"* ]]
	# A name no interface can have is a usage error, not "no such interface".
	run "$AGENT" -i "$(printf 'x%.0s' $(seq 5000))"
	[ "$status" -eq 2 ]
	[[ "$output" == "agent: --iface: an interface name is at most 15 bytes, and this one has 5000;"* ]]
	# --aggregate's intervals are its only output, unless --metrics serves the counts.
	run "$AGENT" -i a --quiet --aggregate 1
	[[ "$output" == *"--quiet would hide --aggregate's intervals"* ]]
	run "$AGENT" -i a --duration 0.0000000001
	[ "$status" -eq 2 ]
	[[ "$output" == *"finer than a nanosecond (at most nine decimals)"* ]]
	run "$AGENT" -h
	[ "$status" -eq 0 ]
	[[ "$output" == *"--stats-interval=SECONDS"* ]]
	# argp wraps the text: compare it as one line.
	[[ "$(tr -s ' \n' '  ' <<<"$output")" == *"11 the interface moved to another network"* ]]
}

@test "usage errors under --json: one JSON log object each, wherever --json or -j stands" {
	local args

	for args in "--json --duration -1 -i a" "-i a --duration -1 --json" "-qj -i a --bogus" \
		"-j" "-i a -j extra" "--json -i a --quiet --aggregate 1"; do
		# shellcheck disable=SC2086
		run "$AGENT" $args
		echo "agent $args: $output"
		[ "$status" -eq 2 ]
		[ "${#lines[@]}" -eq 1 ]
		python3 -c '
import json, sys
o = json.loads(sys.argv[1])
assert o["type"] == "log" and o["level"] == "error", o
assert o["message"].endswith("; see agent --help"), o' "$output"
	done
	run "$AGENT" --json --duration -1 -i a
	[[ "$output" == *'"message":"--duration '"'"'-1'"'"': out of range;'* ]]
	# A value that only looks like it is no --json: the line stays plain.
	run "$AGENT" -i -j --duration -1
	[ "$status" -eq 2 ]
	[[ "$output" == "agent: "*"; see agent --help" ]]
}

@test "--lock-dir: the lock file goes there, and goes when the agent leaves clean" {
	local dir=$FBF_WORK/locks

	fbf_agent_start "$OUT" "$ERR" --quiet --lock-dir "$dir"
	ls "$dir"/netns-*-ifindex-*.lock
	fbf_stop_agent TERM
	# Nothing it records is attached any more: no file piles up.
	[ -z "$(ls -A "$dir")" ]
	# A directory it cannot use: exit 13 and one line on what to do.
	run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --duration 0.3 --lock-dir /proc/nope
	[ "$status" -eq 13 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"cannot create /proc/nope"*"name a writable directory with --lock-dir"* ]]
	# Refused permission, as a user who is not root is: exit 4, as the manual says.
	mkdir -p "$FBF_WORK/ro"
	chmod 0555 "$FBF_WORK/ro"
	run fbf_in_srv capsh --drop=cap_dac_override,cap_dac_read_search -- -c \
		"$AGENT --iface $FBF_VETH_SRV --duration 0.3 --lock-dir $FBF_WORK/ro/locks"
	echo "$output"
	[ "$status" -eq 4 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"cannot create $FBF_WORK/ro/locks: Permission denied; run as root"* ]]
	fbf_xdp_detached
}

@test "a killed agent's lock file stays for the next one, which removes it when it leaves" {
	local dir=$FBF_WORK/locks

	fbf_agent_start "$OUT" "$ERR" --quiet --lock-dir "$dir"
	kill -KILL "$FBF_AGENT_PID"
	wait "$FBF_AGENT_PID" || true
	FBF_AGENT_PID=
	ls "$dir"/netns-*-ifindex-*.lock
	fbf_agent_start "$OUT" "$ERR" --quiet --lock-dir "$dir"
	grep -q 'removed stale xdp_fizzbuzzfib' "$ERR"
	fbf_stop_agent TERM
	[ -z "$(ls -A "$dir")" ]
}

# A backlog of millions takes seconds to print: the agent says so, and a stop
# signal during that drain ends it, leaving the rest unread and counted. Its
# stdout is a pipe no one reads until the second signal has been sent, so the
# drain is under way then on any machine, however fast.
@test "stopped with a backlog: it says it drains, and a second signal leaves the rest counted" {
	local events=1000000 fifo=$FBF_WORK/events.fifo produced delivered queued lost i cat
	local written unwritten

	mkfifo "$fifo"
	exec 5<>"$fifo"
	fbf_agent_start "$fifo" "$ERR" --queue-size "$events"
	kill -STOP "$FBF_AGENT_PID"
	"$FBF_BUILD/testing/drain_rate" fill "$(fbf_attached_prog_id)" "$events"
	kill -TERM "$FBF_AGENT_PID"
	kill -CONT "$FBF_AGENT_PID"
	for i in $(seq 600); do
		grep -Eq 'info [^ ]*agent: draining the [0-9]+ events left' "$ERR" && break
		sleep 0.1
	done
	kill -INT "$FBF_AGENT_PID"
	# The reader's end opened here, while fd 5 is a writer: a cat that opened
	# the fifo itself could come after the agent's exit, with no writer left,
	# and block in open() for good.
	exec 6<"$fifo"
	cat <&6 >"$OUT" 5>&- 6<&- &
	cat=$!
	exec 5>&- 6<&-
	wait_exit 120
	wait "$cat"
	cat "$ERR"
	[ "$EXIT" -eq 0 ]
	grep -Eq "draining the $events events left in the $FBF_TRANSPORT; stop again" "$ERR"
	produced=$(fbf_summary_value "$ERR" produced)
	delivered=$(fbf_summary_value "$ERR" delivered)
	queued=$(fbf_summary_value "$ERR" queued)
	lost=$(fbf_summary_value "$ERR" lost_queue_full)
	written=$(fbf_summary_value "$ERR" stdout_delivered)
	unwritten=$(fbf_summary_value "$ERR" stdout_lost)
	echo "produced $produced delivered $delivered queued $queued lost $lost" \
		"stdout_delivered $written stdout_lost $unwritten lines $(event_lines)"
	[ "$produced" -eq $((delivered + queued + lost)) ]
	# What was read and not written (over stdout's buffer while nobody read the
	# pipe, or still held when the second signal came) is counted lost.
	[ "$written" -eq "$(event_lines)" ]
	[ "$delivered" -eq $((written + unwritten)) ]
	[ $((queued + unwritten)) -gt 0 ]
	# The second signal cut the drain (a queue's pops take a while), or, if the
	# drain was done (a ring is read in place, in a tenth of a second), the wait
	# for stdout: what it left is counted either way, and said.
	if [ "$queued" -gt 0 ]; then
		grep -q "stopped during the drain: $queued events left unread, counted as queued" \
			"$ERR"
	else
		grep -q "stopped during the drain" "$ERR" && false
	fi
	fbf_xdp_detached
}

# crash SIGNAL: start the agent, kill it with SIGNAL, which dumps core and so
# skips every handler; check it died of it and left its program attached.
crash()
{
	local status=0

	fbf_agent_start "$OUT" "$ERR" --quiet
	CRASHED_ID=$(fbf_agent_prog_id "$ERR")
	kill -"$1" "$FBF_AGENT_PID"
	wait "$FBF_AGENT_PID" || status=$?
	FBF_AGENT_PID=
	echo "SIG$1: exit $status"
	[ "$status" -eq $((128 + $(kill -l "$1"))) ]
	fbf_xdp_attached
}

@test "a stop while stdout's reader stalls: detached at once, the unwritten lines counted lost" {
	local events=20000 fifo=$FBF_WORK/stalled.fifo delivered written lost i

	# A reader that holds the pipe open and never reads: the pipe fills, writes block.
	mkfifo "$fifo"
	exec 5<>"$fifo"
	fbf_agent_start "$fifo" "$ERR" --queue-size "$events" --output-timeout 600
	"$FBF_BUILD/testing/drain_rate" fill "$(fbf_attached_prog_id)" "$events"
	kill -TERM "$FBF_AGENT_PID"
	# Detached while it still waits for stdout (600 s), not after.
	for i in $(seq 100); do
		fbf_xdp_detached && break
		sleep 0.1
	done
	fbf_xdp_detached
	kill -0 "$FBF_AGENT_PID"
	for i in $(seq 100); do
		grep -q "output stdout: waiting up to" "$ERR" && break
		sleep 0.1
	done
	grep -q "output stdout: waiting up to .* stop again to count them lost" "$ERR"
	# A second signal ends the wait; what the pipe holds is read after the exit.
	kill -TERM "$FBF_AGENT_PID"
	wait_exit 60
	cat "$ERR"
	[ "$EXIT" -eq 0 ]
	# A read end first (a write end is still open, so the open does not wait), then
	# no writer is left: cat reads what the pipe holds and sees its end.
	exec 6<"$fifo"
	exec 5>&-
	timeout 10 cat <&6 >"$OUT"
	exec 6<&-
	delivered=$(fbf_summary_value "$ERR" delivered)
	written=$(fbf_summary_value "$ERR" stdout_delivered)
	lost=$(fbf_summary_value "$ERR" stdout_lost)
	echo "delivered $delivered stdout_delivered $written stdout_lost $lost lines $(event_lines)"
	[ "$delivered" -eq "$events" ]
	[ "$lost" -gt 0 ]
	# Whole lines only, each counted: the pipe took pieces of at most PIPE_BUF, whole or not.
	[ "$written" -eq "$(event_lines)" ]
	[ -z "$(tail -c 1 "$OUT")" ]
	[ "$delivered" -eq $((written + lost)) ]
	fbf_check_summary "$ERR" "$events"
}

@test "--detach: removes what an agent killed by a signal that dumps core left, and its lock" {
	local sig lock

	lock=$(lock_file)
	ulimit -c 0	# no core files from the agents this kills
	for sig in ABRT SEGV BUS TRAP SYS; do
		crash "$sig"
		[ -f "$lock" ]
		run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --detach
		echo "$output"
		[ "$status" -eq 0 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == *"removed stale xdp_fizzbuzzfib (prog id $CRASHED_ID) left on $FBF_VETH_SRV"* ]]
		fbf_xdp_detached
		[ ! -e "$lock" ]
	done
	# Nothing left: nothing to say, and success.
	run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --detach
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ ! -e "$lock" ]
	# The options of a run are accepted, and nothing is served or attached.
	run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --detach --quiet --stats-interval 1 \
		--metrics 127.0.0.1:1
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "--detach leaves alone a live agent's program (exit 6) and anyone else's (exit 0, or 8)" {
	local before lock

	lock=$(lock_file)
	fbf_agent_start "$OUT" "$ERR" --quiet
	run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --detach
	[ "$status" -eq 6 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"another agent (pid $FBF_AGENT_PID) is attached to $FBF_VETH_SRV; stop it first" ]]
	# With another lock directory too: the program is known by who holds it.
	run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --detach --lock-dir "$FBF_WORK/other"
	[ "$status" -eq 6 ]
	[[ "$output" == *"another agent (pid $FBF_AGENT_PID) is attached to $FBF_VETH_SRV; stop it first" ]]
	[ -z "$(ls -A "$FBF_WORK/other")" ]
	fbf_xdp_attached
	fbf_stop_agent TERM

	# A program of another name is not the agent's to remove.
	fbf_in_srv ip link set dev "$FBF_VETH_SRV" xdpgeneric obj "$FBF_BUILD/xdp_pass.bpf.o" sec xdp
	before=$(fbf_attached_prog_id)
	run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --detach
	[ "$status" -eq 0 ]
	[ "$(fbf_attached_prog_id)" = "$before" ]
	fbf_in_srv ip link set dev "$FBF_VETH_SRV" xdpgeneric off
	# Nor an xdp_fizzbuzzfib no agent recorded: the run's exit 8, and its remedy.
	fbf_in_srv ip link set dev "$FBF_VETH_SRV" xdpgeneric obj "$FBF_BUILD/fizzbuzzfib.bpf.o" sec xdp
	before=$(fbf_attached_prog_id)
	run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --detach
	[ "$status" -eq 8 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"no agent recorded as its own; remove it with"* ]]
	[ "$(fbf_attached_prog_id)" = "$before" ]
	[ ! -e "$lock" ]
	fbf_in_srv ip link set dev "$FBF_VETH_SRV" xdpgeneric off
}

@test "an agent that exits 6 or 8 leaves no lock file; a foreign dispatcher is one line" {
	local dir=$FBF_WORK/locks dispatcher

	fbf_agent_start "$OUT" "$ERR" --quiet
	run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --duration 1 --lock-dir "$dir"
	[ "$status" -eq 6 ]
	[ -z "$(ls -A "$dir")" ]
	fbf_stop_agent TERM

	fbf_in_srv ip link set dev "$FBF_VETH_SRV" xdpgeneric obj "$FBF_BUILD/fizzbuzzfib.bpf.o" sec xdp
	run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --duration 1 --lock-dir "$dir"
	[ "$status" -eq 8 ]
	[ -z "$(ls -A "$dir")" ]
	fbf_in_srv ip link set dev "$FBF_VETH_SRV" xdpgeneric off

	# libxdp's own dispatcher, attached by hand, has no pins for libxdp to read.
	dispatcher=$(ls /usr/lib/*/bpf/xdp-dispatcher.o 2>/dev/null | head -n 1)
	[ -n "$dispatcher" ] || skip "no xdp-dispatcher.o from libxdp's package"
	fbf_in_srv ip link set dev "$FBF_VETH_SRV" xdpgeneric obj "$dispatcher" sec xdp
	run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --duration 1 --mode skb --lock-dir "$dir"
	echo "$output"
	[ "$status" -eq 8 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"already runs XDP program xdp_dispatcher"* ]]
	[ -z "$(ls -A "$dir")" ]
	fbf_in_srv ip link set dev "$FBF_VETH_SRV" xdpgeneric off
}

# start_bg ERR LOCKDIR: an agent in the server namespace in the background,
# its pid in STARTED.
start_bg()
{
	nsenter --net="/run/netns/$FBF_NS_SRV" "$AGENT" --iface "$FBF_VETH_SRV" --quiet \
		--lock-dir "$2" 2>"$1" 3>&- &
	STARTED=$!
}

@test "two agents started at once with other lock directories: one exits 6, as for a held lock" {
	local round a b i loser winner lerr status

	for round in 1 2 3 4 5; do
		loser=
		start_bg "$FBF_WORK/a.err" "$FBF_WORK/la"
		a=$STARTED
		start_bg "$FBF_WORK/b.err" "$FBF_WORK/lb"
		b=$STARTED
		# The one that loses leaves at once; bounded only to fail a hang.
		for i in $(seq 300); do
			kill -0 "$a" 2>/dev/null || { loser=$a winner=$b lerr=a; break; }
			kill -0 "$b" 2>/dev/null || { loser=$b winner=$a lerr=b; break; }
			sleep 0.1
		done
		[ -n "$loser" ]
		status=0
		wait "$loser" || status=$?
		cat "$FBF_WORK/$lerr.err"
		[ "$status" -eq 6 ]
		[ "$(wc -l <"$FBF_WORK/$lerr.err")" -eq 1 ]
		grep -q "another agent (pid $winner) is attached to $FBF_VETH_SRV; stop it first" \
			"$FBF_WORK/$lerr.err"
		kill -TERM "$winner"
		wait "$winner"
		fbf_xdp_detached
		[ -z "$(compgen -G "$FBF_WORK/l[ab]/*.lock")" ]
	done
}

# xdp_id NAME: the id of the program NAME on the server veth as xdp-loader
# lists it, in libxdp's dispatcher or not; nothing if none.
xdp_id()
{
	fbf_in_srv xdp-loader status "$FBF_VETH_SRV" | awk -v name="$1" '$0 ~ " " name " " {
		for (i = 1; i < NF; i++)	# the id is what the 16-digit tag follows
			if ($i ~ /^[0-9]+$/ && $(i + 1) ~ /^[0-9a-f]+$/ && length($(i + 1)) == 16)
				print $i
	}'
}

# events_after N: wait until the agent has printed more than N events;
# bounded only to fail a hang.
events_after()
{
	local i

	for i in $(seq 300); do
		[ "$(wc -l <"$OUT")" -gt "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# agent_mode: the mode the agent's start line names, which another program
# must take to join its dispatcher (xdp-loader's own default is native).
agent_mode() { grep -Eo '\((native|skb) mode' "$ERR" | head -n 1 | cut -d' ' -f1 | cut -c2-; }

# The agent's start line says whether it went through libxdp's dispatcher.
need_dispatcher()
{
	grep -q 'libxdp dispatcher' "$ERR" && return 0
	fbf_stop_agent INT
	skip "libxdp's dispatcher does not load on this kernel (freplace refused): no other program can join the agent's"
}

@test "a program loaded and unloaded beside it through libxdp: it runs on, counted, and leaves nothing" {
	local id pass before

	fbf_agent_start "$OUT" "$ERR"
	need_dispatcher
	id=$(fbf_agent_prog_id "$ERR")
	# libxdp builds a new dispatcher with both programs and swaps it in.
	fbf_in_srv xdp-loader load -m "$(agent_mode)" "$FBF_VETH_SRV" "$FBF_BUILD/xdp_pass.bpf.o"
	pass=$(xdp_id xdp_pass)
	[ -n "$pass" ]
	[ "$(xdp_id xdp_fizzbuzzfib)" = "$id" ]
	before=$(wc -l <"$OUT")
	fbf_traffic 1
	events_after "$before"
	kill -0 "$FBF_AGENT_PID"
	# And another without xdp_pass.
	fbf_in_srv xdp-loader unload "$FBF_VETH_SRV" --id "$pass"
	[ -z "$(xdp_id xdp_pass)" ]
	[ "$(xdp_id xdp_fizzbuzzfib)" = "$id" ]
	before=$(wc -l <"$OUT")
	fbf_traffic 1
	events_after "$before"
	fbf_stop_agent INT
	fbf_check_summary "$ERR" "$(wc -l <"$OUT")"
	[ ! -e "$(lock_file)" ]
}

@test "everything unloaded through libxdp under it: exit 10, nothing left, no lock file" {
	fbf_agent_start "$OUT" "$ERR"
	need_dispatcher
	fbf_in_srv xdp-loader load -m "$(agent_mode)" "$FBF_VETH_SRV" "$FBF_BUILD/xdp_pass.bpf.o"
	fbf_in_srv xdp-loader unload "$FBF_VETH_SRV" --all
	wait_exit 30
	[ "$EXIT" -eq 10 ]
	grep -q "someone replaced or removed xdp_fizzbuzzfib on $FBF_VETH_SRV" "$ERR"
	fbf_xdp_detached
	fbf_check_summary "$ERR" "$(wc -l <"$OUT")"
	[ ! -e "$(lock_file)" ]
}
