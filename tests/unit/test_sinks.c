// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The sinks' accounting (agent/sinks), against a kind of the test's own
 * whose writes wait, fail or hang on command: every event is delivered or
 * counted lost, exactly, whatever the output does. A full buffer loses the
 * overflow and says how many in the stream; a failed write loses the lines
 * it did not write; a stop loses what a stalled writer still holds, and
 * counts nothing twice for a writer that never comes back; one stalled
 * output costs the other outputs nothing.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fizzbuzzfib.h"
#include "sinks/event_sink.h"
#include "sinks/sink.h"
#include "userspace_util.h"

/* The sink tests' lines: "event 000000001\n", 16 bytes, four to a 64-byte chunk. */
#define LINE 16
#define CHUNK (4 * LINE)
/* What sink_start() raises any smaller bound to: two chunks. */
#define HELD_MAX (2 * CHUNK)

enum fake_mode {
	FAKE_GATED,		/* each write waits until the gate opens, then writes all */
	FAKE_FAILING,		/* the writes fails names fail: an event chunk's after two lines */
	FAKE_STALLED,		/* a write blocks until kicked, and gives up once the stop has */
	FAKE_HUNG,		/* a write writes one line, then waits for the gate, kicks or not */
};

/* The kind: what it was asked to write, and what reached its reader. */
struct fake {
	enum fake_mode mode;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool open;		/* the gate */
	unsigned int writes;	/* writes begun */
	unsigned int fails;	/* FAKE_FAILING: bit N-1 set, write N fails */
	char *stream;		/* what the reader got, in order */
	size_t len;
};

static void fake_init(struct fake *f, enum fake_mode mode)
{
	*f = (struct fake){ .mode = mode };
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->cond, NULL);
}

static void fake_free(struct fake *f)
{
	free(f->stream);
	pthread_mutex_destroy(&f->lock);
	pthread_cond_destroy(&f->cond);
}

/* The reader gets the first @n bytes of @c, and the sink hears so. */
static void fake_deliver(struct fake *f, struct sink *s, struct sink_chunk *c, size_t n)
{
	pthread_mutex_lock(&f->lock);
	f->stream = realloc(f->stream, f->len + n + 1);
	assert_non_null(f->stream);
	memcpy(f->stream + f->len, c->data, n);
	f->len += n;
	f->stream[f->len] = '\0';
	pthread_mutex_unlock(&f->lock);
	sink_progress(s, c, n);
}

static void fake_wait_gate(struct fake *f)
{
	pthread_mutex_lock(&f->lock);
	while (!f->open)
		pthread_cond_wait(&f->cond, &f->lock);
	pthread_mutex_unlock(&f->lock);
}

static int fake_write(struct sink *s, struct sink_chunk *c)
{
	struct fake *f = s->priv;
	unsigned int nth;

	pthread_mutex_lock(&f->lock);
	nth = ++f->writes;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);

	switch (f->mode) {
	case FAKE_GATED:
		fake_wait_gate(f);
		break;
	case FAKE_FAILING:
		if (!(f->fails & 1U << (nth - 1)))
			break;
		/* A note (the record of losses) fails whole. */
		if (c->records)
			fake_deliver(f, s, c, 2 * LINE);
		return -EIO;
	case FAKE_STALLED:
		/* As a write() to a reader that never reads: only the stop's kick ends it. */
		while (!sink_given_up(s))
			poll(NULL, 0, -1);
		return -ECANCELED;
	case FAKE_HUNG:
		fake_deliver(f, s, c, LINE);
		fake_wait_gate(f);
		break;
	}
	fake_deliver(f, s, c, c->len);
	return 0;
}

static const struct sink_ops fake_ops = { .write = fake_write };

/* Until the writer has begun @n writes. */
static void wait_writes(struct fake *f, unsigned int n)
{
	pthread_mutex_lock(&f->lock);
	while (f->writes < n)
		pthread_cond_wait(&f->cond, &f->lock);
	pthread_mutex_unlock(&f->lock);
}

static void open_gate(struct fake *f)
{
	pthread_mutex_lock(&f->lock);
	f->open = true;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
}

/* A sink of 64-byte chunks that writes into @f, in @mode, under @buffer_bytes. */
static void start(struct sink *s, struct fake *f, enum fake_mode mode, size_t buffer_bytes)
{
	fake_init(f, mode);
	*s = (struct sink){ .ops = &fake_ops, .name = "fake", .target = "fake",
			    .chunk_size = CHUNK, .priv = f };
	format_init(&s->fmt, false, NULL, format_wall_offset());
	assert_int_equal(sink_start(s, buffer_bytes), 0);
}

static void finish(struct sink *s, struct fake *f)
{
	sink_free(s);
	fake_free(f);
}

/* @n more events, numbered on from *@seq, as the drain writes them. */
static void put(struct sink *s, __u64 *seq, unsigned int n)
{
	char line[LINE + 1];
	char *p;

	while (n--) {
		p = sink_reserve(s, LINE);
		assert_non_null(p);
		snprintf(line, sizeof(line), "event %09llu\n", ++*seq);
		memcpy(p, line, LINE);
		sink_commit_event(s, LINE, *seq);
	}
}

static __u64 far_deadline(void)
{
	return fbf_monotonic_ns() + 60 * 1000000000ULL;
}

static __u64 delivered(const struct sink *s)
{
	return __atomic_load_n(&s->figures.delivered, __ATOMIC_RELAXED);
}

static __u64 lost(const struct sink *s)
{
	return __atomic_load_n(&s->figures.lost, __ATOMIC_RELAXED);
}

/* Lines of the stream that start with @prefix. */
static unsigned int count_lines(const char *stream, const char *prefix)
{
	unsigned int n = 0;
	const char *p;

	for (p = stream; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		n += !strncmp(p, prefix, strlen(prefix));
	return n;
}

/* What the stream's "lost records=N" lines add up to. */
static __u64 said_lost(const char *stream)
{
	unsigned long long n;
	__u64 sum = 0;
	const char *p;

	for (p = stream; p && (p = strstr(p, "lost records=")); p++) {
		assert_int_equal(sscanf(p, "lost records=%llu from=", &n), 1);
		sum += n;
	}
	return sum;
}

/*
 * A writer held on its first chunk: the bound takes one more, and every
 * chunk after is lost whole, counted; once the writer goes on, the stream
 * says how many between the two chunks it kept.
 */
static void test_full_buffer_loses_the_overflow_counted(void **state)
{
	struct sink s;
	struct fake f;
	__u64 seq = 0;

	(void)state;
	start(&s, &f, FAKE_GATED, 0);
	assert_int_equal(s.buffer_bytes, HELD_MAX);
	put(&s, &seq, 4);
	sink_flush(&s);
	/* The writer holds chunk 1: what is lost from here comes after it. */
	wait_writes(&f, 1);
	put(&s, &seq, 36);
	sink_flush(&s);
	assert_int_equal(lost(&s), 32);
	assert_int_equal(delivered(&s), 0);

	open_gate(&f);
	sink_stop(&s, far_deadline(), NULL, 0);
	assert_int_equal(delivered(&s), 8);
	assert_int_equal(lost(&s), 32);
	assert_int_equal(s.lost_pending, 0);
	assert_int_equal(count_lines(f.stream, "event "), 8);
	assert_int_equal(count_lines(f.stream, "lost records=32 from="), 1);
	assert_non_null(strstr(f.stream, "event 000000004\nlost records=32 from="));
	assert_non_null(strstr(f.stream, "Z\nevent 000000005\n"));
	assert_non_null(strstr(f.stream, "event 000000008\n"));
	assert_null(strstr(f.stream, "event 000000009\n"));
	finish(&s, &f);
}

/*
 * Writes that fail: one part way, whose written lines are delivered and the
 * rest of its chunk lost; then the record of that loss, which takes the
 * chunk after it down too and stays due; then a record of both, and the
 * last chunk written.
 */
static void test_failed_writes_lose_what_they_did_not_write(void **state)
{
	struct sink s;
	struct fake f;
	__u64 seq = 0;

	(void)state;
	/* A bound that takes all three chunks: only the writes lose. */
	start(&s, &f, FAKE_FAILING, 3 * CHUNK);
	f.fails = 1U << 0 | 1U << 1;
	put(&s, &seq, 4);
	sink_flush(&s);
	put(&s, &seq, 4);
	sink_flush(&s);
	put(&s, &seq, 4);
	sink_stop(&s, far_deadline(), NULL, 0);

	assert_int_equal(f.writes, 4);
	assert_int_equal(delivered(&s), 6);
	assert_int_equal(lost(&s), 6);
	assert_int_equal(s.lost_pending, 0);
	assert_int_equal(count_lines(f.stream, "event "), 6);
	assert_non_null(strstr(f.stream, "event 000000002\nlost records=6 from="));
	assert_int_equal(count_lines(f.stream, "lost records="), 1);
	assert_null(strstr(f.stream, "event 000000003\n"));
	assert_null(strstr(f.stream, "event 000000008\n"));
	assert_non_null(strstr(f.stream, "Z\nevent 000000009\n"));
	assert_non_null(strstr(f.stream, "event 000000012\n"));
	finish(&s, &f);
}

/* A writer stalled on chunk 1, one more chunk queued, one lost, two events not handed over. */
static void stall(struct sink *s, struct fake *f)
{
	__u64 seq = 0;

	start(s, f, FAKE_STALLED, 0);
	put(s, &seq, 4);
	sink_flush(s);
	wait_writes(f, 1);
	put(s, &seq, 10);
	assert_int_equal(lost(s), 4);
}

/* A stop that cannot wait for a stalled output: all it held is lost, counted once. */
static void test_stop_at_the_deadline_counts_what_a_stalled_writer_holds(void **state)
{
	struct sink s;
	struct fake f;

	(void)state;
	stall(&s, &f);
	sink_stop(&s, fbf_monotonic_ns() + 20000000ULL, NULL, 0);
	/* The writer was kicked out of its write, and joined. */
	assert_false(s.thread_started);
	assert_int_equal(delivered(&s), 0);
	assert_int_equal(lost(&s), 14);
	assert_int_equal(s.held, 0);
	assert_null(f.stream);
	finish(&s, &f);
}

/* The same when a second stop signal says not to wait: no deadline needed. */
static void test_second_stop_signal_ends_the_wait_counted(void **state)
{
	volatile sig_atomic_t stops = 2;
	struct sink s;
	struct fake f;

	(void)state;
	stall(&s, &f);
	sink_stop(&s, far_deadline(), &stops, 1);
	assert_false(s.thread_started);
	assert_int_equal(delivered(&s), 0);
	assert_int_equal(lost(&s), 14);
	finish(&s, &f);
}

/*
 * A writer that no kick brings back is left to the exit: the stop counts
 * what it had not said written as lost, and nothing it says afterwards
 * counts again.
 */
static void test_writer_that_never_returns_is_counted_once(void **state)
{
	struct sink s;
	struct fake f;
	__u64 seq = 0;

	(void)state;
	start(&s, &f, FAKE_HUNG, 0);
	put(&s, &seq, 4);
	sink_flush(&s);
	wait_writes(&f, 1);
	/* One line written: the stop's own deadline is now. */
	while (delivered(&s) < 1)
		poll(NULL, 0, 1);
	sink_stop(&s, fbf_monotonic_ns(), NULL, 0);
	assert_true(s.thread_started);
	assert_true(s.abandoned);
	assert_int_equal(delivered(&s), 1);
	assert_int_equal(lost(&s), 3);
	/* Left as it is: a stuck writer keeps its sink. */
	sink_free(&s);

	/* It comes back after all and says the whole chunk written: counted already. */
	open_gate(&f);
	assert_int_equal(pthread_join(s.thread, NULL), 0);
	assert_int_equal(delivered(&s), 1);
	assert_int_equal(lost(&s), 3);
	/* Its chunk, which it left when it found itself abandoned. */
	free(s.writing);
	s.thread_started = false;
	finish(&s, &f);
}

/*
 * Through event_sink, as the drain feeds it: a stalled output loses its
 * overflow and a record it could not be given, and says so; the other
 * output, whose bound holds everything, loses only that record. Each
 * output's delivered and lost add up to what it was offered.
 */
static void test_stalled_output_costs_the_others_nothing(void **state)
{
	const struct fbf_event ev = { .saddr = 0x0a000003, .class_id = FBF_FIZZ };
	const unsigned int events = 5000;
	struct fake stalled, open;
	struct event_sink es;
	struct sink *a, *b;
	unsigned int i;

	(void)state;
	fake_init(&stalled, FAKE_GATED);
	fake_init(&open, FAKE_GATED);
	open_gate(&open);
	event_sink_init(&es, "host", "eth0");
	a = event_sink_add(&es);
	*a = (struct sink){ .ops = &fake_ops, .target = "a", .chunk_size = 4096, .priv = &stalled };
	assert_int_equal(event_sink_start(&es, a, "fake", false, false, 0), 0);
	b = event_sink_add(&es);
	*b = (struct sink){ .ops = &fake_ops, .target = "b", .chunk_size = 4096, .priv = &open };
	assert_int_equal(event_sink_start(&es, b, "fake", false, false, 4U << 20), 0);
	assert_string_equal(b->name, "fake2");

	for (i = 0; i < events; i++) {
		event_sink_deliver(&es, &ev);
		/* A record that could not be made, mid-stream. */
		if (i == events / 2)
			event_sink_record(&es, NULL, NULL, NULL, 0);
	}
	event_sink_flush(&es);
	assert_int_equal(event_sink_offered(&es), events + 1);

	open_gate(&stalled);
	event_sink_stop(&es, far_deadline(), NULL, 0);
	assert_false(event_sink_stuck(&es));

	assert_int_equal(delivered(b), events);
	assert_int_equal(lost(b), 1);
	assert_int_equal(count_lines(open.stream, "10.0.0.3 Fizz"), events);
	assert_int_equal(said_lost(open.stream), 1);

	assert_true(lost(a) > 1);
	assert_int_equal(delivered(a) + lost(a), event_sink_offered(&es));
	assert_int_equal(count_lines(stalled.stream, "10.0.0.3 Fizz"), delivered(a));
	assert_int_equal(said_lost(stalled.stream) + a->lost_pending, lost(a));

	event_sink_free(&es);
	fake_free(&stalled);
	fake_free(&open);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_buffer_loses_the_overflow_counted),
		cmocka_unit_test(test_failed_writes_lose_what_they_did_not_write),
		cmocka_unit_test(test_stop_at_the_deadline_counts_what_a_stalled_writer_holds),
		cmocka_unit_test(test_second_stop_signal_ends_the_wait_counted),
		cmocka_unit_test(test_writer_that_never_returns_is_counted_once),
		cmocka_unit_test(test_stalled_output_costs_the_others_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
