// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A queue map is read one pop, one syscall, per event: it has no batch pop
 * in any kernel, and nothing to map. An empty queue costs one pop that
 * finds nothing, per read.
 */
#include <errno.h>
#include <bpf/bpf.h>

#include "fizzbuzzfib.h"
#include "sinks/event_sink.h"
#include "transports/transport.h"

/*
 * A pop from a system call fails with EBUSY only where the queue's lock is
 * a resilient one (6.15 on), and only after waiting a quarter of a second
 * for it or finding a deadlock: worth a few more tries, not a spin forever.
 */
#define QUEUE_BUSY_TRIES 4

static long queue_read_map(struct transport *t, unsigned int i, __u64 max)
{
	int fd = t->maps.fds[i];
	unsigned int busy = 0;
	long n = 0;

	while ((__u64)n < max) {
		/*
		 * Zeroed, though the kernel fills it: Valgrind 3.19 does not always see
		 * the bpf syscall's write into it, and two stores cost nothing beside it.
		 */
		struct fbf_event ev = {};

		if (bpf_map_lookup_and_delete_elem(fd, NULL, &ev)) {
			if (errno == EBUSY && ++busy < QUEUE_BUSY_TRIES)
				continue;
			return errno == ENOENT ? n : -errno;
		}
		event_sink_deliver(t->sink, &ev);
		n++;
	}
	return n;
}

const struct transport_ops transport_queue_ops = {
	.read_map = queue_read_map,
};
