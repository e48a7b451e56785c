/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the in-kernel benchmarks run and read: one frame of each shape the
 * program tells apart, and the loaded program's static figures. Shared by
 * the macro benchmark (bench/kernel/kernel_test_run.c) and the cost tool's
 * runner (bench/cost/packet/cost_run.c), which the gate times fizzbuzzfib with, so
 * both time the same frames and name them alike.
 */
#ifndef FBF_KERNEL_CASES_H
#define FBF_KERNEL_CASES_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "frames.h"

#define KERNEL_CASES_MAX 8

struct kernel_case {
	const char *name;
	__u8 frame[FRAME_MAX_LEN];
	size_t len;
	bool pushes;	/* the shipped classifier pushes an event for this frame */
};

/* Fill @cases (KERNEL_CASES_MAX of them) and return how many there are. */
size_t kernel_cases_build(struct kernel_case *cases);

/*
 * Mean ns per run of program @prog_fd over @repeat runs of the @len bytes of
 * @frame, as the kernel timed it, and the action it returned: 0 or -errno.
 */
int kernel_frame_run(int prog_fd, const void *frame, size_t len, int repeat, double *ns,
		     __u32 *action);

/*
 * Mean ns per run of program @prog_fd over @repeat runs of @c's frame, as the
 * kernel timed it: 0, -errno, or -EPROTO if the program did not pass the frame.
 */
int kernel_case_time(int prog_fd, const struct kernel_case *c, int repeat, double *ns);

/* What verification and JIT made of a loaded program: exact for one object and kernel. */
struct prog_static_figures {
	__u32 verified_insns;
	__u32 xlated_insns;
	__u32 jited_bytes;
};

int prog_static_figures(int prog_fd, struct prog_static_figures *fig);

#endif /* FBF_KERNEL_CASES_H */
