/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The maps a program sends events to, as the cost tool gives them: each
 * queue, stack and ring buffer map sized so that a run never meets a full
 * one (a send into a full map skips its copy and looks cheaper), each array
 * of such maps filled with one per possible CPU, as a loader of a per-CPU
 * design fills it (else the program measured would be whatever it does with
 * an empty slot), and all of them emptied, untimed, after every run.
 */
#ifndef FBF_COST_EVENTS_H
#define FBF_COST_EVENTS_H

#include <stdbool.h>
#include <bpf/libbpf.h>

#include "event_maps.h"

/*
 * The largest record a ring buffer is sized for, header included: a ring
 * holds one run's records if the program sends at most one this large a frame.
 */
#define COST_RING_RECORD_BYTES 64

/* One map of the object's that events go to, or an array or hash of maps it has. */
struct cost_event_map {
	struct bpf_map *map;
	char name[64];			/* the object's name for it */
	enum bpf_map_type type;		/* the object's map's */
	enum bpf_map_type inner;	/* an array's or hash's inner map's; else unspec */
	bool filled;			/* an array given a map per CPU here */
	bool left;			/* an array or hash of maps left as the object leaves it */
	struct fbf_event_maps cpus;	/* a filled array's maps, one per CPU */
	__u32 max_entries;		/* each map's size: a queue's entries, a ring's bytes */
	__u32 value_size;		/* a queue's or stack's event */
	__u64 read;			/* events read from it (an array: all its maps), all runs */
};

struct cost_events {
	struct cost_event_map *maps;
	unsigned int nr;
	struct ring_buffer *rings;	/* every ring's reader, or NULL */
};

/*
 * Before @obj is loaded: its queues, stacks and rings sized for @runs runs
 * of a frame on each of @cpus CPUs at once (@runs 0: as the object declares
 * them), and each ARRAY_OF_MAPS whose inner map is one of those given one
 * such map per possible CPU, of the inner map's type and value size, sized
 * for @runs (one CPU's runs: each CPU sends to its own). Any other array or
 * hash of maps is left as the object leaves it, and listed. 0 or -errno.
 */
int cost_events_prepare(struct cost_events *ev, struct bpf_object *obj, __u32 runs, __u32 cpus);

/* After the load: every filled array's maps opened, every ring given a reader. 0 or -errno. */
int cost_events_open(struct cost_events *ev);

/*
 * Empty every map, counting what was read: 0, or -EOVERFLOW if a queue or
 * stack was full (the run was skewed), or -errno.
 */
int cost_events_drain(struct cost_events *ev);

/* The events read out of every map so far. */
__u64 cost_events_read(const struct cost_events *ev);

/*
 * A line for each map, "#map<TAB>ARM<TAB>MAP<TAB>TYPE<TAB>INNER<TAB>CPUS<TAB>READ":
 * INNER an array's inner map type (- for a map alone), CPUS how many maps
 * it was filled with (0: left as the object leaves it), READ the events read
 * out of it (- for one left), so that a reader knows which path was measured.
 */
void cost_events_print(const struct cost_events *ev, const char *arm);

/* Safe on one never prepared, or prepared for an object since closed. */
void cost_events_close(struct cost_events *ev);

#endif /* FBF_COST_EVENTS_H */
