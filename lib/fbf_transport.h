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
	FBF_TRANSPORT_QUEUE,	/* BPF_MAP_TYPE_QUEUE: one pop syscall per event */
	FBF_TRANSPORT_RINGBUF,	/* BPF_MAP_TYPE_RINGBUF: read in place, epoll wake-ups */
};

/* "queue" or "ringbuf". */
static inline const char *fbf_transport_name(enum fbf_transport transport)
{
	return transport == FBF_TRANSPORT_RINGBUF ? "ringbuf" : "queue";
}

/* The transport named @s ("queue", "ringbuf"): 0, or -EINVAL. */
static inline int fbf_transport_parse(const char *s, enum fbf_transport *out)
{
	if (!strcmp(s, "queue"))
		*out = FBF_TRANSPORT_QUEUE;
	else if (!strcmp(s, "ringbuf"))
		*out = FBF_TRANSPORT_RINGBUF;
	else
		return -EINVAL;
	return 0;
}

/*
 * The size in bytes of a ring that holds @events events: a power-of-two
 * number of pages, as the kernel requires. 0 if that passes 2 GiB.
 */
static inline __u32 fbf_ring_bytes(__u32 events)
{
	__u64 need = (__u64)events * FBF_RING_RECORD_BYTES;
	__u64 bytes = sysconf(_SC_PAGESIZE);

	while (bytes < need)
		bytes <<= 1;
	return bytes > 0x80000000ULL ? 0 : bytes;
}

/* How many events a ring of @bytes holds. */
static inline __u32 fbf_ring_capacity(__u32 bytes)
{
	return bytes / FBF_RING_RECORD_BYTES;
}

#endif /* FBF_TRANSPORT_H */
