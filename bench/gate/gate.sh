#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make bench-check: the regression gate. Builds the base revision from a git
# worktree with its own Makefile, then measures the base and the candidate
# (the build in FBF_BUILD, from the work tree) side by side in this one run,
# on this machine, with this run's tools, and lets bench/gate/gate.py judge:
#
#   exact   callgrind counts of the classifier; verified and translated
#           instructions and JIT bytes of both programs, on both transports,
#           loaded into this kernel, and into each kernel FBF_GATE_KERNELS
#           names, booted once under QEMU (testing/vm/vm-run): any rise fails
#   timing  both programs run interleaved through BPF_PROG_TEST_RUN on the
#           same frames, on one CPU and on 2, 4, ... at once (their scaling),
#           each CPU sending to its own queue or ring, as under the agent;
#           both agents drain the same pre-filled queue in turn,
#           for --quiet, text and --json, and idle in turn; the same again
#           on the ring buffer; a second copy of the base (A/A) says how far
#           this run's noise reaches
#
# make bench-baseline: record HEAD as the base, and why.
#
#   gate.sh check            base: BASE, or the one bench/gate/baseline.json names
#   gate.sh kernels          the exact measures on the kernels of FBF_GATE_KERNELS alone
#   gate.sh figures FILE     (in a guest) both programs' static figures, base and
#                            candidate, on the kernel it runs on, into FILE
#   gate.sh baseline WHY     write bench/gate/baseline.json: base = HEAD, and WHY
#
# FBF_GATE_KERNELS: names of kernels under FBF_KERNELS (default build/kernels, where
# make kernels fetches them), or directories with boot/vmlinuz-RELEASE and
# lib/modules/RELEASE, as tests/run-kernels takes them.
#
# The base's Makefile must build build/agent (with --transport ringbuf),
# build/fizzbuzzfib.bpf.o, build/fizzbuzzfib_ringbuf.bpf.o and
# build/bench/micro_count: the things measured. Needs root.
set -euo pipefail

build=${FBF_BUILD:-}
baseline=${FBF_BASELINE:-bench/gate/baseline.json}
history=${FBF_HISTORY:-bench-history.tsv}
results=$build/results/gate
base_src=${FBF_GATE_BASE_DIR:-$(pwd)/build/gate-base}
kernel_rounds=${FBF_GATE_KERNEL_ROUNDS:-15}
kernel_repeat=${FBF_GATE_KERNEL_REPEAT:-50000}
agent_rounds=${FBF_GATE_AGENT_ROUNDS:-9}
gate_kernels=${FBF_GATE_KERNELS:-}
lab_capture=$(pwd)/testing/captures/lab.pcap

# shellcheck source=bench/kernel/matrix.bash
. "$(dirname "$0")/../kernel/matrix.bash"

die() { echo "gate: $*" >&2; exit 2; }

baseline_base() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["base"])' "$1"; }

# resolve_base REV: the full commit id, or one line on what to do.
resolve_base()
{
	local rev=$1

	git rev-parse --verify --quiet "$rev^{commit}" && return 0
	if [ "$(git rev-parse --is-shallow-repository)" = true ]; then
		die "base revision '$rev' is not in this shallow clone: run 'git fetch --unshallow'," \
		    "or name a revision it has with 'make bench-check BASE=<rev>'"
	fi
	die "base revision '$rev' is not in this repository: fetch it, or name another with" \
	    "'make bench-check BASE=<rev>'"
}

# build_base SHA: the base's own Makefile builds what is measured, in its own worktree.
build_base()
{
	local sha=$1 log=$results/base-build.log

	if [ "$(git -C "$base_src" rev-parse HEAD 2>/dev/null || true)" != "$sha" ]; then
		[ -e "$base_src" ] && { git worktree remove --force "$base_src" 2>/dev/null ||
					  rm -rf "$base_src"; }
		git worktree prune
		git worktree add --quiet --detach "$base_src" "$sha" ||
			die "cannot check out the base $sha into $base_src"
	fi
	echo "gate: base $(git log -1 --format='%h %s' "$sha")"
	make -C "$base_src" build/agent build/fizzbuzzfib.bpf.o build/fizzbuzzfib_ringbuf.bpf.o \
		build/bench/micro_count >"$log" 2>&1 ||
		{ tail -n 20 "$log" >&2; die "the base $sha does not build: see $log"; }
}

# A drain long enough to time well and short enough to repeat: about a fifth of a
# second of bare pops on this machine, whatever its speed.
drain_events()
{
	local seconds

	seconds=$("$build/testing/drain_rate" raw 100000 | grep -o 'seconds=[0-9.]*' | cut -d= -f2)
	awk -v s="$seconds" 'BEGIN { n = int(100000 * 0.2 / s / 1000) * 1000;
		print (n < 50000 ? 50000 : n > 2000000 ? 2000000 : n) }'
}

measure_exact()
{
	bench/micro/callgrind.sh "$base_src/build" "$results/callgrind-base" v4
	bench/micro/callgrind.sh "$build" "$results/callgrind-candidate" v4
}

# gate_kernel ROUNDS REPEAT ARM=BUILD...: each transport's object of each arm's build
# through the cost tool's runner (bench/cost/packet/cost_run), on the classifier's own frame
# shapes, named as the gate's benchmarks: kernel/SHAPE, kernel/all and the program's
# kernel/xdp_fizzbuzzfib, each with /ringbuf (-ringbuf for the program) for the ring
# buffer's object. Every shape must be passed: the timing is of the path that does.
# With ROUNDS, the lab's capture too (testing/captures/lab.pcap: the demo's HTTP from every
# class, DNS, ICMP, IPv6, VLAN), its frames in order, each on its first pass:
# kernel/capture (the mean per frame) and kernel/capture/p50 ... max, of which the mean and
# p99 are judged; and the same shapes on 1, 2, ... CPUs at once: kernel/cpus/N. The runner
# fills the program's array of event maps, one map per CPU, as the agent does (both
# base and candidate: bench/cost/cost_events.h), so the curve is the agent's path's.
gate_kernel()
{
	local rounds=$1 repeat=$2 object arm arms suffix capture=()

	shift 2
	[ "$rounds" -eq 0 ] || capture=(-P "$lab_capture")
	for object in fizzbuzzfib fizzbuzzfib_ringbuf; do
		arms=()
		for arm in "$@"; do
			arms+=("${arm%%=*}=${arm#*=}/$object.bpf.o")
		done
		suffix=${object#fizzbuzzfib}
		{
			"$build/bench/cost_run" run -k -r "$rounds" -n "$repeat" -p xdp_fizzbuzzfib \
				"${capture[@]}" "${arms[@]}" || exit
			# The same on 1, 2, ... CPUs at once: kernel/cpus/N, judged by its scaling.
			[ "$rounds" -eq 0 ] || "$build/bench/cost_run" cpus -k -r "$rounds" \
				-n "$repeat" -p xdp_fizzbuzzfib "${arms[@]}"
		} | awk -F'\t' -v OFS='\t' -v ring="${suffix:+ringbuf}" '
			/^#/ { next }
			# Both runs print the static figures: the first ones are kept. Of the
			# CPUs, the latencies, whose scaling is judged.
			$2 == "cost/prog" && seen[$1 FS $3]++ { next }
			$2 ~ /^cost\/cpus\// && $3 != "latency" { next }
			$3 == "action" { if ($4 != 2) { bad = $1 " " $2 " returned " $4; exit 1 }
					 next }
			$2 == "cost/prog" { $2 = "kernel/xdp_fizzbuzzfib" (ring ? "-" ring : "") }
			$2 ~ /^cost\// { sub(/^cost\//, "kernel/", $2); if (ring) $2 = $2 "/" ring }
			{ print }
			END { if (bad) { print "gate: " bad ", not XDP_PASS" > "/dev/stderr"
					 exit 1 } }' || return
	done
}

measure_kernel()
{
	gate_kernel "$kernel_rounds" "$kernel_repeat" base="$base_src/build" \
		base-again="$base_src/build" candidate="$build" >"$results/kernel$1.tsv"
}

# The exact measures on each kernel of FBF_GATE_KERNELS (bench/kernel/matrix.bash): one
# boot each, where gate.sh figures loads both transports' objects of base and candidate.
measure_matrix()
{
	FBF_BUILD=$build FBF_GATE_BASE_DIR=$base_src matrix_measure gate "$results/kernels" \
		"$gate_kernels" "FBF_BUILD FBF_GATE_BASE_DIR" bench/gate/gate.sh figures
}

# figures FILE: in a guest, the static figures of both programs, base and candidate.
figures()
{
	matrix_figures "${1:?figures FILE}" gate_kernel 0 1 base="$base_src/build" \
		candidate="$build"
}

# The agents on the queue, then on the ring buffer (benchmarks named .../ringbuf).
measure_agent()
{
	local b=$base_src/build/agent c=$build/agent

	bench/kernel/agent_rates.sh "$agent_rounds" "$events" base="$b" base-again="$b" \
		candidate="$c" >"$results/agent$1.tsv"
	bench/kernel/agent_rates.sh "$agent_rounds" "$events" base="$b,--transport,ringbuf" \
		base-again="$b,--transport,ringbuf" candidate="$c,--transport,ringbuf" |
		awk -F'\t' -v OFS='\t' '{ $2 = $2 "/ringbuf"; print }' >>"$results/agent$1.tsv"
}

# judge SUFFIX: gate.py on the exact counts and one set of timing samples.
judge()
{
	bench/gate/gate.py check "$results" "$history" base="$results/callgrind-base" \
		candidate="$results/callgrind-candidate" "$results/kernel$1.tsv" \
		"$results/agent$1.tsv" "${matrix_args[@]}"
}

# prepare: the base resolved and built, the matrix's kernels found, the results' directory.
prepare()
{
	local rev=${FBF_GATE_BASE:-} kernel sha

	[ -n "$build" ] || die "FBF_BUILD names the candidate's build; run it through make bench-check"
	mkdir -p "$results"
	for kernel in $gate_kernels; do
		matrix_dir gate "$kernel" >/dev/null || exit 2
	done
	[ -n "$rev" ] || rev=$(baseline_base "$baseline") ||
		die "no base in $baseline: run 'make bench-baseline WHY=...' or name one with BASE=<rev>"
	# An assignment, so that resolve_base's one line ends the gate (set -e).
	sha=$(resolve_base "$rev")
	# The settings as run, for the page's header (bench/gate/gate_html.py).
	export FBF_GATE_BASE_COMMIT=$sha FBF_GATE_KERNEL_ROUNDS=$kernel_rounds \
		FBF_GATE_KERNEL_REPEAT=$kernel_repeat FBF_GATE_AGENT_ROUNDS=$agent_rounds
	build_base "$sha"
}

check()
{
	local status=0 start=$SECONDS

	prepare
	measure_matrix
	events=$(drain_events)
	echo "gate: measuring base and candidate side by side ($kernel_rounds kernel rounds," \
	     "$agent_rounds agent rounds of $events events)"
	measure_exact
	measure_kernel ""
	measure_agent ""
	judge "" || status=$?
	if [ "$status" -eq 3 ]; then
		# One run's timing regression may be the machine's noise: it counts only if
		# an independent second run, judged alone, confirms it.
		echo "gate: timing regressed; measuring again to confirm"
		measure_kernel -2
		measure_agent -2
		status=0
		judge -2 || status=$?
	fi
	echo "gate: took $((SECONDS - start)) s"
	[ "$status" -eq 0 ] || exit 1
}

# The matrix's exact measures alone: what make test-kernels checks.
check_kernels()
{
	local status=0 start=$SECONDS

	[ -n "$gate_kernels" ] || die "FBF_GATE_KERNELS names no kernel to measure on"
	prepare
	measure_matrix
	bench/gate/gate.py kernels "$results" "$history" "${matrix_args[@]}" || status=$?
	echo "gate: took $((SECONDS - start)) s"
	[ "$status" -eq 0 ] || exit 1
}

record_baseline()
{
	local why=${1:-} sha

	[ -n "$why" ] || die "say why the base moves: make bench-baseline WHY='...'"
	git diff --quiet HEAD -- . ":(exclude)$baseline" ||
		die "the work tree has uncommitted changes: commit them first, the base is a commit"
	sha=$(git rev-parse HEAD)
	python3 - "$baseline" "$sha" "$why" <<-'EOF'
	import datetime, json, sys
	path, sha, why = sys.argv[1:]
	with open(path, "w") as f:
	    json.dump({"base": sha, "why": why, "recorded": datetime.date.today().isoformat()},
	              f, indent=2)
	    f.write("\n")
	EOF
	echo "gate: $baseline now names $sha as the base; commit it and say why"
}

case "${1:-check}" in
check) check ;;
kernels) check_kernels ;;
figures) figures "${2:-}" ;;
baseline) record_baseline "${2:-}" ;;
*) echo "usage: gate.sh check | kernels | figures FILE | baseline WHY" >&2; exit 2 ;;
esac
