#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# profile_heap.sh OUTDIR: run the agent under Valgrind's DHAT for a fixed
# workload, FBF_PROFILE_REQUESTS HTTP requests (default 50) from each client
# source, print DHAT's totals beside the number of events the agent handled,
# and leave the DHAT profile in OUTDIR.
#
# A steady agent allocates nothing per event: two runs with different
# workloads show the same totals (bench/profile/profile.bats checks that).
#
# Exit status: 0 ok, 1 failure, 2 bad FBF_PROFILE_REQUESTS, 3 missing tool,
# 4 not root.
set -euo pipefail

PROFILE_NAME=profile-heap
. "$(dirname "$0")/profile_lib.bash"

requests=${FBF_PROFILE_REQUESTS:-50}
if ! [[ "$requests" =~ ^[1-9][0-9]*$ ]]; then
	echo "$PROFILE_NAME: FBF_PROFILE_REQUESTS='$requests' is not a positive number" >&2
	exit 2
fi

profile_init "${1:?usage: profile_heap.sh OUTDIR}"
profile_need valgrind "install Debian's valgrind package"
viewer=$(dpkg -L valgrind 2>/dev/null | grep '/dh_view\.html$' | head -n 1 || true)

# fbf_agent_start runs $AGENT; nsenter execs this wrapper, which execs
# Valgrind, so the pid it records is still the agent's.
cat >"$PROFILE_WORK/agent-dhat" <<EOF
#!/bin/sh
exec valgrind --tool=dhat --dhat-out-file="$PROFILE_OUT/dhat.json" "$AGENT" "\$@"
EOF
chmod +x "$PROFILE_WORK/agent-dhat"
AGENT=$PROFILE_WORK/agent-dhat

echo "$PROFILE_NAME: the agent under DHAT, $requests requests from each of" \
	"${#FBF_SOURCES[@]} sources"
profile_agent_start
fbf_traffic "$requests" >"$PROFILE_OUT/traffic.log" 2>&1 || {
	echo "$PROFILE_NAME: the traffic generator failed, see $PROFILE_OUT/traffic.log" >&2
	exit 1
}
profile_agent_stop

# DHAT prefixes its lines with ==PID==.
sed -n 's/^==[0-9]*== //p' "$PROFILE_OUT/agent.log" >"$PROFILE_OUT/dhat.txt"
grep -q '^Total:' "$PROFILE_OUT/dhat.txt" || {
	echo "$PROFILE_NAME: DHAT printed no totals, see $PROFILE_OUT/agent.log" >&2
	exit 1
}
echo
echo "$PROFILE_NAME: events delivered: $(fbf_summary_value "$PROFILE_OUT/agent.log" delivered)"
grep -E '^(Total|At t-gmax|At t-end|Reads|Writes):' "$PROFILE_OUT/dhat.txt" | sed 's/^/  /'
echo
echo "$PROFILE_NAME: results in $PROFILE_OUT:"
echo "  dhat.json    the DHAT profile; open ${viewer:-dh_view.html (from the valgrind package)}"
echo "               in a browser, click Load... and pick this file"
echo "  dhat.txt     DHAT's totals; agent.log the agent's stderr and summary"
