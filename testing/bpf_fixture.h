/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The XDP program loaded for BPF_PROG_TEST_RUN: load it, run frames through
 * it, read and reset its queue and counters. Free of any test framework, so
 * that every test program and the fuzzer can use it.
 */
#ifndef BPF_FIXTURE_H
#define BPF_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "fizzbuzzfib.h"
#include "event_maps.h"
#include "fbf_object.h"
#include "source_counts.h"

struct ring_buffer;

struct bpf_fixture {
	struct fbf_object obj;
	struct fbf_event_maps maps;	/* every CPU's queue or ring, then the spare */
	struct ring_buffer *ring;	/* the ring buffers' reader */
	struct fbf_event *popped;	/* where the reader puts the one event it takes */
	struct source_reader sources;	/* aggregated: the source maps' reader */
	__u32 capacity;			/* events each CPU's queue or ring holds */
	int prog_fd;
	int events_fd;			/* the array of every CPU's map */
	int counters_fd;
};

/*
 * Open and load the program of @transport with room for @queue_size events
 * on each CPU (a ring is rounded up: see capacity), and keep the calling
 * thread on the CPU it is on, so that the events of its runs go to one map
 * and come out in the order they went in. 0 or -errno.
 */
int bpf_fixture_load(struct bpf_fixture *fx, enum fbf_transport transport, __u32 queue_size);

/* The same, with the program sending 1 event in @sample (--sample). 0 or -errno. */
int bpf_fixture_load_sampled(struct bpf_fixture *fx, enum fbf_transport transport,
			     __u32 queue_size, __u32 sample);

/*
 * The same, counting frames per source in maps of @max_sources (--aggregate)
 * and sending no event; fx->sources takes the counts. 0 or -errno.
 */
int bpf_fixture_load_aggregated(struct bpf_fixture *fx, enum fbf_transport transport,
				__u32 max_sources);

/* Safe on a fixture that failed to load or was never loaded. */
void bpf_fixture_destroy(struct bpf_fixture *fx);

/*
 * True if bpf_fixture_load() failed because BPF cannot be used here at all
 * (not root, or no bpf syscall): the tests should skip rather than fail. As
 * root, a refusal (EPERM) is a failure.
 */
bool bpf_fixture_unavailable(int err);

/*
 * Empty the queue or ring (or the source maps) and zero the counters on
 * every CPU, and with them the sampling's countdown: the next event on each
 * CPU is sent. 0 or -errno.
 */
int bpf_fixture_reset(struct bpf_fixture *fx);

/*
 * Run the program @repeat times on @frame of @len bytes. The frame as the
 * program left it goes to @out (@out_len: in its size, out the frame's
 * length). 0 or -errno; *retval is the program's return value.
 */
int bpf_fixture_run(struct bpf_fixture *fx, const void *frame, size_t len, int repeat,
		    void *out, __u32 *out_len, __u32 *retval);

/*
 * Take an event, the oldest of the first CPU's map that has one: 0, -ENOENT
 * if every queue or ring is empty, or another -errno.
 */
int bpf_fixture_pop(struct bpf_fixture *fx, struct fbf_event *event);

/*
 * Pin the calling thread to the CPU it runs on now, so that every run of a
 * program it tests sends to that CPU's map: a test run of many repeats
 * yields the CPU when asked and may go on on another. 0 or -errno.
 */
int bpf_fixture_stay_on_this_cpu(void);

/* The counters summed over all CPUs. 0 or -errno. */
int bpf_fixture_counters(struct bpf_fixture *fx, struct fbf_counters *sum);

/*
 * Compare two sets of counters field by field. Writes "field: got X, want Y"
 * for each difference into @msg (always NUL-terminated) and returns how many
 * fields differ.
 */
int fbf_counters_diff(const struct fbf_counters *got, const struct fbf_counters *want,
		      char *msg, size_t size);

#endif /* BPF_FIXTURE_H */
