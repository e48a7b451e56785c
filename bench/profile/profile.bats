#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The profile targets, run briefly: their files exist and say what they
# should, and the agent's heap does not grow with the number of events.

load ../../testing/netns

setup_file()
{
	FBF_PROFILE_SECONDS=2
	export FBF_ROOT FBF_BUILD FBF_PROFILE_SECONDS
	[ "$(id -u)" -eq 0 ] || return 0
	FBF_WORK=$(mktemp -d /tmp/fbf-profile-test.XXXXXX)
	export FBF_WORK
}

teardown_file()
{
	[ -n "${FBF_WORK:-}" ] && rm -rf "$FBF_WORK"
	return 0
}

setup()
{
	[ "$(id -u)" -eq 0 ] || skip "needs root: network namespaces, veth and XDP"
}

teardown()
{
	[ -n "${BATS_TEST_COMPLETED:-}" ] && return 0
	echo "# output:" && sed 's/^/#   /' <<<"$output"
}

agent_delivered() { sed -n 's/.* agent: summary .* delivered=\([0-9]*\).*/\1/p' "$1"; }

# dhat_total FILE FIELD: 'bytes' or 'blocks' from DHAT's "Total:" line.
dhat_total()
{
	local line

	line=$(grep '^Total:' "$1" | tr -d ,)
	case "$2" in
	bytes)	awk '{ print $2 }' <<<"$line" ;;
	blocks)	awk '{ print $5 }' <<<"$line" ;;
	esac
}

# dhat_blocks_outside FILE FUNCTION...: blocks allocated with none of the
# FUNCTIONs on the stack, from DHAT's JSON profile.
dhat_blocks_outside()
{
	python3 - "$@" <<'EOF'
import json, sys

profile = json.load(open(sys.argv[1]))
names = profile["ftbl"]
print(sum(pp["tbk"] for pp in profile["pps"]
	  if not any(fn + " (" in names[f] for f in pp["fs"] for fn in sys.argv[2:])))
EOF
}

# dhat_end_blocks_outside FILE FUNCTION: blocks still allocated at exit with
# FUNCTION nowhere on the stack, from DHAT's JSON profile.
dhat_end_blocks_outside()
{
	python3 - "$1" "$2" <<'EOF'
import json, sys

profile = json.load(open(sys.argv[1]))
names = profile["ftbl"]
print(sum(pp.get("ebk", 0) for pp in profile["pps"]
	  if not any(sys.argv[2] + " (" in names[f] for f in pp["fs"])))
EOF
}

@test "profile-cpu: the flame graph and the hot list name the agent's functions" {
	local out=$FBF_WORK/cpu

	command -v perf >/dev/null || skip "perf not installed (Debian package linux-perf)"
	# make test's install step fetched the template: nothing is read from the network here.
	run "$FBF_ROOT/bench/profile/profile_cpu.sh" "$out" 3>&-
	[ "$status" -ne 5 ] || skip "perf cannot sample here: ${lines[-1]}"
	[ "$status" -eq 0 ]
	[[ "$output" == *"results in $out"* ]]
	# drain_live is the agent's loop; queue_read_map, the read of one CPU's
	# queue, is called through the transport's ops and pops.
	grep -q '"n": "drain_live"' "$out/flamegraph.html"
	grep -q '"n": "queue_read_map"' "$out/flamegraph.html"
	grep -q '"n": "bpf_map_lookup_and_delete_elem"' "$out/flamegraph.html"
	grep -q ' drain_live$' "$out/hot-inclusive.txt"
	grep -q ';drain_live;' "$out/stacks.folded"
	# Opens offline: the page loads no script or style from anywhere.
	# Not "! grep": bats ignores a negated command's status.
	if grep -Eq '(src|href)=' "$out/flamegraph.html"; then false; fi
}

@test "profile-heap: DHAT totals, and no heap growth with ten times the events" {
	local small=$FBF_WORK/heap-small large=$FBF_WORK/heap-large events_small events_large
	local small_blocks large_blocks

	command -v valgrind >/dev/null || skip "valgrind not installed"
	! fbf_is_sanitized "$FBF_BUILD/agent" || skip "Valgrind cannot run an ASan build"
	FBF_PROFILE_REQUESTS=2 run "$FBF_ROOT/bench/profile/profile_heap.sh" "$small" 3>&-
	[ "$status" -eq 0 ]
	FBF_PROFILE_REQUESTS=20 run "$FBF_ROOT/bench/profile/profile_heap.sh" "$large" 3>&-
	[ "$status" -eq 0 ]
	[[ "$output" == *"results in $large"* ]]
	[[ "$output" == *"Total:"*"At t-gmax:"*"At t-end:"* ]]
	grep -q '"dhatFileVersion"' "$large/dhat.json"

	events_small=$(agent_delivered "$small/agent.log")
	events_large=$(agent_delivered "$large/agent.log")
	[ "$events_large" -ge $((5 * events_small)) ] ||
		{ echo "workloads too close: $events_small and $events_large events"; false; }
	# Every block comes from start-up and shutdown, or from the interface check
	# that a link event triggers (libbpf's netlink buffer in bpf_xdp_query, one
	# per check), and a link event can come or not in either run (the veth's
	# state settling as the agent starts); or is one of stdout's chunks, of
	# which there are as many as its writer lagged behind at most, one to a
	# few, bounded by --output-buffer. Packets trigger none: outside those,
	# the same count.
	small_blocks=$(dhat_blocks_outside "$small/dhat.json" attachment_replaced chunk_new)
	large_blocks=$(dhat_blocks_outside "$large/dhat.json" attachment_replaced chunk_new)
	[ "$small_blocks" -gt 0 ]
	[ "$large_blocks" -eq "$small_blocks" ] ||
		{ echo "blocks outside attachment_replaced: $small_blocks for $events_small events," \
			"$large_blocks for $events_large"; false; }
	# Nothing left at exit but what libraries allocate in their constructors
	# for the process's life (glib, under libfixbuf: see tests/e2e/hardening.supp).
	[ "$(dhat_end_blocks_outside "$large/dhat.json" _dl_init)" -eq 0 ]
}

@test "profile-kernel: run time per packet, instruction counts and both code dumps" {
	local out=$FBF_WORK/kernel

	run "$FBF_ROOT/bench/profile/profile_kernel.sh" "$out" 3>&-
	[ "$status" -eq 0 ]
	[[ "$output" == *"results in $out"* ]]
	[[ "$output" =~ run_cnt=[1-9][0-9]*\ run_time_ns=[1-9][0-9]*\ ns_per_run= ]]
	[[ "$output" =~ verified_insns=[1-9][0-9]*\ xlated_insns=[1-9][0-9]*\ jited_bytes=[1-9] ]]
	# Cycles per run, or one line saying why there are none.
	[[ "$output" == *"bpftool prog profile"* || "$output" == *"hardware counters"* ]]
	grep -q 'int xdp_fizzbuzzfib(struct xdp_md \* ctx)' "$out/xlated.txt"
	grep -q 'bpf_map_lookup_elem' "$out/xlated.txt"
	[ "$(stat -c %s "$out/jited.bin")" -gt 0 ]
	if [ "$(uname -m)" = x86_64 ]; then
		grep -Eq '^ +[0-9a-f]+:.*(push|mov) ' "$out/jited.txt"
	fi
}
