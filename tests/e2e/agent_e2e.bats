#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# End to end: the agent on a veth pair under real HTTP traffic from every
# class, its exits and the state it leaves behind.

load ../../testing/netns

setup_file() { fbf_bats_setup_file e2e; }
teardown_file() { fbf_bats_teardown_file; }
setup() { fbf_bats_setup; }
teardown() { fbf_bats_teardown; }

# expected_class ADDR: puts fbf_expected_class ADDR in class_of[ADDR], asked
# once per address. The tests below check every event's class, hundreds of
# lines from a few sources: a process per line took about half a minute
# under emulation on 5.10 (tests/run-kernels).
declare -gA class_of
expected_class()
{
	[ -n "${class_of[$1]:-}" ] || class_of[$1]=$(fbf_expected_class "$1")
}

@test "agent classifies HTTP traffic from every class and its summary adds up" {
	local addr class expected seen printed

	fbf_agent_start "$OUT" "$ERR"
	# A veth's cheaper mode for a program that passes every frame (xdp_mode.c).
	grep -E "${FBF_LOG}attached .* to $FBF_VETH_SRV \(skb mode: cheaper than native on veth; " "$ERR"
	fbf_traffic 5
	fbf_stop_agent INT

	printed=$(wc -l <"$OUT")
	[ "$printed" -gt 0 ]
	while read -r addr class; do
		expected_class "$addr"
		expected=${class_of[$addr]}
		[ "$class" = "$expected" ] ||
			{ echo "$addr printed as $class, is $expected"; false; }
	done <"$OUT"
	seen=$(cut -d' ' -f1 "$OUT" | sort -u)
	for addr in "${FBF_SOURCES[@]}"; do
		expected_class "$addr"
		if [ "${class_of[$addr]}" = none ]; then
			! grep -qx "$addr" <<<"$seen" ||
				{ echo "none address $addr was pushed"; false; }
		else
			grep -qx "$addr" <<<"$seen" || { echo "no event from $addr"; false; }
		fi
	done
	fbf_check_summary "$ERR" "$printed"
	# The none sources did send traffic: it was classified but not pushed.
	[ "$(fbf_summary_value "$ERR" none)" -gt 0 ]
	[ "$(fbf_summary_value "$ERR" lost_queue_full)" -eq 0 ]
	for class in Fibonacci Fizz Buzz FizzBuzz; do
		[ "$(grep -c " $class\$" "$OUT")" -eq \
			"$(fbf_summary_value "$ERR" "$(tr '[:upper:]' '[:lower:]' <<<"$class")")" ]
	done
}

@test "--json: one object per event with address, class, both clocks and age; JSON on stderr" {
	local start

	start=$(date +%s)
	fbf_agent_start "$OUT" "$ERR" --json
	fbf_traffic 2
	fbf_stop_agent TERM

	python3 - "$OUT" "$ERR" "$start" <<-'EOF'
	import datetime, json, sys
	lines = open(sys.argv[1]).read().splitlines()
	start = int(sys.argv[3])
	assert lines, "no events"
	stamped = 0
	for line in lines:
	    ev = json.loads(line)
	    assert ev["class"] in ("Fizz", "Buzz", "FizzBuzz", "Fibonacci"), ev
	    # 1 event in 64 on each CPU, and the first after a sleep, carries its time.
	    if set(ev) == {"saddr", "class"}:
	        continue
	    assert set(ev) == {"saddr", "class", "ktime_ns", "time", "age_ns"}, ev
	    stamped += 1
	    assert ev["ktime_ns"] > 0 and 0 <= ev["age_ns"] < 60e9, ev
	    # RFC 3339, UTC, nanoseconds: within this test's run on the wall clock.
	    t = ev["time"]
	    assert len(t) == 30 and t.endswith("Z") and t[19] == ".", t
	    secs = datetime.datetime.strptime(t[:19], "%Y-%m-%dT%H:%M:%S").replace(
	        tzinfo=datetime.timezone.utc).timestamp()
	    assert start - 1 <= secs <= start + 120, (t, start)
	# The first event on a CPU is stamped: some are, and not more than can be.
	assert 1 <= stamped <= len(lines), (stamped, len(lines))
	# stderr too is one format: every line an object, the log's among them.
	err = [json.loads(l) for l in open(sys.argv[2])]
	summary = [o for o in err if o["type"] == "summary"]
	assert len(summary) == 1, summary
	assert summary[0]["delivered"] == len(lines), summary
	logs = [o for o in err if o["type"] == "log"]
	assert any(o["message"].startswith("attached xdp_fizzbuzzfib") for o in logs), logs
	for o in logs:
	    assert set(o) == {"type", "time", "level", "source", "message"}, o
	    assert o["level"] in ("error", "warning", "info", "debug"), o
	    assert not o["message"].endswith("\n"), o
	EOF
	fbf_check_summary "$ERR" "$(wc -l <"$OUT")"
}

@test "the start line says to stop with Ctrl-C only where stdin is a terminal" {
	fbf_agent_start "$OUT" "$ERR" --quiet
	fbf_stop_agent INT
	grep -q 'info [^ ]*agent[^ ]*: attached xdp_fizzbuzzfib ' "$ERR"
	run grep -c 'Ctrl-C' "$ERR"
	[ "$output" = 0 ]
	# script(1) gives the agent a terminal for stdin, as a shell would.
	run script -qefc "nsenter --net=/run/netns/$FBF_NS_SRV $AGENT --iface $FBF_VETH_SRV $(
		)--quiet --duration 0.5" /dev/null
	[ "$status" -eq 0 ]
	[[ "$output" == *": attached xdp_fizzbuzzfib "*"; stop with Ctrl-C"* ]]
}

@test "--sample 16: 1 event in 16 on each CPU, the rest counted, every identity exact" {
	local addr class candidates produced delivered cpus

	fbf_agent_start "$OUT" "$ERR" --sample 16
	grep -q ', 1 event in 16 sampled$' "$ERR"
	fbf_traffic 20
	fbf_stop_agent INT

	# packets = outcomes, produced + not_sampled = classes, produced = delivered + lost.
	fbf_check_summary "$ERR" "$(wc -l <"$OUT")"
	while read -r addr class; do
		expected_class "$addr"
		[ "$class" = "${class_of[$addr]}" ] ||
			{ echo "$addr printed as $class"; false; }
	done <"$OUT"
	candidates=0
	for class in fizz buzz fizzbuzz fibonacci; do
		candidates=$((candidates + $(fbf_summary_value "$ERR" "$class")))
	done
	produced=$(fbf_summary_value "$ERR" produced)
	delivered=$(fbf_summary_value "$ERR" delivered)
	cpus=$(nproc --all)
	echo "candidates $candidates produced $produced delivered $delivered cpus $cpus"
	# Each CPU sends the first of every 16 of its events: ceil(its events / 16).
	[ "$candidates" -ge 160 ]
	[ $((16 * produced)) -ge "$candidates" ]
	[ $((16 * produced)) -lt $((candidates + 16 * cpus)) ]
	# So few events never fill the queue: all that were sent were read.
	[ "$delivered" -eq "$produced" ]
}

@test "SIGTERM: drains, prints the summary, exits 0 and detaches" {
	fbf_agent_start "$OUT" "$ERR" --quiet
	fbf_traffic 1
	fbf_stop_agent TERM
	[ ! -s "$OUT" ]
	fbf_check_summary "$ERR" "$(fbf_summary_value "$ERR" delivered)"
	[ "$(fbf_summary_value "$ERR" delivered)" -gt 0 ]
}

@test "--duration: exits 0 on its own, on time, and detaches" {
	local start elapsed seconds

	start=$(date +%s%N)
	run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --duration 1.5 --quiet
	elapsed=$((($(date +%s%N) - start) / 1000000))
	[ "$status" -eq 0 ]
	[[ "$output" == *"agent: summary"* ]]
	# Never early; and on time by its own clock, from attach to stop, which a
	# slow or loaded host stretches by a sleep of the idle back-off at most.
	# The wall clock only bounds a hang: start-up time is the host's.
	[ "$elapsed" -ge 1500 ]
	[ "$elapsed" -lt 30000 ]
	seconds=$(grep -o 'seconds=[0-9.]*' <<<"$output" | cut -d= -f2)
	awk -v s="$seconds" 'BEGIN { exit !(s >= 1.5 && s < 2.5) }'
	fbf_xdp_detached
}

@test "--count: exits 0 after that many events and detaches" {
	local start

	# --duration is a backstop: if --count never ends the run, the test fails.
	start=$(date +%s)
	fbf_agent_start "$OUT" "$ERR" --count 3 --duration 30
	fbf_traffic 3
	wait "$FBF_AGENT_PID"
	FBF_AGENT_PID=
	[ $(($(date +%s) - start)) -lt 20 ]
	[ "$(wc -l <"$OUT")" -ge 3 ]
	fbf_check_summary "$ERR" "$(wc -l <"$OUT")"
	fbf_xdp_detached
}

@test "after SIGKILL the next agent removes the stale program, says so and exits clean" {
	fbf_agent_start "$OUT" "$ERR"
	kill -KILL "$FBF_AGENT_PID"
	wait "$FBF_AGENT_PID" || true
	FBF_AGENT_PID=
	# libxdp attaches through netlink: the program outlives its process.
	fbf_xdp_attached

	run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --duration 0.5 --quiet
	[ "$status" -eq 0 ]
	[[ "$output" == *"removed stale xdp_fizzbuzzfib"* ]]
	fbf_xdp_detached
}

@test "a second agent on the same interface exits 6 and leaves the first working" {
	local before after

	fbf_agent_start "$OUT" "$ERR"
	run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --duration 1
	[ "$status" -eq 6 ]
	[[ "$output" == *"another agent"* ]]
	# With another lock directory it finds the first by the program it holds:
	# exit 6 again, not the advice to remove a program that is in use.
	run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --duration 1 --lock-dir "$FBF_WORK/other"
	[ "$status" -eq 6 ]
	# The same line as for a held lock: the user's remedy is the same.
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"agent: another agent (pid $FBF_AGENT_PID) is attached to $FBF_VETH_SRV; stop it first" ]]
	before=$(wc -l <"$OUT")
	fbf_traffic 1
	fbf_stop_agent INT
	after=$(wc -l <"$OUT")
	[ "$after" -gt "$before" ]
}

@test "coexists with another program through libxdp's dispatcher and leaves it attached" {
	fbf_in_srv xdp-loader load "$FBF_VETH_SRV" "$FBF_BUILD/xdp_pass.bpf.o"
	if ! fbf_in_srv xdp-loader status "$FBF_VETH_SRV" | grep -q xdp_dispatcher; then
		skip "libxdp's dispatcher does not load on this kernel (freplace refused)"
	fi
	fbf_agent_start "$OUT" "$ERR"
	fbf_in_srv xdp-loader status "$FBF_VETH_SRV" | grep -q xdp_fizzbuzzfib
	fbf_traffic 1
	kill -INT "$FBF_AGENT_PID"
	wait "$FBF_AGENT_PID"
	FBF_AGENT_PID=
	[ -s "$OUT" ]
	run fbf_in_srv xdp-loader status "$FBF_VETH_SRV"
	[[ "$output" == *xdp_pass* ]]
	[[ "$output" != *xdp_fizzbuzzfib* ]]
	# The remaining program still passes traffic.
	fbf_traffic 1
	fbf_in_srv xdp-loader unload --all "$FBF_VETH_SRV"
	fbf_xdp_detached
}

# The refusal gives the command that removes the program, for the mode it was
# attached in (`xdp off` alone would leave a generic one on a veth, whose
# driver has native XDP): the command it gives is run, and the agent then
# attaches.
@test "refuses an interface owned by a program libxdp cannot share, and says how to remove it" {
	local how remove

	for how in xdp xdpgeneric xdpdrv; do
		ip -n "$FBF_NS_SRV" link set dev "$FBF_VETH_SRV" "$how" \
			obj "$FBF_BUILD/xdp_pass.bpf.o" sec xdp
		run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --duration 1
		echo "$how: $output"
		[ "$status" -eq 8 ]
		[ "${#lines[@]}" -eq 1 ]
		run ip -n "$FBF_NS_SRV" -details link show "$FBF_VETH_SRV"
		[[ "$output" == *"name xdp_pass"* ]]
		fbf_traffic 1
		run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --duration 1
		remove=$(grep -Eo "remove it with '[^']+'" <<<"$output" | cut -d"'" -f2)
		[[ "$remove" == "ip link set dev $FBF_VETH_SRV "xdp*" off" ]]
		# shellcheck disable=SC2086 # the command as the agent gave it
		fbf_in_srv $remove
		fbf_xdp_detached
		run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --duration 0.2 --quiet
		[ "$status" -eq 0 ]
	done
}

@test "refuses libxdp's dispatcher in the other mode, and says how to remove its programs" {
	local remove

	fbf_in_srv xdp-loader load -m skb "$FBF_VETH_SRV" "$FBF_BUILD/xdp_pass.bpf.o"
	if ! fbf_in_srv xdp-loader status "$FBF_VETH_SRV" | grep -q xdp_dispatcher; then
		fbf_in_srv xdp-loader unload "$FBF_VETH_SRV" --all
		skip "libxdp's dispatcher does not load on this kernel (freplace refused)"
	fi
	run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --duration 1 --mode native
	echo "$output"
	[ "$status" -eq 8 ]
	[ "${#lines[@]}" -eq 1 ]
	remove=$(grep -Eo "remove them with '[^']+'" <<<"$output" | cut -d"'" -f2)
	[ "$remove" = "xdp-loader unload $FBF_VETH_SRV --all" ]
	# shellcheck disable=SC2086 # the command as the agent gave it
	fbf_in_srv $remove
	fbf_xdp_detached
}

@test "an idle agent sleeps instead of spinning" {
	local ticks hz

	fbf_agent_start "$OUT" "$ERR" --quiet
	# utime + stime over 2 s idle: a busy loop would burn about 2 s of CPU.
	ticks=$(awk '{ print -($14 + $15) }' "/proc/$FBF_AGENT_PID/stat")
	sleep 2
	ticks=$((ticks + $(awk '{ print $14 + $15 }' "/proc/$FBF_AGENT_PID/stat")))
	hz=$(getconf CLK_TCK)
	fbf_stop_agent INT
	echo "idle agent used $ticks of $((2 * hz)) ticks"
	[ "$ticks" -lt $((hz / 5)) ]
}

# Wake-ups are counted, not timed: the scheduler's count of the times each
# thread was put on a CPU (schedstat's third field), summed over threads.
agent_wakeups() { cat "/proc/$FBF_AGENT_PID"/task/*/schedstat | awk '{ n += $3 } END { print n }'; }

@test "an idle agent is never woken up, not even by a timer" {
	local before after i

	fbf_agent_start "$OUT" "$ERR" --quiet
	# Counted from when it first sleeps in epoll with no timeout, however long starting takes.
	for i in $(seq 300); do
		fbf_sleeps_in_epoll "$FBF_AGENT_PID" && break
		sleep 0.1
	done
	fbf_sleeps_in_epoll "$FBF_AGENT_PID"
	before=$(agent_wakeups)
	sleep 1
	after=$(agent_wakeups)
	fbf_stop_agent INT
	echo "woken $((after - before)) times in 1 s"
	[ "$after" -eq "$before" ]
}

# The agent sleeps only after a quiet spell and the program rings only a
# sleeper (xdp/fizzbuzzfib.bpf.c): a wake-up lost between the two leaves an
# event unread until the next one, and here no next one comes until it is
# read. Gaps from back-to-back to 5 ms, past the quiet spell; a hang fails.
# FBF_WAKE_EVENTS: how many, 10,000 unless set; tests/run-kernels sets 2,000
# in its emulated guests, where each event costs some 2.5 ms, not the gap.
# However few, some must come after a quiet spell, when the agent sleeps.
@test "no lost wake-up: 10,000 single events (FBF_WAKE_EVENTS) at random spacing, each awaited" {
	local seed=${FBF_WAKE_SEED:-$RANDOM} events=${FBF_WAKE_EVENTS:-10000} quiet

	fbf_agent_start "$OUT" "$ERR" --json
	run fbf_in_cli "$FBF_BUILD/testing/wake_probe" "$FBF_VETH_CLI" "$OUT" "$events" 0 5000 \
		"$seed" 60
	echo "spacing seed $seed (FBF_WAKE_SEED=$seed replays it): $output"
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^events\ $events\ after_quiet_spell\ ([0-9]+)\  ]]
	quiet=${BASH_REMATCH[1]}
	[ "$quiet" -gt 0 ]
	fbf_stop_agent INT
	fbf_check_summary "$ERR" "$(grep -c '^{"saddr"' "$OUT")"
}

@test "an interface that is down: it attaches, and says no frame arrives until it is up" {
	fbf_in_srv ip link set "$FBF_VETH_SRV" down
	fbf_agent_start "$OUT" "$ERR" --quiet
	fbf_in_srv ip link set "$FBF_VETH_SRV" up
	fbf_stop_agent INT
	grep -Eq "warning [^ ]*agent: $FBF_VETH_SRV is down: no frame reaches xdp_fizzbuzzfib" "$ERR"
}

@test "without bpffs the agent mounts it, says so and works" {
	run fbf_in_srv unshare --mount --propagation private sh -c \
		'umount /sys/fs/bpf 2>/dev/null; exec "$0" --iface "$1" --duration 0.5 --quiet' \
		"$AGENT" "$FBF_VETH_SRV"
	[ "$status" -eq 0 ]
	[[ "$output" == *"mounted bpffs"* ]]
	fbf_xdp_detached
}

@test "bad input: one line and a distinct exit code each" {
	run fbf_in_srv "$AGENT"
	[ "$status" -eq 2 ]

	run fbf_in_srv "$AGENT" --iface nosuchif0
	[ "$status" -eq 3 ]
	[[ "$output" == *"nosuchif0"* ]]

	run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --mode turbo
	[ "$status" -eq 2 ]
	[[ "$output" == *"--mode"* ]]

	for value in 0 -1 12abc 99999999999; do
		run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --queue-size "$value"
		[ "$status" -eq 2 ]
	done

	run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --duration -3
	[ "$status" -eq 2 ]

	for value in 0 -1 16x 2147483649 99999999999 ''; do
		run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --sample "$value"
		[ "$status" -eq 2 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == *"--sample '$value': use a whole number from 1 "*" 2147483648;"* ]]
	done

	run fbf_in_srv "$AGENT" --iface lo --mode native --duration 0.5
	[ "$status" -eq 5 ]
	[[ "$output" == *"--mode skb"* ]]

	run fbf_in_srv setpriv --bounding-set -net_admin --inh-caps -net_admin \
		"$AGENT" --iface "$FBF_VETH_SRV" --duration 0.5
	[ "$status" -eq 4 ]
	[[ "$output" == *"CAP_NET_ADMIN"* ]]

	fbf_xdp_detached
}

# A number the parser does not take for its sign or exponent is still a number:
# out of range, and the message says the range.
@test "words: seconds out of range say the range; one of a thing is singular" {
	local value

	for value in -1 1e12 0 inf; do
		run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --duration "$value"
		echo "$value: $output"
		[ "$status" -eq 2 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == *"--duration '$value': out of range; use seconds greater than 0 and at most 31536000 (one year), "* ]]
	done
	run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --duration 1e-3
	[ "$status" -eq 2 ]
	[[ "$output" == *"--duration '1e-3': not in plain decimals; use seconds "* ]]
	run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --duration ten
	[ "$status" -eq 2 ]
	[[ "$output" == *"--duration 'ten': not a number of seconds; use seconds "* ]]

	run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --queue-size 1 --duration 0.2 --quiet
	echo "$output"
	[ "$status" -eq 0 ]
	if [ "$FBF_TRANSPORT" != ringbuf ]; then
		[[ "$output" == *", queue 1 event per CPU on "* ]]
	fi
	run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --aggregate 1 --max-sources 1 \
		--duration 0.2
	[ "$status" -eq 0 ]
	[[ "$output" == *"packets counted per source for up to 1 source, reported every 1 s"* ]]
}

@test "an xdp_fizzbuzzfib no agent recorded: exit 8, one line, and it stays attached" {
	local iface=$FBF_VETH_SRV before after expected

	ip -n "$FBF_NS_SRV" link set dev "$FBF_VETH_SRV" xdpgeneric \
		obj "$FBF_BUILD/fizzbuzzfib.bpf.o" sec xdp
	run ip -n "$FBF_NS_SRV" -details link show "$FBF_VETH_SRV"
	[[ "$output" == *"name xdp_fizzbuzzfib"* ]]
	before=$(fbf_attached_prog_id)
	[ -n "$before" ]

	run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --duration 0.5 --quiet
	[ "$status" -eq 8 ]
	[ "${#lines[@]}" -eq 1 ]
	expected="error agent: $iface already runs an xdp_fizzbuzzfib (prog id $before) that no"
	expected+=" agent recorded as its own; remove it with 'xdp-loader unload $iface --all' or"
	expected+=" 'ip link set dev $iface xdpgeneric off'"
	[ "${output#* }" = "$expected" ]
	[[ "$output" =~ $FBF_LOG ]]
	after=$(fbf_attached_prog_id)
	[ "$after" = "$before" ]

	# The remedy it names works.
	ip -n "$FBF_NS_SRV" link set dev "$FBF_VETH_SRV" xdpgeneric off
	fbf_xdp_detached
}

@test "the lock file records the pid and its event map's id; the start line names its prog id" {
	local ifindex netns record map id inner

	fbf_agent_start "$OUT" "$ERR" --quiet
	ifindex=$(ip -n "$FBF_NS_SRV" -o link show "$FBF_VETH_SRV" | cut -d: -f1)
	netns=$(stat -L -c %i "/run/netns/$FBF_NS_SRV")
	record=$(cat "/run/fizzbuzzfib/netns-$netns-ifindex-$ifindex.lock")
	[[ "$record" =~ ^$FBF_AGENT_PID\ ([0-9]+)$ ]]
	map=${BASH_REMATCH[1]}
	# The agent's own program, behind libxdp's dispatcher or not, uses that map.
	id=$(fbf_agent_prog_id "$ERR")
	bpftool -j prog show id "$id" | python3 -c '
import json, sys
prog = json.load(sys.stdin)
assert prog["name"] == "xdp_fizzbuzzfib" and int(sys.argv[1]) in prog["map_ids"], prog' "$map"
	# An array of maps, one per CPU, each of the transport's type.
	bpftool -j map show id "$map" | python3 -c '
import json, sys
m = json.load(sys.stdin)
assert m["name"] == "events" and m["type"] == "array_of_maps", m
assert m["max_entries"] == int(sys.argv[1]), m' "$(fbf_possible_cpus)"
	inner=$(bpftool -j map lookup id "$map" key 0 0 0 0 | python3 -c '
import json, sys
print(int.from_bytes(bytes(int(b, 16) for b in json.load(sys.stdin)["value"]), "little"))')
	bpftool -j map show id "$inner" | python3 -c '
import json, sys
m = json.load(sys.stdin)
assert m["name"] == "events_cpu0" and m["type"] == sys.argv[1], m' "$FBF_TRANSPORT"
	fbf_stop_agent INT
}

@test "a reader that goes away while the queue is full stops the agent, which accounts for all" {
	local fifo=$FBF_WORK/closed.fifo queue reader

	mkfifo "$fifo"
	head -n 1 "$fifo" >/dev/null 3>&- &
	reader=$!
	fbf_srv_start "$fifo" "$ERR" "$AGENT" --iface "$FBF_VETH_SRV" --queue-size 4096
	kill -STOP "$FBF_AGENT_PID"
	queue=$(fbf_capacity "$ERR")
	# Full by construction, whatever the machine's speed: twice what the queue
	# (or ring) holds, pushed through the agent's own program while it is stopped.
	"$FBF_BUILD/testing/drain_rate" fill "$(fbf_attached_prog_id)" $((2 * queue))
	kill "$reader"
	wait "$reader" || true
	kill -CONT "$FBF_AGENT_PID"

	# More events wait than the agent pops between two looks at stdout: it stops
	# on the busy path, detaches, then drains the rest into its count.
	wait "$FBF_AGENT_PID"
	FBF_AGENT_PID=
	fbf_xdp_detached
	grep -Eq "${FBF_LOG}stdout was closed; stopping\$" "$ERR"
	[ "$(fbf_summary_value "$ERR" lost_queue_full)" -ge "$queue" ]
	[ "$(fbf_summary_value "$ERR" delivered)" -ge "$queue" ]
	fbf_check_summary "$ERR" "$(fbf_summary_value "$ERR" delivered)"
}

@test "short options: -q is --quiet and -Q is --queue-size" {
	run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" -q -Q 64 --duration 0.3
	[ "$status" -eq 0 ]
	if [ "$FBF_TRANSPORT" = ringbuf ]; then
		[[ "$output" =~ ring\ buffer\ [0-9]+\ bytes\ \(([0-9]+)\ events\) ]]
		[ "${BASH_REMATCH[1]}" -ge 64 ]
	else
		[[ "$output" == *"queue 64 events"* ]]
	fi
	run "$AGENT" --help
	[[ "$output" == *"-q, --quiet"* ]]
	[[ "$output" == *"-Q, --queue-size=N"* ]]
	[[ "$output" == *"9 events"* ]]
}

@test "stdout that fails to take the events (a full disk): exit 1, says why, detaches" {
	local status=0

	# --duration is a backstop: an agent that ignores the failure exits 0 then.
	fbf_agent_start /dev/full "$ERR" --duration 20
	fbf_traffic 2
	wait "$FBF_AGENT_PID" || status=$?
	FBF_AGENT_PID=
	[ "$status" -eq 1 ]
	grep -Eq "${FBF_LOG}cannot write events to stdout: No space left on device; stopping\$" \
		"$ERR"
	fbf_check_summary "$ERR" "$(fbf_summary_value "$ERR" delivered)"
	fbf_xdp_detached
}

# Each CPU sends to its own map (xdp/fizzbuzzfib.bpf.c): events sent on every
# CPU while the agent is stopped wait in as many maps, and the stop's last
# drain must empty each one. The events are sent by BPF_PROG_TEST_RUN of the
# attached program from a process pinned to each CPU in turn.
@test "a stop empties every CPU's map: events from each CPU are all delivered" {
	local events=1000 cpus=0 range cpu produced

	fbf_agent_start "$OUT" "$ERR"
	kill -STOP "$FBF_AGENT_PID"
	for range in $(taskset -c -p $$ | sed 's/.*: //' | tr ',' ' '); do
		for cpu in $(seq "${range%-*}" "${range#*-}"); do
			taskset -c "$cpu" "$FBF_BUILD/testing/drain_rate" fill \
				"$(fbf_attached_prog_id)" "$events"
			cpus=$((cpus + 1))
		done
	done
	[ "$cpus" -ge 1 ]
	kill -TERM "$FBF_AGENT_PID"
	kill -CONT "$FBF_AGENT_PID"
	wait "$FBF_AGENT_PID"
	FBF_AGENT_PID=
	produced=$(fbf_summary_value "$ERR" produced)
	echo "cpus $cpus produced $produced lines $(wc -l <"$OUT")"
	[ "$produced" -eq $((cpus * events)) ]
	[ "$(fbf_summary_value "$ERR" queued)" -eq 0 ]
	fbf_check_summary "$ERR" "$(wc -l <"$OUT")"
	[ "$(wc -l <"$OUT")" -eq "$produced" ]
	fbf_xdp_detached
}

# --queue-size is per CPU: possible CPUs x size x record is what the maps take,
# and a size past what the host has is refused in one line, before anything
# is attached. A ring is refused past the kernel's 2 GiB on any host.
@test "a queue size that would not fit is refused in one line, and nothing is attached" {
	local cpus available size

	run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --transport ringbuf --queue-size 100000000 \
		--duration 1
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"--queue-size 100000000: a ring buffer of 100000000 events would pass"* ]]
	fbf_xdp_detached

	cpus=$(fbf_possible_cpus)
	available=$(($(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo) * 1024))
	# 16 bytes an event in a queue: past what is available by an eighth.
	size=$((available / cpus / 16 + available / cpus / 128))
	if [ "$size" -gt 2147483648 ]; then
		skip "this host's memory takes the largest queue size on each of its $cpus CPUs"
	fi
	# --duration: an agent that took the size anyway stops and fails the test.
	run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --transport queue --queue-size "$size" \
		--duration 1
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"--queue-size $size: $cpus CPUs x "*" of kernel memory, more than three "* ]]
	fbf_xdp_detached
}

# memcg_make LIMIT: a memory cgroup limited to LIMIT, its directory on stdout,
# on cgroup v1's memory controller or v2's (cgroup.subtree_control is v2's
# alone); 1 where neither can be had.
memcg_make()
{
	local dir

	if [ -e /sys/fs/cgroup/memory/memory.limit_in_bytes ]; then
		dir=/sys/fs/cgroup/memory/fbf-test-$$
		mkdir "$dir" && echo "$1" >"$dir/memory.limit_in_bytes" || return 1
	elif grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
		dir=/sys/fs/cgroup/fbf-test-$$
		echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null || :
		mkdir "$dir" && echo "$1" >"$dir/memory.max" || return 1
	else
		return 1
	fi
	echo "$dir"
}

# in_memcg DIR CMD...: CMD run in the cgroup DIR, in the server's namespace.
in_memcg() { fbf_in_srv sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$@"; }

# The kernel charges a map to its creator's memory cgroup (FIELD-NOTES 16): a
# size the host could take but the agent's group cannot is refused the same
# way, and the size the refusal gives works.
@test "a queue size past the memory cgroup's limit is refused, with one that fits" {
	local group fits

	group=$(memcg_make 128M) || skip "no memory cgroup controller to limit the agent with"
	run in_memcg "$group" "$AGENT" --iface "$FBF_VETH_SRV" --queue-size 20000000 --duration 1
	rmdir "$group" || :
	echo "$output"
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"--queue-size 20000000: "*" of kernel memory, more than three quarters of the "*" the agent's memory cgroup has left of its 128 MiB limit; at most "*" fit; use a smaller size; "* ]]
	fbf_xdp_detached
	fits=$(grep -Eo 'at most [0-9]+ fit' <<<"$output" | grep -Eo '[0-9]+')
	[ -n "$fits" ]
	# Nine tenths of it: the group's own use moves by a few pages between two runs, and
	# the size said was the most that fitted in the first (seen: 3108959, then 3105503).
	group=$(memcg_make 128M)
	run in_memcg "$group" "$AGENT" --iface "$FBF_VETH_SRV" --queue-size "$((fits * 9 / 10))" \
		--duration 0.2 --quiet
	rmdir "$group" || :
	echo "$output"
	[ "$status" -eq 0 ]
	fbf_xdp_detached
}
