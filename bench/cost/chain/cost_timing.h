/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One IPv4 UDP frame through BPF_PROG_TEST_RUN, for the figures that compare
 * whole programs on one frame (cost_tailcall.h, cost_dispatch.h): the least of
 * several rounds, since noise only ever adds time.
 */
#ifndef FBF_COST_TIMING_H
#define FBF_COST_TIMING_H

#include <linux/types.h>

/* The least ns per run of program @fd over @rounds rounds of @repeat runs: 0 or -errno. */
int cost_timing_min(int fd, int rounds, int repeat, double *ns);

/* 0 if program @fd answers @action to the frame, -ENOENT if it answers another, or -errno. */
int cost_timing_check(int fd, __u32 action);

#endif /* FBF_COST_TIMING_H */
