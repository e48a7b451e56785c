#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The cost tool on tracing programs (bench/cost/trace/): programs nobody here wrote
# (testing/third_party/TRACING.md: bcc's opensnoop and runqlat, libbpf-bootstrap's kprobe,
# fentry, profile and lsm examples) and the tests' own (testing/cost_trace_probe.bpf.c):
# each family measured where this kernel takes it, and one line with its status where it
# does not; events read; the CPU curve; the gate on a planted loop; every bad input.
# Short rounds: the figures are checked for being there, never for how fast, but for the
# curve's shared counter, whose 2-CPU cost is several times its 1-CPU cost.

load ../../../testing/netns
load ../../bmf

setup()
{
	fbf_bench_setup
	[ "$(id -u)" -eq 0 ] || skip "needs root: the tool loads and attaches BPF programs"
	export FBF_COST_OUT=$RESULTS FBF_COST_ROUNDS=${FBF_COST_ROUNDS:-3}
	export FBF_COST_TRACE_PHASE_MS=${FBF_COST_TRACE_PHASE_MS:-30} FBF_COST_CPU_ROUNDS=1
	TRACE=$FBF_BUILD/testing/trace
	PROBE=$FBF_BUILD/testing/cost_trace
}

# The run, its output printed: bats shows it when a test fails.
cost() { run bench/cost/cost.sh "$@"; echo "$output"; }

# has_kprobes: whether this kernel was built with kprobes (CONFIG_KPROBES).
has_kprobes()
{
	[ -e /sys/bus/event_source/devices/kprobe/type ] || [ -e /sys/kernel/tracing/kprobe_events ] ||
		[ -e /sys/kernel/debug/tracing/kprobe_events ]
}

@test "a tracepoint object nobody here wrote: opensnoop's six programs, its perf buffer read" {
	# Its loader passes every user: targ_uid -1 (INVALID_UID).
	FBF_COST_SET=targ_uid=0xffffffff cost measure "$TRACE/opensnoop.bpf.o"
	[ "$status" -eq 0 ]
	grep -E '^tracepoint__syscalls__sys_exit_openat +tracepoint/syscalls/sys_exit_openat +openat  +1\.[0-9]+ ' \
		<<<"$output"
	grep -E '^openat +cpu +[0-9,.]+ +[0-9,.]+ +\+' <<<"$output"
	# A reader that falls behind on a busy host loses some: counted, not asserted.
	grep -E '^  openat: [1-9][0-9,]* events read, [0-9,]+ lost, from events \(perf event array\)' \
		<<<"$output"
	grep -E "^  bpf_stats' own cost: -?[0-9.]+ ns a run on this host " <<<"$output"
	check_bmf_measures "$RESULTS/cost.bmf.json" \
		cost/prog/tracepoint__syscalls__sys_exit_openat:latency \
		cost/prog/tracepoint__syscalls__sys_exit_openat:runs \
		cost/prog/tracepoint__syscalls__sys_exit_openat:jited-bytes \
		cost/workload/openat:latency cost/workload/openat/bare:latency \
		cost/workload/openat/added:latency cost/workload/open:latency \
		cost/workload/openat2:latency cost/bpf-stats:latency
}

@test "raw_tp and tp_btf nobody here wrote: runqlat on the scheduler's ping-pong and on exec" {
	cost measure "$TRACE/runqlat.bpf.o"
	[ "$status" -eq 0 ]
	for prog in handle_sched_switch sched_switch handle_sched_wakeup sched_wakeup; do
		grep -E "^$prog +(raw_tp|tp_btf)/sched_(switch|wakeup) +sched +[0-9.]+ +[0-9,.]+ " \
			<<<"$output"
	done
	grep -E '^sched_wakeup_new +tp_btf/sched_wakeup_new +exec ' <<<"$output"
	check_bmf_measures "$RESULTS/cost.bmf.json" cost/prog/sched_switch:latency \
		cost/prog/handle_sched_switch:runs cost/workload/sched:latency \
		cost/workload/exec/bare:latency
}

@test "a perf_event sampler nobody here wrote: profile's ns a sample, its ring buffer read" {
	FBF_COST_TRACE_HZ=1000 cost measure "$TRACE/profile.bpf.o"
	[ "$status" -eq 0 ]
	grep -E '^profile +perf_event +cpu ' <<<"$output"
	grep -E '^  profile: [0-9,.]+ ns a sample, [0-9,.]+ samples a second on each CPU \(cpu-clock at 1000 Hz\)' \
		<<<"$output"
	grep -E '^  cpu: [1-9][0-9,]* events read, 0 lost, from events \(ring buffer\)' <<<"$output"
	check_bmf_measures "$RESULTS/cost.bmf.json" cost/prog/profile:latency \
		cost/prog/profile:cpu-percent cost/workload/cpu/bare:latency
}

@test "on this kernel: a kprobe nobody here wrote, or one line saying the kernel has no kprobes" {
	cost measure "$TRACE/kprobe.bpf.o"
	if has_kprobes; then
		[ "$status" -eq 0 ]
		grep -E '^do_unlinkat +kprobe/do_unlinkat +unlinkat  +1\.[0-9]+ ' <<<"$output"
		grep -E '^do_unlinkat_exit +kretprobe/do_unlinkat +unlinkat  +1\.[0-9]+ ' <<<"$output"
	else
		[ "$status" -eq 36 ]
		[[ "$output" == "cost: do_unlinkat (kprobe/do_unlinkat): this kernel ($(uname -r)) has no kprobes (CONFIG_KPROBES is off): "* ]]
	fi
}

@test "on this kernel: fentry nobody here wrote, or one line saying the kernel refuses it" {
	cost measure "$TRACE/fentry.bpf.o"
	if [ "$status" -eq 0 ]; then
		grep -E '^do_unlinkat +fentry/do_unlinkat +unlinkat  +1\.[0-9]+ ' <<<"$output"
		grep -E '^do_unlinkat_exit +fexit/do_unlinkat +unlinkat  +1\.[0-9]+ ' <<<"$output"
	else
		# Refused (EPERM) where the kernel gives no BPF trampolines. Before 5.13, which
		# attaches one once a load, the tool loads a copy for each attach: it runs there.
		[ "$status" -eq 36 ]
		[[ "${lines[-1]}" == "cost: do_unlinkat"*" (f"*"/do_unlinkat): this kernel ($(uname -r)) refused to load it: Operation not permitted"* ]]
	fi
}

@test "the CPUs: a hash value every CPU counts into climbs, its per-CPU twin stays flat" {
	[ "$(nproc)" -ge 2 ] || skip "one CPU: the curve needs two"
	FBF_COST_TRACE_PHASE_MS=100 FBF_COST_CPU_ROUNDS=3 cost measure "$PROBE"_shared.bpf.o
	[ "$status" -eq 0 ]
	# Where other work kept the threads apart, the table says so in place of a reading.
	if [[ "$output" != *"count_getpid: "*"not read as flat: its threads ran only "* ]]; then
		[[ "$output" == *"count_getpid climbs: "*"x its 1-CPU cost on $(nproc) CPUs (over 1.5x)"* ]]
	fi
	check_bmf_measures "$RESULTS/cost.bmf.json" cost/cpus/1/prog/count_getpid:latency \
		"cost/cpus/$(nproc)/prog/count_getpid:latency"
	FBF_COST_TRACE_PHASE_MS=100 FBF_COST_CPU_ROUNDS=3 cost measure "$PROBE"_percpu.bpf.o
	[ "$status" -eq 0 ]
	[[ "$output" != *"count_getpid climbs"* ]]
	check_bmf_measures "$RESULTS/cost.bmf.json" "cost/cpus/$(nproc):oncpu-percent"
}

@test "on this kernel: a uprobe on the C library's getpid, fired by the getpid trigger" {
	cost measure "$PROBE"_uprobe.bpf.o
	[ "$status" -eq 0 ]
	grep -E '^count_libc_getpid +uprobe/libc\.so\.6:getpid +getpid  +1\.[0-9]+ ' <<<"$output"
}

@test "cost-compare flags a 300-step loop planted in one of opensnoop's programs" {
	FBF_COST_SET=targ_uid=0xffffffff FBF_COST_CPU_ROUNDS=0 cost compare \
		"$TRACE/opensnoop.bpf.o" "$TRACE/opensnoop_planted.bpf.o"
	[ "$status" -eq 1 ]
	[[ "${lines[-1]}" == "cost-compare: REGRESSION: tracepoint__syscalls__sys_enter_openat "* ]]
	check_bmf_measures "$RESULTS/cost-compare.bmf.json" \
		cost/prog/tracepoint__syscalls__sys_enter_openat:latency
}

@test "cost-compare of an object against itself passes" {
	FBF_COST_CPU_ROUNDS=0 cost compare "$PROBE"_percpu.bpf.o "$PROBE"_percpu.bpf.o
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" == "cost-compare: PASS: "* ]]
}

@test "cost-compare: BASE_PROG and CANDIDATE_PROG of different names pair under the base's" {
	FBF_COST_CPU_ROUNDS=0 cost compare "$PROBE"_percpu.bpf.o "$PROBE"_uprobe.bpf.o "" "" \
		count_getpid count_libc_getpid
	# A uprobe's trap makes the candidate dearer; what is checked is the pairing.
	[ "$status" -le 1 ]
	grep -E '^cost/prog/count_getpid +latency +[0-9.,]+ +[0-9.,]+ ' <<<"$output"
	grep -E '^cost/workload/getpid +latency +[0-9.,]+ +[0-9.,]+ ' <<<"$output"
	[[ "$output" != *count_libc_getpid* ]]
	cost compare "$PROBE"_percpu.bpf.o "$PROBE"_uprobe.bpf.o "" "" count_getpid ""
	[ "$status" -eq 2 ]
	[[ "$output" == "cost: BASE_PROG and CANDIDATE_PROG name one program each: "* ]]
}

@test "WORKLOAD: a command fires the hooks, timed the same way" {
	FBF_COST_WORKLOAD="cat /proc/version >/dev/null" FBF_COST_SET=targ_uid=0xffffffff \
		FBF_COST_ROUNDS=3 cost measure "$TRACE/opensnoop.bpf.o"
	[ "$status" -eq 0 ]
	grep -E '^tracepoint__syscalls__sys_exit_openat +tracepoint/syscalls/sys_exit_openat +openat +[0-9.]+ ' \
		<<<"$output"
	grep -E '^command +wall +[0-9,.]+ +[0-9,.]+ ' <<<"$output"
	check_bmf_measures "$RESULTS/cost.bmf.json" cost/workload/command:latency \
		cost/workload/command/bare:latency
}

@test "bad input: each one line and its status" {
	if has_kprobes; then
		cost measure "$PROBE"_no_func.bpf.o
		[ "$status" -eq 30 ]
		[[ "$output" == "cost: no_func (kprobe/fbf_no_such_function): this kernel ($(uname -r)) has no function fbf_no_such_function: "* ]]
	fi
	cost measure "$PROBE"_no_tp.bpf.o
	[ "$status" -eq 30 ]
	[[ "$output" == "cost: no_tp (tracepoint/syscalls/sys_enter_fbf_no_such_call): this kernel"*" has no tracepoint sys_enter_fbf_no_such_call: "* ]]
	cost measure "$PROBE"_no_binary.bpf.o
	[ "$status" -eq 32 ]
	[[ "$output" == "cost: no_binary (uprobe//usr/lib/fbf-no-such-binary:main): no binary /usr/lib/fbf-no-such-binary on this host: "* ]]
	cost measure "$PROBE"_no_symbol.bpf.o
	[ "$status" -eq 32 ]
	[[ "${lines[-1]}" == "cost: no_symbol (uprobe/libc.so.6:fbf_no_such_symbol): the binary has no function fbf_no_such_symbol: "* ]]
	cost measure "$PROBE"_unfired.bpf.o
	[ "$status" -eq 35 ]
	[[ "$output" == "cost: no built-in trigger fires on_reboot (tracepoint/syscalls/sys_enter_reboot): give a command that does, WORKLOAD="* ]]
	FBF_COST_WORKLOAD=true cost measure "$PROBE"_unfired.bpf.o
	[ "$status" -eq 34 ]
	[[ "${lines[-1]}" == "cost: WORKLOAD ran no program of "*": it never reached the hooks"* ]]
	FBF_COST_WORKLOAD=false cost measure "$PROBE"_shared.bpf.o
	[ "$status" -eq 33 ]
	[[ "$output" == 'cost: WORKLOAD "false" exited 1: '* ]]
	cost measure "$PROBE"_other_type.bpf.o
	[ "$status" -eq 4 ]
	[[ "$output" == *"other_type (cgroup_skb, SEC(\"cgroup_skb/ingress\"))"*"it takes XDP, TC and tracing programs"* ]]
	run setpriv --reuid=65534 --regid=65534 --clear-groups bench/cost/cost.sh measure \
		"$PROBE"_shared.bpf.o
	[ "$status" -eq 10 ]
	[[ "$output" == "cost: needs root"* ]]
}

@test "on this kernel: an LSM program runs where bpf is an active LSM, else one line says so" {
	cost measure "$PROBE"_lsm.bpf.o
	if [ "$status" -eq 36 ]; then
		# A kernel without BPF trampolines refuses it, whatever its LSM list (one before
		# 5.13, which attaches it once a load, runs a copy loaded for each attach).
		[[ "${lines[-1]}" == "cost: allow_open (lsm/file_open): this kernel"*" refused to load it: "* ]]
	elif grep -qw bpf /sys/kernel/security/lsm 2>/dev/null; then
		[ "$status" -eq 0 ]
		grep -E '^allow_open +lsm/file_open +openat  +1\.[0-9]+ ' <<<"$output"
	else
		[ "$status" -eq 31 ]
		[[ "$output" == "cost: allow_open (lsm/file_open): bpf is not among this kernel's active LSMs "*": boot it with lsm="*"bpf" ]]
	fi
}

@test "LINES=1: the hot lines of a tracing program, its perf output among them" {
	command -v perf >/dev/null || skip "perf is not installed (make deps installs it)"
	FBF_COST_LINES=1 FBF_COST_LINES_ROUNDS=2 FBF_COST_CPU_ROUNDS=0 \
		FBF_COST_SET=targ_uid=0xffffffff cost measure "$TRACE/opensnoop.bpf.o"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Hot lines: "* ]]
	# The exit program builds an event and writes it: that helper holds the most.
	grep -E '^ *[0-9.]+% +testing/third_party/bcc-libbpf-tools/opensnoop\.bpf\.c:[0-9]+ +bpf_perf_event_output\(' \
		<<<"$output"
	[ -s "$RESULTS/cost-lines.txt" ]
}

@test "on this kernel: a tracepoint on getpid(2)'s entry" {
	cost measure "$PROBE"_percpu.bpf.o
	[ "$status" -eq 0 ]
	grep -E '^count_getpid +tracepoint/syscalls/sys_enter_getpid +getpid +[0-9.]+ +[0-9,.]+ ' \
		<<<"$output"
}

@test "on this kernel: raw_tp and tp_btf on sys_enter, or one line saying the kernel has no BTF" {
	cost measure "$PROBE"_raw_tp.bpf.o
	if [ -r /sys/kernel/btf/vmlinux ]; then
		[ "$status" -eq 0 ]
		grep -E '^raw_enter +raw_tp/sys_enter +getpid +[0-9.]+ +[0-9,.]+ ' <<<"$output"
		grep -E '^btf_enter +tp_btf/sys_enter +getpid +[0-9.]+ +[0-9,.]+ ' <<<"$output"
	else
		[ "$status" -eq 36 ]
		[[ "$output" == "cost: btf_enter (tp_btf/sys_enter): this kernel ($(uname -r)) has no BTF "* ]]
	fi
}

@test "on this kernel: a perf_event program on the cpu-clock, its ns a sample" {
	cost measure "$PROBE"_perf_event.bpf.o
	[ "$status" -eq 0 ]
	grep -E '^sample +perf_event +cpu +[0-9.]+ +[0-9,.]+ ' <<<"$output"
	grep -E '^  sample: [0-9,.]+ ns a sample, [0-9,.]+ samples a second on each CPU \(cpu-clock at 100 Hz\)' \
		<<<"$output"
}

@test "on this kernel: kprobe_multi on bprm_execve, or one line saying why the kernel cannot" {
	FBF_COST_WORKLOAD=true cost measure "$PROBE"_kprobe_multi.bpf.o
	if [ "$status" -eq 0 ]; then
		grep -E '^multi_exec +kprobe\.multi/bprm_execve +[^ ]+ +[0-9.]+ +[0-9,.]+ ' \
			<<<"$output"
	else
		[ "$status" -eq 36 ]
		[[ "${lines[-1]}" == "cost: multi_exec (kprobe.multi/bprm_execve): "* ]]
		[[ "${lines[-1]}" == *"this kernel ($(uname -r)) has no kprobes "* ||
		   "${lines[-1]}" == *"kprobe_multi links came in 5.18; this kernel is $(uname -r): "* ||
		   "${lines[-1]}" == *"this kernel ($(uname -r)) refused to attach it: "* ]]
	fi
}

@test "the trigger table in docs/benchmarks.md is cost_trace's own" {
	run "$FBF_BUILD/bench/cost_trace" triggers
	[ "$status" -eq 0 ]
	[[ "$(cat docs/benchmarks.md)" == *"$output"* ]]
}
