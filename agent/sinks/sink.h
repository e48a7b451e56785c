/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One place events go (stdout, a file, a NATS stream, an IPFIX collector),
 * behind one small interface: the kinds differ only in their sink_ops.
 *
 * The drain never waits on a sink: it writes each event's line into the
 * sink's current chunk, and a full chunk, or the drain catching up, goes to
 * the sink's own writer thread. What a sink holds is bounded
 * (--output-buffer): past it, a chunk's events are counted lost, and once
 * the sink writes again its stream gets a record of how many, between which
 * times. So a stalled reader, a full disk or a broker that is down costs
 * counted events, never a blocked drain, another sink's events, or a stop
 * that cannot stop.
 *
 * The bound's memory: a chunk handed over while the writer is behind joins
 * the last one waiting if it fits, so that part-full chunks (the drain
 * catching up often) do not each keep a whole one; a chunk is touched whole
 * when made, and kept to be filled again. So a sink's memory is resident at
 * once, said by its figures, and at most about twice the bound and a few
 * chunks.
 */
#ifndef AGENT_SINK_H
#define AGENT_SINK_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "sinks/format.h"

/* An event chunk's size, unless its kind sets another: a hand-over per few thousand lines. */
#define SINK_CHUNK_SIZE (256 * 1024)
/* What each sink may hold, unless --output-buffer says otherwise. */
#define SINK_BUFFER_DEFAULT (4U << 20)
#define SINK_BUFFER_MIN (128U * 1024)
#define SINK_BUFFER_MAX (1U << 30)

/*
 * An interval's counts per source as a sink that takes them whole (IPFIX)
 * gets them, in one chunk: this header, then @nr struct fbf_source_count.
 */
struct sink_counts {
	__u64 start_ns, end_ns;		/* CLOCK_MONOTONIC: the interval */
	__u32 nr;
	__u32 pad;
};

/* Whole lines (or one struct sink_counts), handed from the drain to a writer thread. */
struct sink_chunk {
	struct sink_chunk *next;
	size_t len;
	size_t size;			/* room in data[] */
	bool per_line;			/* each line a record (events); else one record in all */
	__u32 records;			/* events in it, 1 for an interval, 0 for a note */
	__u64 first_seq;		/* its first event's number; 0: no events */
	size_t done;			/* bytes written so far (sink_progress) */
	__u32 delivered;		/* records among them */
	/* Aligned: an interval's struct sink_counts and its __u64 counts are read in place. */
	char data[] __attribute__((aligned(8)));
};

struct sink;

struct sink_ops {
	/*
	 * On the writer thread: write @c whole, calling sink_progress() as its
	 * bytes are written (or acknowledged). Returns 0 or -errno; the records
	 * not written whole by then are counted lost. May block: nothing else
	 * waits on it.
	 */
	int (*write)(struct sink *s, struct sink_chunk *c);
	/* On the writer thread, after SIGHUP: reopen what the sink writes to. 0 or -errno. */
	int (*reopen)(struct sink *s);
	/* On the drain's thread, once the writer is gone (or never started). */
	void (*close)(struct sink *s);
};

/* A sink's figures, written by its threads and read by metrics scrapes: relaxed atomics. */
struct sink_figures {
	__u64 delivered;		/* records written whole, or acknowledged */
	__u64 lost;			/* records it could not take or write */
	__u64 buffer_bytes;		/* memory its chunks take now, all of it resident */
	__u64 buffer_peak;		/* ... and at most so far */
	int write_err;			/* errno of its last write; 0: it wrote (/readyz) */
};

struct sink {
	const struct sink_ops *ops;
	char name[16];			/* "stdout", "file", "file2", "nats": summary keys */
	const char *target;		/* the path or URL, for messages */
	struct format fmt;		/* how its lines look */
	bool takes_counts;		/* intervals as struct sink_counts, not lines */
	size_t chunk_size;		/* its event chunks' size; 0: SINK_CHUNK_SIZE */
	size_t buffer_bytes;		/* the bound on what it holds, raised to two chunks */
	void *priv;			/* the kind's own state */
	struct sink_figures figures;

	/* The drain's side. */
	struct sink_chunk *cur;		/* being filled */

	/* Shared, under lock. */
	pthread_mutex_t lock;
	pthread_cond_t wake;		/* for the writer: work, a reopen, or the end */
	pthread_cond_t idle;		/* for the closer: nothing left to write */
	struct sink_chunk *head, **tail;	/* handed over, oldest first */
	struct sink_chunk *spare;	/* chunks to fill again */
	size_t held;			/* bytes handed over and not yet written */
	struct sink_chunk *writing;	/* the chunk the writer holds, or NULL */
	bool reopen;			/* SIGHUP came */
	bool closing;			/* write what is left, then stop */
	bool stop_now;			/* the stop gave up waiting: write no more */
	bool abandoned;			/* stopped while a write was stuck: count nothing more */
	int end_err;			/* a failure that ends the run (stdout only); 0: none */
	__u64 lost_pending;		/* lost since the last record that said so */
	__u64 lost_from_ns, lost_to_ns;	/* CLOCK_MONOTONIC of the first and last of them */
	bool thread_started;
	pthread_t thread;
};

/*
 * Set up @s; its kind's open (output_kind.h) has set ops, name, target, fmt
 * and priv. 0 or -errno.
 */
int sink_start(struct sink *s, size_t buffer_bytes);

/* The drain's side, not thread safe: one drain thread feeds each sink. */

/* Room for @len more bytes in the current chunk: a pointer to it, or NULL (lost). */
char *sink_reserve(struct sink *s, size_t len);

/* @len bytes at what sink_reserve() gave are written: one event, number @seq. */
static inline void sink_commit_event(struct sink *s, size_t len, __u64 seq)
{
	struct sink_chunk *c = s->cur;

	if (!c->records++)
		c->first_seq = seq;
	c->len += len;
}

/* Hand over what the current chunk holds. */
void sink_flush(struct sink *s);

/* One record of its own (an interval), @len bytes, whole lines; @data NULL: lost. */
void sink_record(struct sink *s, const char *data, size_t len);

/* A failure that ends the run: the errno, or 0. */
int sink_end_err(struct sink *s);

/* For the kinds, on the writer thread: the first @done bytes of @c are written. */
void sink_progress(struct sink *s, struct sink_chunk *c, size_t done);

/*
 * For the kinds, on the writer thread: sink_stop() stopped waiting; write
 * and retry no more (return -ECANCELED). A blocked write() is interrupted
 * (EINTR) when it is so.
 */
bool sink_given_up(struct sink *s);

/* For the kinds, on the writer thread: a pause before a failed write is tried again. */
void sink_retry_pause(void);

/*
 * For the kinds, on any thread: the sink cannot write now, for @err (an
 * errno), though its write goes on retrying (a broker away): /readyz and
 * sink_up say so at once, not when the write gives up. The next write
 * that succeeds clears it; so may the kind, once it can write again.
 */
static inline void sink_set_down(struct sink *s, int err)
{
	__atomic_store_n(&s->figures.write_err, err, __ATOMIC_RELAXED);
}

/* For the kinds: @err ends the run (stdout's reader is gone, say). */
void sink_end_run(struct sink *s, int err);

/* Ask the writer to reopen (SIGHUP). */
void sink_request_reopen(struct sink *s);

/*
 * Hand over what is left and wait until it is written, or until
 * @deadline_ns (CLOCK_MONOTONIC), or until *@stops passes @stops_then (a
 * stop signal that says not to wait); what is not written then is counted
 * lost. The writer is stopped if it can be; one stuck in a write is left
 * to the process's exit.
 */
void sink_stop(struct sink *s, __u64 deadline_ns, volatile sig_atomic_t *stops,
	       sig_atomic_t stops_then);

/* Free what sink_stop() left. */
void sink_free(struct sink *s);

#endif /* AGENT_SINK_H */
