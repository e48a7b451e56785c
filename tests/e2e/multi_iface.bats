#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# --iface's names and patterns on real interfaces: globs, /regex/, exclusions
# that win, lo left out unless named, and --detach over every interface a
# pattern selects. The rules themselves are unit tested (tests/unit/test_ifselect.c).

load ../../testing/netns

setup_file() { fbf_bats_setup_file multi; }
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
}
teardown()
{
	fbf_in_srv ip link del "$DUMMY" 2>/dev/null || true
	fbf_bats_teardown
}

# run_agent ARGS...: the agent in the server namespace for a moment, as `run` does.
run_agent() { run fbf_in_srv "$AGENT" "$@"; }

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
	[ "$status" -eq 3 ]
	[[ "$output" == *"no interface in this network namespace matches --iface; list them"* ]]
	run_agent --iface "/^l/,!fbf*" --duration 0.2
	[ "$status" -eq 3 ]
}

@test "an exclusion wins over an exact name; a selection of two is refused, naming them" {
	run_agent --iface "$FBF_VETH_SRV,!fbf*" --duration 0.2
	[ "$status" -eq 3 ]
	fbf_xdp_detached
	run_agent --iface "fbf*" --duration 0.2
	echo "$output"
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"--iface matches 2 interfaces ("*"), and the agent attaches to one;"* ]]
	[[ "$output" == *"($FBF_VETH_SRV, $DUMMY)"* || "$output" == *"($DUMMY, $FBF_VETH_SRV)"* ]]
	fbf_xdp_detached
	run fbf_xdp_prog_id "$FBF_NS_SRV" "$DUMMY"
	[ "$status" -ne 0 ]
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
