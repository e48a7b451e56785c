// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The classifier's object per event transport: see fbf_object.h. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "fizzbuzzfib.h"
#include "fbf_object.h"
#include "fizzbuzzfib.skel.h"
#include "fizzbuzzfib_ringbuf.skel.h"

int fbf_object_open(struct fbf_object *o, enum fbf_transport transport)
{
	struct fizzbuzzfib_ringbuf_bpf *ring;
	struct fizzbuzzfib_bpf *queue;

	memset(o, 0, sizeof(*o));
	o->transport = transport;
	if (transport == FBF_TRANSPORT_RINGBUF) {
		ring = fizzbuzzfib_ringbuf_bpf__open();
		if (!ring)
			return -errno;
		o->skel = ring;
		o->obj = ring->obj;
		o->bss = ring->maps.bss;
	} else {
		queue = fizzbuzzfib_bpf__open();
		if (!queue)
			return -errno;
		o->skel = queue;
		o->obj = queue->obj;
		o->bss = queue->maps.bss;
	}
	o->prog = bpf_object__find_program_by_name(o->obj, FBF_PROG_NAME);
	o->events = bpf_object__find_map_by_name(o->obj, "events");
	o->events_spare = bpf_object__find_map_by_name(o->obj, "events_spare");
	o->counters = bpf_object__find_map_by_name(o->obj, "counters");
	o->doorbell = bpf_object__find_map_by_name(o->obj, "doorbell");
	o->sources = bpf_object__find_map_by_name(o->obj, "sources");
	o->source_maps[0] = bpf_object__find_map_by_name(o->obj, "sources_a");
	o->source_maps[1] = bpf_object__find_map_by_name(o->obj, "sources_b");
	o->source_cache = bpf_object__find_map_by_name(o->obj, "source_cache");
	o->source_half = bpf_object__find_map_by_name(o->obj, "source_half");
	if (!o->prog || !o->events || !o->events_spare || !o->counters || !o->doorbell || !o->sources ||
	    !o->source_maps[0] || !o->source_maps[1] || !o->source_cache || !o->source_half) {
		fbf_object_close(o);
		return -ENOENT;
	}
	return 0;
}

int fbf_object_set_sample(struct fbf_object *o, __u32 every)
{
	struct fizzbuzzfib_ringbuf_bpf *ring = o->skel;
	struct fizzbuzzfib_bpf *queue = o->skel;

	if (every < 1 || every > FBF_SAMPLE_MAX)
		return -EINVAL;
	/* libbpf creates .rodata from this copy at load, and freezes it. */
	if (o->transport == FBF_TRANSPORT_RINGBUF)
		ring->rodata->sample_every = every;
	else
		queue->rodata->sample_every = every;
	return 0;
}

int fbf_object_set_aggregate(struct fbf_object *o, __u32 max_sources)
{
	struct fizzbuzzfib_ringbuf_bpf *ring = o->skel;
	struct fizzbuzzfib_bpf *queue = o->skel;
	int err;

	if (max_sources < 1 || max_sources > FBF_AGGREGATE_MAX_SOURCES)
		return -EINVAL;
	/*
	 * Both maps; not the template the array of maps is created from (libbpf
	 * 1.1 cannot resize it): a hash's size is not part of the type an
	 * array of maps holds, only an array's is.
	 */
	err = bpf_map__set_max_entries(o->source_maps[0], max_sources) ?:
	      bpf_map__set_max_entries(o->source_maps[1], max_sources) ?:
	      bpf_map__set_max_entries(o->source_cache, 2 * FBF_SOURCE_CACHE_SLOTS);
	if (err)
		return err;
	if (o->transport == FBF_TRANSPORT_RINGBUF)
		ring->rodata->sample_every = FBF_SAMPLE_AGGREGATE;
	else
		queue->rodata->sample_every = FBF_SAMPLE_AGGREGATE;
	return 0;
}

/* One CPU's event map of @events events, named for @cpu. The fd, or -errno. */
static int event_map_create(enum fbf_transport transport, __u32 events, int cpu)
{
	char name[BPF_OBJ_NAME_LEN];
	int fd;

	snprintf(name, sizeof(name), "events_cpu%d", cpu);
	if (transport == FBF_TRANSPORT_RINGBUF) {
		__u32 bytes = fbf_ring_bytes(events);

		if (!bytes)
			return -E2BIG;
		fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, name, 0, 0, bytes, NULL);
	} else {
		fd = bpf_map_create(BPF_MAP_TYPE_QUEUE, name, 0, sizeof(struct fbf_event), events,
				    NULL);
	}
	return fd < 0 ? -errno : fd;
}

/* The array @outer_fd gets a map for each of its @ncpus CPUs, the first @first. 0 or -errno. */
static int event_maps_fill(int outer_fd, int first, enum fbf_transport transport, __u32 events,
			   int ncpus)
{
	int cpu, fd = first, err = 0;

	for (cpu = 0; cpu < ncpus && !err; cpu++) {
		if (cpu)
			fd = event_map_create(transport, events, cpu);
		if (fd < 0)
			return fd;
		/* The array holds the map from here on: the fd can go. */
		if (bpf_map_update_elem(outer_fd, &cpu, &fd, BPF_ANY))
			err = -errno;
		if (cpu)
			close(fd);
	}
	return err;
}

int fbf_object_events_create(struct fbf_object *o, __u32 events, __u32 *map_id)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	int ncpus = libbpf_num_possible_cpus();
	int first, fd, err;

	if (ncpus < 0)
		return ncpus;
	/* CPU 0's map is also the template the kernel checks the others against. */
	first = event_map_create(o->transport, events, 0);
	if (first < 0)
		return first;
	LIBBPF_OPTS(bpf_map_create_opts, opts, .inner_map_fd = first);
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, "events", sizeof(__u32), sizeof(__u32),
			    ncpus, &opts);
	err = fd < 0 ? -errno : event_maps_fill(fd, first, o->transport, events, ncpus);
	close(first);
	if (!err && bpf_obj_get_info_by_fd(fd, &info, &len))
		err = -errno;
	/* libbpf keeps a duplicate of fd, and takes the map's size from it. */
	if (!err)
		err = bpf_map__reuse_fd(o->events, fd) ?:
		      bpf_map__set_max_entries(o->events_spare, o->transport == FBF_TRANSPORT_RINGBUF ?
					       (__u32)sysconf(_SC_PAGESIZE) : 1);
	if (fd >= 0)
		close(fd);
	*map_id = info.id;
	o->events_id = info.id;
	return err;
}

int fbf_object_set_iface_slots(struct fbf_object *o, __u32 slots)
{
	if (slots < 1 || slots > FBF_IFACE_SLOTS_MAX)
		return -EINVAL;
	return bpf_map__set_max_entries(o->counters, slots);
}

int fbf_object_load_maps(struct fbf_object *o)
{
	int err = bpf_program__set_autoload(o->prog, false);

	return err ?: bpf_object__load(o->obj);
}

int fbf_object_share(struct fbf_object *o, const struct fbf_object *maps, __u32 slot)
{
	struct fizzbuzzfib_ringbuf_bpf *ring = o->skel;
	struct fizzbuzzfib_bpf *queue = o->skel;
	struct bpf_map *rodata, *m, *theirs;
	int err;

	if (o->transport == FBF_TRANSPORT_RINGBUF) {
		ring->rodata->iface_slot = slot;
		rodata = ring->maps.rodata;
	} else {
		queue->rodata->iface_slot = slot;
		rodata = queue->maps.rodata;
	}
	/* The same object file: a map of each name in both, and the same type. */
	bpf_object__for_each_map(m, o->obj) {
		if (m == rodata)
			continue;
		theirs = bpf_object__find_map_by_name(maps->obj, bpf_map__name(m));
		if (!theirs)
			return -ENOENT;
		err = bpf_map__reuse_fd(m, bpf_map__fd(theirs));
		if (err)
			return err;
	}
	o->events_id = maps->events_id;
	return 0;
}

int fbf_object_reader_map(struct fbf_object *o)
{
	/* The skeletons differ in type only: the same variable in the same section. */
	size_t offset = o->transport == FBF_TRANSPORT_RINGBUF ?
		offsetof(struct fizzbuzzfib_ringbuf_bpf__bss, reader_asleep) :
		offsetof(struct fizzbuzzfib_bpf__bss, reader_asleep);
	size_t page = sysconf(_SC_PAGESIZE);
	size_t len = (bpf_map__value_size(o->bss) + page - 1) & ~(page - 1);
	void *p;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(o->bss), 0);
	if (p == MAP_FAILED)
		return -errno;
	o->bss_mapped = p;
	o->bss_mapped_len = len;
	o->reader_asleep = (volatile __u32 *)((char *)p + offset);
	return 0;
}

void fbf_object_close(struct fbf_object *o)
{
	if (o->bss_mapped)
		munmap(o->bss_mapped, o->bss_mapped_len);
	o->bss_mapped = NULL;
	o->reader_asleep = NULL;
	if (o->transport == FBF_TRANSPORT_RINGBUF)
		fizzbuzzfib_ringbuf_bpf__destroy(o->skel);
	else
		fizzbuzzfib_bpf__destroy(o->skel);
	o->skel = NULL;
	o->obj = NULL;
	o->prog = NULL;
	o->events = o->events_spare = o->counters = o->doorbell = o->bss = o->sources = NULL;
	o->source_maps[0] = o->source_maps[1] = o->source_cache = o->source_half = NULL;
}
