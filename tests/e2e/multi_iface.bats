#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# --iface's names and patterns on real interfaces: globs, /regex/, exclusions
# that win, lo left out unless named, and --detach over every interface a
# pattern selects. The rules themselves are unit tested (tests/unit/test_ifselect.c).

load ../../testing/netns

setup_file()
{
	# 500 interfaces attached and let go take a while on a slow host.
	export BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-900}
	fbf_bats_setup_file multi
}
teardown_file() { fbf_bats_teardown_file; }
setup()
{
	fbf_bats_setup
	# A second interface beside the server veth, named like it so that globs meet both;
	# a veth (not every kernel has dummy), its peer on the client side.
	DUMMY=${FBF_VETH_SRV/fbfs/fbfd}
	fbf_in_srv ip link add "$DUMMY" type veth peer name "${FBF_VETH_CLI/fbfc/fbfe}" \
		netns "$FBF_NS_CLI"
	fbf_in_srv ip link set "$DUMMY" up
	fbf_in_cli ip link set "${FBF_VETH_CLI/fbfc/fbfe}" up
}
teardown()
{
	local name

	fbf_in_srv ip link del "$DUMMY" 2>/dev/null || true
	# The tests' own veths, ch<n> and what they were renamed (a peer goes with its end).
	for name in $(fbf_in_srv ip -o link show | grep -Eo '^[0-9]+: ch[^:@]*' | cut -d' ' -f2); do
		fbf_in_srv ip link del "$name" 2>/dev/null || true
	done
	fbf_bats_teardown
}

# run_agent ARGS...: the agent in the server namespace for a moment, as `run` does.
run_agent() { run fbf_in_srv "$AGENT" "$@"; }

# start_many OUT ERR ARGS...: the agent over patterns, once it serves (none attached, maybe).
start_many() { FBF_START_SAYS='serving every interface' fbf_srv_start "$1" "$2" "$AGENT" "${@:3}"; }

# flood CLIENT_IFACE FIRST_SOURCE FRAMES: that many IPv4 frames into the client end of a
# veth, from 16 sources from FIRST_SOURCE on, so the server end's program sees them all.
flood()
{
	fbf_in_cli "$FBF_BUILD/rawflood" "$1" 5 "$2" 16 "$FBF_SERVER" "$3" >/dev/null
}

# iface_value ERR KIND NAME KEY: KEY of interface NAME's accounts of KIND (iface, iface_gone),
# one a line, from the agent's JSON lines; KEY ipv4: its IPv4 frames, all classes.
iface_value()
{
	python3 - "$@" <<-'EOF'
	import json, sys
	err, kind, name, key = sys.argv[1:]
	for line in open(err):
	    if not line.startswith('{"type":"' + kind + '"'):
	        continue
	    o = json.loads(line)
	    if o["iface"] != name:
	        continue
	    if key == "ipv4":
	        print(o["none"] + o["fizz"] + o["buzz"] + o["fizzbuzz"] + o["fibonacci"])
	    else:
	        print(o[key])
	EOF
}

# accounts_add_up ERR: the interfaces' accounts, those gone and those at the end, add up to
# the summary's figures, counter by counter (JSON lines).
accounts_add_up()
{
	python3 - "$1" <<-'EOF'
	import json, sys
	summary, sums = None, {}
	for line in open(sys.argv[1]):
	    if not line.startswith("{"):
	        continue
	    o = json.loads(line)
	    if o.get("type") == "summary":
	        summary = o
	    elif o.get("type") in ("iface", "iface_gone"):
	        for k, v in o.items():
	            if isinstance(v, int):
	                sums[k] = sums.get(k, 0) + v
	assert summary and sums, "no summary or no interface accounts"
	for k, v in sums.items():
	    assert summary[k] == v, f"{k}: interfaces {v}, summary {summary[k]}"
	EOF
}

@test "a glob that selects the server veth alone attaches there and classifies its traffic" {
	fbf_srv_start "$OUT" "$ERR" "$AGENT" --iface "fbf*,!$DUMMY" --quiet
	grep -q "attached xdp_fizzbuzzfib (prog id [0-9]*) to $FBF_VETH_SRV " "$ERR"
	fbf_xdp_attached
	run fbf_xdp_prog_id "$FBF_NS_SRV" "$DUMMY"
	[ "$status" -ne 0 ]
	fbf_traffic 2
	fbf_stop_agent INT
	[ "$(fbf_summary_value "$ERR" produced)" -gt 0 ]
	fbf_check_summary "$ERR" "$(fbf_summary_value "$ERR" delivered)"
}

@test "a regular expression, comma-separated and repeated --iface, and lo only by name" {
	fbf_srv_start "$OUT" "$ERR" "$AGENT" --iface "/^fbf[s]/" --iface "nothing0,!$DUMMY" \
		--duration 0.2 --quiet
	grep -q "to $FBF_VETH_SRV " "$ERR"
	wait "$FBF_AGENT_PID"
	FBF_AGENT_PID=
	fbf_xdp_detached
	# '*' means every interface but lo: lo is there, the veth and the dummy excluded.
	run_agent --iface "*,!fbf*" --duration 0.2
	[ "$status" -eq 0 ]
	[[ "$output" == *"no interface in this network namespace matches --iface yet; the agent "* ]]
	[[ "$output" != *"attached xdp_fizzbuzzfib"* ]]
	run_agent --iface "/^l/,!fbf*" --duration 0.2
	[ "$status" -eq 0 ]
	[[ "$output" == *"matches --iface yet"* ]]
	run_agent --iface lo --duration 0.2
	[ "$status" -eq 0 ]
	[[ "$output" == *"attached xdp_fizzbuzzfib (prog id "*") to lo "* ]]
}

@test "an exclusion wins over an exact name; two selected: each event and account names its own" {
	local ip4 sent_srv=300 sent_dummy=120 name n

	run_agent --iface "$FBF_VETH_SRV,!fbf*" --duration 0.2
	[ "$status" -eq 0 ]
	[[ "$output" == *"matches --iface yet"* ]]
	fbf_xdp_detached
	start_many "$OUT" "$ERR" --iface "fbf*" --json
	grep -q "attached xdp_fizzbuzzfib (prog id [0-9]*) to $FBF_VETH_SRV " "$ERR"
	grep -q "attached xdp_fizzbuzzfib (prog id [0-9]*) to $DUMMY " "$ERR"
	flood "$FBF_VETH_CLI" 10.50.0.1 $sent_srv
	flood "${FBF_VETH_CLI/fbfc/fbfe}" 10.60.0.1 $sent_dummy
	fbf_stop_agent INT
	fbf_check_summary "$ERR" "$(grep -c '"saddr"' "$OUT")"
	for name in "$FBF_VETH_SRV" "$DUMMY"; do
		ip4=$(iface_value "$ERR" iface "$name" ipv4)
		n=$sent_srv
		[ "$name" = "$FBF_VETH_SRV" ] || n=$sent_dummy
		# The server veth also carries what the network sends by itself, none of it IPv4.
		[ "$ip4" -eq "$n" ]
		[ "$(grep -c "\"iface\":\"$name\"" "$OUT")" -eq "$(iface_value "$ERR" iface "$name" produced)" ]
	done
	accounts_add_up "$ERR"
}

# The veths a pattern selects share one program, loaded once, which finds each frame's slot
# by its ifindex in a table of FBF_SLOT_TABLE_PER_SLOT (4) entries a slot: with --max-ifaces
# 4, 16, where ifindexes 300 and 316 take the same entry. The one that comes second gets a
# copy of its own, as every interface did before; each counts its own frames, exactly.
@test "veths over a pattern share one program; one whose table entry is taken gets its own" {
	local n sent

	fbf_in_srv ip link add ch1 index 300 type veth peer name cp1 netns "$FBF_NS_CLI"
	fbf_in_srv ip link add ch3 index 301 type veth peer name cp3 netns "$FBF_NS_CLI"
	fbf_in_srv ip link add ch2 index 316 type veth peer name cp2 netns "$FBF_NS_CLI"
	for n in 1 2 3; do
		fbf_in_srv ip link set "ch$n" up
		fbf_in_cli ip link set "cp$n" up
	done
	start_many "$OUT" "$ERR" --iface "ch*" --max-ifaces 4 --json
	wait_for 3 attached_count "$ERR" "ch[123]"
	[ "$(agent_prog_id "$ERR" ch1)" = "$(agent_prog_id "$ERR" ch3)" ]
	[ "$(agent_prog_id "$ERR" ch1)" != "$(agent_prog_id "$ERR" ch2)" ]
	[ "$(fbf_xdp_prog_id "$FBF_NS_SRV" ch3)" = "$(agent_prog_id "$ERR" ch1)" ]
	for n in 1 2 3; do
		flood "cp$n" "10.7$n.0.1" $((100 * n + 1))
	done
	fbf_stop_agent INT
	for n in 1 2 3; do
		sent=$((100 * n + 1))
		[ "$(iface_value "$ERR" iface "ch$n" ipv4)" -eq "$sent" ]
		[ "$(grep -c "\"iface\":\"ch$n\"" "$OUT")" -eq \
			"$(iface_value "$ERR" iface "ch$n" produced)" ]
	done
	accounts_add_up "$ERR"
	fbf_xdp_detached
}

# A fleet query by mode sees what each interface got: the agent-wide label is
# --mode as asked (auto here), and each interface's own mode, skb on a veth
# under auto, is in iface_info and in its account.
@test "over patterns: each interface's XDP mode in iface_info and its account; the agent's as asked" {
	local addr=127.0.0.1:19437 scraped=$FBF_WORK/scraped

	start_many "$OUT" "$ERR" --iface "fbf*" --quiet --metrics "$addr"
	fbf_in_srv curl -sS --max-time 10 "http://$addr/metrics" >"$scraped"
	fbf_stop_agent INT
	grep -E '^fizzbuzzfib_(build|agent|iface)_info' "$scraped"
	grep -Eq '^fizzbuzzfib_build_info\{version="[^"]+",transport="[a-z]+",mode="auto"\} 1$' \
		"$scraped"
	grep -Eq '^fizzbuzzfib_agent_info\{device="fbf\*",transport="[a-z]+",mode="auto",' "$scraped"
	for name in "$FBF_VETH_SRV" "$DUMMY"; do
		grep -qx "fizzbuzzfib_iface_info{device=\"$name\",mode=\"skb\"} 1" "$scraped"
		grep -Eq "${FBF_LOG}iface iface=$name mode=skb packets=" "$ERR"
	done
	[ "$(grep -c '^fizzbuzzfib_iface_info{' "$scraped")" -eq 2 ]
}

@test "--detach with a pattern removes what a killed agent left, on every interface selected" {
	local id

	fbf_agent_start "$OUT" "$ERR" --quiet
	id=$(fbf_agent_prog_id "$ERR")
	kill -KILL "$FBF_AGENT_PID"
	wait "$FBF_AGENT_PID" || true
	FBF_AGENT_PID=
	fbf_xdp_attached
	# The dummy has nothing of the agent's: nothing to say about it.
	run_agent --iface "fbf*" --detach
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"removed stale xdp_fizzbuzzfib (prog id $id) left on $FBF_VETH_SRV"* ]]
	fbf_xdp_detached
	run_agent --iface "fbf*" --detach
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

# pairs_add FIRST LAST: veths ch<n> in the server namespace (up), peers cp<n> in the client's.
pairs_add()
{
	local n

	for n in $(seq "$1" "$2"); do
		echo "link add ch$n type veth peer name cp$n netns $FBF_NS_CLI"
		echo "link set ch$n up"
	done | fbf_in_srv ip -batch -
	for n in $(seq "$1" "$2"); do echo "link set cp$n up"; done | fbf_in_cli ip -batch -
}

pairs_del()
{
	local n

	for n in $(seq "$1" "$2"); do echo "link del ch$n"; done | fbf_in_srv ip -batch -
}

# attached_count ERR PATTERN: the agent's attach lines for interfaces matching PATTERN (ERE).
attached_count() { grep -cE "attached xdp_fizzbuzzfib \(prog id [0-9]+\) to ($2) " "$1" || true; }

# wait_for COUNT COMMAND...: until COMMAND prints COUNT, for at most 60 s (a failure, not a
# measure: make bench-macro says how long an attach takes).
wait_for()
{
	local want=$1 i

	shift
	for i in $(seq 600); do
		[ "$("$@")" -eq "$want" ] && return 0
		sleep 0.1
	done
	echo "waited 60 s for $want from $*: $("$@")" >&2
	return 1
}

@test "interfaces that come, go and are renamed in and out: attached, let go, accounted" {
	start_many "$OUT" "$ERR" --iface "ch*,!chx*" --json
	pairs_add 1 2
	wait_for 2 attached_count "$ERR" "ch1|ch2"
	flood cp1 10.71.0.1 50
	flood cp2 10.72.0.1 70
	# Renamed out of the patterns: detached there, its account said under its old name.
	fbf_in_srv ip link set ch2 down
	fbf_in_srv ip link set ch2 name chx2
	wait_for 1 grep -c '"type":"iface_gone","iface":"ch2"' "$ERR"
	grep -q 'interface ch2 (ifindex [0-9]*) renamed chx2, which --iface does not select: detached' \
		"$ERR"
	run fbf_xdp_prog_id "$FBF_NS_SRV" chx2
	[ "$status" -ne 0 ]
	# Renamed within them: followed, its events named anew.
	fbf_in_srv ip link set ch1 down
	fbf_in_srv ip link set ch1 name ch1b
	fbf_in_srv ip link set ch1b up
	wait_for 1 grep -c 'interface ch1 (ifindex [0-9]*) renamed ch1b; its events' "$ERR"
	flood cp1 10.71.0.1 30
	# Renamed back in: attached again, as a newcomer.
	fbf_in_srv ip link set chx2 name ch2
	fbf_in_srv ip link set ch2 up
	wait_for 2 attached_count "$ERR" ch2
	flood cp2 10.72.0.1 11
	# Deleted: the kernel took the program; its account said.
	pairs_del 2 2
	wait_for 2 grep -c '"type":"iface_gone","iface":"ch2"' "$ERR"
	fbf_stop_agent INT
	fbf_check_summary "$ERR" "$(grep -c '"saddr"' "$OUT")"
	[ "$(iface_value "$ERR" iface ch1b ipv4)" -eq 80 ]
	# ch2 was let go twice: renamed out with 70 frames, deleted with 11.
	[ "$(iface_value "$ERR" iface_gone ch2 ipv4 | paste -sd ' ')" = "70 11" ]
	accounts_add_up "$ERR"
	# Before the rename the events said ch1; after it, ch1b.
	[ "$(grep -c '"iface":"ch1b","saddr"' "$OUT")" -gt 0 ]
	[ "$(grep -c '"iface":"ch1","saddr"' "$OUT")" -gt 0 ]
}

@test "64 veths created while the agent starts: each attached once, its frames counted on it" {
	local n adding

	pairs_add 1 64 &
	adding=$!
	start_many "$OUT" "$ERR" --iface "ch*" --json
	wait "$adding"
	wait_for 64 attached_count "$ERR" "ch[0-9]+"
	for n in $(seq 64); do
		[ "$(attached_count "$ERR" "ch$n")" -eq 1 ]
		flood "cp$n" "10.80.$n.1" "$n"
	done
	fbf_stop_agent INT
	for n in $(seq 64); do
		[ "$(iface_value "$ERR" iface "ch$n" ipv4)" -eq "$n" ]
		[ "$(grep -c "\"iface\":\"ch$n\",\"saddr\"" "$OUT")" -eq \
			"$(iface_value "$ERR" iface "ch$n" produced)" ]
	done
	accounts_add_up "$ERR"
	[ "$(fbf_in_srv ip -o link show | grep -c 'prog/xdp')" -eq 0 ]
}

@test "500 interfaces come and go under traffic: none missed, none leaked, each counted exactly" {
	local round first last n fds_before fds_after pins_before traffic locks=$FBF_WORK/locks

	pins_before=$(find /sys/fs/bpf -mindepth 1 2>/dev/null | sort)
	start_many "$OUT" "$ERR" --iface "ch*,$FBF_VETH_SRV" --json --lock-dir "$locks"
	fds_before=$(ls "/proc/$FBF_AGENT_PID/fd" | wc -l)
	fbf_traffic 200 &
	traffic=$!
	# 50 rounds of 10: created together, attached, fed 1 to 10 frames each, deleted together.
	for round in $(seq 0 49); do
		first=$((round * 10 + 1))
		last=$((first + 9))
		pairs_add "$first" "$last"
		wait_for $((last)) attached_count "$ERR" "ch[0-9]+"
		for n in $(seq "$first" "$last"); do
			flood "cp$n" "10.90.$((n % 250)).1" $((n % 10 + 1))
		done
		pairs_del "$first" "$last"
	done
	wait_for 500 grep -c '"type":"iface_gone"' "$ERR"
	wait "$traffic"
	fds_after=$(ls "/proc/$FBF_AGENT_PID/fd" | wc -l)
	fbf_stop_agent INT
	fbf_check_summary "$ERR" "$(grep -c '"saddr"' "$OUT")"
	# Every one attached once, let go once, with exactly its frames and its events.
	python3 - "$ERR" "$OUT" <<-'EOF'
	import collections, json, sys
	gone, events = {}, collections.Counter()
	for line in open(sys.argv[1]):
	    if line.startswith('{"type":"iface_gone"'):
	        o = json.loads(line)
	        assert o["iface"] not in gone, f"{o['iface']} let go twice"
	        gone[o["iface"]] = o
	for line in open(sys.argv[2]):
	    events[json.loads(line)["iface"]] += 1
	assert len(gone) == 500, f"{len(gone)} let go"
	for n in range(1, 501):
	    o = gone[f"ch{n}"]
	    ipv4 = o["none"] + o["fizz"] + o["buzz"] + o["fizzbuzz"] + o["fibonacci"]
	    assert ipv4 == n % 10 + 1, f"ch{n}: {ipv4} IPv4 frames, {n % 10 + 1} sent"
	    assert events[f"ch{n}"] == o["produced"], f"ch{n}: {events[f'ch{n}']} events printed"
	EOF
	[ "$(attached_count "$ERR" "ch[0-9]+")" -eq 500 ]
	accounts_add_up "$ERR"
	# Nothing kept of an interface gone: descriptors, lock files, pins.
	[ "$fds_after" -eq "$fds_before" ]
	[ -z "$(ls -A "$locks")" ]
	[ "$(find /sys/fs/bpf -mindepth 1 2>/dev/null | sort)" = "$pins_before" ]
	fbf_xdp_detached
}

@test "other tools' programs: on an interface not selected untouched; on one selected or put in place of the agent's left alone" {
	local selected theirs replaced

	pairs_add 1 2
	fbf_in_srv ip link set dev ch1 xdpgeneric obj "$FBF_BUILD/xdp_pass.bpf.o" sec xdp
	fbf_in_srv ip link set dev "$DUMMY" xdpgeneric obj "$FBF_BUILD/xdp_pass.bpf.o" sec xdp
	selected=$(fbf_xdp_prog_id "$FBF_NS_SRV" ch1)
	theirs=$(fbf_xdp_prog_id "$FBF_NS_SRV" "$DUMMY")
	start_many "$OUT" "$ERR" --iface "ch*,$FBF_VETH_SRV" --quiet
	grep -q "attached xdp_fizzbuzzfib (prog id [0-9]*) to ch2 " "$ERR"
	grep -q "attached xdp_fizzbuzzfib (prog id [0-9]*) to $FBF_VETH_SRV " "$ERR"
	# Said once, in one line; the agent serves the others.
	[ "$(grep -c 'ch1' "$ERR")" -eq 1 ]
	grep -q "ch1.*xdp_pass" "$ERR"
	# Not again for a link event that changes nothing of it (an MTU), seen by the
	# time a later interface is attached; again when it is set up again.
	fbf_in_srv ip link set ch1 mtu 1400
	pairs_add 3 3
	wait_for 1 attached_count "$ERR" ch3
	[ "$(grep -c 'ch1' "$ERR")" -eq 1 ]
	fbf_in_srv ip link set ch1 down
	fbf_in_srv ip link set ch1 up
	wait_for 2 grep -c 'ch1' "$ERR"
	# One put in place of the agent's: that interface let go and accounted, theirs left there.
	fbf_in_srv ip -force link set dev ch3 xdpgeneric obj "$FBF_BUILD/xdp_pass.bpf.o" sec xdp
	replaced=$(fbf_xdp_prog_id "$FBF_NS_SRV" ch3)
	wait_for 1 grep -c 'interface ch3 (ifindex [0-9]*) lost xdp_fizzbuzzfib to someone' "$ERR"
	# Its account follows the line, once no run of the program is left.
	wait_for 1 grep -c 'iface_gone iface=ch3 ' "$ERR"
	fbf_stop_agent INT
	[ "$(fbf_xdp_prog_id "$FBF_NS_SRV" ch1)" = "$selected" ]
	[ "$(fbf_xdp_prog_id "$FBF_NS_SRV" "$DUMMY")" = "$theirs" ]
	[ "$(fbf_xdp_prog_id "$FBF_NS_SRV" ch3)" = "$replaced" ]
	run fbf_xdp_prog_id "$FBF_NS_SRV" ch2
	[ "$status" -ne 0 ]
}

# agent_fds: the descriptors the agent holds now.
agent_fds() { find "/proc/$FBF_AGENT_PID/fd" -mindepth 1 | wc -l; }

# Each refusal reads the program there through libxdp, whose 1.3.1 kept a
# descriptor of it open on every read: 8 an interface, until none was left.
@test "50 interfaces refused for another program already on each: no descriptor kept, said once each" {
	local n fds_before

	start_many "$OUT" "$ERR" --iface "ch*" --quiet
	fds_before=$(agent_fds)
	# Made under names not selected, their program put on, then renamed into the
	# pattern and set up: two link events each that find the program there.
	for n in $(seq 1 50); do
		echo "link add rq$n type veth peer name cp$n netns $FBF_NS_CLI"
		echo "link set dev rq$n xdpgeneric obj $FBF_BUILD/xdp_pass.bpf.o sec xdp"
		echo "link set rq$n name ch$n"
		echo "link set ch$n up"
	done | fbf_in_srv ip -batch -
	wait_for 50 refused_count "$ERR"
	pairs_del 1 50
	wait_for "$fds_before" agent_fds
	fbf_stop_agent INT
	[ "$(attached_count "$ERR" "ch[0-9]+")" -eq 0 ]
	# Said once each: a first up after the rename is no reason to try again.
	[ "$(grep -c 'ch[0-9]* already runs XDP program xdp_pass' "$ERR")" -eq 50 ]
}

# refused_count ERR: the interfaces named in the agent's lines about a program already there.
refused_count()
{
	grep -Eo 'ch[0-9]+ already runs XDP program xdp_pass' "$1" | sort -u | wc -l
}

# agent_prog_id ERR IFACE: the id of the agent's program on IFACE, from its attach line
# (through libxdp's dispatcher the interface's own program is the dispatcher).
agent_prog_id()
{
	grep -Eo "prog id [0-9]+\) to $2 " "$1" | tail -n 1 | grep -Eo '^prog id [0-9]+' |
		grep -Eo '[0-9]+'
}

@test "killed: the next agent, or --detach, removes what it left on every interface, nothing else" {
	local ids n first=$FBF_WORK/first.err

	pairs_add 1 3
	start_many "$OUT" "$first" --iface "ch*" --quiet
	wait_for 3 attached_count "$first" "ch[123]"
	kill -KILL "$FBF_AGENT_PID"
	wait "$FBF_AGENT_PID" || true
	FBF_AGENT_PID=
	for n in 1 2 3; do
		ids[n]=$(agent_prog_id "$first" "ch$n")
		fbf_xdp_prog_id "$FBF_NS_SRV" "ch$n" >/dev/null
	done
	start_many "$OUT" "$ERR" --iface "ch*" --quiet
	wait_for 3 attached_count "$ERR" "ch[123]"
	for n in 1 2 3; do
		grep -q "removed stale xdp_fizzbuzzfib (prog id ${ids[n]}) left on ch$n" "$ERR"
		[ "$(agent_prog_id "$ERR" "ch$n")" != "${ids[n]}" ]
	done
	# Killed again, and no next agent: --detach over the patterns, as the unit's
	# ExecStopPost= runs it, takes off each one, and says so, one line each.
	kill -KILL "$FBF_AGENT_PID"
	wait "$FBF_AGENT_PID" || true
	FBF_AGENT_PID=
	run_agent --iface "ch*" --detach
	[ "$status" -eq 0 ]
	[ "$(grep -c 'removed stale xdp_fizzbuzzfib (prog id [0-9]*) left on ch[123] ' \
		<<<"$output")" -eq 3 ]
	for n in 1 2 3; do
		run fbf_xdp_prog_id "$FBF_NS_SRV" "ch$n"
		[ "$status" -ne 0 ]
	done
}

@test "renamed out of the pattern and deleted before the detach: no error, no lock file left" {
	local n locks=$FBF_WORK/locks

	pairs_add 1 7
	start_many "$OUT" "$ERR" --iface "ch*" --quiet --lock-dir "$locks"
	wait_for 7 attached_count "$ERR" "ch[1-7]"
	# The agent reads the renames only once the interfaces are gone: each detach finds none.
	kill -STOP "$FBF_AGENT_PID"
	for n in $(seq 1 7); do
		echo "link set ch$n down"
		echo "link set ch$n name zz$n"
		echo "link del zz$n"
	done | fbf_in_srv ip -batch -
	kill -CONT "$FBF_AGENT_PID"
	wait_for 7 grep -c 'iface_gone iface=ch[1-7] ' "$ERR"
	fbf_stop_agent TERM
	run grep -E 'error [^ ]*agent: |xdp-loader unload zz' "$ERR"
	[ "$status" -eq 1 ]
	[ "$(grep -c 'interface ch[1-7] (ifindex [0-9]*) deleted, and xdp_fizzbuzzfib with it' \
		"$ERR")" -eq 7 ]
	run ls -A "$locks"
	[ -z "$output" ]
}

@test "a killed agent's locks of interfaces deleted since: removed by --detach, and by the next start" {
	local locks=$FBF_WORK/locks

	pairs_add 1 3
	start_many "$OUT" "$ERR" --iface "ch*" --quiet --lock-dir "$locks"
	wait_for 3 attached_count "$ERR" "ch[123]"
	kill -KILL "$FBF_AGENT_PID"
	wait "$FBF_AGENT_PID" || true
	FBF_AGENT_PID=
	pairs_del 1 3
	[ "$(find "$locks" -name '*.lock' | wc -l)" -eq 3 ]
	run_agent --iface "ch*" --detach --lock-dir "$locks"
	[ "$status" -eq 0 ]
	[[ "$output" == *"removed 3 lock files in $locks of interfaces gone"* ]]
	run ls -A "$locks"
	[ -z "$output" ]
	# Killed again: the next start removes them, and says so once.
	pairs_add 4 5
	start_many "$OUT" "$ERR" --iface "ch*" --quiet --lock-dir "$locks"
	wait_for 2 attached_count "$ERR" "ch[45]"
	kill -KILL "$FBF_AGENT_PID"
	wait "$FBF_AGENT_PID" || true
	FBF_AGENT_PID=
	pairs_del 4 5
	start_many "$OUT" "$ERR" --iface "ch*" --quiet --lock-dir "$locks"
	fbf_stop_agent INT
	[ "$(grep -c "removed 2 lock files in $locks of interfaces gone" "$ERR")" -eq 1 ]
	run ls -A "$locks"
	[ -z "$output" ]
}

@test "killed, then an interface renamed out of the pattern: its program removed by --detach, and by the next start" {
	local id

	pairs_add 1 2
	start_many "$OUT" "$ERR" --iface "ch*" --quiet
	wait_for 2 attached_count "$ERR" "ch[12]"
	kill -KILL "$FBF_AGENT_PID"
	wait "$FBF_AGENT_PID" || true
	FBF_AGENT_PID=
	id=$(agent_prog_id "$ERR" ch2)
	fbf_in_srv ip link set ch2 down
	fbf_in_srv ip link set ch2 name zz2
	[ "$(fbf_xdp_prog_id "$FBF_NS_SRV" zz2)" -gt 0 ]
	# Its lock file records the program: followed by ifindex, not by name.
	run_agent --iface "ch*" --detach
	[ "$status" -eq 0 ]
	[[ "$output" == *"removed stale xdp_fizzbuzzfib (prog id $id) left on zz2 "* ]]
	run fbf_xdp_prog_id "$FBF_NS_SRV" zz2
	[ "$status" -ne 0 ]
	# The same at the next start.
	fbf_in_srv ip link set zz2 name ch2
	fbf_in_srv ip link set ch2 up
	start_many "$OUT" "$ERR" --iface "ch*" --quiet
	wait_for 2 attached_count "$ERR" "ch[12]"
	kill -KILL "$FBF_AGENT_PID"
	wait "$FBF_AGENT_PID" || true
	FBF_AGENT_PID=
	id=$(agent_prog_id "$ERR" ch2)
	fbf_in_srv ip link set ch2 down
	fbf_in_srv ip link set ch2 name zz2
	start_many "$OUT" "$ERR" --iface "ch*" --quiet
	fbf_stop_agent INT
	grep -q "removed stale xdp_fizzbuzzfib (prog id $id) left on zz2 " "$ERR"
	run fbf_xdp_prog_id "$FBF_NS_SRV" zz2
	[ "$status" -ne 0 ]
	fbf_in_srv ip link del zz2
}

@test "an interface moved to another namespace: its program taken off there, its account said" {
	pairs_add 1 1
	start_many "$OUT" "$ERR" --iface "ch*" --json
	wait_for 1 attached_count "$ERR" ch1
	flood cp1 10.75.0.1 20
	fbf_in_srv ip link set ch1 netns "$FBF_NS_CLI"
	wait_for 1 grep -c '"type":"iface_gone","iface":"ch1"' "$ERR"
	grep -q "interface ch1 (ifindex [0-9]*) moved to network namespace $FBF_NS_CLI; \
xdp_fizzbuzzfib detached from it there" "$ERR"
	run fbf_xdp_prog_id "$FBF_NS_CLI" ch1
	[ "$status" -ne 0 ]
	fbf_stop_agent INT
	[ "$(iface_value "$ERR" iface_gone ch1 ipv4)" -eq 20 ]
	accounts_add_up "$ERR"
	fbf_in_cli ip link del ch1
}

# The agent stopped while a veth appears and moves away at once: it reads of
# both only after, so the attach finds the device gone. A race it handles:
# an info line and a count, no error.
@test "an interface gone between its link event and the attach: an info line, counted" {
	local addr=127.0.0.1:19438

	start_many "$OUT" "$ERR" --iface "ch*" --quiet --metrics "$addr"
	kill -STOP "$FBF_AGENT_PID"
	fbf_in_srv ip link add ch1 type veth peer name cp1 netns "$FBF_NS_CLI"
	fbf_in_srv ip link set ch1 netns "$FBF_NS_CLI"
	kill -CONT "$FBF_AGENT_PID"
	wait_for 1 grep -c 'info [^ ]*agent: interface ch1 (ifindex [0-9]*) went away' "$ERR"
	fbf_in_srv curl -sS --max-time 10 "http://$addr/metrics" |
		grep -qx 'fizzbuzzfib_ifaces_vanished_total{device="ch\*"} 1'
	fbf_stop_agent INT
	run grep -E 'error [^ ]*agent: |ch1.*(cannot|No such device)' "$ERR"
	[ "$status" -eq 1 ]
	fbf_in_cli ip link del ch1
}

@test "over patterns on the ring buffer, sampled, and counting by source: each interface exact" {
	local args sent

	pairs_add 1 2
	for args in "--transport ringbuf" "--sample 4" "--aggregate 1"; do
		# shellcheck disable=SC2086 # the options are words
		start_many "$OUT" "$ERR" --iface "ch*" --json $args
		wait_for 2 attached_count "$ERR" "ch[12]"
		flood cp1 10.61.0.1 90
		flood cp2 10.62.0.1 40
		fbf_stop_agent INT
		[ "$(iface_value "$ERR" iface ch1 ipv4)" -eq 90 ]
		[ "$(iface_value "$ERR" iface ch2 ipv4)" -eq 40 ]
		accounts_add_up "$ERR"
		if [ "$args" = "--aggregate 1" ]; then
			sent=$(fbf_summary_value "$ERR" aggregated)
			[ "$sent" -eq "$(fbf_summary_value "$ERR" aggregated_read)" ]
			[ "$sent" -gt 0 ]
		else
			fbf_check_summary "$ERR" "$(grep -c '"saddr"' "$OUT")"
			[ "$(grep -c '"iface":"ch1","saddr"' "$OUT")" -eq \
				"$(iface_value "$ERR" iface ch1 produced)" ]
		fi
	done
}

# readyz ADDR: "CODE LINE", what /readyz of the agent's metrics at ADDR answers.
readyz()
{
	local body

	body=$(fbf_in_srv curl -sS --max-time 10 -w '\n%{http_code}' "http://$1/readyz") || return 1
	echo "${body##*$'\n'} ${body%$'\n'*}"
}

# readyz_says ADDR WANT: until /readyz answers WANT, for at most 60 s (it follows each
# round of the drain loop).
readyz_says()
{
	local i

	for i in $(seq 600); do
		[ "$(readyz "$1")" = "$2" ] && return 0
		sleep 0.1
	done
	echo "waited 60 s for /readyz to say '$2': $(readyz "$1")" >&2
	return 1
}

# unattached ADDR DEVICE: the agent's fizzbuzzfib_ifaces_unattached.
unattached()
{
	fbf_in_srv curl -sS --max-time 10 "http://$1/metrics" |
		awk -v m="fizzbuzzfib_ifaces_unattached{device=\"$2\"}" '$1 == m { print $2 }'
}

@test "--max-ifaces: those left alone said once, counted by /readyz, each taken as soon as a slot frees" {
	local addr=127.0.0.1:19439 served

	pairs_add 1 3
	start_many "$OUT" "$ERR" --iface "ch*" --max-ifaces 1 --quiet --metrics "$addr"
	[ "$(attached_count "$ERR" "ch[123]")" -eq 1 ]
	[ "$(grep -c 'the agent serves 1 interface already (--max-ifaces; taken as they came, at start those up first)' "$ERR")" -eq 1 ]
	served=$(grep -Eo 'prog id [0-9]+\) to ch[123] ' "$ERR" | grep -Eo 'ch[123]')
	wait_for 2 unattached "$addr" 'ch*'
	readyz_says "$addr" "503 not ready: 2 interfaces selected left alone: 1 served $(
		)already (--max-ifaces)"
	# No link event for those waiting: the slot given up is enough.
	pairs_del "${served#ch}" "${served#ch}"
	wait_for 2 attached_count "$ERR" "ch[123]"
	wait_for 1 unattached "$addr" 'ch*'
	readyz_says "$addr" "503 not ready: 1 interface selected left alone: 1 served $(
		)already (--max-ifaces)"
	served=$(grep -Eo 'prog id [0-9]+\) to ch[123] ' "$ERR" | tail -n 1 | grep -Eo 'ch[123]')
	pairs_del "${served#ch}" "${served#ch}"
	wait_for 3 attached_count "$ERR" "ch[123]"
	wait_for 0 unattached "$addr" 'ch*'
	readyz_says "$addr" "200 ready: every interface selected has the program, every $(
		)output writes"
	# Said once, while any waited.
	[ "$(grep -c 'is selected, but the agent serves' "$ERR")" -eq 1 ]
	fbf_stop_agent INT
}

@test "/readyz with patterns and no interface selected yet: ready, and says so; threads named by job" {
	local addr=127.0.0.1:19440

	start_many "$OUT" "$ERR" --iface "ch*" --metrics "$addr"
	wait_for 0 unattached "$addr" 'ch*'
	readyz_says "$addr" "200 ready: no interface selected yet, every output writes"
	# Scraped once: each thread has its job's name, the drain's the program's.
	[ "$(sort "/proc/$FBF_AGENT_PID"/task/*/comm | paste -sd ' ')" = \
		"$(basename "$AGENT" | cut -c1-15) fbf-links fbf-metrics fbf-out-stdout" ]
	pairs_add 1 1
	wait_for 1 attached_count "$ERR" ch1
	readyz_says "$addr" "200 ready: every interface selected has the program, every $(
		)output writes"
	fbf_stop_agent INT
}

# With more selected than --max-ifaces, those up at start are served before
# those down, whatever their ifindex: the ones that carry traffic first.
@test "--max-ifaces at start: an interface up is taken before one down listed first" {
	pairs_add 1 2
	fbf_in_srv ip link set ch1 down
	start_many "$OUT" "$ERR" --iface "ch*" --max-ifaces 1 --quiet
	fbf_stop_agent INT
	cat "$ERR"
	[ "$(attached_count "$ERR" ch2)" -eq 1 ]
	[ "$(attached_count "$ERR" ch1)" -eq 0 ]
	grep -q 'interface ch1 is selected, but the agent serves 1 interface already (--max-ifaces; ' "$ERR"
	# Without the limit, both, the one down said to be down.
	start_many "$OUT" "$ERR" --iface "ch*" --quiet
	fbf_stop_agent INT
	[ "$(attached_count "$ERR" "ch[12]")" -eq 2 ]
	grep -q 'warning [^ ]*agent: ch1 is down' "$ERR"
	# With one exact name it would do nothing: refused, as --top without --aggregate is.
	run_agent --iface "$FBF_VETH_SRV" --max-ifaces 4 --duration 0.2
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"--max-ifaces sets how --iface's patterns are served, and --iface names one interface; see "* ]]
}
