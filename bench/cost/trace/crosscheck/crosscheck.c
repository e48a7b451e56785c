// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * crosscheck: what a tracing object adds to one system call, measured apart
 * from the cost tool (it shares none of its code; bench/cost/trace/crosscheck.sh
 * sets the two side by side). Plain libbpf, as a tool's own loader does it:
 * the object opened, its .rodata globals set (SET), loaded, every program
 * attached with bpf_program__attach(), a perf buffer on each perf event array
 * polled from a thread on the last CPU; then on CPU 0, in alternating blocks,
 * CALLS calls of the workload with every link destroyed (bare) and with the
 * programs attached, timed with clock_gettime().
 *
 *   crosscheck [-s NAME=VALUE,...] [-n CALLS | -t MS] [-b BLOCKS] [-P POLL_MS]
 *              openat|getpid OBJECT
 *
 * A block is CALLS calls (5000), or with -t as many as MS milliseconds take;
 * BLOCKS (40) blocks of each kind; POLL_MS (100) the reader's poll timeout.
 * openat: openat(2) of a file of its own, read-only, then close(2); getpid:
 * getpid(2) through syscall(2). Prints one line of "key=value" pairs: the
 * median wall-clock ns per call bare and attached over the blocks, the median
 * of the pairs' differences (added); the same in the thread's own CPU time
 * (CLOCK_THREAD_CPUTIME_ID: without the time another thread had the CPU);
 * the share of blocks preempted (an involuntary switch, getrusage()); the
 * events read and lost.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#define MAX_LINKS 64
#define MAX_BLOCKS 10000
/* opensnoop's own: 64 pages a CPU, a poll that waits up to 100 ms. */
#define PERF_PAGES 64
#define POLL_MS 100

static struct bpf_link *links[MAX_LINKS];
static struct bpf_program *progs[MAX_LINKS];
static int nr_progs;
static char path[64];
static volatile int stop_reader;
static int poll_ms = POLL_MS;
static unsigned long long events_read, events_lost;

static double now(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static long switches(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_nivcsw;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		fprintf(stderr, "crosscheck: cannot pin to CPU %d: %s\n", cpu, strerror(errno));
}

/* One global of .rodata (or .data, .bss) set before the load, found by its BTF. */
static int set_global(struct bpf_object *obj, const char *name, unsigned long long value)
{
	struct btf *btf = bpf_object__btf(obj);
	struct bpf_map *map;

	bpf_object__for_each_map(map, obj) {
		const char *sec = bpf_map__name(map);
		const struct btf_var_secinfo *vs;
		const struct btf_type *t;
		const char *dot = strchr(sec, '.');
		size_t size;
		char *copy;
		int id;

		/* libbpf names the map OBJNAME.rodata (shortened); the section is ".rodata". */
		if (!dot || !bpf_map__initial_value(map, &size))
			continue;
		id = btf__find_by_name_kind(btf, dot, BTF_KIND_DATASEC);
		if (id < 0)
			continue;
		t = btf__type_by_id(btf, id);
		vs = btf_var_secinfos(t);
		for (int i = 0; i < btf_vlen(t); i++, vs++) {
			const struct btf_type *var = btf__type_by_id(btf, vs->type);
			int err;

			if (strcmp(btf__name_by_offset(btf, var->name_off), name))
				continue;
			copy = malloc(size);
			if (!copy)
				return -ENOMEM;
			memcpy(copy, bpf_map__initial_value(map, &size), size);
			switch (vs->size) {
			case 1: *(__u8 *)(copy + vs->offset) = value; break;
			case 2: *(__u16 *)(copy + vs->offset) = value; break;
			case 4: *(__u32 *)(copy + vs->offset) = value; break;
			case 8: *(__u64 *)(copy + vs->offset) = value; break;
			default: free(copy); return -EINVAL;
			}
			err = bpf_map__set_initial_value(map, copy, size);
			free(copy);
			return err;
		}
	}
	return -ENOENT;
}

static int set_globals(struct bpf_object *obj, const char *list)
{
	char *copy = strdup(list), *save = NULL;
	int err = 0;

	for (char *tok = strtok_r(copy, ",", &save); tok && !err;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');

		if (!eq) {
			err = -EINVAL;
			break;
		}
		*eq = '\0';
		err = set_global(obj, tok, strtoull(eq + 1, NULL, 0));
		if (err)
			fprintf(stderr, "crosscheck: cannot set %s: %s\n", tok, strerror(-err));
	}
	free(copy);
	return err;
}

static void on_event(void *ctx, int cpu, void *data, __u32 size)
{
	(void)ctx;
	(void)cpu;
	(void)data;
	(void)size;
	__atomic_add_fetch(&events_read, 1, __ATOMIC_RELAXED);
}

static void on_lost(void *ctx, int cpu, __u64 count)
{
	(void)ctx;
	(void)cpu;
	__atomic_add_fetch(&events_lost, count, __ATOMIC_RELAXED);
}

static void *reader(void *arg)
{
	struct perf_buffer *pb = arg;

	pin(libbpf_num_possible_cpus() - 1);
	while (!stop_reader)
		perf_buffer__poll(pb, poll_ms);
	return NULL;
}

static int attach(void)
{
	for (int i = 0; i < nr_progs; i++) {
		links[i] = bpf_program__attach(progs[i]);
		if (!links[i]) {
			fprintf(stderr, "crosscheck: cannot attach %s: %s\n",
				bpf_program__name(progs[i]), strerror(errno));
			return -1;
		}
	}
	return 0;
}

static void detach(void)
{
	for (int i = 0; i < nr_progs; i++) {
		bpf_link__destroy(links[i]);
		links[i] = NULL;
	}
}

static void call_openat(void)
{
	int fd = openat(AT_FDCWD, path, O_RDONLY);

	if (fd >= 0)
		close(fd);
}

static void call_getpid(void)
{
	syscall(SYS_getpid);
}

/* One block of @n calls: wall ns per call, the thread's CPU ns per call, preemptions. */
struct block {
	double wall, cpu;
	long preempted;
};

static struct block block(void (*call)(void), long n, double ms)
{
	long sw = switches(), done = 0;
	double wall = now(CLOCK_MONOTONIC), cpu = now(CLOCK_THREAD_CPUTIME_ID), end;

	/* @ms: as many calls as that many milliseconds take, the clock read every 8. */
	if (ms > 0) {
		end = wall + ms * 1e6;
		do {
			for (int i = 0; i < 8; i++)
				call();
			done += 8;
		} while (now(CLOCK_MONOTONIC) < end);
		n = done;
	} else {
		for (long i = 0; i < n; i++)
			call();
	}
	return (struct block){ (now(CLOCK_MONOTONIC) - wall) / n,
			       (now(CLOCK_THREAD_CPUTIME_ID) - cpu) / n, switches() - sw };
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int usage(void)
{
	fprintf(stderr, "usage: crosscheck [-s NAME=VALUE,...] [-n CALLS | -t MS] [-b BLOCKS] "
		"[-P POLL_MS] openat|getpid OBJECT\n");
	return 2;
}

int main(int argc, char **argv)
{
	static double bare[MAX_BLOCKS], attached[MAX_BLOCKS], diff[MAX_BLOCKS];
	static double bare_cpu[MAX_BLOCKS], attached_cpu[MAX_BLOCKS], diff_cpu[MAX_BLOCKS];
	long preempted = 0;
	const char *globals = NULL;
	long calls = 5000;
	double ms = 0;
	int blocks = 40, opt, status = 1;
	void (*call)(void);
	struct perf_buffer *pb = NULL;
	pthread_t thread;
	struct bpf_object *obj;
	struct bpf_program *p;
	struct bpf_map *map;
	char dir[] = "/tmp/crosscheck.XXXXXX";

	while ((opt = getopt(argc, argv, "s:n:t:b:P:")) != -1) {
		switch (opt) {
		case 's': globals = optarg; break;
		case 'n': calls = atol(optarg); break;
		case 't': ms = atof(optarg); break;
		case 'b': blocks = atoi(optarg); break;
		case 'P': poll_ms = atoi(optarg); break;
		default: return usage();
		}
	}
	if (argc - optind != 2 || calls < 1 || blocks < 1 || blocks > MAX_BLOCKS)
		return usage();
	if (!strcmp(argv[optind], "openat"))
		call = call_openat;
	else if (!strcmp(argv[optind], "getpid"))
		call = call_getpid;
	else
		return usage();

	obj = bpf_object__open_file(argv[optind + 1], NULL);
	if (!obj) {
		fprintf(stderr, "crosscheck: cannot open %s: %s\n", argv[optind + 1],
			strerror(errno));
		return 1;
	}
	if (globals && set_globals(obj, globals))
		goto out;
	if (bpf_object__load(obj)) {
		fprintf(stderr, "crosscheck: cannot load %s: %s\n", argv[optind + 1],
			strerror(errno));
		goto out;
	}
	bpf_object__for_each_program(p, obj) {
		if (nr_progs == MAX_LINKS)
			goto out;
		progs[nr_progs++] = p;
	}
	/* The events read as opensnoop reads them, the whole run long: the first array. */
	bpf_object__for_each_map(map, obj) {
		if (bpf_map__type(map) != BPF_MAP_TYPE_PERF_EVENT_ARRAY || pb)
			continue;
		pb = perf_buffer__new(bpf_map__fd(map), PERF_PAGES, on_event, on_lost, NULL, NULL);
		if (!pb) {
			fprintf(stderr, "crosscheck: perf buffer: %s\n", strerror(errno));
			goto out;
		}
		pthread_create(&thread, NULL, reader, pb);
	}
	if (!mkdtemp(dir))
		goto out;
	snprintf(path, sizeof(path), "%s/file", dir);
	close(open(path, O_CREAT | O_WRONLY, 0600));

	pin(0);
	/* One block of each first, not counted: caches, the file's dentry, the first attach. */
	block(call, calls, ms);
	if (attach())
		goto cleanup;
	block(call, calls, ms);
	detach();
	for (int b = 0; b < blocks; b++) {
		/* ABBA: neither kind always comes first. */
		for (int k = 0; k < 2; k++) {
			bool on = (b + k) % 2;
			struct block r;

			if (on && attach())
				goto cleanup;
			r = block(call, calls, ms);
			if (on)
				detach();
			(on ? attached : bare)[b] = r.wall;
			(on ? attached_cpu : bare_cpu)[b] = r.cpu;
			preempted += r.preempted > 0;
		}
		diff[b] = attached[b] - bare[b];
		diff_cpu[b] = attached_cpu[b] - bare_cpu[b];
	}
	printf("workload=%s calls=%ld ms=%g blocks=%d progs=%d bare=%.1f attached=%.1f added=%.1f "
	       "cpu_bare=%.1f cpu_attached=%.1f cpu_added=%.1f preempted=%.0f%%",
	       argv[optind], ms > 0 ? 0 : calls, ms, blocks, nr_progs, median(bare, blocks),
	       median(attached, blocks), median(diff, blocks), median(bare_cpu, blocks),
	       median(attached_cpu, blocks), median(diff_cpu, blocks),
	       100.0 * preempted / (2 * blocks));
	status = 0;
cleanup:
	detach();
	unlink(path);
	rmdir(dir);
out:
	if (pb) {
		stop_reader = 1;
		pthread_join(thread, NULL);
		perf_buffer__consume(pb);
		perf_buffer__free(pb);
	}
	if (!status)
		printf(" events=%llu lost=%llu\n", events_read, events_lost);
	bpf_object__close(obj);
	return status;
}
