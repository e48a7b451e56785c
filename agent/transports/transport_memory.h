/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The kernel memory the event maps take on this host: one map per possible
 * CPU of --queue-size events each (fbf_event_map_bytes()), said by --help
 * and the start line, and checked against what the host has before anything
 * is attached.
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

/*
 * Whether the maps fit: NULL, or why not in a phrase for a one-line error
 * ("2 CPUs x 1073741824 events x 16 bytes = 32 GiB, more than the 23 GiB
 * this host has available"), into @buf.
 */
const char *transport_memory_refusal(enum fbf_transport transport, __u32 events, char *buf,
				     size_t size);

#endif /* AGENT_TRANSPORT_MEMORY_H */
