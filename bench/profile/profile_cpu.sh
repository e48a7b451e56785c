#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# profile_cpu.sh OUTDIR: sample the agent with perf while the traffic
# generator keeps it busy for FBF_PROFILE_SECONDS, and leave in OUTDIR an
# interactive flame graph that opens offline, the hottest functions and the
# samples themselves.
#
# profile_cpu.sh --fetch-template: install the flame graph's HTML template
# from npm into $FBF_BUILD/npm, once; make deps-bench and deps-test run it,
# so that a profile (and the test that makes one) reads nothing from the
# network.
#
# The event is the software cpu-clock, which every machine has, so profiles
# compare across machines with and without hardware counters. Call chains are
# unwound from DWARF: the agent keeps frame pointers, but libbpf and libc do
# not, and frame-pointer chains would skip the agent's drain loop.
#
# Exit status: 0 ok, 1 failure, 2 bad FBF_PROFILE_SECONDS, 3 missing tool,
# 4 not root, 5 perf cannot sample here.
set -euo pipefail

PROFILE_NAME=profile-cpu
. "$(dirname "$0")/profile_lib.bash"

# d3-flame-graph 5 no longer ships the HTML template that perf fills in.
D3_FLAMEGRAPH=d3-flame-graph@4.1.3
NPM_DIR=$FBF_BUILD/npm
TEMPLATE=$NPM_DIR/node_modules/d3-flame-graph/dist/templates/d3-flamegraph-base.html
FREQ=999

if [ "${1:-}" = --fetch-template ]; then
	[ ! -f "$TEMPLATE" ] || exit 0
	profile_need npm "install Node.js and npm (Debian: apt-get install npm)"
	log=$(mktemp)
	npm install --prefix "$NPM_DIR" --no-save --no-audit --no-fund --ignore-scripts \
		--loglevel=error "$D3_FLAMEGRAPH" >"$log" 2>&1 || {
		echo "$PROFILE_NAME: npm install $D3_FLAMEGRAPH failed: $(tail -n 1 "$log")" >&2
		rm -f "$log"
		exit 3
	}
	rm -f "$log"
	echo "$PROFILE_NAME: $D3_FLAMEGRAPH installed into $NPM_DIR for the flame graph"
	exit 0
fi
[ -f "$TEMPLATE" ] || {
	echo "$PROFILE_NAME: the flame graph template ($D3_FLAMEGRAPH) is not in $NPM_DIR;" \
		"'make deps-bench' installs it" >&2
	exit 3
}

profile_init "${1:?usage: profile_cpu.sh OUTDIR}"
profile_need perf "install Debian's linux-perf package"

if ! perf record -q -e cpu-clock -o "$PROFILE_WORK/probe.data" -- true \
		>"$PROFILE_WORK/probe.log" 2>&1; then
	echo "$PROFILE_NAME: perf cannot sample cpu-clock here: $(head -n 1 "$PROFILE_WORK/probe.log")" >&2
	exit 5
fi
if perf stat -x, -e instructions -- true 2>&1 | grep -q '<not supported>'; then
	echo "$PROFILE_NAME: no hardware counters on this machine; sampling the software cpu-clock event"
else
	echo "$PROFILE_NAME: sampling the software cpu-clock event (hardware counters exist, but" \
		"cpu-clock works everywhere, so profiles compare across machines)"
fi

# Events go to /dev/null through the normal formatting path, so the profile
# shows the agent's whole per-event work.
profile_agent_start
# Traffic starts before and ends after the sampled window.
profile_traffic_start $((PROFILE_SECONDS + 2))
sleep 0.5
echo "$PROFILE_NAME: sampling the agent (pid $profile_agent_pid) at $FREQ Hz for" \
	"${PROFILE_SECONDS}s under HTTP load"
perf record -q -e cpu-clock -F "$FREQ" --call-graph dwarf -p "$profile_agent_pid" \
	-o "$PROFILE_OUT/perf.data" -- sleep "$PROFILE_SECONDS" >"$PROFILE_WORK/perf.log" 2>&1 || {
	# Ctrl-C reaches perf and its sleep too: stop quietly, as the trap would.
	[ $? -lt 128 ] || exit 130
	echo "$PROFILE_NAME: perf record failed: $(tail -n 1 "$PROFILE_WORK/perf.log")" >&2
	exit 1
}
profile_traffic_wait
profile_agent_stop

# perf's flame graph script reads the header of ./perf.data.
cd "$PROFILE_OUT"
perf script report flamegraph --template "$TEMPLATE" -o flamegraph.html \
	>"$PROFILE_WORK/flamegraph.log" 2>&1 || {
	echo "$PROFILE_NAME: perf script report flamegraph failed:" \
		"$(tail -n 1 "$PROFILE_WORK/flamegraph.log")" >&2
	exit 1
}
# Folded stacks: one line per call chain, for diffing two runs.
perf script report stackcollapse >stacks.folded 2>/dev/null
perf report --stdio --no-children -g none --sort dso,sym --percent-limit 0.5 >hot.txt 2>/dev/null
perf report --stdio --children -g none --sort dso,sym >hot-inclusive.txt 2>/dev/null

samples=$(sed -n 's/^# Samples: \([0-9]*\) .*/\1/p' hot.txt)
echo
on_cpu=$(awk -v n="$samples" -v f="$FREQ" -v s="$PROFILE_SECONDS" \
	'BEGIN { printf "%.1f", 100 * n / (f * s) }')
echo "$PROFILE_NAME: $samples samples: the agent was on a CPU $on_cpu% of the time"
echo "  $(cat "$PROFILE_OUT/traffic.log")"
echo "$PROFILE_NAME: agent summary:"
profile_agent_summary
echo
echo "Hottest functions, own time (perf report --no-children):"
grep -E '^ +[0-9.]+%' hot.txt | head -n 12
echo
echo "The agent's functions, with what they call (perf report --children):"
awk '$3 == "agent"' hot-inclusive.txt | head -n 12
echo
echo "$PROFILE_NAME: results in $PROFILE_OUT:"
echo "  flamegraph.html     flame graph; open it in a browser (works offline)"
echo "  hot.txt             hottest functions, own time; hot-inclusive.txt with callees"
echo "  stacks.folded       one line per call chain, to diff two runs"
echo "  perf.data           the samples: perf report -i $PROFILE_OUT/perf.data"
echo "  agent.log           the agent's stderr and summary"
