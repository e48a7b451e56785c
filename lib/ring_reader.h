/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Userspace only: reading a BPF ring buffer in place, records taken one by
 * one and given back as a batch. libbpf's ring_buffer stores the consumer
 * position after every record, and the program's reserve and submit load
 * it: each store moves that cache line to the reader's CPU and back. Here
 * it is stored once per batch, as the kernel's own ring benchmark does in
 * its custom consumer.
 */
#ifndef FBF_RING_READER_H
#define FBF_RING_READER_H

#include <stddef.h>
#include <linux/bpf.h>
#include <linux/types.h>

struct ring_reader {
	unsigned long *consumer_pos;		/* the page the reader writes */
	const unsigned long *producer_pos;	/* the page the program writes */
	const char *data;			/* mapped twice over: no record wraps */
	unsigned long mask;
	unsigned long pos;			/* read up to here */
	unsigned long released;			/* given back up to here */
	unsigned long seen_producer;		/* producer_pos last loaded */
	size_t mapped_len;
};

/* Map the ring buffer @map_fd. 0 or -errno. */
int ring_reader_open(struct ring_reader *r, int map_fd);

/*
 * The next record the program has submitted, and its length in *len; NULL
 * if there is none yet, or the next is still being written. A record stays
 * valid until ring_reader_release(). Inline: a reader calls it per record.
 *
 * Each record starts with an 8-byte header whose length word carries the
 * busy bit while the program writes it and the discard bit if it dropped it.
 */
static inline const void *ring_reader_next(struct ring_reader *r, __u32 *len)
{
	const __u32 *hdr;
	__u32 word;

	for (;;) {
		if (r->pos == r->seen_producer) {
			/* Pairs with the release that publishes producer_pos in reserve. */
			r->seen_producer = __atomic_load_n(r->producer_pos, __ATOMIC_ACQUIRE);
			if (r->pos == r->seen_producer)
				return NULL;
		}
		hdr = (const __u32 *)(r->data + (r->pos & r->mask));
		/* Pairs with submit's xchg: the record is whole once the busy bit is clear. */
		word = __atomic_load_n(hdr, __ATOMIC_ACQUIRE);
		if (word & BPF_RINGBUF_BUSY_BIT)
			return NULL;
		*len = word & ~(BPF_RINGBUF_BUSY_BIT | BPF_RINGBUF_DISCARD_BIT);
		r->pos += (*len + BPF_RINGBUF_HDR_SZ + 7) & ~7UL;
		if (!(word & BPF_RINGBUF_DISCARD_BIT))
			return (const char *)hdr + BPF_RINGBUF_HDR_SZ;
	}
}

/* Give the records read so far back to the program: one store. */
void ring_reader_release(struct ring_reader *r);

/* Pass over everything submitted so far without reading it. */
void ring_reader_skip_all(struct ring_reader *r);

void ring_reader_close(struct ring_reader *r);

#endif /* FBF_RING_READER_H */
