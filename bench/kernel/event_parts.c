// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One event's cost in the XDP program, part by part, through
 * BPF_PROG_TEST_RUN on the Fizz frame of kernel_test_run: the programs of
 * event_parts.bpf.c (the baseline, which makes no event, then a clock read,
 * a queue push, a ring record without a wake-up, reserved and submitted or
 * copied in by bpf_ringbuf_output(), and with a forced wake-up, and the
 * doorbell) interleaved run by run as kernel_test_run's arms are, so each
 * part's difference from the baseline comes from runs a few milliseconds
 * apart. Prints raw samples as "benchmark<TAB>measure<TAB>value" for
 * bench/report.py, and on stderr each part's median and its difference.
 *
 * Then the same parts cold: COLD_RUNS single runs per arm and round, each
 * after writing over a buffer larger than this CPU's L2, as the TCP stack
 * and the processes between two live packets do; the round's figure is
 * their median (each includes the test run's own clock reads, the same for
 * every arm). Live traffic costs the program more than warm test runs say,
 * and this tells how much of it is the program's own misses.
 *
 * No run meets a full queue or ring, which would skip the copy and look
 * cheaper: each holds all of one test run's records (so a push into the
 * queue does the work it does in production, and no BPF_EXIST overwrite), is
 * emptied, untimed, after the run, and the records are counted.
 *
 *   event_parts EVENT_PARTS_OBJ [ROUNDS [REPEAT]]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "event_maps.h"
#include "fizzbuzzfib.h"
#include "kernel_cases.h"

#define DEFAULT_ROUNDS 10
#define DEFAULT_REPEAT 100000
#define COLD_RUNS 101
/* Larger than the L2 of the CPUs this runs on (2 MiB a core here), not the L3. */
#define COLD_BYTES (8UL << 20)

enum arm { ARM_NONE, ARM_CLOCK, ARM_QUEUE, ARM_RING_NOWAKEUP, ARM_RING_OUTPUT, ARM_RING_WAKEUP,
	   ARM_DOORBELL, NR_ARMS };

static const struct {
	const char *name;	/* the benchmark's: parts/NAME */
	const char *prog;	/* in event_parts.bpf.c */
} arms[NR_ARMS] = {
	[ARM_NONE] = { "none", "part_none" },
	[ARM_CLOCK] = { "clock", "part_clock" },
	[ARM_QUEUE] = { "queue-push", "part_queue_push" },
	[ARM_RING_NOWAKEUP] = { "ring-nowakeup", "part_ring_nowake" },
	[ARM_RING_OUTPUT] = { "ring-output", "part_ring_output" },
	[ARM_RING_WAKEUP] = { "ring-wakeup", "part_ring_wake" },
	[ARM_DOORBELL] = { "doorbell", "part_doorbell" },
};

/*
 * A ring's size for @need bytes of records: a power-of-two number of pages,
 * as the kernel requires, and more than @need, since it never fills the last byte.
 */
static __u64 ring_bytes(__u64 need)
{
	__u64 size = sysconf(_SC_PAGESIZE);

	while (size <= need)
		size <<= 1;
	return size;
}

static int set_size(struct bpf_object *obj, const char *map, __u64 size)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, map);

	return !m ? -ENOENT : size > UINT32_MAX ? -E2BIG : bpf_map__set_max_entries(m, size);
}

/* The array of maps @name: one of @type per CPU, as the classifier's event maps. 0 or -errno. */
static int per_cpu_maps(struct bpf_object *obj, const char *name, enum bpf_map_type type,
			__u32 value_size, __u64 size)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, name);
	int fd, err;

	if (!m)
		return -ENOENT;
	if (size > UINT32_MAX)
		return -E2BIG;
	fd = fbf_event_maps_create(name, type, value_size, size);
	if (fd < 0)
		return fd;
	err = bpf_map__reuse_fd(m, fd);
	close(fd);
	return err;
}

/* What each ring's records hold: an event, or the doorbell's 8 bytes that say nothing. */
static const size_t event_bytes = sizeof(struct fbf_event), doorbell_bytes = sizeof(__u64);

/*
 * Open and load the programs with room for @repeat records everywhere. The
 * doorbell too: the classifier's 4096 bytes hold 255 records, fewer than one
 * test run makes, and with no reader during the run it would fill and stop
 * waking. Its size changes where a record lands, not what the output does: up
 * to 255 runs it is those 4096 bytes, and the timings there are the same.
 */
static int load(const char *path, int repeat, struct bpf_object **obj)
{
	int err;

	*obj = bpf_object__open_file(path, NULL);
	if (!*obj)
		return -errno;
	err = per_cpu_maps(*obj, "events_queue", BPF_MAP_TYPE_QUEUE, sizeof(struct fbf_event),
			   repeat);
	err = err ?: per_cpu_maps(*obj, "events_ring", BPF_MAP_TYPE_RINGBUF, 0,
				  ring_bytes((__u64)repeat * FBF_RING_RECORD_BYTES));
	/* A doorbell record: the kernel's 8-byte header and the 8 bytes. */
	err = err ?: set_size(*obj, "doorbell", ring_bytes((__u64)repeat * (8 + doorbell_bytes)));
	return err ?: bpf_object__load(*obj);
}

static int check_record(void *ctx, void *data, size_t size)
{
	(void)data;
	return size == *(const size_t *)ctx ? 0 : -EPROTO;
}

/* Empty what @a's runs filled, untimed, and check that each run left its record. */
static int drain_and_check(enum arm a, const struct fbf_event_maps *queues,
			   struct ring_buffer *rings, int repeat)
{
	struct fbf_event ev;
	int records = 0;

	if (a == ARM_NONE || a == ARM_CLOCK)
		return 0;
	if (a == ARM_QUEUE) {
		for (unsigned int i = 0; i < queues->nr; i++) {
			while (!bpf_map_lookup_and_delete_elem(queues->fds[i], NULL, &ev))
				records++;
			if (errno != ENOENT)
				return -errno;
		}
	} else {
		records = ring_buffer__consume(rings);
		if (records < 0)
			return records;
	}
	if (records != repeat) {
		fprintf(stderr, "event_parts: %s: %d records for %d runs: a full queue or ring "
			"skewed the run\n", arms[a].name, records, repeat);
		return -EPROTO;
	}
	return 0;
}

/* Evict the program's lines from this CPU's caches, as other work between packets does. */
static void cool_caches(void)
{
	static volatile unsigned char buf[COLD_BYTES];

	for (size_t i = 0; i < COLD_BYTES; i += 64)
		buf[i]++;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of @n samples; sorts @v. */
static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* @a's median of COLD_RUNS single runs, each on cooled caches, in *ns; @tmp holds COLD_RUNS. */
static int time_cold(enum arm a, int prog_fd, const struct kernel_case *frame,
		     const struct fbf_event_maps *queues, struct ring_buffer *rings, double *tmp,
		     double *ns)
{
	int err;

	for (int i = 0; i < COLD_RUNS; i++) {
		cool_caches();
		err = kernel_case_time(prog_fd, frame, 1, &tmp[i]);
		if (err)
			return err;
	}
	*ns = median(tmp, COLD_RUNS);
	return drain_and_check(a, queues, rings, COLD_RUNS);
}

/*
 * Each part's median, and the median of its differences from the baseline's
 * run in the same round, which drift on a noisy host moves less than it
 * moves the difference of two medians. @tmp holds @rounds samples.
 */
static void print_medians(const char *kind, const double *ns, double *tmp, int rounds,
			  int repeat)
{
	fprintf(stderr, "event_parts: %s, ns per run, median of %d rounds of %d runs; over none: "
		"median of the rounds' differences\n", kind, rounds, repeat);
	fprintf(stderr, "  %-14s %8s %10s\n", "part", "median", "over none");
	for (int a = 0; a < NR_ARMS; a++) {
		memcpy(tmp, &ns[a * rounds], rounds * sizeof(*tmp));
		fprintf(stderr, "  %-14s %8.1f", arms[a].name, median(tmp, rounds));
		for (int r = 0; r < rounds; r++)
			tmp[r] = ns[a * rounds + r] - ns[ARM_NONE * rounds + r];
		fprintf(stderr, " %+10.1f\n", median(tmp, rounds));
	}
}

int main(int argc, char **argv)
{
	struct kernel_case cases[KERNEL_CASES_MAX], *frame = NULL;
	int rounds = argc > 2 ? atoi(argv[2]) : DEFAULT_ROUNDS;
	int repeat = argc > 3 ? atoi(argv[3]) : DEFAULT_REPEAT;
	bool progress = isatty(STDERR_FILENO) && !getenv("CI");
	size_t nr_cases = kernel_cases_build(cases);
	struct ring_buffer *rings = NULL;
	struct bpf_object *obj = NULL;
	struct fbf_event_maps queues = {}, ring_maps = {};
	int prog_fd[NR_ARMS];
	double *ns = NULL;	/* by arm, then round, warm then cold; then scratch */
	double *cold, *cold_tmp;
	int a, err, ret = 1;

	if (argc < 2 || rounds < 1 || repeat < 1) {
		fprintf(stderr, "usage: event_parts EVENT_PARTS_OBJ [ROUNDS [REPEAT]]\n");
		return 2;
	}
	for (size_t i = 0; i < nr_cases; i++)
		if (!strcmp(cases[i].name, "ipv4-fizz"))
			frame = &cases[i];
	ns = calloc(2 * NR_ARMS * rounds + rounds + COLD_RUNS, sizeof(*ns));
	if (!frame || !ns) {
		fprintf(stderr, "event_parts: %s\n", ns ? "no ipv4-fizz frame" : "out of memory");
		goto out;
	}
	cold = ns + NR_ARMS * rounds;
	cold_tmp = cold + NR_ARMS * rounds;	/* room for rounds or COLD_RUNS */
	libbpf_set_print(NULL);
	err = load(argv[1], repeat, &obj);
	if (err) {
		fprintf(stderr, "event_parts: loading %s: %s%s\n", argv[1], strerror(-err),
			geteuid() ? " (run as root)" : "");
		goto out;
	}
	for (a = 0; a < NR_ARMS; a++) {
		prog_fd[a] = bpf_program__fd(bpf_object__find_program_by_name(obj, arms[a].prog));
		if (prog_fd[a] < 0) {
			fprintf(stderr, "event_parts: no %s in %s\n", arms[a].prog, argv[1]);
			goto out;
		}
	}
	err = fbf_event_maps_open(&queues, bpf_object__find_map_fd_by_name(obj, "events_queue"),
				  -1) ?:
	      fbf_event_maps_open(&ring_maps, bpf_object__find_map_fd_by_name(obj, "events_ring"),
				  -1);
	if (err) {
		fprintf(stderr, "event_parts: opening each CPU's maps: %s\n", strerror(-err));
		goto out;
	}
	/* One reader for every ring: only one arm's records are ever there at a time. */
	rings = ring_buffer__new(bpf_object__find_map_fd_by_name(obj, "doorbell"), check_record,
				 (void *)&doorbell_bytes, NULL);
	for (unsigned int i = 0; rings && i < ring_maps.nr; i++)
		if (ring_buffer__add(rings, ring_maps.fds[i], check_record, (void *)&event_bytes))
			goto rings_failed;
	if (!rings) {
rings_failed:
		fprintf(stderr, "event_parts: reading the rings: %s\n", strerror(errno));
		goto out;
	}

	for (int round = 0; round < rounds; round++) {
		/* Rotate which goes first, so none always runs on a warmer cache. */
		for (int k = 0; k < NR_ARMS; k++) {
			a = (round + k) % NR_ARMS;
			err = kernel_case_time(prog_fd[a], frame, repeat, &ns[a * rounds + round]);
			err = err ?: drain_and_check(a, &queues, rings, repeat);
			if (err) {
				fprintf(stderr, "event_parts: %s: %s\n", arms[a].name,
					strerror(-err));
				goto out;
			}
		}
		for (int k = 0; k < NR_ARMS; k++) {
			a = (round + k) % NR_ARMS;
			err = time_cold(a, prog_fd[a], frame, &queues, rings, cold_tmp,
					&cold[a * rounds + round]);
			if (err) {
				fprintf(stderr, "event_parts: %s cold: %s\n", arms[a].name,
					strerror(-err));
				goto out;
			}
		}
		for (a = 0; a < NR_ARMS; a++) {
			printf("parts/%s\tlatency\t%.0f\n", arms[a].name, ns[a * rounds + round]);
			printf("parts-cold/%s\tlatency\t%.0f\n", arms[a].name,
			       cold[a * rounds + round]);
		}
		if (progress)
			fprintf(stderr, "\revent_parts: round %d/%d", round + 1, rounds);
	}
	if (progress)
		fprintf(stderr, "\n");
	print_medians("warm", ns, cold_tmp, rounds, repeat);
	print_medians("cold caches", cold, cold_tmp, rounds, 1);
	ret = 0;
out:
	ring_buffer__free(rings);
	fbf_event_maps_close(&queues);
	fbf_event_maps_close(&ring_maps);
	bpf_object__close(obj);
	free(ns);
	return ret;
}
