/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Userspace only: the classifier's BPF object for one event transport,
 * opened from the skeleton embedded in the binary, with its event map
 * created here rather than by the load. The agent, the tests and the
 * benchmarks all open it this way, so they run the same program alike.
 */
#ifndef FBF_OBJECT_H
#define FBF_OBJECT_H

#include <linux/types.h>

#include "fbf_transport.h"

struct bpf_object;
struct bpf_program;
struct bpf_map;

struct fbf_object {
	enum fbf_transport transport;
	void *skel;			/* the transport's own skeleton */
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_map *events;		/* an array of maps: each CPU's queue or ring */
	__u32 events_id;		/* ... its id, once created */
	struct bpf_map *events_spare;	/* where a CPU without one in events sends */
	struct bpf_map *counters;
	struct bpf_map *doorbell;	/* rung by the program when the reader sleeps */
	struct bpf_map *bss;		/* the program's global data: reader_asleep */
	struct bpf_map *sources;	/* --aggregate: which source map the program counts into */
	struct bpf_map *source_maps[2];	/* ... the two it swaps between */
	struct bpf_map *source_cache;	/* ... and each CPU's hot sources in front of them */
	struct bpf_map *source_half;	/* ... of which half the program counts into */
	struct bpf_map *iface_slots;	/* the shared program's slot by ifindex */
	/* After fbf_object_reader_map(): the program's reader_asleep, shared with it. */
	volatile __u32 *reader_asleep;
	void *bss_mapped;
	size_t bss_mapped_len;
};

/* Open (not load) the object of @transport. 0 or -errno. */
int fbf_object_open(struct fbf_object *o, enum fbf_transport transport);

/*
 * Before load: send 1 event in @every (1..FBF_SAMPLE_MAX; 1 sends them all),
 * the program's read-only sample_every. 0 or -EINVAL.
 */
int fbf_object_set_sample(struct fbf_object *o, __u32 every);

/* Most sources a source map can hold (--max-sources): 2 maps of them are preallocated. */
#define FBF_AGGREGATE_MAX_SOURCES (1U << 20)

/*
 * Before load, and after any fbf_object_set_sample(): count frames per
 * source in source maps of @max_sources (1..FBF_AGGREGATE_MAX_SOURCES)
 * instead of sending events, the program's sample_every of
 * FBF_SAMPLE_AGGREGATE. 0 or -EINVAL.
 */
int fbf_object_set_aggregate(struct fbf_object *o, __u32 max_sources);

/*
 * Create the event maps, one per possible CPU, each for @events events (a
 * queue of that many, or a ring of fbf_ring_bytes()), in the array of maps
 * events, and have the object use it when it loads, so that its id is
 * known before the program exists: *map_id. The spare is sized to the least
 * the kernel allows: with a map for every CPU, nothing is sent there. 0 or
 * -errno.
 */
int fbf_object_events_create(struct fbf_object *o, __u32 events, __u32 *map_id);

/*
 * Before load: counters for @slots interfaces (1..FBF_IFACE_SLOTS_MAX), and
 * a table of slots by ifindex for them (fbf_slot_table_size()). 0 or -errno.
 */
int fbf_object_set_iface_slots(struct fbf_object *o, __u32 slots);

/* Entries in the table of slots by ifindex for @slots interfaces: a power of two. */
__u32 fbf_slot_table_size(__u32 slots);

/*
 * Before load, after fbf_object_share(): the copy every interface can share,
 * which finds its slot by the frame's ifindex in the table sized for
 * @slots. 0 or -EINVAL.
 */
int fbf_object_slot_by_ifindex(struct fbf_object *o, __u32 slots);

/*
 * Load the maps alone, the program not: the maps every interface's copy
 * of the program shares (fbf_object_share()), which live as long as the
 * agent does, whichever interfaces come and go. 0 or -errno.
 */
int fbf_object_load_maps(struct fbf_object *o);

/*
 * Before load, after fbf_object_set_sample() or fbf_object_set_aggregate():
 * the program for interface slot @slot, with every map of @maps (loaded
 * by fbf_object_load_maps()) but its own read-only data. 0 or -errno.
 */
int fbf_object_share(struct fbf_object *o, const struct fbf_object *maps, __u32 slot);

/*
 * Once the object is loaded: map its global data, so that o->reader_asleep
 * is the variable the program reads (libbpf 1.1 maps it for a skeleton's
 * own load only, and libxdp loads this one). 0 or -errno.
 */
int fbf_object_reader_map(struct fbf_object *o);

/* Release the object and with it the program and the maps. Safe on a closed one. */
void fbf_object_close(struct fbf_object *o);

#endif /* FBF_OBJECT_H */
