#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# --output end to end: events as NDJSON in a file (rotated by size, by
# logrotate in create and copytruncate modes, on a full disk), on a stdout
# whose reader stalls, in two outputs at once, under --aggregate, and in a
# NATS JetStream stream (one server; one SIGKILLed and restarted under a
# flood; one that hangs, with a small buffer and at exit; a three-node
# cluster that loses a node), each read back event by event and held against
# what the agent says it delivered and lost; and the one-line errors of bad
# outputs. The servers run on loopback ports of their own in the test's
# server namespace (testing/nats.bash). The floods are counted frames, not
# seconds; every wait is on a condition, bounded only to stop a hang; a test
# that asserts nothing is lost gives the agent room and time for all of it.

load ../../testing/netns
load ../../testing/nats

setup_file() { fbf_bats_setup_file outputs; }
teardown_file() { fbf_bats_teardown_file; }

setup()
{
	fbf_bats_setup
	DIR=$FBF_WORK/$BATS_TEST_NUMBER.d
	mkdir -p "$DIR"
	FLOOD_PID=
	MOUNTED=
	READER_PID=
}

teardown()
{
	local pid

	fbf_bats_teardown
	# A sender still waiting at its gate, say: its own pid, from its pid file.
	if [ -n "$FLOOD_PID" ]; then
		pid=$(cat "$DIR/sender.pid" 2>/dev/null) && kill "$pid" 2>/dev/null
		wait "$FLOOD_PID" 2>/dev/null || true
	fi
	fbf_nats_stop_all
	if [ -n "$READER_PID" ]; then
		kill -CONT "$READER_PID" 2>/dev/null
		kill "$READER_PID" 2>/dev/null
		wait "$READER_PID" 2>/dev/null || true
	fi
	if [ -z "${BATS_TEST_COMPLETED:-}" ]; then
		for f in "$DIR"/*.log; do
			[ -e "$f" ] && echo "# $f:" && tail -n 15 "$f" | sed 's/^/#   /'
		done
	fi
	[ -n "$MOUNTED" ] && umount "$MOUNTED"
	return 0
}

# For a test that asserts no event is lost: room for every event of its
# flood, and time enough at exit to write them, however slow the machine.
NO_LOSS=(--output-buffer 268435456 --output-timeout 120)

# Debian's, in /usr/sbin, which a user's PATH may not have.
LOGROTATE=$(command -v logrotate || echo /usr/sbin/logrotate)

# Spoofed raw sources, inside the test namespaces; 40 of them hold every
# class, 23 of each 40 frames make an event.
RAW_FIRST=10.213.16.1
RAW_COUNT=40

# send_frames COUNT [GATE_AT GATE_FILE]: COUNT raw frames from RAW_COUNT
# sources, round robin, to the server veth (as tools/rawflood sends them, but
# counted: a frame the veth drops, ENOBUFS, is sent again). With PACE=S, a
# pause of S seconds after every 200 frames, so that a flood lasts; with
# GATE_AT, the sender stops after GATE_AT frames until GATE_FILE exists (up
# to 60 s), so that the rest surely comes after what the test does then.
# Writes its pid to $DIR/sender.pid.
send_frames()
{
	fbf_in_cli python3 - "$FBF_VETH_CLI" "$1" "$RAW_FIRST" "$RAW_COUNT" "$FBF_SERVER" \
		"${PACE:-0}" "${2:--1}" "${3:-}" "$DIR/sender.pid" <<-'EOF'
	import os, socket, struct, sys, time
	iface, count, first, nsrc, daddr, pace, gate_at, gate, pidfile = sys.argv[1:10]
	count, nsrc, pace, gate_at = int(count), int(nsrc), float(pace), int(gate_at)
	open(pidfile, "w").write("%d\n" % os.getpid())
	first = struct.unpack("!I", socket.inet_aton(first))[0]
	daddr = struct.unpack("!I", socket.inet_aton(daddr))[0]
	# Nobody's destination MAC: the stack drops each frame right after XDP saw it.
	eth = bytes.fromhex("02dead000001" "02dead000002" "0800")
	# IPv4, protocol 253 (RFC 3692, experiments), nothing after the header.
	frames = [(eth + struct.pack("!BBHHHBBHII", 0x45, 0, 46, 0, 0, 1, 253, 0,
	                             first + i, daddr)).ljust(60, b"\0") for i in range(nsrc)]
	s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
	s.bind((iface, 0))
	sent = 0
	while sent < count:
	    if sent == gate_at:
	        for _ in range(6000):
	            if os.path.exists(gate):
	                break
	            time.sleep(0.01)
	        else:
	            sys.exit("send_frames: no %s after 60 s" % gate)
	        gate_at = -1
	    try:
	        s.send(frames[sent % nsrc])
	    except OSError:
	        continue  # ENOBUFS: the veth's ring was full
	    sent += 1
	    if pace and sent % 200 == 0:
	        time.sleep(pace)
	EOF
}

# flood_start COUNT [GATE_AT GATE_FILE]: send_frames in the background.
flood_start()
{
	rm -f "$DIR/sender.pid"
	send_frames "$@" 3>&- &
	FLOOD_PID=$!
}

# flood_wait: the background sender has sent every frame.
flood_wait()
{
	local status=0

	wait "$FLOOD_PID" || status=$?
	FLOOD_PID=
	[ "$status" -eq 0 ] || { echo "sender exited $status" >&2; return 1; }
}

# wait_for DESCRIPTION SECONDS COMMAND...: until COMMAND succeeds, checked
# every 0.1 s; fails after SECONDS, which only stops a hang.
wait_for()
{
	local what=$1 i

	for i in $(seq $(($2 * 10))); do
		"${@:3}" && return 0
		sleep 0.1
	done
	echo "timed out after $2 s waiting for $what" >&2
	return 1
}

# has_lines FILE N: FILE has at least N lines.
has_lines() { [ -e "$1" ] && [ "$(wc -l <"$1")" -ge "$2" ]; }

# check_events MODE FILE...: every line of FILE... (the agent's NDJSON, oldest
# file first, all from one output) is an event of this host and interface
# whose class is the reference model's for its address, and whose time is its
# ktime_ns on the wall clock by the one offset of the run; or a record of
# lost events, from a time to a later one. MODE says
# which event numbers must be there, given D=$(delivered) the events the
# agent took from the kernel:
#   all D       exactly 1..D, once each
#   tail D      a run of consecutive numbers that ends at D, once each, the
#               files in order (the oldest rotated away)
#   some        any, once each
# Prints "events=N lost_records=R lost_sum=S".
check_events()
{
	local mode=$1 delivered=0

	shift
	[ "$mode" = some ] || { delivered=$1; shift; }
	python3 - "$mode" "$delivered" "$FBF_VETH_SRV" "$FBF_BUILD/testing/ref_classify" \
		"$@" <<-'EOF'
	import calendar, json, socket, subprocess, sys, time
	mode, delivered, iface, ref = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
	files = sys.argv[5:]
	host = socket.gethostname()
	def wall_ns(t):
	    # RFC 3339, UTC, nanoseconds: 2026-11-25T03:40:48.738671039Z
	    assert len(t) == 30 and t[19] == "." and t[-1] == "Z", t
	    return calendar.timegm(time.strptime(t[:19], "%Y-%m-%dT%H:%M:%S")) * 10**9 + int(t[20:29])
	offsets = set()
	event_keys = {"host", "iface", "seq", "saddr", "class"}
	time_keys = {"ktime_ns", "time", "age_ns"}
	lost_keys = {"host", "iface", "type", "records", "from", "to"}
	seqs, per_file, classes = [], [], {}
	lost_records = lost_sum = 0
	for name in files:
	    data = open(name, "rb").read()
	    assert b"\0" not in data, "%s: a NUL byte at %d" % (name, data.index(b"\0"))
	    assert not data or data.endswith(b"\n"), "%s: its last line is cut: %r" % (
	        name, data[-200:])
	    mine = []
	    for n, line in enumerate(data.decode().splitlines(), 1):
	        ev = json.loads(line)
	        assert ev["host"] == host and ev["iface"] == iface, (name, n, ev)
	        if "type" in ev:
	            assert ev["type"] == "lost" and set(ev) == lost_keys, (name, n, ev)
	            assert ev["records"] > 0, (name, n, ev)
	            assert wall_ns(ev["from"]) <= wall_ns(ev["to"]), (name, n, ev)
	            lost_records += 1
	            lost_sum += ev["records"]
	            continue
	        # Stamped events (1 in 64 on each CPU, and each first after a sleep) carry a time.
	        assert set(ev) in (event_keys, event_keys | time_keys), (name, n, ev)
	        mine.append(ev["seq"])
	        if "time" in ev:
	            assert ev["age_ns"] >= 0, (name, n, ev)
	            offsets.add(wall_ns(ev["time"]) - ev["ktime_ns"])
	        classes.setdefault(ev["saddr"], set()).add(ev["class"])
	    seqs += mine
	    per_file.append((name, mine))
	addrs = sorted(classes)
	if addrs:
	    truth = subprocess.run([ref] + addrs, check=True, capture_output=True,
	                           text=True).stdout.split()
	    for addr, expected in zip(addrs, truth):
	        assert classes[addr] == {expected}, "%s is %s, written as %s" % (
	            addr, expected, classes[addr])
	assert len(offsets) <= 1, "time - ktime_ns takes %d values, from %d to %d ns" % (
	    len(offsets), min(offsets), max(offsets))
	unique = set(seqs)
	dups = len(seqs) - len(unique)
	assert not dups, "%d event numbers written more than once" % dups
	if mode == "all":
	    assert unique == set(range(1, delivered + 1)), (
	        "%d events, numbers %d..%d, but 1..%d delivered; missing: %s" % (
	            len(seqs), min(seqs, default=0), max(seqs, default=0), delivered,
	            sorted(set(range(1, delivered + 1)) - unique)[:20]))
	elif mode == "tail":
	    assert seqs and max(seqs) == delivered and len(seqs) == delivered - min(seqs) + 1, (
	        "numbers %d..%d, %d of them; %d delivered" % (min(seqs), max(seqs), len(seqs),
	                                                     delivered))
	    for (a, sa), (b, sb) in zip(per_file, per_file[1:]):
	        assert not sa or not sb or max(sa) < min(sb), "%s is not older than %s" % (a, b)
	print("events=%d lost_records=%d lost_sum=%d" % (len(seqs), lost_records, lost_sum))
	EOF
}

# value KEY=VALUE-TEXT KEY: the value of KEY in a line of KEY=VALUE pairs.
value() { grep -o "\b$2=[0-9]*" <<<"$1" | cut -d= -f2; }

# sv KEY: a value of the agent's summary on $ERR.
sv() { fbf_summary_value "$ERR" "$1"; }

# metric NAME{LABELS}: its value, scraped from the agent's --metrics at $METRICS.
metric()
{
	fbf_in_srv curl -sf --max-time 5 "http://$METRICS/metrics" | awk -v m="$1" '$1 == m { print $2 }'
}

# sink_caught_up SINK: the metrics say SINK delivered or lost every event the
# agent took, and none is queued.
sink_caught_up()
{
	local dev="device=\"$FBF_VETH_SRV\"" taken queued delivered lost

	taken=$(metric "fizzbuzzfib_events_total{$dev,result=\"delivered\"}")
	queued=$(metric "fizzbuzzfib_events_queued{$dev}")
	delivered=$(metric "fizzbuzzfib_sink_events_total{$dev,sink=\"$1\",result=\"delivered\"}")
	lost=$(metric "fizzbuzzfib_sink_events_total{$dev,sink=\"$1\",result=\"lost\"}")
	[ -n "$taken" ] && [ "${queued:-1}" -eq 0 ] && [ "$taken" -gt 0 ] &&
		[ $((delivered + lost)) -eq "$taken" ]
}

# running_lost SINK: ask the agent for its running counters (SIGUSR1); true
# once some that it printed count events SINK lost.
running_lost()
{
	kill -USR1 "$FBF_AGENT_PID"
	grep -q " stats .*\b$1_lost=[1-9]" "$ERR"
}

# without_age_time FILE: the agent's NDJSON lines of FILE without age_ns and time.
without_age_time() { sed -E 's/,"time":"[^"]*"//; s/,"age_ns":[0-9]+//' "$1"; }

# stream_has_messages SERVERS: stream FIZZBUZZFIB holds a message.
stream_has_messages()
{
	local msgs

	msgs=$(fbf_nats_info_value "$1" FIZZBUZZFIB msgs)
	[ "${msgs:-0}" -gt 0 ]
}

# leader SERVERS: the leader of stream FIZZBUZZFIB, or nothing while there is none.
leader()
{
	local l

	l=$(fbf_nats_info_value "$1" FIZZBUZZFIB leader)
	[ "$l" = - ] || echo "$l"
}

# make_leader SERVERS NODE: step the stream's leader down until NODE is elected,
# up to 10 times (each election picks one of the others at random).
make_leader()
{
	local servers=$1 node=$2 old i

	for i in $(seq 10); do
		old=$(leader "$servers")
		[ "$old" = "$node" ] && return 0
		fbf_nats_stream "$servers" FIZZBUZZFIB stepdown || return 1
		wait_for "a new leader" 20 new_leader "$servers" "$old" || return 1
	done
	[ "$(leader "$servers")" = "$node" ]
}

# new_leader SERVERS OLD: the stream has a leader, not OLD.
new_leader()
{
	local l

	l=$(leader "$1")
	[ -n "$l" ] && [ "$l" != "$2" ]
}

# Skip unless nats-server and the stream reader are here.
need_nats()
{
	local why

	why=$(fbf_nats_skip_reason)
	[ -z "$why" ] || skip "$why"
}

@test "file: every event once, numbered 1..N, its class right; file_delivered = delivered" {
	local file=$DIR/events.json result delivered port scraped

	fbf_nats_free_port port
	METRICS=127.0.0.1:$port
	fbf_agent_start "$OUT" "$ERR" -Q 262144 --output "file:$file" --metrics "$METRICS" \
		"${NO_LOSS[@]}"
	send_frames 20000
	# The metrics show the file's writes as they happen: all of them, once
	# the writer has caught up with the drain.
	wait_for "the file's writes in the metrics" 30 sink_caught_up file
	scraped=$(metric "fizzbuzzfib_sink_events_total{device=\"$FBF_VETH_SRV\",sink=\"file\",result=\"delivered\"}")
	echo "scraped: file delivered $scraped"
	[ "$(metric "fizzbuzzfib_sink_events_total{device=\"$FBF_VETH_SRV\",sink=\"file\",result=\"lost\"}")" -eq 0 ]
	fbf_stop_agent INT
	[ "$(sv file_delivered)" -eq "$scraped" ]

	delivered=$(sv delivered)
	echo "delivered $delivered file_delivered $(sv file_delivered) file_lost $(sv file_lost)"
	[ "$delivered" -gt 0 ]
	[ "$(sv file_delivered)" -eq "$delivered" ]
	[ "$(sv file_lost)" -eq 0 ]
	[ "$(sv stdout_delivered)" = "" ]	# no stdout sink when --output does not name it
	[ ! -s "$OUT" ]
	result=$(check_events all "$delivered" "$file")
	echo "$result"
	[ "$(value "$result" events)" -eq "$delivered" ]
	[ "$(value "$result" lost_records)" -eq 0 ]
	fbf_check_summary "$ERR" "$delivered"
}

@test "file: --output-rotate-bytes rotates mid-flood: no event lost or doubled, --output-keep files kept" {
	local file=$DIR/events.json result delivered files n i f

	# Keep them all: every event must be in some file.
	fbf_agent_start "$OUT" "$ERR" -Q 262144 --output "file:$file" "${NO_LOSS[@]}" \
		--output-rotate-bytes 65536 --output-keep 1000
	send_frames 60000
	fbf_stop_agent INT

	delivered=$(sv delivered)
	[ "$(sv file_delivered)" -eq "$delivered" ]
	[ "$(sv file_lost)" -eq 0 ]
	n=$(find "$DIR" -name 'events.json*' | wc -l)
	echo "delivered $delivered in $n files"
	[ "$n" -ge 10 ]
	# Oldest first: events.json.N, ..., events.json.1, events.json.
	files=()
	for ((i = n - 1; i >= 1; i--)); do files+=("$file.$i"); done
	files+=("$file")
	for f in "${files[@]}"; do
		[ "$(stat -c %s "$f")" -le 65536 ]
	done
	result=$(check_events all "$delivered" "${files[@]}")
	echo "$result"
	[ "$(value "$result" events)" -eq "$delivered" ]

	# --output-keep 3: at most 4 files, holding the last events, in order.
	rm -f "$file"*
	fbf_agent_start "$OUT" "$ERR" -Q 262144 --output "file:$file" "${NO_LOSS[@]}" \
		--output-rotate-bytes 65536 --output-keep 3
	send_frames 40000
	fbf_stop_agent INT

	delivered=$(sv delivered)
	[ "$(sv file_delivered)" -eq "$delivered" ]
	ls "$DIR"
	[ "$(find "$DIR" -name 'events.json*' | wc -l)" -eq 4 ]
	result=$(check_events tail "$delivered" "$file.3" "$file.2" "$file.1" "$file")
	echo "$result"
	[ "$(value "$result" events)" -lt "$delivered" ]
}

# logrotate_run MODE FILE CONF: rotate FILE now with Debian's logrotate, its
# config CONF written for MODE (create, with a SIGHUP to the agent after, or
# copytruncate), its state file beside CONF.
logrotate_run()
{
	local mode=$1 file=$2 conf=$3

	if [ ! -e "$conf" ]; then
		{
			echo "$file {"
			echo "	rotate 20"
			echo "	missingok"
			echo "	nocompress"
			if [ "$mode" = create ]; then
				echo "	create 0640 root root"
				echo "	postrotate"
				echo "		kill -HUP $FBF_AGENT_PID"
				echo "	endscript"
			else
				echo "	copytruncate"
			fi
			echo "}"
		} >"$conf"
		chmod 0644 "$conf"
	fi
	"$LOGROTATE" -f -s "$conf.state" "$conf"
}

# rotate_under_flood MODE: an agent writing a file under a flood that logrotate
# rotates three times in MODE, 0.3 s apart, while the first 30,000 frames
# come (paced to last 1.5 s at least); the last 10,000 are sent after the
# last rotation. Sets files, oldest first.
rotate_under_flood()
{
	local mode=$1 file=$DIR/events.json i

	[ -x "$LOGROTATE" ] || skip "logrotate is not installed (Debian: apt-get install logrotate)"
	fbf_agent_start "$OUT" "$ERR" -Q 262144 --output "file:$file" "${NO_LOSS[@]}"
	PACE=0.01 flood_start 40000 30000 "$DIR/go"
	wait_for "events in $file" 30 has_lines "$file" 1
	for i in 1 2 3; do
		logrotate_run "$mode" "$file" "$DIR/logrotate.conf"
		sleep 0.3
	done
	touch "$DIR/go"
	flood_wait
	# SIGHUP reopens the file (create mode): it does not stop the agent. (Not
	# "! grep": bats, under set -e, ignores a negated command's status.)
	if grep ' summary ' "$ERR"; then echo "the agent stopped before it was told to"; false; fi
	fbf_stop_agent INT
	ls -l "$DIR"
	files=()
	for i in 5 4 3 2 1; do
		[ ! -e "$file.$i" ] || files+=("$file.$i")
	done
	files+=("$file")
	[ "${#files[@]}" -eq 4 ]
	# The oldest has the events before the first rotation; the file has those
	# after the last (create: the agent reopened it).
	[ -s "$file.3" ]
	[ -s "$file" ]
}

@test "two outputs: the same event is the same line in each, but its age" {
	local a=$DIR/a.json b=$DIR/b.json delivered

	fbf_agent_start "$OUT" "$ERR" -Q 262144 --json --output - --output "file:$a" \
		--output "file:$b" "${NO_LOSS[@]}"
	send_frames 4000
	fbf_stop_agent INT

	# --json: the summary is an object, with the same keys.
	grep -q '^{"type":"summary".*"stdout_delivered":.*"file_delivered":.*"file2_delivered":' \
		"$ERR"
	delivered=$(sv delivered)
	[ "$(sv stdout_delivered)" -eq "$delivered" ]
	[ "$(sv file_delivered)" -eq "$delivered" ]
	[ "$(sv file2_delivered)" -eq "$delivered" ]
	[ "$(sv stdout_lost)" -eq 0 ]
	[ "$(sv file_lost)" -eq 0 ]
	[ "$(sv file2_lost)" -eq 0 ]
	# stdout as before: --json objects without the host, interface and number.
	[ "$(grep -cE '^\{"saddr":"[0-9.]*","class":"[A-Za-z]*"(,"ktime_ns":[0-9]*,"time":"[^"]*","age_ns":[0-9]*)?\}$' "$OUT")" -eq "$delivered" ]
	check_events all "$delivered" "$a"
	# "time" is the kernel's ktime_ns on the wall clock: one offset between
	# the clocks for the whole run, the same for every output.
	paste -d '\n' <(head -n 1 "$a") <(head -n 1 "$b") <(head -n 1 "$OUT")
	cmp <(sed -E 's/,"age_ns":[0-9]+//' "$a") <(sed -E 's/,"age_ns":[0-9]+//' "$b")
	cmp <(grep -o '"time":"[^"]*"' "$a") <(grep -o '"time":"[^"]*"' "$OUT")
}

@test "stdout's reader stalls: the overflow counted lost, and said in a text line once it reads again" {
	local fifo=$DIR/stdout.fifo text=$DIR/stdout.txt lost

	mkfifo "$fifo"
	cat "$fifo" >"$text" 3>&- &
	READER_PID=$!
	fbf_agent_start "$fifo" "$ERR" -Q 262144 --output - --output-buffer 131072 \
		--output-timeout 120
	kill -STOP "$READER_PID"
	# 46,000 text lines, some 800 KB: more than the pipe and the smallest
	# buffer an output holds (two chunks, 512 KiB) take.
	send_frames 80000
	# The drain took every event while the reader was stopped: what did not
	# fit in the pipe and the buffer is lost.
	wait_for "the agent to count lost events" 30 running_lost stdout
	kill -CONT "$READER_PID"
	fbf_stop_agent INT
	wait "$READER_PID"
	READER_PID=

	echo "delivered $(sv delivered) stdout_delivered $(sv stdout_delivered) stdout_lost $(sv stdout_lost)"
	[ "$(sv stdout_lost)" -gt 0 ]
	[ $(($(sv stdout_delivered) + $(sv stdout_lost))) -eq "$(sv delivered)" ]
	# Text events as before, and the lost records between them ("! A ||
	# false": bats ignores a negated command's status unless it comes last).
	! grep -Ev '^([0-9.]+ (Fizz|Buzz|FizzBuzz|Fibonacci)|lost records=[0-9]+ from=[0-9T:.-]+Z to=[0-9T:.-]+Z)$' "$text" ||
		false
	[ "$(grep -cv '^lost ' "$text")" -eq "$(sv stdout_delivered)" ]
	lost=$(awk -F= '/^lost records=/ { n += $2 + 0 } END { print n + 0 }' "$text")
	echo "lost records in the text: $lost"
	[ "$lost" -eq "$(sv stdout_lost)" ]
}

@test "--aggregate into a file: one interval record a line, file_delivered of them, the classes add up" {
	local file=$DIR/intervals.json

	fbf_agent_start "$OUT" "$ERR" --aggregate 0.2 --top 1000 --output "file:$file" \
		"${NO_LOSS[@]}"
	PACE=0.005 send_frames 40000
	fbf_stop_agent INT

	echo "file_delivered $(sv file_delivered) file_lost $(sv file_lost)"
	[ "$(sv file_lost)" -eq 0 ]
	[ "$(sv produced)" -eq 0 ]
	python3 - "$file" "$ERR" "$FBF_VETH_SRV" "$(sv file_delivered)" <<-'EOF'
	import json, re, socket, sys
	path, err, iface, delivered = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
	summary = {}
	for line in open(err):
	    if " agent: summary " in line:
	        summary.update((k, int(v)) for k, v in re.findall(r"(\w+)=(\d+)\b", line))
	classes = ["fizz", "buzz", "fizzbuzz", "fibonacci"]
	total = dict.fromkeys(classes, 0)
	lines = open(path).read().splitlines()
	for line in lines:
	    iv = json.loads(line)
	    assert iv["host"] == socket.gethostname() and iv["iface"] == iface, iv
	    assert iv["type"] == "interval", iv
	    for c in classes:
	        total[c] += iv["packets"][c]
	assert len(lines) == delivered >= 2, (len(lines), delivered)
	for c in classes:
	    assert total[c] == summary[c], (c, total, summary)
	print(len(lines), "intervals", total)
	EOF
}

@test "logrotate create + SIGHUP under a flood: every event once across the files" {
	local files result delivered

	rotate_under_flood create
	delivered=$(sv delivered)
	[ "$(sv file_delivered)" -eq "$delivered" ]
	[ "$(sv file_lost)" -eq 0 ]
	result=$(check_events all "$delivered" "${files[@]}")
	echo "$result"
	[ "$(value "$result" events)" -eq "$delivered" ]
}

@test "logrotate copytruncate under a flood: no NUL byte in any file, every event accounted for" {
	local files delivered f

	rotate_under_flood copytruncate
	delivered=$(sv delivered)
	echo "delivered $delivered file_delivered $(sv file_delivered) file_lost $(sv file_lost)"
	echo "$(cat "${files[@]}" | grep -c '"seq":') events in the files"
	[ "$delivered" -gt 0 ]
	[ $(($(sv file_delivered) + $(sv file_lost))) -eq "$delivered" ]
	# O_APPEND: after a truncation the next write goes to the new end, not
	# past a hole. copytruncate may cut a line or lose some: its docs say so.
	for f in "${files[@]}"; do
		! tr -d '\n[:print:]' <"$f" | grep -q . ||
			{ echo "$f holds other bytes than text:"; tr -d '\n[:print:]' <"$f" | od -c | head; false; }
		[ "$(tr -cd '\0' <"$f" | wc -c)" -eq 0 ]
	done
}

@test "file on a full disk: no crash, exit 0, file_lost > 0, only whole lines, lines = file_delivered" {
	local full=$DIR/full file result delivered

	mkdir "$full"
	mount -t tmpfs -o size=256k tmpfs "$full"
	MOUNTED=$full
	file=$full/events.json
	fbf_agent_start "$OUT" "$ERR" -Q 262144 --output "file:$file"
	send_frames 40000
	fbf_stop_agent INT

	delivered=$(sv delivered)
	echo "delivered $delivered file_delivered $(sv file_delivered) file_lost $(sv file_lost)"
	[ "$(sv file_lost)" -gt 0 ]
	[ $(($(sv file_delivered) + $(sv file_lost))) -eq "$delivered" ]
	df -k "$full"
	result=$(check_events some "$file")
	echo "$result"
	[ "$(value "$result" events)" -eq "$(sv file_delivered)" ]
	fbf_check_summary "$ERR" "$delivered"
}

@test "NATS: the stream read back event by event is what the agent sent, and the file's twin" {
	local port closed result delivered

	need_nats
	fbf_nats_free_port port
	fbf_nats_free_port closed
	fbf_nats_start single "$DIR" "$port"
	# A seed list whose first server is down: the agent connects to the other.
	fbf_agent_start "$OUT" "$ERR" -Q 262144 \
		--output "nats://127.0.0.1:$closed,127.0.0.1:$port/fbf.events" \
		--output "file:$DIR/events.json" "${NO_LOSS[@]}"
	grep -q 'created JetStream stream FIZZBUZZFIB for fbf.events, 1 replica' "$ERR"
	send_frames 40000
	fbf_stop_agent INT

	delivered=$(sv delivered)
	echo "delivered $delivered nats_delivered $(sv nats_delivered) nats_lost $(sv nats_lost)"
	[ "$(sv nats_delivered)" -eq "$delivered" ]
	[ "$(sv nats_lost)" -eq 0 ]
	fbf_nats_stream "127.0.0.1:$port" FIZZBUZZFIB dump >"$DIR/stream.json"
	result=$(check_events all "$delivered" "$DIR/stream.json")
	echo "$result"
	[ "$(value "$result" events)" -eq "$delivered" ]
	# The same events as the file's, in the same order (each output measures
	# an event's age_ns when it formats it; the time is another test's).
	cmp <(without_age_time "$DIR/stream.json") <(without_age_time "$DIR/events.json")
	# One message per chunk of at most 512 KiB (docs/output.md), each with an
	# id of its own, made of the run's and its first event's number.
	fbf_nats_stream "127.0.0.1:$port" FIZZBUZZFIB ids >"$DIR/ids"
	awk '$3 > 524288 { print "message " $1 " has " $3 " bytes"; bad = 1 } END { exit bad }' \
		"$DIR/ids"
	[ "$(cut -d' ' -f2 "$DIR/ids" | sort | uniq -d | wc -l)" -eq 0 ]
	[ "$(cut -d' ' -f2 "$DIR/ids" | grep -c '\.e[0-9]*$')" -eq "$(wc -l <"$DIR/ids")" ]
	fbf_check_summary "$ERR" "$delivered"
}

@test "NATS: two outputs to two subjects, a stream created for each, every event in both" {
	local port delivered name

	need_nats
	fbf_nats_free_port port
	fbf_nats_start single "$DIR" "$port"
	fbf_agent_start "$OUT" "$ERR" --output "nats://127.0.0.1:$port/fbf.a" \
		--output "nats://127.0.0.1:$port/fbf.b" "${NO_LOSS[@]}"
	grep -q 'created JetStream stream FIZZBUZZFIB for fbf.a' "$ERR"
	grep -q 'created JetStream stream FIZZBUZZFIB_2 for fbf.b' "$ERR"
	send_frames 4000
	fbf_stop_agent INT

	delivered=$(sv delivered)
	[ "$delivered" -gt 0 ]
	[ "$(sv nats_delivered)" -eq "$delivered" ]
	[ "$(sv nats2_delivered)" -eq "$delivered" ]
	for name in FIZZBUZZFIB FIZZBUZZFIB_2; do
		fbf_nats_stream "127.0.0.1:$port" "$name" dump >"$DIR/$name.json"
		[ "$(wc -l <"$DIR/$name.json")" -eq "$delivered" ]
	done
	fbf_check_summary "$ERR" "$delivered"
}

@test "NATS: the server SIGKILLed mid-flood and restarted: stream + nats_lost = delivered, no duplicate" {
	local port result delivered before after

	need_nats
	fbf_nats_free_port port
	fbf_nats_start single "$DIR" "$port"
	fbf_agent_start "$OUT" "$ERR" -Q 262144 --output "nats://127.0.0.1:$port/fbf.events" \
		"${NO_LOSS[@]}"
	PACE=0.002 flood_start 40000 20000 "$DIR/go"
	wait_for "messages in the stream" 30 stream_has_messages "127.0.0.1:$port"
	fbf_nats_kill single KILL
	# The rest of the flood while the server is down: the agent holds it.
	touch "$DIR/go"
	flood_wait
	# Down for longer than a publish waits for its acknowledgement (2 s): the
	# agent's publishes time out and are sent again. Not a condition to wait
	# for; what follows holds however long it is.
	sleep 3
	fbf_nats_start single "$DIR" "$port"
	# Stop now: the agent sends what it holds within --output-timeout.
	fbf_stop_agent INT
	grep 'nats' "$ERR"

	delivered=$(sv delivered)
	echo "delivered $delivered nats_delivered $(sv nats_delivered) nats_lost $(sv nats_lost)"
	fbf_nats_stream "127.0.0.1:$port" FIZZBUZZFIB dump >"$DIR/stream.json"
	result=$(check_events some "$DIR/stream.json")
	echo "$result"
	# Events came after the kill: the restarted stream took messages.
	grep -q 'Restored [0-9]* messages' "$DIR/single.log"
	before=$(grep -o 'Restored [0-9]* messages' "$DIR/single.log" | grep -o '[0-9]*')
	after=$(fbf_nats_info_value "127.0.0.1:$port" FIZZBUZZFIB msgs)
	echo "messages: $before at the restart, $after at the end"
	[ "$after" -gt "$before" ]
	[ $(($(value "$result" events) + $(sv nats_lost))) -eq "$delivered" ]
	[ "$(value "$result" events)" -eq "$(sv nats_delivered)" ]
	# What was lost, if anything, is said in the stream.
	[ "$(value "$result" lost_sum)" -eq "$(sv nats_lost)" ]
}

@test "NATS: a server that takes messages of 64 KiB at most (max_payload): nothing lost" {
	local port result delivered

	need_nats
	fbf_nats_free_port port
	# The server's limit, which it tells every client as it connects (INFO).
	fbf_nats_start single "$DIR" "$port" "max_payload: 65536"
	fbf_agent_start "$OUT" "$ERR" -Q 262144 --output "nats://127.0.0.1:$port/fbf.events" \
		"${NO_LOSS[@]}"
	send_frames 40000
	fbf_stop_agent INT
	grep 'nats' "$ERR"

	delivered=$(sv delivered)
	echo "delivered $delivered nats_delivered $(sv nats_delivered) nats_lost $(sv nats_lost)"
	[ "$(sv nats_lost)" -eq 0 ]
	fbf_nats_stream "127.0.0.1:$port" FIZZBUZZFIB dump >"$DIR/stream.json"
	result=$(check_events all "$delivered" "$DIR/stream.json")
	echo "$result"
}

# readyz: "CODE LINE", what the agent's /readyz at $METRICS answers.
readyz()
{
	local body

	body=$(fbf_in_srv curl -sS --max-time 5 -w '\n%{http_code}' "http://$METRICS/readyz") ||
		return 1
	echo "${body##*$'\n'} ${body%$'\n'*}"
}

# nats_down: /readyz and sink_up say the NATS output cannot write.
nats_down()
{
	[ "$(readyz)" = "503 not ready: output nats ($NATS_TARGET) cannot write: $(
		)Transport endpoint is not connected" ] &&
		[ "$(metric "fizzbuzzfib_sink_up{device=\"$FBF_VETH_SRV\",sink=\"nats\"}")" = 0 ]
}

# nats_up: /readyz and sink_up say every output writes.
nats_up()
{
	[[ "$(readyz)" == "200 ready: "* ]] &&
		[ "$(metric "fizzbuzzfib_sink_up{device=\"$FBF_VETH_SRV\",sink=\"nats\"}")" = 1 ]
}

@test "NATS: no server at start, then one killed mid-run: started all the same, down while away, nothing lost uncounted" {
	local port mport result delivered

	need_nats
	fbf_nats_free_port port
	fbf_nats_free_port mport
	METRICS=127.0.0.1:$mport
	NATS_TARGET=127.0.0.1:$port/fbf.events
	# No server yet: the agent starts, says so, and is not ready.
	fbf_agent_start "$OUT" "$ERR" -Q 262144 --output "nats://$NATS_TARGET" \
		--metrics "$METRICS" --output-timeout 60
	grep -q "warning agent: output nats: cannot connect to nats://$NATS_TARGET yet; starting" "$ERR"
	wait_for "/readyz to say the output is down" 30 nats_down
	send_frames 2000
	fbf_nats_start single "$DIR" "$port"
	wait_for "/readyz to say the output is up" 30 nats_up
	wait_for "the events held meanwhile in the stream" 30 sink_caught_up nats
	# Killed under traffic: down once a publish fails, up again once one goes through.
	fbf_nats_kill single KILL
	send_frames 2000
	wait_for "/readyz to say the output is down" 30 nats_down
	fbf_nats_start single "$DIR" "$port"
	wait_for "/readyz to say the output is up" 30 nats_up
	send_frames 2000
	wait_for "every event delivered or lost" 60 sink_caught_up nats
	fbf_stop_agent INT
	delivered=$(sv delivered)
	echo "delivered $delivered nats_delivered $(sv nats_delivered) nats_lost $(sv nats_lost)"
	[ $(($(sv nats_delivered) + $(sv nats_lost))) -eq "$delivered" ]
	fbf_nats_stream "127.0.0.1:$port" FIZZBUZZFIB dump >"$DIR/stream.json"
	result=$(check_events some "$DIR/stream.json")
	echo "$result"
	[ "$(value "$result" events)" -eq "$(sv nats_delivered)" ]
}

@test "NATS: a stopped server and a small --output-buffer: the overflow counted lost and said in the stream" {
	local port result delivered

	need_nats
	fbf_nats_free_port port
	fbf_nats_start single "$DIR" "$port"
	fbf_agent_start "$OUT" "$ERR" -Q 262144 --output "nats://127.0.0.1:$port/fbf.events" \
		--output-buffer 131072 --output-timeout 120
	# A server that hangs: the connection stays up, nothing is acknowledged.
	kill -STOP "${FBF_NATS_PIDS[single]}"
	send_frames 40000
	kill -CONT "${FBF_NATS_PIDS[single]}"
	fbf_stop_agent INT
	grep 'nats' "$ERR"

	delivered=$(sv delivered)
	echo "delivered $delivered nats_delivered $(sv nats_delivered) nats_lost $(sv nats_lost)"
	fbf_nats_stream "127.0.0.1:$port" FIZZBUZZFIB dump >"$DIR/stream.json"
	result=$(check_events some "$DIR/stream.json")
	echo "$result"
	# The least buffer a NATS output takes, two chunks of 512 KiB, holds
	# about 6,000 of the 23,000 events.
	[ "$(sv nats_lost)" -gt 0 ]
	[ "$(value "$result" events)" -eq "$(sv nats_delivered)" ]
	[ $(($(sv nats_delivered) + $(sv nats_lost))) -eq "$delivered" ]
	# Said in the stream, in records of the lost events, once it took messages again.
	[ "$(value "$result" lost_records)" -ge 1 ]
	[ "$(value "$result" lost_sum)" -eq "$(sv nats_lost)" ]
}

@test "NATS: a hung server at exit: a second stop ends the wait, what it held counted lost" {
	local port status=0

	need_nats
	fbf_nats_free_port port
	fbf_nats_start single "$DIR" "$port"
	fbf_agent_start "$OUT" "$ERR" -Q 262144 --output "nats://127.0.0.1:$port/fbf.events" \
		--output-timeout 600
	kill -STOP "${FBF_NATS_PIDS[single]}"
	send_frames 4000
	kill -INT "$FBF_AGENT_PID"
	wait_for "the agent to wait for its output" 30 grep -q 'output nats: waiting up to' "$ERR"
	kill -INT "$FBF_AGENT_PID"
	wait "$FBF_AGENT_PID" || status=$?
	FBF_AGENT_PID=
	kill -CONT "${FBF_NATS_PIDS[single]}"
	grep 'nats' "$ERR"
	[ "$status" -eq 0 ]
	fbf_xdp_detached

	echo "delivered $(sv delivered) nats_delivered $(sv nats_delivered) nats_lost $(sv nats_lost)"
	[ "$(sv nats_lost)" -gt 0 ]
	[ $(($(sv nats_delivered) + $(sv nats_lost))) -eq "$(sv delivered)" ]
}

@test "NATS: a three-node cluster loses a node mid-flood: nothing lost, nothing doubled" {
	local result delivered node victim servers

	need_nats
	fbf_nats_cluster_start "$DIR"
	servers=$FBF_NATS_CLUSTER
	fbf_agent_start "$OUT" "$ERR" -Q 262144 --output "nats://$servers/fbf.events" \
		--nats-replicas 3 "${NO_LOSS[@]}"
	grep -q 'created JetStream stream FIZZBUZZFIB for fbf.events, 3 replicas' "$ERR"
	# The node the agent is connected to, so that it must reconnect; made the
	# stream's leader if a few step-downs can, so that the cluster must elect
	# another too.
	victim=$(fbf_nats_client_node fizzbuzzfib-agent) || victim=n1
	make_leader "$servers" "$victim" || true
	echo "agent connected to $victim; $(fbf_nats_stream "$servers" FIZZBUZZFIB info)"
	PACE=0.002 flood_start 40000 20000 "$DIR/go"
	wait_for "messages in the stream" 30 stream_has_messages "$servers"
	fbf_nats_kill "$victim" KILL
	touch "$DIR/go"
	flood_wait
	fbf_stop_agent INT
	grep 'nats' "$ERR"

	delivered=$(sv delivered)
	echo "delivered $delivered nats_delivered $(sv nats_delivered) nats_lost $(sv nats_lost)"
	servers=
	for node in n1 n2 n3; do
		[ "$node" = "$victim" ] || servers+="${servers:+,}127.0.0.1:${FBF_NATS_PORT[$node]}"
	done
	echo "after: $(fbf_nats_stream "$servers" FIZZBUZZFIB info)"
	fbf_nats_stream "$servers" FIZZBUZZFIB dump >"$DIR/stream.json"
	result=$(check_events all "$delivered" "$DIR/stream.json")
	echo "$result"
	[ "$(sv nats_lost)" -eq 0 ]
	[ "$(sv nats_delivered)" -eq "$delivered" ]
	[ "$(value "$result" events)" -eq "$delivered" ]
}

@test "bad outputs: one line each; exit 2 for usage, 14 for an output that cannot be opened" {
	local port args

	fbf_nats_free_port port
	for args in "--output bogus://x" "--output nats://host/" "--output nats://host/x" \
		"--output nats://127.0.0.1:$port" "--output file:" "--output-keep 3" \
		"--output-rotate-bytes 65536" "--nats-replicas 3" "--nats-stream S" \
		"--output file:$DIR/x --output-rotate-bytes 100" "--output-buffer 1" \
		"--output nats://127.0.0.1:$port,/x" "--output nats://127.0.0.1:$port,,127.0.0.1:1/x" \
		"--nats-fail-fast"; do
		# shellcheck disable=SC2086 # word splitting is the point
		run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" $args
		echo "$args: $status: $output"
		[ "$status" -eq 2 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == *"see agent --help" ]]
	done
	# Nothing listens on $port, and --nats-fail-fast: one line, exit 14, nothing attached.
	for args in "--output nats://127.0.0.1:$port/x --nats-fail-fast" \
		"--output file:/nonexistent-dir/x" \
		"--output file:$DIR/events.json --output nats://127.0.0.1:$port/x --nats-fail-fast"; do
		# shellcheck disable=SC2086
		run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" $args
		echo "$args: $status: $output"
		[ "$status" -eq 14 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == *" error agent: "* ]]
	done
	# A name that does not resolve is the cause, said as ipfix:// says it. In the
	# server namespace, which has no route to a name server: no query leaves.
	run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" \
		--output "nats://127.0.0.1:$port,server.invalid:4222/x" --nats-fail-fast
	echo "$status: $output"
	[ "$status" -eq 14 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"output nats: cannot resolve server.invalid:4222 (of nats://127.0.0.1:$port,server.invalid:4222/x): "*"; check the address" ]]
	fbf_xdp_detached
}

# in_dir DIR COMMAND...: COMMAND run from DIR (under bats' run: in its subshell).
in_dir() { cd "$1" && "${@:2}"; }

# refused ARGS...: the agent given ARGS is refused with one usage line, exit 2.
refused()
{
	run "$@"
	echo "$*: $status: $output"
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"see agent --help" ]]
}

@test "two outputs that write to one place: one line, exit 2, nothing created or attached" {
	local pair

	mkdir "$DIR/d"
	ln -s d "$DIR/link"
	: >"$DIR/d/old.json"
	ln "$DIR/d/old.json" "$DIR/hard.json"
	ln -s new.json "$DIR/dangling"
	# The same file by two names, stdout twice, stdout as a file; the same
	# NATS subject through a server in common; one IPFIX collector and domain.
	for pair in "stdout -" "file:$DIR/d/x.json file:$DIR/d/./x.json" \
		"file:$DIR/d/x.json file:$DIR/link/x.json" "file:$DIR/d/x.json file:$DIR/d/../d/x.json" \
		"file:$DIR/d/old.json file:$DIR/hard.json" "file:$DIR/dangling file:$DIR/new.json" \
		"stdout file:/dev/stdout" "nats://127.0.0.1:1,127.0.0.1:2/a nats://127.0.0.1:2/a" \
		"ipfix://127.0.0.1:4739 ipfix://127.0.0.1:4739 --aggregate 1"; do
		# shellcheck disable=SC2086 # two outputs, and what the second needs
		set -- $pair
		refused fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --duration 1 --output "$1" \
			--output "$2" "${@:3}"
		[[ "$output" == *"--output '$1' and --output '$2' write to the same place"* ]]
		# What is written twice: under --aggregate, intervals.
		if [[ "$*" == *--aggregate* ]]; then
			[[ "$output" == *"place, each interval twice; keep one"* ]]
		else
			[[ "$output" == *"place, each event twice; keep one"* ]]
		fi
	done
	# Relative to the directory the agent runs in.
	refused in_dir "$DIR/d" fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --duration 1 \
		--output file:x.json --output "file:$DIR/d/x.json"
	refused in_dir "$DIR/d" fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --duration 1 \
		--output file:x.json --output file:./x.json
	[ ! -e "$DIR/d/x.json" ]
	[ ! -e "$DIR/new.json" ]
	fbf_xdp_detached
	# Places of their own are taken: two files side by side, one subject on two clusters.
	run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --duration 0.2 --quiet \
		--output "file:$DIR/d/a.json" --output "file:$DIR/d/b.json"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -f "$DIR/d/a.json" ]
	[ -f "$DIR/d/b.json" ]
}

# nats_creds FILE [SEED]: a credentials file as a NATS account's operator
# hands it out: a user JWT (one no server checks: the test servers run
# without accounts) and an NKey user seed, by default a valid one (32 zero
# bytes, encoded as NKeys encode seeds: base32 of the prefix, the key and its
# CRC-16).
nats_creds()
{
	local seed=${2:-$(python3 -c '
import base64
raw = bytes([18 << 3 | 20 >> 2, (20 << 3 & 31) << 3]) + bytes(32)
crc = 0
for b in raw:
    crc ^= b << 8
    for _ in range(8):
        crc = (crc << 1 ^ 0x1021 if crc & 0x8000 else crc << 1) & 0xffff
print(base64.b32encode(raw + crc.to_bytes(2, "little")).decode().rstrip("="))')}

	printf '%s\n' '-----BEGIN NATS USER JWT-----' 'eyJ0eXAiOiJKV1QifQ.e30.c2ln' \
		'------END NATS USER JWT------' '' '*** IMPORTANT ***' 'Keep the seed secret.' \
		'' '-----BEGIN USER NKEY SEED-----' "$seed" '------END USER NKEY SEED------' >"$1"
}

@test "NATS: a creds or CA file unreadable or malformed: exit 2 naming the file and what is wrong, not the server" {
	local port closed args want p

	need_nats
	fbf_nats_free_port port
	fbf_nats_free_port closed
	fbf_nats_start single "$DIR" "$port"
	echo garbage >"$DIR/garbage"
	nats_creds "$DIR/bad-seed.creds" SUAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
	head -n 4 <(nats_creds /dev/stdout) >"$DIR/no-seed.creds"
	mkdir "$DIR/dir"
	# The file, then what the line must say of it; against a server that runs,
	# and against none: the file is wrong either way.
	for args in "--nats-creds /nonexistent/x.creds|cannot read --nats-creds /nonexistent/x.creds: No such file" \
		"--nats-creds $DIR/garbage|--nats-creds $DIR/garbage is not a NATS credentials file: no user JWT" \
		"--nats-creds $DIR/no-seed.creds|--nats-creds $DIR/no-seed.creds is not a NATS credentials file: no NKey seed" \
		"--nats-creds $DIR/bad-seed.creds|--nats-creds $DIR/bad-seed.creds is not a NATS credentials file: its NKey seed is not valid" \
		"--nats-creds $DIR/dir|cannot read --nats-creds $DIR/dir: Is a directory" \
		"--nats-ca /nonexistent/x.pem|cannot read --nats-ca /nonexistent/x.pem: No such file" \
		"--nats-ca $DIR/garbage|--nats-ca $DIR/garbage holds no CA certificate that TLS can load"; do
		want=${args#*|}
		for p in "$port" "$closed"; do
			# shellcheck disable=SC2086 # the option and its file
			run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --quiet --duration 1 \
				--output "nats://127.0.0.1:$p/fbf.x" ${args%%|*}
			echo "${args%%|*} (port $p): $status: $output"
			[ "$status" -eq 2 ]
			[ "${#lines[@]}" -eq 1 ]
			[[ "$output" == *" error agent: output nats: $want"* ]]
			[[ "$output" != *"start the server"* ]]
		done
	done
	fbf_xdp_detached
}

@test "NATS: a server that refuses the credentials is named as the cause, exit 14; one that takes them is published to" {
	local open auth

	need_nats
	fbf_nats_free_port open
	fbf_nats_free_port auth
	fbf_nats_start open "$DIR" "$open"
	fbf_nats_start auth "$DIR" "$auth" "authorization { user: someone, password: else }"
	nats_creds "$DIR/agent.creds"
	run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --quiet --duration 1 \
		--output "nats://127.0.0.1:$auth/fbf.x" --nats-creds "$DIR/agent.creds"
	echo "$status: $output"
	[ "$status" -eq 14 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"the server of nats://127.0.0.1:$auth/fbf.x refused the agent: Authorization Violation; "*"--nats-creds $DIR/agent.creds" ]]
	run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --quiet --duration 0.2 \
		--output "nats://127.0.0.1:$open/fbf.x" --nats-creds "$DIR/agent.creds"
	echo "$status: $output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"created JetStream stream FIZZBUZZFIB for fbf.x"* ]]
	fbf_xdp_detached
}

@test "NATS: --nats-stream OTHER while a stream captures the subject: one line names the stream used and why" {
	local port

	need_nats
	fbf_nats_free_port port
	fbf_nats_start single "$DIR" "$port"
	run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --quiet --duration 0.2 \
		--output "nats://127.0.0.1:$port/fbf.s" --nats-stream EXISTING
	[ "$status" -eq 0 ]
	[[ "$output" == *" info agent: output nats: created JetStream stream EXISTING for fbf.s"* ]]
	run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --quiet --duration 0.2 \
		--output "nats://127.0.0.1:$port/fbf.s" --nats-stream OTHER
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c 'output nats: ' <<<"$output")" -eq 1 ]
	[[ "$output" == *" warning agent: output nats: publishing to stream EXISTING, which captures fbf.s already; OTHER (--nats-stream) is created only where no stream captures the subject"* ]]
	run fbf_nats_stream "127.0.0.1:$port" OTHER info
	[ "$status" -eq 3 ]
	# The stream asked for: named too.
	run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --quiet --duration 0.2 \
		--output "nats://127.0.0.1:$port/fbf.s" --nats-stream EXISTING
	[ "$status" -eq 0 ]
	[[ "$output" == *" info agent: output nats: publishing to stream EXISTING, which captures fbf.s"* ]]
}
