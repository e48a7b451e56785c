// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The classifier's object per event transport: see fbf_object.h. */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "fizzbuzzfib.h"
#include "event_maps.h"
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
	o->iface_slots = bpf_object__find_map_by_name(o->obj, "iface_slots");
	if (!o->prog || !o->events || !o->events_spare || !o->counters || !o->doorbell ||
	    !o->sources || !o->source_maps[0] || !o->source_maps[1] || !o->source_cache ||
	    !o->source_half || !o->iface_slots) {
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

int fbf_object_events_create(struct fbf_object *o, __u32 events, __u32 *map_id)
{
	bool ring = o->transport == FBF_TRANSPORT_RINGBUF;
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	int fd, err;

	if (ring && !fbf_ring_bytes(events))
		return -E2BIG;
	if (ring)
		fd = fbf_event_maps_create("events", BPF_MAP_TYPE_RINGBUF, 0,
					   fbf_ring_bytes(events));
	else
		fd = fbf_event_maps_create("events", BPF_MAP_TYPE_QUEUE, sizeof(struct fbf_event),
					   events);
	if (fd < 0)
		return fd;
	err = bpf_obj_get_info_by_fd(fd, &info, &len) ? -errno : 0;
	/* libbpf keeps a duplicate of fd, and takes the map's size from it. */
	err = err ?: bpf_map__reuse_fd(o->events, fd) ?:
	      bpf_map__set_max_entries(o->events_spare, ring ? (__u32)sysconf(_SC_PAGESIZE) : 1);
	close(fd);
	*map_id = info.id;
	o->events_id = info.id;
	return err;
}

__u32 fbf_slot_table_size(__u32 slots)
{
	__u32 size = 1;

	while (size < slots * FBF_SLOT_TABLE_PER_SLOT)
		size <<= 1;
	return size;
}

int fbf_object_set_iface_slots(struct fbf_object *o, __u32 slots)
{
	if (slots < 1 || slots > FBF_IFACE_SLOTS_MAX)
		return -EINVAL;
	return bpf_map__set_max_entries(o->counters, slots) ?:
	       bpf_map__set_max_entries(o->iface_slots, fbf_slot_table_size(slots));
}

int fbf_object_slot_by_ifindex(struct fbf_object *o, __u32 slots)
{
	struct fizzbuzzfib_ringbuf_bpf *ring = o->skel;
	struct fizzbuzzfib_bpf *queue = o->skel;
	__u32 mask = fbf_slot_table_size(slots) - 1;

	if (slots < 1 || slots > FBF_IFACE_SLOTS_MAX)
		return -EINVAL;
	if (o->transport == FBF_TRANSPORT_RINGBUF) {
		ring->rodata->slot_by_ifindex = 1;
		ring->rodata->slot_table_mask = mask;
	} else {
		queue->rodata->slot_by_ifindex = 1;
		queue->rodata->slot_table_mask = mask;
	}
	return 0;
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
