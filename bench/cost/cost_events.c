// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The maps a program sends events to, sized, filled and emptied: see cost_events.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "cost_events.h"
#include "cost_state.h"
#include "fbf_transport.h"

static bool is_queue(enum bpf_map_type type)
{
	return type == BPF_MAP_TYPE_QUEUE || type == BPF_MAP_TYPE_STACK;
}

static bool is_event_map(enum bpf_map_type type)
{
	return is_queue(type) || type == BPF_MAP_TYPE_RINGBUF;
}

/* A map of @type that holds @runs sends, never less than the @declared size; @runs 0: that. */
static __u32 event_map_size(enum bpf_map_type type, __u32 runs, __u32 declared)
{
	/* One room more than sends: a queue found full after a run may have refused one. */
	__u32 want = !runs ? 0 : is_queue(type) ? runs + 1 :
		     ring_bytes_for(runs, COST_RING_RECORD_BYTES);

	return want > declared ? want : declared;
}

static struct cost_event_map *add_map(struct cost_events *ev, struct bpf_map *map)
{
	struct cost_event_map *maps = realloc(ev->maps, (ev->nr + 1) * sizeof(*maps)), *em;

	if (!maps)
		return NULL;
	ev->maps = maps;
	em = &maps[ev->nr++];
	memset(em, 0, sizeof(*em));
	em->map = map;
	em->type = bpf_map__type(map);
	snprintf(em->name, sizeof(em->name), "%s", bpf_map__name(map));
	return em;
}

/*
 * An array of event maps, made here as the project's agent makes its own
 * (lib/event_maps.c): each CPU's map of the inner map's type and value size,
 * sized for @runs, and the program loaded against this array in place of
 * the object's, whose slots nobody fills.
 */
static int fill_array(struct cost_event_map *em, const struct bpf_map *inner, __u32 runs)
{
	int fd, err;

	em->value_size = bpf_map__value_size(inner);
	em->max_entries = event_map_size(em->inner, runs, bpf_map__max_entries(inner));
	fd = fbf_event_maps_create(em->name, em->inner, em->value_size, em->max_entries);
	if (fd < 0)
		return fd;
	/* libbpf keeps a duplicate of fd. */
	err = bpf_map__reuse_fd(em->map, fd);
	close(fd);
	em->filled = !err;
	return err;
}

int cost_events_prepare(struct cost_events *ev, struct bpf_object *obj, __u32 runs, __u32 cpus)
{
	struct bpf_map *map;

	memset(ev, 0, sizeof(*ev));
	bpf_object__for_each_map(map, obj) {
		const struct bpf_map *inner = bpf_map__inner_map(map);
		enum bpf_map_type type = bpf_map__type(map);
		struct cost_event_map *em;
		int err = 0;

		if (!is_event_map(type) && !cost_map_is_map_of_maps(type))
			continue;
		em = add_map(ev, map);
		if (!em)
			return -ENOMEM;
		if (inner)
			em->inner = bpf_map__type(inner);
		if (!cost_map_is_map_of_maps(em->type)) {
			em->value_size = bpf_map__value_size(map);
			em->max_entries = event_map_size(em->type, runs * cpus,
							 bpf_map__max_entries(map));
			err = bpf_map__set_max_entries(map, em->max_entries);
		} else if (em->type == BPF_MAP_TYPE_ARRAY_OF_MAPS && inner &&
			   is_event_map(em->inner)) {
			err = fill_array(em, inner, runs);
		} else {
			/*
			 * Maps of another kind are the program's state, not its events; a
			 * hash's keys are the program's own to choose, none a CPU's.
			 */
			em->left = true;
		}
		if (err)
			return err;
	}
	return 0;
}

/* Records are read to free their room and counted, not looked at. */
static int count_record(void *ctx, void *data, size_t size)
{
	(void)data;
	(void)size;
	(*(__u64 *)ctx)++;
	return 0;
}

static int add_ring(struct cost_events *ev, int fd, __u64 *read)
{
	if (!ev->rings) {
		ev->rings = ring_buffer__new(fd, count_record, read, NULL);
		return ev->rings ? 0 : -errno;
	}
	return ring_buffer__add(ev->rings, fd, count_record, read) ? -errno : 0;
}

/* The @i-th map events go to: a filled array's CPU's, or the map itself. */
static int event_fd(const struct cost_event_map *em, unsigned int i)
{
	return em->filled ? em->cpus.fds[i] : bpf_map__fd(em->map);
}

static unsigned int nr_event_fds(const struct cost_event_map *em)
{
	return em->left ? 0 : em->filled ? em->cpus.nr : 1;
}

static enum bpf_map_type event_type(const struct cost_event_map *em)
{
	return em->filled ? em->inner : em->type;
}

int cost_events_open(struct cost_events *ev)
{
	for (unsigned int m = 0; m < ev->nr; m++) {
		struct cost_event_map *em = &ev->maps[m];
		int err = em->filled ? fbf_event_maps_open(&em->cpus, bpf_map__fd(em->map), -1) : 0;

		for (unsigned int i = 0; !err && i < nr_event_fds(em); i++)
			if (event_type(em) == BPF_MAP_TYPE_RINGBUF)
				err = add_ring(ev, event_fd(em, i), &em->read);
		if (err)
			return err;
	}
	return 0;
}

/* Every event of one queue or stack popped, and counted: 0, -EOVERFLOW if it was full. */
static int drain_queue(struct cost_event_map *em, int fd, void *value)
{
	__u32 popped = 0;

	while (!bpf_map_lookup_and_delete_elem(fd, NULL, value))
		popped++;
	if (errno != ENOENT)
		return -errno;
	em->read += popped;
	return popped >= em->max_entries ? -EOVERFLOW : 0;
}

/* A full map does not stop the others' draining: a live reader must empty them all. */
int cost_events_drain(struct cost_events *ev)
{
	int full = 0;

	for (unsigned int m = 0; m < ev->nr; m++) {
		struct cost_event_map *em = &ev->maps[m];
		void *value;
		int err = 0;

		if (!is_queue(event_type(em)))
			continue;
		value = malloc(em->value_size);
		if (!value)
			return -ENOMEM;
		for (unsigned int i = 0; i < nr_event_fds(em) && (!err || err == -EOVERFLOW); i++)
			err = drain_queue(em, event_fd(em, i), value) ?: err;
		free(value);
		if (err && err != -EOVERFLOW)
			return err;
		full = full ?: err;
	}
	if (ev->rings && ring_buffer__consume(ev->rings) < 0)
		return -errno;
	return full;
}

__u64 cost_events_read(const struct cost_events *ev)
{
	__u64 read = 0;

	for (unsigned int m = 0; m < ev->nr; m++)
		read += ev->maps[m].read;
	return read;
}

void cost_events_print(const struct cost_events *ev, const char *arm)
{
	for (unsigned int m = 0; m < ev->nr; m++) {
		const struct cost_event_map *em = &ev->maps[m];

		printf("#map\t%s\t%s\t%s\t%s\t%u\t", arm, em->name,
		       libbpf_bpf_map_type_str(em->type),
		       em->inner ? libbpf_bpf_map_type_str(em->inner) : "-",
		       em->filled ? em->cpus.nr : 0);
		if (em->left)
			printf("-\n");
		else
			printf("%llu\n", (unsigned long long)em->read);
	}
}

void cost_events_close(struct cost_events *ev)
{
	for (unsigned int m = 0; m < ev->nr; m++)
		fbf_event_maps_close(&ev->maps[m].cpus);
	free(ev->maps);
	ring_buffer__free(ev->rings);
	memset(ev, 0, sizeof(*ev));
}
