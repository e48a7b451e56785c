#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# --output ipfix:// end to end, into the real collector: nfcapd on a loopback
# port of its own stores what the agent exports, and nfdump's totals per
# source are the agent's own counts, exactly: for a few sources over several
# intervals, and for 65,536 sources in one interval. A collector that is not
# there costs counted intervals, no crash; bad URLs are usage errors.

load ../../testing/netns
load ../../testing/ipfix

bats_require_minimum_version 1.5.0

setup_file() { fbf_bats_setup_file ipfix; }
teardown_file() { fbf_bats_teardown_file; }

setup()
{
	fbf_bats_setup
	fbf_ipfix_tools || skip "nfcapd and nfdump are not installed (Debian: nfdump)"
	PORT=$(fbf_ipfix_port)
	FLOWS=$FBF_WORK/$BATS_TEST_NUMBER.flows
	JSON=$FBF_WORK/$BATS_TEST_NUMBER.json
	FBF_NFCAPD_PID=
}

teardown()
{
	fbf_nfcapd_stop
	[ -z "${BATS_TEST_COMPLETED:-}" ] && [ -f "$FLOWS.log" ] &&
		echo "# nfcapd:" && sed 's/^/#   /' "$FLOWS.log" | tail -n 20
	fbf_bats_teardown
}

# Spoofed raw sources, inside the test namespaces. 40 hold every class;
# from 10.216.0.0, 132,726 addresses hold 65,536 that are not of class none,
# each counted per source: as many as --max-sources holds by default.
FEW_FIRST=10.213.16.1
FEW_COUNT=40
MANY_FIRST=10.216.0.0
MANY_COUNT=132726
MANY_SOURCES=65536

# flood FIRST COUNT: raw frames from COUNT sources, one after the other, until
# one run has sent each at least once: a slow machine takes longer runs, never
# fewer frames (at most 1 + 2 + 4 + 8 + 16 s).
flood()
{
	local seconds sent

	for seconds in 1 2 4 8 16; do
		sent=$(fbf_in_cli "$FBF_BUILD/rawflood" "$FBF_VETH_CLI" "$seconds" "$1" "$2" \
			"$FBF_SERVER" 2>/dev/null)
		[ "${sent:-0}" -ge "$2" ] && return 0
	done
	echo "rawflood sent $sent frames, fewer than its $2 sources" >&2
	return 1
}

# interval_sources JSON: "ADDRESS PACKETS" per source over every interval of
# the file output JSON, sorted by address (the top lists hold every source
# when --top is at least the sources of a class).
interval_sources()
{
	python3 - "$1" <<-'EOF'
	import collections, json, sys
	total = collections.Counter()
	for line in open(sys.argv[1]):
	    iv = json.loads(line)
	    if iv.get("type") != "interval":
	        continue
	    listed = 0
	    for top in iv["top"].values():
	        for t in top:
	            total[t["saddr"]] += t["packets"]
	            listed += 1
	    assert listed == iv["sources"], iv
	for saddr in sorted(total):
	    print(saddr, total[saddr])
	EOF
}

# intervals JSON: how many intervals the file output holds.
intervals() { grep -c '"type":"interval"' "$1"; }

@test "a few sources over several intervals: nfdump's totals per source are the agent's" {
	local ours theirs

	fbf_nfcapd_start "$PORT" "$FLOWS"
	fbf_agent_start "$OUT" "$ERR" --aggregate 0.2 --top 1000 \
		--output "ipfix://127.0.0.1:$PORT" --output "file:$JSON"
	grep -q "output ipfix: 127.0.0.1:$PORT, observation domain " "$ERR"
	flood "$FEW_FIRST" "$FEW_COUNT"
	sleep 0.5
	fbf_stop_agent INT
	fbf_nfcapd_stop

	fbf_check_summary "$ERR" 0
	[ "$(intervals "$JSON")" -ge 3 ]
	[ "$(fbf_summary_value "$ERR" ipfix_lost)" -eq 0 ]
	[ "$(fbf_summary_value "$ERR" ipfix_delivered)" -eq "$(intervals "$JSON")" ]
	ours=$(interval_sources "$JSON")
	theirs=$(fbf_nfdump_sources "$FLOWS" | sort)
	echo "agent:"; echo "$ours"; echo "nfdump:"; echo "$theirs"
	[ -n "$ours" ]
	[ "$ours" = "$(echo "$ours" | sort)" ]
	[ "$theirs" = "$ours" ]
	# Every source but the class-none ones, each in some interval.
	[ "$(echo "$ours" | wc -l)" -ge 20 ]
}

@test "65,536 sources in one interval: nfdump's sources and packets are the agent's, exactly" {
	local sources packets aggregated line

	fbf_nfcapd_start "$PORT" "$FLOWS"
	fbf_agent_start "$OUT" "$ERR" --aggregate 3600 --top 1 \
		--output "ipfix://127.0.0.1:$PORT" --output "file:$JSON"
	flood "$MANY_FIRST" "$MANY_COUNT"
	# The stop ends the one interval and exports it.
	fbf_stop_agent INT
	fbf_nfcapd_stop

	fbf_check_summary "$ERR" 0
	line=$(grep '"type":"interval"' "$JSON")
	echo "$line" | cut -c1-300
	[ "$(intervals "$JSON")" -eq 1 ]
	echo "$line" | grep -q "\"sources\":$MANY_SOURCES,"
	echo "$line" | grep -q '"no_room":0'
	aggregated=$(fbf_summary_value "$ERR" aggregated)
	read -r sources packets < <(fbf_nfdump_sources "$FLOWS" |
		awk '{ n++; p += $2 } END { print n + 0, p + 0 }')
	echo "nfdump: $sources sources, $packets packets; the agent: $aggregated packets"
	grep -E 'Sequence Errors|Bad Packets' "$FLOWS.log" | tail -n 1
	[ "$sources" -eq "$MANY_SOURCES" ]
	[ "$packets" -eq "$aggregated" ]
	[ "$(fbf_summary_value "$ERR" ipfix_delivered)" -eq 1 ]
	[ "$(fbf_summary_value "$ERR" ipfix_lost)" -eq 0 ]
}

# sink_metric RESULT: fizzbuzzfib_sink_events_total of the ipfix output, from --metrics on PORT + 1.
sink_metric()
{
	fbf_in_srv curl -sS --max-time 10 "http://127.0.0.1:$((PORT + 1))/metrics" |
		awk -v r="result=\"$1\"" 'index($1, "fizzbuzzfib_sink_events_total{") == 1 &&
			index($1, "sink=\"ipfix\"") && index($1, r) { print $2 }'
}

@test "no collector at the start, one started later: the intervals before it counted lost" {
	local delivered lost n i

	command -v curl >/dev/null || skip "curl is not installed"
	fbf_agent_start "$OUT" "$ERR" --aggregate 0.2 --output "ipfix://127.0.0.1:$PORT" \
		--output "file:$JSON" --metrics "127.0.0.1:$((PORT + 1))"
	flood "$FEW_FIRST" "$FEW_COUNT"
	# Until the agent said so, in a bounded wait.
	for i in $(seq 50); do
		grep -q "output ipfix: cannot send to ipfix://127.0.0.1:$PORT" "$ERR" && break
		sleep 0.1
	done
	fbf_nfcapd_start "$PORT" "$FLOWS"
	# Until an interval reached it: nfcapd logs each new exporter.
	for i in $(seq 50); do
		grep -q 'New ipfix exporter' "$FLOWS.log" && break
		sleep 0.1
	done
	flood "$FEW_FIRST" "$FEW_COUNT"
	sleep 0.5
	# The same counts in the metrics, as for every output.
	[ "$(sink_metric lost)" -ge 1 ]
	[ "$(sink_metric delivered)" -ge 1 ]
	fbf_stop_agent TERM
	fbf_nfcapd_stop

	fbf_check_summary "$ERR" 0
	grep -q "output ipfix: cannot send to ipfix://127.0.0.1:$PORT: Connection refused" "$ERR"
	grep -q "output ipfix: sending to ipfix://127.0.0.1:$PORT again" "$ERR"
	delivered=$(fbf_summary_value "$ERR" ipfix_delivered)
	lost=$(fbf_summary_value "$ERR" ipfix_lost)
	n=$(intervals "$JSON")
	echo "intervals $n: ipfix_delivered $delivered ipfix_lost $lost"
	[ "$lost" -ge 1 ]
	[ "$delivered" -ge 1 ]
	[ $((delivered + lost)) -eq "$n" ]
	# What reached nfcapd is some of what the agent counted, never more.
	[ "$(fbf_nfdump_sources "$FLOWS" | awk '{ p += $2 } END { print p + 0 }')" -gt 0 ]
	[ "$(fbf_nfdump_sources "$FLOWS" | awk '{ p += $2 } END { print p + 0 }')" -le \
	  "$(fbf_summary_value "$ERR" aggregated)" ]
}

# usage_error ARGS...: the agent refuses ARGS with status 2 and one line on stderr.
usage_error()
{
	run "$AGENT" --iface lo "$@"
	echo "status $status: $output"
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
}

@test "bad ipfix URLs, or ipfix without --aggregate: one line, status 2" {
	usage_error --aggregate 1 --output ipfix://127.0.0.1
	[[ $output == *"use ipfix://HOST:PORT or ipfix://HOST:PORT?domain=N"* ]]
	usage_error --aggregate 1 --output ipfix://127.0.0.1:65536
	usage_error --aggregate 1 --output ipfix://127.0.0.1:0
	usage_error --aggregate 1 --output ipfix://::1:4739
	usage_error --aggregate 1 --output 'ipfix://127.0.0.1:4739?domain=4294967296'
	[[ $output == *"?domain=N, an observation domain from 0 to 4294967295"* ]]
	usage_error --aggregate 1 --output 'ipfix://127.0.0.1:4739?dom=1'
	usage_error --output ipfix://127.0.0.1:4739
	[[ $output == *"without --aggregate there are no intervals"* ]]
}

@test "a host that does not resolve: one line, status 14" {
	# In the server namespace, which has no route to a name server: no query leaves.
	run fbf_in_srv "$AGENT" --iface lo --aggregate 1 --output ipfix://collector.invalid:4739
	echo "status $status: $output"
	[ "$status" -eq 14 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ $output == *"output ipfix: cannot resolve collector.invalid:4739"* ]]
}

@test "?domain=N sets the observation domain nfcapd sees" {
	local i

	fbf_nfcapd_start "$PORT" "$FLOWS"
	fbf_agent_start "$OUT" "$ERR" --aggregate 0.2 \
		--output "ipfix://127.0.0.1:$PORT?domain=4242"
	flood "$FEW_FIRST" "$FEW_COUNT"
	for i in $(seq 50); do
		grep -q 'New ipfix exporter' "$FLOWS.log" && break
		sleep 0.1
	done
	fbf_stop_agent INT
	fbf_nfcapd_stop
	grep 'New ipfix exporter' "$FLOWS.log"
	grep -q 'New ipfix exporter.*Observation domain 4242 ' "$FLOWS.log"
}

@test "under AddressSanitizer and UBSan: intervals sent, refused and sent again, no report" {
	local agent=$FBF_ROOT/build-sanitize/agent

	fbf_is_sanitized "$agent" || skip "no sanitizer build of the agent: run make SANITIZE=1"
	fbf_srv_start "$OUT" "$ERR" env ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:halt_on_error=1 \
		UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1 "$agent" \
		--iface "$FBF_VETH_SRV" --aggregate 0.2 --output "ipfix://127.0.0.1:$PORT"
	# Refused first, then taken.
	flood "$FEW_FIRST" "$FEW_COUNT"
	fbf_nfcapd_start "$PORT" "$FLOWS"
	flood "$MANY_FIRST" "$MANY_COUNT"
	sleep 0.5
	fbf_stop_agent INT
	fbf_nfcapd_stop
	run -1 grep -E 'runtime error|Sanitizer' "$ERR"
	fbf_check_summary "$ERR" 0
	[ "$(fbf_summary_value "$ERR" ipfix_delivered)" -ge 1 ]
	[ "$(fbf_summary_value "$ERR" ipfix_lost)" -ge 1 ]
}

@test "a stop that will not wait for an interval's 100 ms of pacing: counted lost, exit 0" {
	fbf_nfcapd_start "$PORT" "$FLOWS"
	fbf_agent_start "$OUT" "$ERR" --aggregate 3600 --output-timeout 0.02 \
		--output "ipfix://127.0.0.1:$PORT"
	flood "$MANY_FIRST" "$MANY_COUNT"
	# 1,560 messages at 8 a half millisecond take 97 ms at the least, on any machine.
	fbf_stop_agent INT
	fbf_nfcapd_stop

	fbf_check_summary "$ERR" 0
	[ "$(fbf_summary_value "$ERR" ipfix_delivered)" -eq 0 ]
	[ "$(fbf_summary_value "$ERR" ipfix_lost)" -eq 1 ]
	run -1 grep -q 'cannot send to ipfix' "$ERR"
	# What it sent before the stop reached nfcapd, and no more than that.
	[ "$(fbf_nfdump_sources "$FLOWS" | wc -l)" -lt "$MANY_SOURCES" ]
}
