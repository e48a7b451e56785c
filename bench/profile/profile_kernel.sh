#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# profile_kernel.sh OUTDIR: the XDP program as the agent loads it, under
# HTTP traffic for FBF_PROFILE_SECONDS: run time per packet from the
# kernel's BPF statistics, verified and translated instruction counts, JIT
# size, and the translated and JIT-compiled code in OUTDIR.
#
# Run time comes from bpf_enable_stats rather than from perf samples of the
# program's JIT symbol: every copy of the program has the same symbol, so
# samples cannot tell this one from the tests' and benchmarks'.
#
# Exit status: 0 ok, 1 failure, 2 bad FBF_PROFILE_SECONDS, 3 missing tool,
# 4 not root.
set -euo pipefail

PROFILE_NAME=profile-kernel
. "$(dirname "$0")/profile_lib.bash"

profile_init "${1:?usage: profile_kernel.sh OUTDIR}"
for tool in bpftool objdump; do
	profile_need "$tool" "run 'make deps'"
done
out=$PROFILE_OUT

profile_agent_start --quiet
attached=$(fbf_attached_prog_id)
classifier=$(profile_classifier_id)
[ -n "$attached" ] && [ -n "$classifier" ] || {
	echo "$PROFILE_NAME: no $FBF_PROG_NAME on $FBF_VETH_SRV, see $out/agent.log" >&2
	exit 1
}
# Behind libxdp's dispatcher the kernel runs the dispatcher, which calls the
# classifier: only the dispatcher has run-time statistics.
if [ "$attached" != "$classifier" ]; then
	stats_of="the dispatcher (id $attached) and the classifier it calls"
else
	stats_of="$FBF_PROG_NAME (id $attached)"
fi

# Cycles and instructions per run need hardware counters and a bpftool built
# with `prog profile`, whose fentry/fexit probes would also slow the runs
# timed below: it gets a window of its own.
hw_profile=
if ! command -v perf >/dev/null ||
   perf stat -x, -e instructions -- true 2>&1 | grep -q '<not supported>'; then
	hw_line="hardware counters are unavailable here, so no cycles or instructions per run"
elif bpftool prog profile id "$classifier" duration 1 cycles 2>&1 | grep -q 'not supported'; then
	hw_line="hardware counters exist, but this bpftool was built without 'prog profile'"
else
	hw_profile=1
fi

profile_traffic_start $(((hw_profile ? 2 : 1) * PROFILE_SECONDS + 2))
sleep 0.5
echo "$PROFILE_NAME: $FBF_PROG_NAME on $FBF_VETH_SRV, ${PROFILE_SECONDS}s under HTTP load"
"$FBF_BUILD/bench/bpf_run_stats" "$attached" -- sleep "$PROFILE_SECONDS" >"$out/run_stats.txt" \
	2>"$PROFILE_WORK/run_stats.log" || {
	# Ctrl-C reaches the sleep too: stop quietly, as the trap would.
	[ $? -lt 128 ] || exit 130
	echo "$PROFILE_NAME: $(tail -n 1 "$PROFILE_WORK/run_stats.log")" >&2
	exit 1
}
if [ -n "$hw_profile" ]; then
	bpftool prog profile id "$classifier" duration "$PROFILE_SECONDS" cycles instructions \
		>"$out/bpftool_profile.txt" 2>&1
	hw_line="bpftool prog profile: $(tr -s ' \n' ' ' <"$out/bpftool_profile.txt")"
fi
profile_traffic_wait

"$FBF_BUILD/bench/profile_prog_info" "$classifier" "$out/jited.bin" >"$out/prog_info.txt"
bpftool prog show id "$classifier" >"$out/prog_show.txt"
bpftool prog dump xlated id "$classifier" >"$out/xlated.txt"
case "$(uname -m)" in
x86_64)		objdump_arch=i386:x86-64 ;;
aarch64)	objdump_arch=aarch64 ;;
*)		objdump_arch= ;;
esac
if [ -n "$objdump_arch" ]; then
	objdump -D -b binary -m "$objdump_arch" "$out/jited.bin" >"$out/jited.txt"
fi
profile_agent_stop

read -r cnt ns < <(sed -E 's/run_cnt=([0-9]+) run_time_ns=([0-9]+)/\1 \2/' "$out/run_stats.txt")
echo
echo "Run time, $stats_of:"
echo "  $(cat "$out/run_stats.txt") ns_per_run=$(awk -v n="$ns" -v c="$cnt" \
	'BEGIN { printf "%.1f", c ? n / c : 0 }')"
echo "Code:"
echo "  $(cat "$out/prog_info.txt")"
echo "  $hw_line"
echo
echo "$PROFILE_NAME: results in $out:"
echo "  xlated.txt      translated code (bpftool prog dump xlated)"
echo "  jited.txt       JIT-compiled code (objdump of jited.bin)"
echo "  run_stats.txt   run_cnt and run_time_ns under load; prog_show.txt, prog_info.txt"
echo "  agent.log       the agent's stderr and summary"
