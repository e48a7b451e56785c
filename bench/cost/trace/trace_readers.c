// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Reading a traced object's events while it is measured: see trace_readers.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "trace_readers.h"

/* Pages of each CPU's perf buffer: libbpf-tools' tools take 16 to 64. */
#define PERF_BUFFER_PAGES 64
/* How long one poll waits: short, so that a stop is seen soon. */
#define POLL_MS 5

static int ring_event(void *ctx, void *data, size_t size)
{
	struct trace_reader_map *m = ctx;

	(void)data;
	(void)size;
	__atomic_add_fetch(&m->read, 1, __ATOMIC_RELAXED);
	return 0;
}

static void perf_event(void *ctx, int cpu, void *data, __u32 size)
{
	struct trace_reader_map *m = ctx;

	(void)cpu;
	(void)data;
	(void)size;
	__atomic_add_fetch(&m->read, 1, __ATOMIC_RELAXED);
}

static void perf_lost(void *ctx, int cpu, __u64 count)
{
	struct trace_reader_map *m = ctx;

	(void)cpu;
	__atomic_add_fetch(&m->lost, count, __ATOMIC_RELAXED);
}

static void *reader(void *arg)
{
	struct trace_readers *r = arg;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	/* Off the workload's CPUs where it can be: the workload runs from CPU 0 up. */
	if (cpus > 1) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpus - 1, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	while (!r->stop) {
		if (r->rb)
			ring_buffer__poll(r->rb, POLL_MS);
		for (int i = 0; i < r->nr; i++)
			if (r->maps[i].pb)
				perf_buffer__poll(r->maps[i].pb, r->rb ? 0 : POLL_MS);
	}
	return NULL;
}

int trace_readers_start(struct trace_readers *r, struct bpf_object *obj)
{
	struct bpf_map *map;
	int err;

	memset(r, 0, sizeof(*r));
	bpf_object__for_each_map(map, obj) {
		enum bpf_map_type type = bpf_map__type(map);
		struct trace_reader_map *m = &r->maps[r->nr];

		if (type != BPF_MAP_TYPE_RINGBUF && type != BPF_MAP_TYPE_PERF_EVENT_ARRAY)
			continue;
		if (r->nr == TRACE_READER_MAPS)
			return -E2BIG;
		m->name = bpf_map__name(map);
		if (type == BPF_MAP_TYPE_RINGBUF) {
			m->kind = "ring buffer";
			if (!r->rb)
				r->rb = ring_buffer__new(bpf_map__fd(map), ring_event, m, NULL);
			else if (ring_buffer__add(r->rb, bpf_map__fd(map), ring_event, m))
				return -errno;
			if (!r->rb)
				return -errno;
		} else {
			m->kind = "perf event array";
			m->pb = perf_buffer__new(bpf_map__fd(map), PERF_BUFFER_PAGES, perf_event,
						 perf_lost, m, NULL);
			if (!m->pb)
				return -errno;
		}
		r->nr++;
	}
	if (!r->nr)
		return 0;
	err = pthread_create(&r->thread, NULL, reader, r);
	if (err)
		return -err;
	r->running = true;
	return 0;
}

void trace_readers_stop(struct trace_readers *r)
{
	if (r->running) {
		r->stop = true;
		pthread_join(r->thread, NULL);
		r->running = false;
	}
	/* What a poll left: the last events counted before the buffers go. */
	if (r->rb)
		ring_buffer__consume(r->rb);
	ring_buffer__free(r->rb);
	r->rb = NULL;
	for (int i = 0; i < r->nr; i++) {
		if (r->maps[i].pb)
			perf_buffer__consume(r->maps[i].pb);
		perf_buffer__free(r->maps[i].pb);
		r->maps[i].pb = NULL;
	}
}

void trace_readers_counts(const struct trace_readers *r, unsigned long long *read,
			  unsigned long long *lost)
{
	*read = *lost = 0;
	for (int i = 0; i < r->nr; i++) {
		*read += __atomic_load_n(&r->maps[i].read, __ATOMIC_RELAXED);
		*lost += __atomic_load_n(&r->maps[i].lost, __ATOMIC_RELAXED);
	}
}
