/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The same program run through BPF_PROG_TEST_RUN on several CPUs at once:
 * one thread pinned to each CPU this process may use, started together on
 * the same frame. What a program costs once every CPU of a server runs it:
 * a shared map value, lock or ring costs nothing extra on one CPU and a
 * cache line fought over on many.
 */
#ifndef FBF_COST_CPUS_H
#define FBF_COST_CPUS_H

#include <stddef.h>
#include <linux/types.h>

struct cost_cpus;

/* What one step measured, its threads together. */
struct cost_cpus_step {
	double ns;		/* the kernel's mean ns per run, over the threads */
	double overlap_ns;	/* how long every thread's timed loop ran at once */
	double span_ns;		/* from the first loop's start to the last one's end */
	__u32 action;		/* what the program returned (the first thread's) */
};

/*
 * Start one thread on each CPU this process may run on, pinned there, and
 * say how many in *@nr_cpus: 0, or -errno with nothing started. The process
 * moves into a network namespace of its own (cost_hold_start()): call it
 * before any other thread exists.
 */
int cost_cpus_start(struct cost_cpus **pool, int *nr_cpus);

/*
 * What each thread runs in one step: @calls calls of BPF_PROG_TEST_RUN, each
 * of @repeat runs, on @frames in turn. One call of many runs repeats the
 * program on its own output after the first; calls of one run each keep every
 * run on its first pass over the frame as given (a program that rewrites it,
 * a capture's frames in order), the kernel timer's own reading in each.
 */
struct cost_cpus_work {
	const void *const *frames;
	const __u32 *lens;
	size_t nr;
	int calls, repeat;
};

/*
 * On the first @n CPUs at once, @work with program @prog_fd in each thread,
 * all released together. Its figures into @step (ns: the mean per run): 0, or
 * -errno of the first thread that failed.
 */
int cost_cpus_run(struct cost_cpus *pool, int n, int prog_fd, const struct cost_cpus_work *work,
		  struct cost_cpus_step *step);

void cost_cpus_stop(struct cost_cpus *pool);

#endif /* FBF_COST_CPUS_H */
