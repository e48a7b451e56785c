/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A program's run-time statistics, run_time_ns and run_cnt, read from
 * /proc/self/fdinfo rather than through bpf(2): an LSM program on the bpf
 * hook may refuse the tool's own bpf(2) calls while it is attached, as
 * libbpf-bootstrap's lsm example refuses them all.
 */
#ifndef FBF_TRACE_STATS_H
#define FBF_TRACE_STATS_H

#include <stdbool.h>

struct trace_stats {
	unsigned long long run_time_ns, run_cnt;
};

/* Program @fd's statistics so far: 0, or -errno. */
int trace_stats_read(int fd, struct trace_stats *s);

/*
 * The statistics switched on (BPF_STATS_RUN_TIME, 5.8) while the returned fd is
 * open: the fd, or -errno.
 */
int trace_stats_enable(void);

/* Whether the statistics are on for everyone (kernel.bpf_stats_enabled), ours aside. */
bool trace_stats_always_on(void);

/*
 * bpf_stats' own ns per run on this host: an empty program on getpid(2)'s
 * tracepoint, for this process alone, getpid called with the statistics on and
 * off in turns, @rounds pairs of @ms each: the median of the pairs' differences
 * into @ns; 0, or -errno. Two clock reads a run, which every program measured
 * with bpf_stats pays and which production, without them, does not.
 */
int trace_stats_own_cost(int rounds, int ms, double *ns);

#endif /* FBF_TRACE_STATS_H */
