#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Pods coming and going under the agent over a pattern, at a scale CI affords: the churn
# benchmark's driver (bench/churn/churn.py), pods as a container runtime makes them (a
# network namespace, a veth pair, the host end pzN beside the agent), at a steady rate then
# in a burst. Each sends its frames once a scrape showed the agent serves it, so no check
# depends on the host's speed: whatever the agent holds (descriptors, netlink sockets, threads, BPF
# programs and maps, XDP attachments, lock files, interfaces served) is back to its start,
# every frame through an interface that lived a second is counted, interfaces renamed,
# moved or given another program mid-churn are each said once, with no error, and the
# lines of the churn's routine are said or counted unsaid (a bounded rate). The
# timings (drain gaps, scrapes, catch-up) are the benchmark's: make bench-churn.

load ../../testing/netns

CHURN=$FBF_ROOT/bench/churn/churn.py

setup_file() { export BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-300}; }
setup()
{
	[ "$(id -u)" -eq 0 ] || skip "needs root: network namespaces, veth and XDP"
	[ -e "$FBF_BUILD/xdp_pass.bpf.o" ] || skip "no $FBF_BUILD/xdp_pass.bpf.o: make test-build"
	RESULT=$(mktemp /tmp/fbf-churn.XXXXXX)
}
teardown() { rm -f "$RESULT"; }

# churn ARGS...: churn.py's run under a name of this process's, its figures in $RESULT.
churn()
{
	run "$CHURN" --agent "$AGENT" --name "fbfc$$" --send-after-attach --json "$RESULT" "$@"
	echo "$output"
}

# check EXPR: EXPR, a Python expression over r (the run's figures), is true; else says r.
check()
{
	python3 - "$RESULT" "$1" <<-'EOF'
	import json, sys
	r = json.load(open(sys.argv[1]))[0]
	if not eval(sys.argv[2]):
	    sys.exit("not so: %s\n%s" % (sys.argv[2], json.dumps(r, indent=1)))
	EOF
}

# balanced: nothing the agent holds is left over, every frame counted, no error said.
balanced()
{
	check 'r["leaked"] == {} and r["after"]["ifaces"] == 0 and r["after"]["xdp_attached"] == 0'
	check 'r["after"]["lock_files"] == 0 and r["after"]["threads"] == r["before"]["threads"]'
	check 'r["lived"] > 0 and r["frames_sent"] == r["lived"] * 10'
	check 'r["missed"] == 0 and r["unattached"] == 0 and r["pod_errors"] == 0'
	check 'r["error_lines"] == 0 and r["agent_rc"] == 0 and r["scrape_failed"] == 0'
}

@test "churn with events: nothing left over, every frame counted, each misuse said once" {
	churn --modes events --rates 20 --seconds 3 --burst 40 --frames 10 --bad 6
	[ "$status" -eq 0 ]
	balanced
	check 'r["pods"] == 100 and r["misused"] == 10 and r["mishandled"] == 0'
	# Each pod's attach and deletion said or counted unsaid, the misused's loss said always.
	check 'r["routine_said"] + r["unsaid"] == 2 * r["pods"] - r["misused"] + r["vanished"]'
}

@test "churn under --aggregate: nothing left over, every frame counted" {
	churn --modes aggregate --rates 20 --seconds 2 --burst 40 --frames 10
	[ "$status" -eq 0 ]
	balanced
	check 'r["pods"] == 80'
}
