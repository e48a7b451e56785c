// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The cost tool's threads on every CPU: see cost_cpus.h. */
#define _GNU_SOURCE /* pthread_attr_setaffinity_np, CPU_SET */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "cost_cpus.h"
#include "cost_hold.h"

struct worker {
	struct cost_cpus *pool;
	pthread_t thread;
	int index;
	/* This step's: when its calls began and returned, the kernel's mean ns, the action. */
	__u64 start_ns, end_ns;
	double ns;
	__u32 action;
	int err;
};

struct cost_cpus {
	pthread_mutex_t lock;
	pthread_cond_t go, done;
	unsigned long generation;	/* one more for each step */
	int n, finished;
	bool quit;
	atomic_int ready;		/* threads of this step at the start line */
	int prog_fd;
	const struct cost_cpus_work *work;
	int nr_workers;
	struct worker workers[];
};

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void worker_step(struct worker *w)
{
	struct cost_cpus *pool = w->pool;
	const struct cost_cpus_work *work = pool->work;
	double sum = 0;

	/*
	 * The start line: each thread was woken on its own, so none calls
	 * before all are awake, or the first would run its loop alone. It
	 * yields as it waits: a real-time thread that spun would keep its CPU
	 * from another's waiting thread of the same priority (two cost runs at
	 * once, each pinned to every CPU, each waiting on the other) for ever.
	 */
	atomic_fetch_add(&pool->ready, 1);
	while (atomic_load(&pool->ready) < pool->n)
		sched_yield();
	w->start_ns = now_ns();
	w->err = 0;
	for (int c = 0; !w->err && c < work->calls; c++) {
		LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = work->frames[c % work->nr],
			    .data_size_in = work->lens[c % work->nr], .repeat = work->repeat);

		w->err = bpf_prog_test_run_opts(pool->prog_fd, &opts) ? -errno : 0;
		sum += opts.duration;
		if (!c)
			w->action = opts.retval;
	}
	w->end_ns = now_ns();
	w->ns = sum / work->calls;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct cost_cpus *pool = w->pool;
	unsigned long seen = 0;

	pthread_mutex_lock(&pool->lock);
	for (;;) {
		while (pool->generation == seen && !pool->quit)
			pthread_cond_wait(&pool->go, &pool->lock);
		if (pool->quit)
			break;
		seen = pool->generation;
		if (w->index >= pool->n)
			continue;
		pthread_mutex_unlock(&pool->lock);
		worker_step(w);
		pthread_mutex_lock(&pool->lock);
		if (++pool->finished == pool->n)
			pthread_cond_signal(&pool->done);
	}
	pthread_mutex_unlock(&pool->lock);
	return NULL;
}

int cost_cpus_start(struct cost_cpus **out, int *nr_cpus)
{
	struct cost_cpus *pool;
	struct sched_param fifo = { .sched_priority = 1 };
	cpu_set_t allowed;
	int err = 0, cpu = 0;

	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return -errno;
	err = cost_hold_start();
	if (err)
		return err;
	pool = calloc(1, sizeof(*pool) + CPU_COUNT(&allowed) * sizeof(pool->workers[0]));
	if (!pool)
		return -ENOMEM;
	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->go, NULL);
	pthread_cond_init(&pool->done, NULL);
	for (int k = 0; k < CPU_COUNT(&allowed); k++, cpu++) {
		struct worker *w = &pool->workers[k];
		pthread_attr_t attr;
		cpu_set_t one;

		while (!CPU_ISSET(cpu, &allowed))
			cpu++;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		w->pool = pool;
		w->index = k;
		pthread_attr_init(&attr);
		err = -pthread_attr_setaffinity_np(&attr, sizeof(one), &one) ?:
		      -pthread_create(&w->thread, &attr, worker_main, w);
		/*
		 * Real-time priority where the host allows it: other work on a CPU
		 * waits for a timed loop rather than splitting it, so the loops
		 * overlap on a busy host too (the kernel keeps some of each second
		 * for other work all the same). Where it may not, the overlap the
		 * figures report says what that cost.
		 */
		if (!err)
			pthread_setschedparam(w->thread, SCHED_FIFO, &fifo);
		pthread_attr_destroy(&attr);
		if (err)
			break;
		pool->nr_workers++;
	}
	if (err) {
		cost_cpus_stop(pool);
		return err;
	}
	*out = pool;
	*nr_cpus = pool->nr_workers;
	return 0;
}

int cost_cpus_run(struct cost_cpus *pool, int n, int prog_fd, const struct cost_cpus_work *work,
		  struct cost_cpus_step *step)
{
	__u64 first_start = ~0ULL, last_start = 0, first_end = ~0ULL, last_end = 0;
	double sum_ns = 0;

	if (n < 1 || n > pool->nr_workers)
		return -EINVAL;
	pthread_mutex_lock(&pool->lock);
	pool->n = n;
	pool->finished = 0;
	atomic_store(&pool->ready, 0);
	pool->prog_fd = prog_fd;
	pool->work = work;
	pool->generation++;
	pthread_cond_broadcast(&pool->go);
	while (pool->finished < n)
		pthread_cond_wait(&pool->done, &pool->lock);
	pthread_mutex_unlock(&pool->lock);

	for (int k = 0; k < n; k++) {
		const struct worker *w = &pool->workers[k];
		/*
		 * One call's timed loop ended as the call returned (what follows
		 * it is a copy of the frame out) and lasted its runs at their
		 * mean, which the kernel rounds down to a whole ns: half a ns more
		 * each, a fifth of a cheap program's, and never before the call.
		 * Many calls' runs are spread over all of them.
		 */
		__u64 loop_ns = (w->ns + 0.5) * work->repeat;
		__u64 start = work->calls == 1 && w->end_ns - w->start_ns > loop_ns ?
			      w->end_ns - loop_ns : w->start_ns;

		if (w->err)
			return w->err;
		sum_ns += w->ns;
		first_start = start < first_start ? start : first_start;
		last_start = start > last_start ? start : last_start;
		first_end = w->end_ns < first_end ? w->end_ns : first_end;
		last_end = w->end_ns > last_end ? w->end_ns : last_end;
	}
	step->ns = sum_ns / n;
	step->overlap_ns = first_end > last_start ? first_end - last_start : 0;
	step->span_ns = last_end - first_start;
	step->action = pool->workers[0].action;
	return 0;
}

void cost_cpus_stop(struct cost_cpus *pool)
{
	if (!pool)
		return;
	pthread_mutex_lock(&pool->lock);
	pool->quit = true;
	pthread_cond_broadcast(&pool->go);
	pthread_mutex_unlock(&pool->lock);
	for (int k = 0; k < pool->nr_workers; k++)
		pthread_join(pool->workers[k].thread, NULL);
	pthread_mutex_destroy(&pool->lock);
	pthread_cond_destroy(&pool->go);
	pthread_cond_destroy(&pool->done);
	free(pool);
}
