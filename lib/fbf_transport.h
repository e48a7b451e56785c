/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Userspace only: the event transports and the ring buffer's size. Header
 * only and free of libbpf, so that the option parser and its fuzzer need
 * nothing else.
 */
#ifndef FBF_TRANSPORT_H
#define FBF_TRANSPORT_H

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <linux/types.h>

#include "fizzbuzzfib.h"

enum fbf_transport {
	FBF_TRANSPORT_QUEUE,	/* a BPF_MAP_TYPE_QUEUE per CPU: one pop syscall per event */
	FBF_TRANSPORT_RINGBUF,	/* a BPF_MAP_TYPE_RINGBUF per CPU: read in place */
};

/* Each transport's name, as --transport takes it and the agent prints it: written once. */
static const char *const fbf_transport_names[] = {
	[FBF_TRANSPORT_QUEUE] = "queue",
	[FBF_TRANSPORT_RINGBUF] = "ringbuf",
};

#define FBF_NR_TRANSPORTS (sizeof(fbf_transport_names) / sizeof(fbf_transport_names[0]))

static inline const char *fbf_transport_name(enum fbf_transport transport)
{
	return (size_t)transport < FBF_NR_TRANSPORTS ? fbf_transport_names[transport] : "invalid";
}

/* The transport named @s: 0, or -EINVAL. */
static inline int fbf_transport_parse(const char *s, enum fbf_transport *out)
{
	size_t i;

	for (i = 0; i < FBF_NR_TRANSPORTS; i++) {
		if (!strcmp(s, fbf_transport_names[i])) {
			*out = (enum fbf_transport)i;
			return 0;
		}
	}
	return -EINVAL;
}

/*
 * The size in bytes of a ring that holds @records records of @record_bytes
 * (header included): a power-of-two number of pages, as the kernel requires.
 * 0 if that passes 2 GiB.
 */
static inline __u32 ring_bytes_for(__u64 records, __u32 record_bytes)
{
	__u64 need = records * record_bytes;
	__u64 bytes = sysconf(_SC_PAGESIZE);

	while (bytes < need)
		bytes <<= 1;
	return bytes > 0x80000000ULL ? 0 : bytes;
}

/* The size in bytes of a ring that holds @events events. */
static inline __u32 fbf_ring_bytes(__u32 events)
{
	return ring_bytes_for(events, FBF_RING_RECORD_BYTES);
}

/*
 * The kernel memory one CPU's event map of @events events takes: a queue
 * keeps events + 1 slots of the event, a ring its data pages (mapped twice,
 * allocated once). 0 if no such map can be made (a ring past 2 GiB). There
 * is one per possible CPU (--queue-size is per CPU), and a spare of the least.
 */
static inline __u64 fbf_event_map_bytes(enum fbf_transport transport, __u32 events)
{
	if (transport == FBF_TRANSPORT_RINGBUF)
		return fbf_ring_bytes(events);
	return ((__u64)events + 1) * sizeof(struct fbf_event);
}

/* How many events a ring of @bytes holds. */
static inline __u32 fbf_ring_capacity(__u32 bytes)
{
	return bytes / FBF_RING_RECORD_BYTES;
}

#endif /* FBF_TRANSPORT_H */
