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

#include "fizzbuzzfib.h"

struct bpf_object;
struct bpf_program;
struct bpf_map;

enum fbf_transport {
	FBF_TRANSPORT_QUEUE,	/* BPF_MAP_TYPE_QUEUE: one pop syscall per event */
	FBF_TRANSPORT_RINGBUF,	/* BPF_MAP_TYPE_RINGBUF: read in place, epoll wake-ups */
};

struct fbf_object {
	enum fbf_transport transport;
	void *skel;			/* the transport's own skeleton */
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_map *events;		/* the queue or the ring */
	struct bpf_map *counters;
};

/* "queue" or "ringbuf". */
const char *fbf_transport_name(enum fbf_transport transport);

/* The transport named @s ("queue", "ringbuf"): 0, or -EINVAL. */
int fbf_transport_parse(const char *s, enum fbf_transport *out);

/*
 * The size in bytes of a ring that holds @events events: a power-of-two
 * number of pages, as the kernel requires. 0 if that passes 4 GiB.
 */
__u32 fbf_ring_bytes(__u32 events);

/* How many events a ring of @bytes holds. */
static inline __u32 fbf_ring_capacity(__u32 bytes)
{
	return bytes / FBF_RING_RECORD_BYTES;
}

/*
 * Open (not load) the object of @transport. @wakeup_batch is the ring
 * buffer's wake-up policy (see wakeup_batch in the program); the queue has
 * none. 0 or -errno.
 */
int fbf_object_open(struct fbf_object *o, enum fbf_transport transport, __u32 wakeup_batch);

/*
 * Create the event map for @events events (a queue of that many, or a ring
 * of fbf_ring_bytes()) and have the object use it when it loads, so that
 * its id is known before the program exists: *map_id. 0 or -errno.
 */
int fbf_object_events_create(struct fbf_object *o, __u32 events, __u32 *map_id);

/* Release the object and with it the program and the maps. Safe on a closed one. */
void fbf_object_close(struct fbf_object *o);

#endif /* FBF_OBJECT_H */
