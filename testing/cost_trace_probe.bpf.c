// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Small tracing programs for the cost tool's tracing tests
 * (bench/cost/trace/cost_trace.bats), each a build of this file:
 *
 *   -DTRACE_SHARED    getpid(2)'s tracepoint counts each call TRACE_COUNTS times into
 *                     one hash map value every CPU shares, with atomic adds: on several
 *                     CPUs at once, a cache line they fight over (the curve must flag it)
 *   -DTRACE_PERCPU    the same count into a per-CPU hash map: flat on any number
 *   -DTRACE_UPROBE    a uprobe on the C library's getpid(), the same count
 *   -DTRACE_NO_FUNC   a kprobe on a function no kernel has
 *   -DTRACE_NO_TP     a tracepoint no kernel has
 *   -DTRACE_LSM       an LSM program on file_open that allows everything
 *   -DTRACE_NO_BINARY a uprobe on a binary no host has
 *   -DTRACE_NO_SYMBOL a uprobe on a function the C library lacks
 *   -DTRACE_UNFIRED   a tracepoint no built-in trigger fires (reboot(2)'s)
 *   -DTRACE_OTHER_TYPE a cgroup_skb program: a type the tool does not measure
 *   -DTRACE_RAW_TP    a raw_tp and a tp_btf program on the sys_enter raw tracepoint
 *   -DTRACE_PERF_EVENT a perf_event program that does nothing but run
 *   -DTRACE_KPROBE_MULTI a kprobe_multi program on bprm_execve (5.18, fprobe)
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#if defined(TRACE_SHARED) || defined(TRACE_PERCPU) || defined(TRACE_UPROBE)
/* The adds each call makes. */
#define TRACE_COUNTS 16

struct {
#ifdef TRACE_PERCPU
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
#else
	__uint(type, BPF_MAP_TYPE_HASH);
#endif
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} calls SEC(".maps");

static __always_inline void count(void)
{
	__u32 key = 0;
	__u64 one = 1, *value = bpf_map_lookup_elem(&calls, &key);

	if (!value) {
		bpf_map_update_elem(&calls, &key, &one, BPF_NOEXIST);
		return;
	}
	/* Several adds a call: the cache line's fight, not the syscall, decides the cost. */
#pragma unroll
	for (int i = 0; i < TRACE_COUNTS; i++) {
#ifdef TRACE_PERCPU
		*(volatile __u64 *)value += 1;
#else
		__sync_fetch_and_add(value, 1);
#endif
	}
}
#endif

#if defined(TRACE_SHARED) || defined(TRACE_PERCPU)
SEC("tracepoint/syscalls/sys_enter_getpid")
int count_getpid(void *ctx)
{
	count();
	return 0;
}
#elif defined(TRACE_UPROBE)
SEC("uprobe/libc.so.6:getpid")
int count_libc_getpid(void *ctx)
{
	count();
	return 0;
}
#elif defined(TRACE_NO_FUNC)
SEC("kprobe/fbf_no_such_function")
int no_func(void *ctx)
{
	return 0;
}
#elif defined(TRACE_NO_TP)
SEC("tracepoint/syscalls/sys_enter_fbf_no_such_call")
int no_tp(void *ctx)
{
	return 0;
}
#elif defined(TRACE_LSM)
SEC("lsm/file_open")
int allow_open(unsigned long long *ctx)
{
	return 0;
}
#elif defined(TRACE_NO_BINARY)
SEC("uprobe//usr/lib/fbf-no-such-binary:main")
int no_binary(void *ctx)
{
	return 0;
}
#elif defined(TRACE_NO_SYMBOL)
SEC("uprobe/libc.so.6:fbf_no_such_symbol")
int no_symbol(void *ctx)
{
	return 0;
}
#elif defined(TRACE_UNFIRED)
SEC("tracepoint/syscalls/sys_enter_reboot")
int on_reboot(void *ctx)
{
	return 0;
}
#elif defined(TRACE_OTHER_TYPE)
SEC("cgroup_skb/ingress")
int other_type(struct __sk_buff *skb)
{
	return 1;
}
#elif defined(TRACE_RAW_TP)
SEC("raw_tp/sys_enter")
int raw_enter(void *ctx)
{
	return 0;
}

SEC("tp_btf/sys_enter")
int btf_enter(void *ctx)
{
	return 0;
}
#elif defined(TRACE_PERF_EVENT)
SEC("perf_event")
int sample(void *ctx)
{
	return 0;
}
#elif defined(TRACE_KPROBE_MULTI)
SEC("kprobe.multi/bprm_execve")
int multi_exec(void *ctx)
{
	return 0;
}
#endif
