// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What every sink shares: see sink.h. */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "base/thread_name.h"
#include "sinks/sink.h"
#include "userspace_util.h"

/*
 * How sink_stop() gets a writer out of a write() blocked on a stalled
 * reader: a signal only writer threads take, with a handler that does
 * nothing and no SA_RESTART, so the write fails with EINTR. SIGURG's
 * default is to ignore it, so one sent to the process from outside is
 * harmless too.
 */
#define SINK_KICK_SIGNAL SIGURG
/* How long a stop kicks a writer before it leaves it to the exit, and how often. */
#define SINK_STOP_KICK_NS 200000000ULL
#define SINK_STOP_KICK_POLL_NS 5000000ULL
/* A stop that waits on an output longer than this says so. */
#define SINK_STOP_ANNOUNCE_NS 100000000ULL
/* Between two failed writes, or tries: a full disk or a server that is down is not spun on. */
#define SINK_RETRY_PAUSE_NS 100000000LL

/* @delta bytes more (or fewer) of @s's chunks, and the most they took. */
static void buffer_account(struct sink *s, long long delta)
{
	__u64 now = __atomic_add_fetch(&s->figures.buffer_bytes, delta, __ATOMIC_RELAXED);
	__u64 peak = __atomic_load_n(&s->figures.buffer_peak, __ATOMIC_RELAXED);

	while (now > peak && !__atomic_compare_exchange_n(&s->figures.buffer_peak, &peak, now,
							  true, __ATOMIC_RELAXED,
							  __ATOMIC_RELAXED))
		;
}

static struct sink_chunk *chunk_new(struct sink *s, size_t size, bool per_line)
{
	struct sink_chunk *c = malloc(sizeof(*c) + size);

	if (!c)
		return NULL;
	/* Touched whole, once: resident as the figures say, and no page fault while filled. */
	memset(c, 0, sizeof(*c) + size);
	c->size = size;
	c->per_line = per_line;
	buffer_account(s, sizeof(*c) + size);
	return c;
}

static void chunk_free(struct sink *s, struct sink_chunk *c)
{
	buffer_account(s, -(long long)(sizeof(*c) + c->size));
	free(c);
}

/* Under lock: @n records could not be taken or written, the last now. */
static void note_lost(struct sink *s, __u64 n)
{
	__u64 now = fbf_monotonic_ns();

	if (!n)
		return;
	if (!s->lost_pending)
		s->lost_from_ns = now;
	s->lost_to_ns = now;
	s->lost_pending += n;
	__atomic_fetch_add(&s->figures.lost, n, __ATOMIC_RELAXED);
}

/* Under lock: a chunk the writer is done with goes back to be filled again. */
static void chunk_recycle(struct sink *s, struct sink_chunk *c)
{
	/*
	 * Interval records are sized to fit: only event chunks are worth keeping.
	 * (A record may be an event chunk's size, and must not become one.)
	 */
	if (!c->per_line || c->size != s->chunk_size) {
		chunk_free(s, c);
		return;
	}
	*c = (struct sink_chunk){ .next = s->spare, .size = c->size, .per_line = true };
	s->spare = c;
}

/* Under lock: hand @c to the writer if the bound allows; else its records are lost. */
static void hand_over(struct sink *s, struct sink_chunk *c)
{
	struct sink_chunk *last;

	if (s->held + c->len > s->buffer_bytes) {
		note_lost(s, c->records);
		chunk_recycle(s, c);
		return;
	}
	/*
	 * Joined to the last chunk waiting (sink.h), a loss between them is said before the
	 * chunk the writer takes next, as it is when each waits on its own.
	 */
	last = s->head ? (void *)((char *)s->tail - offsetof(struct sink_chunk, next)) : NULL;
	if (last && c->per_line && last->per_line && last->size - last->len >= c->len) {
		memcpy(last->data + last->len, c->data, c->len);
		last->len += c->len;
		last->records += c->records;
		s->held += c->len;
		chunk_recycle(s, c);
		return;
	}
	c->next = NULL;
	*s->tail = c;
	s->tail = &c->next;
	s->held += c->len;
	pthread_cond_signal(&s->wake);
}

void sink_flush(struct sink *s)
{
	struct sink_chunk *c = s->cur;

	if (!c || !c->len)
		return;
	pthread_mutex_lock(&s->lock);
	hand_over(s, c);
	c = s->spare;
	if (c)
		s->spare = c->next;
	pthread_mutex_unlock(&s->lock);
	s->cur = c ?: chunk_new(s, s->chunk_size, true);
}

char *sink_reserve(struct sink *s, size_t len)
{
	if (s->cur && s->cur->size - s->cur->len < len)
		sink_flush(s);
	if (!s->cur)
		s->cur = chunk_new(s, s->chunk_size, true);
	/* Out of memory: this event is lost, and counted. */
	if (!s->cur) {
		pthread_mutex_lock(&s->lock);
		note_lost(s, 1);
		pthread_mutex_unlock(&s->lock);
		return NULL;
	}
	return s->cur->data + s->cur->len;
}

void sink_record(struct sink *s, const char *data, size_t len)
{
	struct sink_chunk *c = data ? chunk_new(s, len, false) : NULL;

	/* After the events before it, in order. */
	sink_flush(s);
	pthread_mutex_lock(&s->lock);
	if (c) {
		memcpy(c->data, data, len);
		c->len = len;
		c->records = 1;
		hand_over(s, c);
	} else {
		note_lost(s, 1);
	}
	pthread_mutex_unlock(&s->lock);
}

int sink_end_err(struct sink *s)
{
	return __atomic_load_n(&s->end_err, __ATOMIC_RELAXED);
}

void sink_end_run(struct sink *s, int err)
{
	__atomic_store_n(&s->end_err, err, __ATOMIC_RELAXED);
}

bool sink_given_up(struct sink *s)
{
	bool given_up;

	pthread_mutex_lock(&s->lock);
	given_up = s->stop_now || s->abandoned;
	pthread_mutex_unlock(&s->lock);
	return given_up;
}

void sink_progress(struct sink *s, struct sink_chunk *c, size_t done)
{
	const char *p, *end = c->data + done;
	__u32 n = 0;

	/* Whole, as nearly every write is: its records, without looking at a byte. */
	if (done == c->len)
		n = c->records - c->delivered;
	else if (c->per_line)
		for (p = c->data + c->done; (p = memchr(p, '\n', end - p)); p++)
			n++;
	pthread_mutex_lock(&s->lock);
	/* Once stop gave up on this chunk, it counted it lost: nothing more. */
	if (!s->abandoned) {
		c->done = done;
		c->delivered += n;
		__atomic_fetch_add(&s->figures.delivered, n, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&s->lock);
}

void sink_request_reopen(struct sink *s)
{
	pthread_mutex_lock(&s->lock);
	s->reopen = true;
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->lock);
}

/* On the writer thread, unlocked: the lost record (sink.h). 0, or -errno: it stays due. */
static int write_lost_record(struct sink *s, __u64 lost, __u64 from_ns, __u64 to_ns)
{
	char buf[FORMAT_ENVELOPE_MAX + 256], from[FORMAT_TIME_SIZE], to[FORMAT_TIME_SIZE];
	struct sink_chunk *c;
	size_t n;
	int err;

	format_time(&s->fmt, from_ns, from);
	format_time(&s->fmt, to_ns, to);
	if (s->fmt.json) {
		n = format_open_object(&s->fmt, buf);
		n += snprintf(buf + n, sizeof(buf) - n, "\"type\":\"lost\",\"records\":%llu,"
			      "\"from\":\"%s\",\"to\":\"%s\"}\n", lost, from, to);
	} else {
		n = snprintf(buf, sizeof(buf), "lost records=%llu from=%s to=%s\n", lost, from, to);
	}
	/* Not a record of the stream's count (records 0): a note about the others. */
	c = chunk_new(s, n, false);
	if (!c)
		return -ENOMEM;
	memcpy(c->data, buf, n);
	c->len = n;
	err = s->ops->write(s, c);
	chunk_free(s, c);
	return err;
}

void sink_retry_pause(void)
{
	struct timespec ts = { .tv_nsec = SINK_RETRY_PAUSE_NS };

	nanosleep(&ts, NULL);
}

/* The writer thread; a failed write does not stop it: a sink that can write again does. */
static void *sink_writer(void *arg)
{
	struct sink *s = arg;
	char job[32];
	struct sink_chunk *c;
	__u64 lost, from, to;
	int err;

	snprintf(job, sizeof(job), "out-%s", s->name);
	thread_name_self(job);

	pthread_mutex_lock(&s->lock);
	for (;;) {
		while (!s->head && !s->reopen && !s->closing)
			pthread_cond_wait(&s->wake, &s->lock);
		if (s->reopen) {
			s->reopen = false;
			pthread_mutex_unlock(&s->lock);
			if (s->ops->reopen)
				s->ops->reopen(s);
			pthread_mutex_lock(&s->lock);
			continue;
		}
		c = s->head;
		if (!c)
			break; /* closing, and nothing left */
		s->head = c->next;
		if (!s->head)
			s->tail = &s->head;
		s->writing = c;
		lost = s->lost_pending;
		from = s->lost_from_ns;
		to = s->lost_to_ns;
		pthread_mutex_unlock(&s->lock);

		err = lost ? write_lost_record(s, lost, from, to) : 0;
		if (!err)
			err = s->ops->write(s, c);
		__atomic_store_n(&s->figures.write_err, -err, __ATOMIC_RELAXED);

		pthread_mutex_lock(&s->lock);
		if (s->abandoned)
			break; /* sink_stop() counted this chunk and went on without us */
		/* Said in the stream: what was lost since is the next record's. */
		if (!err && lost)
			s->lost_pending -= lost;
		if (err)
			note_lost(s, c->records - c->delivered);
		s->held -= c->len;
		s->writing = NULL;
		chunk_recycle(s, c);
		if (!s->head)
			pthread_cond_broadcast(&s->idle);
		if (err && !s->closing) {
			pthread_mutex_unlock(&s->lock);
			sink_retry_pause();
			pthread_mutex_lock(&s->lock);
		}
	}
	pthread_cond_broadcast(&s->idle);
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

static void on_kick(int signo)
{
	(void)signo;
}

int sink_start(struct sink *s, size_t buffer_bytes)
{
	struct sigaction kick = { .sa_handler = on_kick };
	pthread_condattr_t mono;
	sigset_t all, old;
	int err;

	if (!s->chunk_size)
		s->chunk_size = SINK_CHUNK_SIZE;
	/* Two chunks at least: one being written, one being filled. */
	if (buffer_bytes < 2 * s->chunk_size)
		buffer_bytes = 2 * s->chunk_size;
	s->buffer_bytes = buffer_bytes;
	s->tail = &s->head;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->wake, NULL);
	pthread_condattr_init(&mono);
	pthread_condattr_setclock(&mono, CLOCK_MONOTONIC);
	pthread_cond_init(&s->idle, &mono);
	pthread_condattr_destroy(&mono);
	s->cur = chunk_new(s, s->chunk_size, true);
	if (!s->cur)
		return -ENOMEM;
	/* No SA_RESTART: the kick must end a blocked write(). */
	sigemptyset(&kick.sa_mask);
	sigaction(SINK_KICK_SIGNAL, &kick, NULL);
	/* Signals are the drain's, but the kick: a writer must not take a stop signal. */
	sigfillset(&all);
	sigdelset(&all, SINK_KICK_SIGNAL);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&s->thread, NULL, sink_writer, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return -err;
	s->thread_started = true;
	return 0;
}

/* When a wait on idle (CLOCK_MONOTONIC) ends: in 10 ms steps, a stop signal looked at between. */
static struct timespec idle_until(__u64 mono_ns)
{
	__u64 step = fbf_monotonic_ns() + 10000000ULL, at = mono_ns < step ? mono_ns : step;

	return (struct timespec){ .tv_sec = at / 1000000000ULL, .tv_nsec = at % 1000000000ULL };
}

void sink_stop(struct sink *s, __u64 deadline_ns, volatile sig_atomic_t *stops,
	       sig_atomic_t stops_then)
{
	__u64 start = fbf_monotonic_ns(), now, kick_until;
	bool stuck, said = false;
	struct sink_chunk *c;
	struct timespec ts;

	sink_flush(s);
	if (!s->thread_started)
		return;
	pthread_mutex_lock(&s->lock);
	s->closing = true;
	pthread_cond_signal(&s->wake);
	while ((s->head || s->writing) && (now = fbf_monotonic_ns()) < deadline_ns &&
	       !(stops && *stops != stops_then)) {
		/* A wait that shows is said once, and how to cut it short. */
		if (!said && now - start >= SINK_STOP_ANNOUNCE_NS) {
			size_t held = s->held;

			/* Not under the lock: stderr may be as slow as the output. */
			pthread_mutex_unlock(&s->lock);
			pr_info("output %s: waiting up to %.1f s for it to take the %zu bytes it "
				"holds; stop again to count them lost\n", s->name,
				(deadline_ns - now) / 1e9, held);
			pthread_mutex_lock(&s->lock);
			said = true;
			continue;
		}
		ts = idle_until(deadline_ns);
		pthread_cond_timedwait(&s->idle, &s->lock, &ts);
	}
	while ((c = s->head)) {
		s->head = c->next;
		s->held -= c->len;
		note_lost(s, c->records);
		chunk_recycle(s, c);
	}
	s->tail = &s->head;
	/*
	 * Kicked out of a blocked write() (EINTR), a writer counts what it wrote and loses the
	 * rest itself, exactly; one that does not come back in time is counted here, from what
	 * it had said by then.
	 */
	s->stop_now = true;
	kick_until = fbf_monotonic_ns() + SINK_STOP_KICK_NS;
	while (s->writing && fbf_monotonic_ns() < kick_until) {
		pthread_kill(s->thread, SINK_KICK_SIGNAL);
		ts = idle_until(fbf_monotonic_ns() + SINK_STOP_KICK_POLL_NS);
		pthread_cond_timedwait(&s->idle, &s->lock, &ts);
	}
	stuck = s->writing;
	if (stuck) {
		note_lost(s, s->writing->records - s->writing->delivered);
		s->abandoned = true;
	}
	pthread_mutex_unlock(&s->lock);
	if (!stuck) {
		pthread_join(s->thread, NULL);
		s->thread_started = false;
	}
}

void sink_free(struct sink *s)
{
	struct sink_chunk *c;

	/* A writer still stuck in a write keeps its chunk and the sink: the exit ends it. */
	if (s->thread_started)
		return;
	if (s->ops && s->ops->close)
		s->ops->close(s);
	if (s->cur)
		chunk_free(s, s->cur);
	s->cur = NULL;
	while ((c = s->spare)) {
		s->spare = c->next;
		chunk_free(s, c);
	}
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->wake);
	pthread_cond_destroy(&s->idle);
}
