#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The documented outputs against the real ones: the README's demo transcript,
# docs/output.md's examples and its table of keys, and --help's memory
# figures. This runs the agent as they show it; tests/e2e/docs_output.py
# compares, line by line and key by key.

load ../../testing/netns

setup_file() { fbf_bats_setup_file docs; }
teardown_file() { fbf_bats_teardown_file; }
setup() { fbf_bats_setup; }
teardown() { fbf_bats_teardown; }

# run_with_stats ERR ARGS...: the agent as make demo runs it, under traffic,
# its running counters asked for once (SIGUSR1), then stopped.
run_with_stats()
{
	local i

	fbf_agent_start "$OUT" "$@"
	fbf_traffic 1
	kill -USR1 "$FBF_AGENT_PID"
	# The counters' line, in text or in JSON: bounded only to stop a hang.
	for i in $(seq 100); do
		grep -qE ' agent: stats |"type":"stats"' "$1" && break
		sleep 0.1
	done
	grep -qE ' agent: stats |"type":"stats"' "$1" ||
		{ echo "no running counters after SIGUSR1 in $1" >&2; return 1; }
	fbf_stop_agent INT
}

@test "the README's transcript, docs/output.md's examples and --help say what the agent prints" {
	local text=$FBF_WORK/text.err json=$FBF_WORK/json.err many=$FBF_WORK/many.err

	run_with_stats "$text"
	run_with_stats "$json" --json
	# Over a pattern: each interface's account, which iface_gone's example shows.
	FBF_START_SAYS='serving every interface' fbf_srv_start "$OUT" "$many" "$AGENT" \
		--iface "${FBF_VETH_SRV:0:4}*" --quiet
	fbf_stop_agent INT
	"$AGENT" --help >"$FBF_WORK/help"
	run "$BATS_TEST_DIRNAME/docs_output.py" "$BATS_TEST_DIRNAME/../.." "$text" "$json" \
		"$many" "$FBF_WORK/help"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}
