// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Run-time statistics from fdinfo: see trace_stats.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>

#include "trace_stats.h"

int trace_stats_read(int fd, struct trace_stats *s)
{
	char path[64], line[256];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	s->run_time_ns = s->run_cnt = 0;
	while (fgets(line, sizeof(line), f))
		found += sscanf(line, "run_time_ns: %llu", &s->run_time_ns) == 1 ||
			 sscanf(line, "run_cnt: %llu", &s->run_cnt) == 1;
	fclose(f);
	return found == 2 ? 0 : -ENOTSUP;
}

int trace_stats_enable(void)
{
	int fd = bpf_enable_stats(BPF_STATS_RUN_TIME);

	return fd < 0 ? -errno : fd;
}

bool trace_stats_always_on(void)
{
	FILE *f = fopen("/proc/sys/kernel/bpf_stats_enabled", "r");
	int on = 0;

	if (f) {
		if (fscanf(f, "%d", &on) != 1)
			on = 0;
		fclose(f);
	}
	return on;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* getpid(2) for @ms: ns per call. */
static double getpid_ns(int ms)
{
	double start = now_ns(), end = start + ms * 1e6, t;
	unsigned long calls = 0;

	do {
		for (int i = 0; i < 16; i++)
			syscall(SYS_getpid);
		calls += 16;
		t = now_ns();
	} while (t < end);
	return (t - start) / calls;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The tracepoint's id, tracefs mounted where trace_hook.c mounts it. */
static int getpid_tracepoint_id(void)
{
	FILE *f = fopen("/sys/kernel/tracing/events/syscalls/sys_enter_getpid/id", "r");
	int id = -1;

	if (!f)
		return -ENOENT;
	if (fscanf(f, "%d", &id) != 1)
		id = -EINVAL;
	fclose(f);
	return id;
}

int trace_stats_own_cost(int rounds, int ms, double *ns)
{
	/* r0 = 0; exit: the least a program can be. */
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct perf_event_attr attr = { .type = PERF_TYPE_TRACEPOINT, .size = sizeof(attr),
					.sample_period = 1, .wakeup_events = 1 };
	int id = getpid_tracepoint_id(), prog, pfd, stats;
	double *diff;

	if (id < 0)
		return id;
	attr.config = id;
	prog = bpf_prog_load(BPF_PROG_TYPE_TRACEPOINT, "fbf_stats_cost", "GPL", insns, 2, NULL);
	if (prog < 0)
		return -errno;
	pfd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0 || ioctl(pfd, PERF_EVENT_IOC_SET_BPF, prog) ||
	    ioctl(pfd, PERF_EVENT_IOC_ENABLE, 0)) {
		int err = -errno;

		if (pfd >= 0)
			close(pfd);
		close(prog);
		return err;
	}
	diff = calloc(rounds, sizeof(*diff));
	for (int r = 0; diff && r < rounds; r++) {
		double off, on;

		/* Each order in turn: neither always runs first. */
		if (r % 2)
			off = getpid_ns(ms);
		stats = trace_stats_enable();
		on = getpid_ns(ms);
		if (stats >= 0)
			close(stats);
		if (!(r % 2))
			off = getpid_ns(ms);
		diff[r] = on - off;
	}
	close(pfd);
	close(prog);
	if (!diff)
		return -ENOMEM;
	qsort(diff, rounds, sizeof(*diff), cmp_double);
	*ns = diff[rounds / 2];
	free(diff);
	return 0;
}
