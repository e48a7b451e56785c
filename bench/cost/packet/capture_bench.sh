#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The cost tool's figures on a capture, as a benchmark prints them (as root,
# after make all bench-build test-build; docs/benchmarks.md):
#
#   capture_bench.sh time [OBJECT [FRAMES]]
#       the whole table of `make cost` (live part included) on a capture of
#       FRAMES frames (100000), the lab's own (testing/captures/lab.pcap)
#       repeated, and how long it took; OBJECT: the cost tool's probe
#   capture_bench.sh gate [RUNS [PCAP [TYPE]]]
#       cost-compare with PCAP (the lab's capture), RUNS times (10) each: the
#       probe of TYPE (xdp, the default, or tc: testing/cost_types_probe.bpf.c)
#       against itself (A/A: none may be flagged) and against itself with one
#       instruction more on every frame (each must be flagged); prints the
#       counts (a run that failed, neither 0 nor 1, is counted apart), of the
#       planted runs those whose capture mean or p99 timing alone was judged
#       regressed (the verdict also sees the verifier's count, which any added
#       instruction raises), and each run's closing line
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=${FBF_BUILD:-$root/build}
probe=$build/testing/cost_probe

# repeat_capture IN OUT FRAMES: IN's frames over and over, FRAMES of them, as OUT.
repeat_capture()
{
	python3 - "$@" <<-'PY'
	import struct, sys
	src, dst, want = sys.argv[1], sys.argv[2], int(sys.argv[3])
	data = open(src, "rb").read()
	recs, off = [], 24
	while off < len(data):
	    n = struct.unpack("<I", data[off + 8:off + 12])[0]
	    recs.append(data[off:off + 16 + n])
	    off += 16 + n
	with open(dst, "wb") as f:
	    f.write(data[:24])
	    for i in range(want):
	        f.write(recs[i % len(recs)])
	PY
}

case ${1:-} in
time)
	obj=${2:-$probe.bpf.o} frames=${3:-100000}
	work=$(mktemp -d /tmp/fbf-capture-bench.XXXXXX)
	trap 'rm -rf "$work"' EXIT
	repeat_capture "$root/testing/captures/lab.pcap" "$work/big.pcap" "$frames"
	start=$(date +%s.%N)
	"$here/../cost.sh" measure "$obj" "" "" "$work/big.pcap"
	awk -v s="$start" -v e="$(date +%s.%N)" -v f="$frames" \
		'BEGIN { printf "capture_bench: %d frames, the whole table in %.1f s\n", f, e - s }'
	;;
gate)
	runs=${2:-10} pcap=${3:-$root/testing/captures/lab.pcap} type=${4:-xdp}
	case $type in
	xdp) ;;
	tc) probe=$build/testing/cost_tc_probe ;;
	*) echo "capture_bench: TYPE is xdp or tc, not $type" >&2; exit 2 ;;
	esac
	work=$(mktemp -d /tmp/fbf-capture-bench.XXXXXX)
	trap 'rm -rf "$work"' EXIT
	aa=0 planted=0 timed=0 failed=0
	for i in $(seq "$runs"); do
		status=0
		"$here/../cost.sh" compare "$probe.bpf.o" "$probe.bpf.o" "" "" "" "" "$pcap" \
			>"$work/aa.out" 2>&1 || status=$?
		echo "A/A $i: exit $status: $(tail -n 1 "$work/aa.out")"
		case $status in 0) ;; 1) aa=$((aa + 1)) ;; *) failed=$((failed + 1)) ;; esac
		status=0
		"$here/../cost.sh" compare "$probe.bpf.o" "${probe}_planted.bpf.o" "" "" "" "" "$pcap" \
			>"$work/planted.out" 2>&1 || status=$?
		echo "planted $i: exit $status: $(grep '^cost-compare' "$work/planted.out" | tail -n 1)"
		case $status in 0) ;; 1) planted=$((planted + 1)) ;; *) failed=$((failed + 1)) ;; esac
		# The capture's rows of the first run's table: mean or p99 judged regressed.
		if grep -Eq '^cost/capture(/p99)? .* regressed$' "$work/planted.out"; then
			timed=$((timed + 1))
		fi
	done
	echo "capture_bench: $type: A/A flagged $aa of $runs; one planted instruction flagged" \
	     "$planted of $runs (its capture mean or p99 judged regressed in $timed);" \
	     "$failed runs failed"
	;;
*)
	sed -n '4,22p' "$0" >&2
	exit 2
	;;
esac
