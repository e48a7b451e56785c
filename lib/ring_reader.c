// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A ring buffer read in place: see ring_reader.h. The layout is the
 * kernel's (kernel/bpf/ringbuf.c): a page with the consumer position, a
 * page with the producer position, then the data, which the kernel maps
 * twice in a row so that a record that wraps reads as one.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>

#include "ring_reader.h"

int ring_reader_open(struct ring_reader *r, int map_fd)
{
	struct bpf_map_info info = {};
	__u32 info_len = sizeof(info);
	size_t page = sysconf(_SC_PAGESIZE);
	void *p;

	memset(r, 0, sizeof(*r));
	if (bpf_obj_get_info_by_fd(map_fd, &info, &info_len))
		return -errno;
	if (info.type != BPF_MAP_TYPE_RINGBUF)
		return -EINVAL;
	p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, map_fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	r->consumer_pos = p;
	r->mapped_len = page + 2 * (size_t)info.max_entries;
	p = mmap(NULL, r->mapped_len, PROT_READ, MAP_SHARED, map_fd, page);
	if (p == MAP_FAILED) {
		munmap(r->consumer_pos, page);
		r->consumer_pos = NULL;
		return -errno;
	}
	r->producer_pos = p;
	r->data = (const char *)p + page;
	r->mask = info.max_entries - 1;
	r->pos = __atomic_load_n(r->consumer_pos, __ATOMIC_ACQUIRE);
	r->released = r->seen_producer = r->pos;
	return 0;
}

void ring_reader_release(struct ring_reader *r)
{
	if (r->pos == r->released)
		return; /* a store would take the cache line from the program for nothing */
	/* Release: the program may reuse the space once it sees the store. */
	__atomic_store_n(r->consumer_pos, r->pos, __ATOMIC_RELEASE);
	r->released = r->pos;
}

void ring_reader_skip_all(struct ring_reader *r)
{
	__u32 len;

	while (ring_reader_next(r, &len))
		;
	ring_reader_release(r);
}

void ring_reader_close(struct ring_reader *r)
{
	size_t page = sysconf(_SC_PAGESIZE);

	if (r->consumer_pos)
		munmap(r->consumer_pos, page);
	if (r->producer_pos)
		munmap((void *)r->producer_pos, r->mapped_len);
	memset(r, 0, sizeof(*r));
}
