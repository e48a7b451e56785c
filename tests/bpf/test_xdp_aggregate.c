// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The program under --aggregate, through BPF_PROG_TEST_RUN: frames counted
 * per source in the source maps instead of sent as events, each count read
 * once by a swap and a batched read, and a full map's frames counted as
 * no_room. Then the same while two threads, one on each of two CPUs, run
 * the program on the same sources and the main thread swaps and reads over
 * and over: every frame must be read exactly once, or counted as no_room.
 * Each of those runs twice: with sources that each have a slot of their own
 * in the program's table of hot sources, and with sources 16 to a slot, which
 * take it in turns and spill to the hash at every turn. Every test runs on
 * both transports. Needs the privileges to load BPF
 * programs; without them, every test is skipped.
 */
#define _GNU_SOURCE /* pthread_setaffinity_np, CPU_SET */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <cmocka.h>

#include "bpf_fixture.h"
#include "fizzbuzzfib.h"
#include "frames.h"
#include "program_loaded.h"
#include "transport_groups.h"

/*
 * SOURCES addresses from BASE, every class among them and none: consecutive,
 * or a table's slots apart (the fold of the high half moves every 16 of
 * them), so that 16 share each slot.
 */
#define BASE IPV4_ADDR(198, 51, 100, 0)
#define SOURCES 64
#define STRIDE_SPREAD 1U
#define STRIDE_COLLIDE FBF_SOURCE_CACHE_SLOTS
/* The small maps' room, well below the classified sources among SOURCES. */
#define SMALL_SOURCES 8
/* Swaps while the two threads run, at least; and frames per BPF_PROG_TEST_RUN. */
#define TAKES 40
#define REPEAT 16
#define WORKERS 2

struct suite {
	struct bpf_fixture fx;		/* room for FBF_AGGREGATE_DEFAULT_SOURCES */
	struct bpf_fixture small;	/* room for SMALL_SOURCES */
	int load_err;
};

static enum fbf_transport suite_transport;

/* A frame from each source, built for the stride the test asks. */
static __u32 stride;
static __u8 frames[SOURCES][FRAME_MAX_LEN];
static size_t frame_len[SOURCES];

static __u32 source_addr(int i)
{
	return BASE + i * stride;
}

static bool classified(int i)
{
	return fbf_classify(source_addr(i)) != FBF_NONE;
}

static int nr_classified(void)
{
	int i, n = 0;

	for (i = 0; i < SOURCES; i++)
		n += classified(i);
	return n;
}

static void run_source(struct bpf_fixture *fx, int i, int repeat)
{
	__u32 retval = ~0U;
	int err;

	err = bpf_fixture_run(fx, frames[i], frame_len[i], repeat, NULL, NULL, &retval);
	if (err)
		fail_msg("BPF_PROG_TEST_RUN: %s", strerror(-err));
	assert_int_equal(retval, XDP_PASS);
}

/* Take an interval's counts and add them to @got, per source; the sources read. */
static long take_into(struct bpf_fixture *fx, __u64 *got)
{
	long n = source_reader_take(&fx->sources), i;
	__u32 off;

	if (n < 0)
		fail_msg("taking the source counts: %s", strerror(-n));
	for (i = 0; i < n; i++) {
		off = (fx->sources.counts[i].saddr - BASE) / stride;
		if (off >= SOURCES || source_addr(off) != fx->sources.counts[i].saddr)
			fail_msg("a count for %#x, which sent nothing",
				 fx->sources.counts[i].saddr);
		if (!classified(off))
			fail_msg("a count for %#x, of class none", fx->sources.counts[i].saddr);
		if (!fx->sources.counts[i].packets)
			fail_msg("an entry for %#x that counts nothing",
				 fx->sources.counts[i].saddr);
		got[off] += fx->sources.counts[i].packets;
	}
	return n;
}

static struct fbf_counters counters(struct bpf_fixture *fx)
{
	struct fbf_counters c;
	int err = bpf_fixture_counters(fx, &c);

	if (err)
		fail_msg("reading the counters: %s", strerror(-err));
	return c;
}

/* No event in the queue or ring, and the counters say none was made. */
static void assert_no_event(struct bpf_fixture *fx, const struct fbf_counters *c)
{
	struct fbf_event ev;

	assert_int_equal(bpf_fixture_pop(fx, &ev), -ENOENT);
	assert_int_equal(fbf_events_produced(c), 0);
	assert_int_equal(c->not_sampled, 0);
	assert_int_equal(fbf_events_lost(c), 0);
}

static struct suite *suite_of(void **state)
{
	struct suite *s = *state;

	require_program_loaded(s->load_err);
	return s;
}

/* Source i sends i + 1 frames: each classified source reads back exactly that, once. */
static void test_each_source_is_counted_exactly(void **state)
{
	struct suite *s = suite_of(state);
	__u64 got[SOURCES] = {}, want = 0;
	struct fbf_counters c;
	int i;

	for (i = 0; i < SOURCES; i++)
		run_source(&s->fx, i, i + 1);
	assert_int_equal(take_into(&s->fx, got), nr_classified());
	for (i = 0; i < SOURCES; i++) {
		assert_int_equal(got[i], classified(i) ? i + 1 : 0);
		want += got[i];
	}
	c = counters(&s->fx);
	assert_int_equal(c.aggregated, want);
	assert_int_equal(c.no_room, 0);
	assert_int_equal(fbf_classified(&c), want);
	assert_no_event(&s->fx, &c);
	/* Read and emptied: the next take has nothing, from either map. */
	assert_int_equal(take_into(&s->fx, got), 0);
	assert_int_equal(take_into(&s->fx, got), 0);
}

/*
 * A map with room for SMALL_SOURCES: the first that many sources are
 * counted, the rest are no_room, each frame of them; after a take, the map
 * swapped in has room again.
 */
static void test_a_full_map_counts_the_rest_as_no_room(void **state)
{
	struct suite *s = suite_of(state);
	__u64 got[SOURCES] = {}, read = 0;
	int i, round, n = nr_classified();
	struct fbf_counters c;

	assert_true(n > SMALL_SOURCES);
	for (round = 1; round <= 3; round++) {
		for (i = 0; i < SOURCES; i++)
			run_source(&s->small, i, 3);
		assert_int_equal(take_into(&s->small, got), SMALL_SOURCES);
		c = counters(&s->small);
		read += 3 * SMALL_SOURCES;
		assert_int_equal(c.aggregated, read);
		assert_int_equal(c.no_room, (__u64)round * 3 * (n - SMALL_SOURCES));
		assert_int_equal(c.aggregated + c.no_room, fbf_classified(&c));
		assert_no_event(&s->small, &c);
	}
	for (i = 0; i < SOURCES; i++)
		assert_true(got[i] % 3 == 0);
}

struct worker {
	struct bpf_fixture *fx;
	int cpu;
	volatile int *stop;
	__u64 sent[SOURCES];
	volatile __u64 passes;		/* over all SOURCES */
	int err;
};

/* Run the program on every source in turn, on one CPU, until told to stop. */
static void *worker_run(void *arg)
{
	struct worker *w = arg;
	cpu_set_t one;
	__u32 retval;
	int i;

	CPU_ZERO(&one);
	CPU_SET(w->cpu, &one);
	w->err = -pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
	while (!w->err && !*w->stop) {
		for (i = 0; i < SOURCES && !w->err; i++) {
			w->err = bpf_fixture_run(w->fx, frames[i], frame_len[i], REPEAT, NULL,
						 NULL, &retval);
			if (!w->err)
				w->sent[i] += REPEAT;
		}
		__atomic_store_n(&w->passes, w->passes + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/*
 * WORKERS threads on as many CPUs as there are (two on this project's
 * machines) run the same sources, so that CPUs race to add a source's
 * entry, while this thread takes the counts TAKES times or more: until every
 * worker has made two passes. What each run counted is read exactly once
 * or is no_room: nothing lost at a swap, nothing read twice. The checks
 * hold however fast the machine is.
 */
static void concurrent_takes(struct bpf_fixture *fx, bool fits)
{
	struct worker w[WORKERS] = {};
	pthread_t thread[WORKERS];
	__u64 got[SOURCES] = {}, sent, read = 0, total = 0;
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	volatile int stop = 0;
	struct fbf_counters c;
	int i, k, takes = 0;
	bool more;

	for (k = 0; k < WORKERS; k++) {
		w[k] = (struct worker){ .fx = fx, .cpu = k % (ncpus > 0 ? ncpus : 1),
					.stop = &stop };
		assert_int_equal(pthread_create(&thread[k], NULL, worker_run, &w[k]), 0);
	}
	do {
		usleep(500);
		/* A take reads no more sources than a map holds, swaps or not. */
		if (take_into(fx, got) > fx->sources.capacity)
			fail_msg("take %d read more sources than the map holds", takes);
		takes++;
		more = takes < TAKES;
		for (k = 0; k < WORKERS; k++)
			more |= __atomic_load_n(&w[k].passes, __ATOMIC_ACQUIRE) < 2 && !w[k].err;
	} while (more);
	stop = 1;
	for (k = 0; k < WORKERS; k++) {
		pthread_join(thread[k], NULL);
		if (w[k].err)
			fail_msg("worker on CPU %d: %s", w[k].cpu, strerror(-w[k].err));
	}
	/* The runs since the last take are in the map counted into now. */
	take_into(fx, got);
	assert_int_equal(take_into(fx, got), 0);

	c = counters(fx);
	for (i = 0; i < SOURCES; i++) {
		for (sent = 0, k = 0; k < WORKERS; k++)
			sent += w[k].sent[i];
		if (!classified(i))
			continue;
		total += sent;
		read += got[i];
		if (fits && got[i] != sent)
			fail_msg("source %d: %llu frames sent, %llu read", i, sent, got[i]);
		if (got[i] > sent)
			fail_msg("source %d: %llu frames sent, %llu read", i, sent, got[i]);
	}
	assert_int_equal(fbf_classified(&c), total);
	assert_int_equal(c.aggregated, read);
	assert_int_equal(c.aggregated + c.no_room, total);
	if (fits)
		assert_int_equal(c.no_room, 0);
	else
		assert_true(c.no_room > 0);
	assert_no_event(fx, &c);
	print_message("# %d takes; %llu frames read, %llu no_room\n", takes, read, c.no_room);
}

static void test_two_cpus_and_swaps_lose_and_repeat_nothing(void **state)
{
	concurrent_takes(&suite_of(state)->fx, true);
}

static void test_two_cpus_and_a_full_map_count_every_frame(void **state)
{
	concurrent_takes(&suite_of(state)->small, false);
}

static int reset_maps(void **state)
{
	struct suite *s = *state;

	if (s->load_err)
		return 0;
	return bpf_fixture_reset(&s->fx) || bpf_fixture_reset(&s->small);
}

static int sources_at(void **state, __u32 step)
{
	int i;

	stride = step;
	for (i = 0; i < SOURCES; i++)
		frame_len[i] = frame_build_ipv4(frames[i], sizeof(frames[i]), NULL,
						&FRAME_IPV4(source_addr(i)));
	return reset_maps(state);
}

static int sources_spread(void **state)
{
	return sources_at(state, STRIDE_SPREAD);
}

static int sources_collide(void **state)
{
	return sources_at(state, STRIDE_COLLIDE);
}

static int suite_setup(void **state)
{
	struct suite *s = calloc(1, sizeof(*s));

	if (!s)
		return -1;
	s->load_err = bpf_fixture_load_aggregated(&s->fx, suite_transport,
						  FBF_AGGREGATE_DEFAULT_SOURCES);
	if (!s->load_err)
		s->load_err = bpf_fixture_load_aggregated(&s->small, suite_transport,
							  SMALL_SOURCES);
	program_load_note(s->load_err);
	*state = s;
	return 0;
}

static int suite_teardown(void **state)
{
	struct suite *s = *state;

	bpf_fixture_destroy(&s->fx);
	bpf_fixture_destroy(&s->small);
	free(s);
	return 0;
}

#define xdp_test(fn) cmocka_unit_test_setup(fn, sources_spread)
/* The same test, named apart: sources that share the table's slots. */
#define xdp_test_colliding(fn) { #fn "_sharing_slots", fn, sources_collide, NULL, NULL }

int main(void)
{
	const struct CMUnitTest tests[] = {
		xdp_test(test_each_source_is_counted_exactly),
		xdp_test(test_a_full_map_counts_the_rest_as_no_room),
		xdp_test(test_two_cpus_and_swaps_lose_and_repeat_nothing),
		xdp_test(test_two_cpus_and_a_full_map_count_every_frame),
		xdp_test_colliding(test_each_source_is_counted_exactly),
		xdp_test_colliding(test_a_full_map_counts_the_rest_as_no_room),
		xdp_test_colliding(test_two_cpus_and_swaps_lose_and_repeat_nothing),
		xdp_test_colliding(test_two_cpus_and_a_full_map_count_every_frame),
	};

	return run_groups_per_transport("xdp_aggregate", tests, sizeof(tests) / sizeof(tests[0]),
					suite_setup, suite_teardown, &suite_transport);
}
