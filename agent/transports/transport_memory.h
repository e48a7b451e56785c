/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The kernel memory the event maps take on this host: one map per possible
 * CPU of --queue-size events each (fbf_event_map_bytes()), said by --help
 * and the start line, and checked against the memory the agent may use
 * (the host's available, and its memory cgroup's room: the kernel charges
 * a map to its creator's group) before anything is attached.
 */
#ifndef AGENT_TRANSPORT_MEMORY_H
#define AGENT_TRANSPORT_MEMORY_H

#include <stddef.h>
#include <linux/types.h>

#include "fbf_transport.h"

struct transport_memory {
	int cpus;		/* possible CPUs: one map each */
	__u64 per_cpu;		/* bytes of one CPU's map; 0: no map can be that large */
	__u64 total;		/* cpus x per_cpu */
};

/* For @events events per CPU on @transport: 0, or -errno if the CPUs cannot be told. */
int transport_memory(enum fbf_transport transport, __u32 events, struct transport_memory *m);

/* @bytes as "512 KiB", "1.5 GiB" into @buf. */
void transport_memory_format(__u64 bytes, char *buf, size_t size);

/* The memory the agent may use now: the least of the host's and its cgroups'. */
struct memory_room {
	__u64 available;	/* bytes; ~0: cannot be told */
	__u64 cgroup_limit;	/* the limit of the cgroup that leaves the least; 0: the host's */
	__u64 for_maps;		/* what the event maps may take of it */
};

void memory_room(struct memory_room *m);

/* "the 110 MiB the agent's memory cgroup has left of its 128 MiB limit", into @buf. */
void memory_room_words(const struct memory_room *m, char *buf, size_t size);

/* The most events per CPU whose maps on @transport take at most @available bytes; 0: none. */
__u32 transport_memory_fits(enum fbf_transport transport, __u64 available);

/*
 * Whether the maps fit: NULL, or why not in a phrase for a one-line error
 * ("2 CPUs x 17179869200 bytes (1073741824 events) = 32 GiB of kernel memory,
 * more than three quarters of the 23 GiB this host has
 * available; at most 578813951 fit"), into @buf.
 */
const char *transport_memory_refusal(enum fbf_transport transport, __u32 events, char *buf,
				     size_t size);

#endif /* AGENT_TRANSPORT_MEMORY_H */
