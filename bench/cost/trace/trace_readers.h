/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The object's events read as its own tool reads them: a thread polls every
 * ring buffer (libbpf's ring_buffer) and every perf event array (a perf
 * buffer on each CPU) the object has, and counts what it read and what the
 * kernel says was lost. Without a reader a ring buffer fills and its
 * reserves fail cheaply, and a perf output into a CPU's slot that no one
 * opened fails at once: paths production never takes.
 */
#ifndef FBF_TRACE_READERS_H
#define FBF_TRACE_READERS_H

#include <pthread.h>
#include <stdbool.h>
#include <bpf/libbpf.h>

#define TRACE_READER_MAPS 16

struct trace_reader_map {
	const char *name;
	const char *kind;		/* "ring buffer" or "perf event array" */
	struct perf_buffer *pb;		/* a perf event array's, or NULL */
	unsigned long long read, lost;	/* updated by the reader thread */
};

struct trace_readers {
	struct ring_buffer *rb;		/* every ring buffer of the object */
	struct trace_reader_map maps[TRACE_READER_MAPS];
	int nr;
	pthread_t thread;
	bool running;
	volatile bool stop;
};

/*
 * A reader for each event map of @obj, loaded, and its thread started on the
 * last CPU (where there are two or more): 0, or -errno. @r->nr is 0 where
 * the object has none.
 */
int trace_readers_start(struct trace_readers *r, struct bpf_object *obj);

/* The thread stopped, and what it made freed. */
void trace_readers_stop(struct trace_readers *r);

/* Events read and lost so far, over every map. */
void trace_readers_counts(const struct trace_readers *r, unsigned long long *read,
			  unsigned long long *lost);

#endif /* FBF_TRACE_READERS_H */
