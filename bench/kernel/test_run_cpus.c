// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A loaded XDP program run by BPF_PROG_TEST_RUN from N CPUs at once: one
 * thread pinned to each of CPUs 0 to N-1, all released together, each making
 * test runs of REPEAT runs of the Fizz frame (an event per run) until
 * SECONDS after the release (one at least), so that a thread that starts
 * late still ends with the others:
 *
 *   test_run_cpus PROG_ID|OBJECT N REPEAT SECONDS
 *
 * Prints "measure<TAB>value" lines: ns-per-run (the kernel's mean over every
 * thread's runs), runs-per-s (every thread's runs over its kernel time,
 * summed: what all CPUs together pass), overlap-percent (the span in which
 * every thread was inside its runs, of the span in which any was: a call's
 * setup of about half a millisecond on 6.18 is outside the kernel's timed
 * loop, and REPEAT of 10^5 or more keeps it small) and wall-s. The program
 * is run where it lives: a live agent's program sends its events to the
 * agent's queue or ring, which the agent drains. An object file's (bare
 * XDP_PASS's) first program is loaded here.
 */
#define _GNU_SOURCE /* pthread_setaffinity_np */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "kernel_cases.h"
#include "parse_num.h"
#include "prog_id.h"

#define MAX_THREADS 1024

struct worker {
	pthread_t thread;
	int cpu;
	double ns;		/* the kernel's ns over all its runs */
	double runs;
	double start, end;	/* CLOCK_MONOTONIC, s */
	int err;
};

static int prog_fd, repeat;
static double seconds, deadline;
static const struct kernel_case *fizz;
static pthread_barrier_t go, deadline_set;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	cpu_set_t cpus;
	double ns;
	__u32 action;

	CPU_ZERO(&cpus);
	CPU_SET(w->cpu, &cpus);
	w->err = pthread_setaffinity_np(pthread_self(), sizeof(cpus), &cpus);
	if (pthread_barrier_wait(&go) == PTHREAD_BARRIER_SERIAL_THREAD)
		deadline = now() + seconds;
	pthread_barrier_wait(&deadline_set);
	if (w->err)
		return NULL;
	w->start = now();
	do {
		w->err = -kernel_frame_run(prog_fd, fizz->frame, fizz->len, repeat, &ns, &action);
		w->ns += ns * repeat;
		w->runs += repeat;
		w->end = now();
	} while (!w->err && w->end < deadline);
	return NULL;
}

/* An fd for the program @arg names: an id, or an object file whose first program is loaded. */
static int open_prog(const char *arg)
{
	struct bpf_object *obj;
	size_t len = strlen(arg);

	if (len < 2 || strcmp(arg + len - 2, ".o"))
		return fbf_prog_fd_from_arg("test_run_cpus", arg);
	obj = bpf_object__open_file(arg, NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "test_run_cpus: loading %s: %s\n", arg, strerror(errno));
		return -1;
	}
	return bpf_program__fd(bpf_object__next_program(obj, NULL));
}

int main(int argc, char **argv)
{
	static struct kernel_case cases[KERNEL_CASES_MAX];
	static struct worker w[MAX_THREADS];
	double ns = 0, rate = 0, first = 1e300, last = 0, all_in = 0, all_out = 1e300;
	__u64 n, r, s_ns;
	size_t nr_cases = kernel_cases_build(cases);

	if (argc != 5 || parse_u64_range(argv[2], 1, MAX_THREADS, &n) ||
	    parse_u64_range(argv[3], 1, 1U << 30, &r) || parse_seconds_ns(argv[4], 3600, &s_ns)) {
		fprintf(stderr, "usage: test_run_cpus PROG_ID|OBJECT N REPEAT SECONDS (N: 1..%d)\n",
			MAX_THREADS);
		return 2;
	}
	if ((long)n > sysconf(_SC_NPROCESSORS_ONLN)) {
		fprintf(stderr, "test_run_cpus: %llu CPUs asked for, %ld online\n", n,
			sysconf(_SC_NPROCESSORS_ONLN));
		return 2;
	}
	prog_fd = open_prog(argv[1]);
	if (prog_fd < 0)
		return -prog_fd;
	repeat = r;
	seconds = s_ns / 1e9;
	for (size_t i = 0; i < nr_cases; i++)
		if (!strcmp(cases[i].name, "ipv4-fizz"))
			fizz = &cases[i];
	pthread_barrier_init(&go, NULL, n);
	pthread_barrier_init(&deadline_set, NULL, n);
	for (__u64 i = 0; i < n; i++) {
		w[i].cpu = i;
		if (pthread_create(&w[i].thread, NULL, work, &w[i])) {
			fprintf(stderr, "test_run_cpus: starting thread %llu failed\n", i);
			return 1;
		}
	}
	for (__u64 i = 0; i < n; i++)
		pthread_join(w[i].thread, NULL);
	for (__u64 i = 0; i < n; i++) {
		if (w[i].err) {
			fprintf(stderr, "test_run_cpus: on CPU %d: %s\n", w[i].cpu, strerror(w[i].err));
			return 1;
		}
		ns += w[i].ns / w[i].runs / n;
		/* The kernel's mean is whole ns: a program faster than 1 ns reads 0. */
		rate += w[i].ns ? w[i].runs * 1e9 / w[i].ns : 0;
		first = w[i].start < first ? w[i].start : first;
		last = w[i].end > last ? w[i].end : last;
		all_in = w[i].start > all_in ? w[i].start : all_in;
		all_out = w[i].end < all_out ? w[i].end : all_out;
	}
	printf("ns-per-run\t%.2f\n", ns);
	printf("runs-per-s\t%.0f\n", rate);
	printf("overlap-percent\t%.1f\n", all_out > all_in ? 100 * (all_out - all_in) /
	       (last - first) : 0.0);
	printf("wall-s\t%.3f\n", last - first);
	return 0;
}
