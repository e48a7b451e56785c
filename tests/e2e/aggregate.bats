#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# --aggregate end to end: the agent counts per source in the kernel under raw
# floods from two CPUs, and every interval's counts, added up, are the
# kernel's own count of each class, exactly; a full map's packets are
# no_room, shown and counted; bad values are one-line usage errors.

load ../../testing/netns

bats_require_minimum_version 1.5.0

setup_file() { fbf_bats_setup_file aggregate; }
teardown_file() { fbf_bats_teardown_file; }
setup() { fbf_bats_setup; }
teardown() { fbf_bats_teardown; }

# Spoofed raw sources, inside the test namespaces; 40 of them hold every class.
RAW_FIRST=10.213.16.1
RAW_COUNT=40

# flood_two_cpus SECONDS: raw frames from RAW_COUNT sources, one sender pinned
# to each of the first two CPUs (both on CPU 0 on a one-CPU machine).
flood_two_cpus()
{
	local last=$(($(nproc) > 1 ? 1 : 0)) cpu pids=()

	for cpu in 0 "$last"; do
		fbf_in_cli taskset -c "$cpu" "$FBF_BUILD/rawflood" "$FBF_VETH_CLI" "$1" \
			"$RAW_FIRST" "$RAW_COUNT" "$FBF_SERVER" >/dev/null 2>&1 &
		pids+=($!)
	done
	wait "${pids[@]}"
}

# check_intervals OUT ERR: the JSON intervals on OUT add up, class by class,
# to the classes of the summary on ERR (its counts of every frame the
# program saw), with the frames of a full map in no_room; every source of
# an interval is in its top lists (--top covers them all); each class has
# its rank order. Prints "INTERVALS NO_ROOM MAX_SOURCES".
check_intervals()
{
	python3 - "$1" "$2" <<-'EOF'
	import json, re, sys
	out, err = sys.argv[1], sys.argv[2]
	summary = {}
	for line in open(err):
	    if line.startswith('{"type":"summary"'):
	        summary.update(json.loads(line))
	    elif " agent: summary " in line:
	        summary.update((k, int(v)) for k, v in re.findall(r"(\w+)=(\d+)\b", line))
	classes = ["fizz", "buzz", "fizzbuzz", "fibonacci"]
	total = dict.fromkeys(classes, 0)
	intervals = no_room = most = 0
	for line in open(out):
	    iv = json.loads(line)
	    assert iv["type"] == "interval", iv
	    intervals += 1
	    no_room += iv["no_room"]
	    most = max(most, iv["sources"])
	    listed = 0
	    for c in classes:
	        total[c] += iv["packets"][c]
	        top = iv["top"][c]
	        counts = [t["packets"] for t in top]
	        assert counts == sorted(counts, reverse=True), (c, top)
	        assert sum(counts) == iv["packets"][c], (c, iv)
	        listed += len(top)
	    assert listed == iv["sources"], iv
	classified = sum(summary[c] for c in classes)
	assert sum(total.values()) + no_room == classified, (total, no_room, summary)
	assert no_room == summary["no_room"], (no_room, summary)
	assert sum(total.values()) == summary["aggregated"] == summary["aggregated_read"], summary
	if not no_room:
	    for c in classes:
	        assert total[c] == summary[c], (c, total, summary)
	print(intervals, no_room, most)
	EOF
}

# aggregate_flood TRANSPORT: 2 s of floods from two CPUs under --aggregate 0.2.
aggregate_flood()
{
	local intervals no_room most

	fbf_agent_start "$OUT" "$ERR" --transport "$1" --aggregate 0.2 --top 1000 --json
	flood_two_cpus 2
	fbf_stop_agent INT

	fbf_check_summary "$ERR" 0
	read -r intervals no_room most < <(check_intervals "$OUT" "$ERR")
	echo "intervals $intervals no_room $no_room most sources $most"
	[ "$intervals" -ge 5 ]
	[ "$no_room" -eq 0 ]
	# Every raw source but the class-none ones was counted in some interval.
	[ "$most" -ge 20 ]
	[ "$(fbf_summary_value "$ERR" produced)" -eq 0 ]
}

@test "--aggregate under floods from two CPUs: the intervals add up to each class, exactly" {
	aggregate_flood queue
}

@test "--aggregate with --transport ringbuf: the same, exactly" {
	aggregate_flood ringbuf
}

@test "--max-sources 8: a full map counts the rest as no_room, and shows it" {
	local intervals no_room most line

	fbf_agent_start "$OUT" "$ERR" --aggregate 0.2 --max-sources 8 --top 1000 --json
	grep -q 'packets counted per source for up to 8 sources, reported every 0.2 s' "$ERR"
	# It sends no events: each CPU's event queue holds one, the least the kernel takes.
	bpftool -j prog show id "$(fbf_agent_prog_id "$ERR")" | python3 -c '
import json, subprocess, sys
show = lambda *a: json.loads(subprocess.check_output(["bpftool", "-j", "map", *a]))
outer = [m for m in map(lambda i: show("show", "id", str(i)), json.load(sys.stdin)["map_ids"])
	 if m["name"] == "events"][0]
for key in range(outer["max_entries"]):
	slot = show("lookup", "id", str(outer["id"]), "key", *str(key.to_bytes(4, "little").hex(" ")).split())
	inner = show("show", "id", str(int.from_bytes(bytes(int(b, 16) for b in slot["value"]), "little")))
	assert inner["type"] == "queue" and inner["max_entries"] == 1, inner'
	flood_two_cpus 1
	fbf_stop_agent TERM

	fbf_check_summary "$ERR" 0
	read -r intervals no_room most < <(check_intervals "$OUT" "$ERR")
	echo "intervals $intervals no_room $no_room most sources $most"
	[ "$no_room" -gt 0 ]
	[ "$most" -eq 8 ]
}

@test "--aggregate text: an interval line per interval, then its top sources by class" {
	fbf_agent_start "$OUT" "$ERR" --aggregate 0.3 --top 2
	flood_two_cpus 1
	fbf_stop_agent INT

	# Every line is one of the two forms; the top lines of a class count down.
	run -1 grep -Ev '^(interval end=[0-9T:.-]+Z seconds=[0-9.]+ sources=[0-9]+ fizz=[0-9]+ buzz=[0-9]+ fizzbuzz=[0-9]+ fibonacci=[0-9]+ no_room=[0-9]+|top class=(Fizz|Buzz|FizzBuzz|Fibonacci) rank=[12] saddr=[0-9.]+ packets=[0-9]+)$' "$OUT"
	grep -q '^top class=Fibonacci rank=2 ' "$OUT"
	awk '/^interval/ { n = 0; last = "" }
	     /^top/ { split($2, c, "="); split($5, p, "=")
		      if (c[2] == last && p[2] > prev) bad = 1; last = c[2]; prev = p[2] }
	     END { exit bad }' "$OUT"
	fbf_check_summary "$ERR" 0
}

@test "--aggregate: bad values and combinations are one line each, exit 2" {
	local args

	for args in "--aggregate 0" "--aggregate x" "--aggregate 86401" "--aggregate 1 --top 1001" \
		"--aggregate 1 --max-sources 0" "--aggregate 1 --max-sources 1048577" "--top 3" \
		"--max-sources 8" "--aggregate 1 --sample 16" "--aggregate 1 --count 5" \
		"--aggregate 1 --queue-size 64"; do
		# shellcheck disable=SC2086 # word splitting is the point
		run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" $args
		echo "$args: $status: $output"
		[ "$status" -eq 2 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == *"see agent --help" ]]
	done
	fbf_xdp_detached
}
