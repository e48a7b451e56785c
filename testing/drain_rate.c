// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * How fast the agent empties its queue or ring buffer, against a bare pop
 * loop on the same machine. The agent is stopped while its queue or ring is
 * filled: BPF_PROG_TEST_RUN of the agent's own program on a Fizz frame sends
 * one event per run. Then the agent continues, and each CPU's queue is peeked
 * (each ring's positions read) every 100 us until it is empty.
 *
 *   drain_rate fill PROG_ID EVENTS     run program PROG_ID EVENTS times on a Fizz frame
 *   drain_rate wait PROG_ID PID        continue process PID (SIGCONT) and print the
 *                                      seconds until PROG_ID's queue or ring is empty
 *
 * fill takes the program on the interface: the agent's, or libxdp's
 * dispatcher, which runs the agent's program as an extension, and the kernel
 * runs no extension through BPF_PROG_TEST_RUN on its own (ENOTSUPP). wait
 * takes the agent's own program, the one whose maps hold the events.
 *   drain_rate raw EVENTS [TRANSPORT]  a program of our own: fill its queue (or ring),
 *                                      take it all in a bare loop, print the seconds
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf_fixture.h"
#include "fizzbuzzfib.h"
#include "frames.h"
#include "prog_id.h"
#include "userspace_util.h"

#define PEEK_INTERVAL_US 100

/* The map of the program @prog_fd named @name, or -errno. */
static int map_fd_of(int prog_fd, const char *name)
{
	__u32 map_ids[16], nr_maps = 16;
	struct bpf_prog_info info = { .nr_map_ids = nr_maps,
				      .map_ids = (__u64)(unsigned long)map_ids };
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return -errno;
	for (__u32 i = 0; i < info.nr_map_ids && i < nr_maps; i++) {
		struct bpf_map_info map = {};
		__u32 map_len = sizeof(map);
		int fd = bpf_map_get_fd_by_id(map_ids[i]);

		if (fd < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(fd, &map, &map_len) && !strcmp(map.name, name))
			return fd;
		close(fd);
	}
	return -ENOENT;
}

/*
 * The program's event maps, every CPU's queue or ring buffer; *type says
 * which. An agent from before the maps were per CPU (the gate's base) has
 * one queue or ring named events: that one alone.
 */
static int event_maps_of(int prog_fd, struct fbf_event_maps *m, __u32 *type)
{
	int events_fd = map_fd_of(prog_fd, "events"), spare_fd = map_fd_of(prog_fd, "events_spare");
	struct bpf_map_info map = {};
	__u32 map_len = sizeof(map);
	int err;

	if (events_fd >= 0 && spare_fd < 0) {
		m->fds = malloc(sizeof(*m->fds));
		if (!m->fds)
			return -ENOMEM;
		m->fds[0] = events_fd;
		m->nr = 1;
		events_fd = -1;
		err = 0;
	} else {
		err = events_fd < 0 ? events_fd : spare_fd < 0 ? spare_fd :
		      fbf_event_maps_open(m, events_fd, spare_fd);
	}
	if (events_fd >= 0)
		close(events_fd);
	if (spare_fd >= 0)
		close(spare_fd);
	if (!err && bpf_obj_get_info_by_fd(m->fds[0], &map, &map_len))
		err = -errno;
	*type = map.type;
	return err;
}

/*
 * The queue or ring must hold @events: events sent to a full one are lost, and counted.
 * All go to one CPU's map: on a busy host the test run would otherwise move between
 * CPUs and split them, and a fill meant to overflow one map would overflow none.
 */
static int fill(int prog_fd, __u32 events)
{
	struct frame_ipv4 ip = FRAME_IPV4(IPV4_ADDR(10, 0, 0, 254)); /* Fizz */
	__u8 frame[FRAME_MAX_LEN];
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame, .repeat = events);
	int err = bpf_fixture_stay_on_this_cpu();

	if (err)
		return err;
	opts.data_size_in = frame_build_ipv4(frame, sizeof(frame), NULL, &ip);
	return bpf_prog_test_run_opts(prog_fd, &opts) ? -errno : 0;
}

static bool queue_empty(int events_fd)
{
	struct fbf_event ev;

	return bpf_map_lookup_elem(events_fd, NULL, &ev) != 0;
}

/*
 * A ring's consumer position is on its first page, the producer's on the
 * second (both read-only to us here); it is empty when they meet.
 */
struct ring_positions {
	volatile unsigned long *consumer;
	volatile unsigned long *producer;
};

static int ring_map(int events_fd, struct ring_positions *r)
{
	long page = sysconf(_SC_PAGESIZE);
	void *c, *p;

	c = mmap(NULL, page, PROT_READ, MAP_SHARED, events_fd, 0);
	if (c == MAP_FAILED)
		return -errno;
	p = mmap(NULL, page, PROT_READ, MAP_SHARED, events_fd, page);
	if (p == MAP_FAILED) {
		munmap(c, page);
		return -errno;
	}
	r->consumer = c;
	r->producer = p;
	return 0;
}

/* Whether the queue or ring @fd (of @ring) is empty: @ring is mapped, or NULL for a queue. */
static bool map_empty(int fd, const struct ring_positions *ring)
{
	return ring ? *ring->consumer == *ring->producer : queue_empty(fd);
}

static double continue_and_wait_empty(const struct fbf_event_maps *m, __u32 type, pid_t pid)
{
	struct ring_positions *rings = NULL;
	unsigned int i = 0;
	double start;
	int err = 0;

	if (type == BPF_MAP_TYPE_RINGBUF) {
		rings = calloc(m->nr, sizeof(*rings));
		if (!rings)
			return -1;
		for (i = 0; i < m->nr && !err; i++)
			err = ring_map(m->fds[i], &rings[i]);
		if (err) {
			errno = -err;
			return -1;
		}
	}
	start = fbf_monotonic_s();
	if (kill(pid, SIGCONT))
		return -1;
	for (i = 0; i < m->nr; i++)
		while (!map_empty(m->fds[i], rings ? &rings[i] : NULL))
			usleep(PEEK_INTERVAL_US);
	return fbf_monotonic_s() - start;
}

static double pop_all(const struct fbf_event_maps *m, __u64 *popped)
{
	struct fbf_event ev;
	double start = fbf_monotonic_s();

	for (unsigned int i = 0; i < m->nr; i++)
		while (!bpf_map_lookup_and_delete_elem(m->fds[i], NULL, &ev))
			(*popped)++;
	return fbf_monotonic_s() - start;
}

static int count_event(void *ctx, void *data, size_t size)
{
	(void)data;
	(void)size;
	(*(__u64 *)ctx)++;
	return 0;
}

/* libbpf's reader with a callback that only counts: the floor of any ring consumer. */
static double read_all(const struct fbf_event_maps *m, __u64 *popped)
{
	struct ring_buffer *ring = ring_buffer__new(m->fds[0], count_event, popped, NULL);
	double start, seconds;

	for (unsigned int i = 1; ring && i < m->nr; i++)
		if (ring_buffer__add(ring, m->fds[i], count_event, popped)) {
			ring_buffer__free(ring);
			ring = NULL;
		}
	start = fbf_monotonic_s();
	if (!ring || ring_buffer__consume(ring) < 0)
		*popped = 0;
	seconds = fbf_monotonic_s() - start;
	ring_buffer__free(ring);
	return seconds;
}

static int raw(__u32 events, enum fbf_transport transport)
{
	struct bpf_fixture fx = {};
	__u64 popped = 0;
	double seconds;
	int err;

	err = bpf_fixture_load(&fx, transport, events) ?: fill(fx.prog_fd, events);
	if (err) {
		fprintf(stderr, "drain_rate: loading and filling a %s of %u: %s\n",
			fbf_transport_name(transport), events, strerror(-err));
		bpf_fixture_destroy(&fx);
		return 1;
	}
	if (transport == FBF_TRANSPORT_RINGBUF)
		seconds = read_all(&fx.maps, &popped);
	else
		seconds = pop_all(&fx.maps, &popped);
	bpf_fixture_destroy(&fx);
	printf("seconds=%.6f events=%llu\n", seconds, (unsigned long long)popped);
	return 0;
}

int main(int argc, char **argv)
{
	struct fbf_event_maps maps;
	int prog_fd, err;
	double seconds;
	__u32 type = 0;

	enum fbf_transport transport = FBF_TRANSPORT_QUEUE;

	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "raw") &&
	    (argc == 3 || !fbf_transport_parse(argv[3], &transport)))
		return raw(strtoul(argv[2], NULL, 10), transport);
	if (argc != 4 || (strcmp(argv[1], "fill") && strcmp(argv[1], "wait"))) {
		fprintf(stderr, "usage: drain_rate fill PROG_ID EVENTS | wait PROG_ID PID | "
			"raw EVENTS [queue|ringbuf]\n");
		return 2;
	}
	prog_fd = fbf_prog_fd_from_arg("drain_rate", argv[2]);
	if (prog_fd < 0)
		return -prog_fd;
	if (!strcmp(argv[1], "fill")) {
		err = fill(prog_fd, strtoul(argv[3], NULL, 10));
		if (err) {
			fprintf(stderr, "drain_rate: running program %s: %s\n", argv[2],
				strerror(-err));
			return 1;
		}
		return 0;
	}
	err = event_maps_of(prog_fd, &maps, &type);
	if (err) {
		fprintf(stderr, "drain_rate: program %s has no queues or ring buffers: %s\n",
			argv[2], strerror(-err));
		return 1;
	}
	seconds = continue_and_wait_empty(&maps, type, atoi(argv[3]));
	if (seconds < 0) {
		fprintf(stderr, "drain_rate: mapping the rings or continuing pid %s: %s\n",
			argv[3], strerror(errno));
		return 1;
	}
	printf("seconds=%.6f\n", seconds);
	return 0;
}
