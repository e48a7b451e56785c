// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A queue map has no batch pop and no way to wait for data, so the agent
 * pops one event per syscall while there are any and sleeps with an
 * exponential back-off while there are none: a busy queue is drained at
 * syscall speed, an idle agent wakes at most a hundred times a second.
 * stdout is fully buffered and flushed each time the queue runs empty; a
 * failed write is noted when it happens and acted on every 1024 events, so
 * a closed pipe stops the agent even under a flood that never empties it.
 */
#include <errno.h>
#include <stdio.h>
#include <time.h>
#include <bpf/bpf.h>

#include "fizzbuzzfib.h"
#include "drain.h"
#include "ifwatch.h"
#include "metrics.h"

/* How often the loop checks the interface and the program on it. */
#define IFACE_CHECK_NS 1000000000ULL
/* The event age histogram observes one event in this many (a power of 2). */
#define AGE_SAMPLE_EVERY 16
/* A busy loop looks at the clock and at stdout once per this many events (a power of 2). */
#define BUSY_CHECK_EVENTS 1024

__u64 monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * Events are formatted by hand: printf's format parsing costs about as much
 * as the pop syscall itself, and would halve how fast a full queue drains.
 */
static char *fmt_u64(char *p, __u64 v)
{
	char tmp[20];
	int n = 0;

	do
		tmp[n++] = '0' + v % 10;
	while (v /= 10);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *fmt_str(char *p, const char *s)
{
	while (*s)
		*p++ = *s++;
	return p;
}

static char *fmt_ipv4(char *p, __u32 addr)
{
	p = fmt_u64(p, addr >> 24);
	*p++ = '.';
	p = fmt_u64(p, (addr >> 16) & 0xff);
	*p++ = '.';
	p = fmt_u64(p, (addr >> 8) & 0xff);
	*p++ = '.';
	return fmt_u64(p, addr & 0xff);
}

/*
 * RFC 3339 UTC with nanoseconds, of CLOCK_MONOTONIC time @mono_ns: the
 * offset between the two clocks is taken once, at start, so every event of
 * a run is placed on one consistent timeline. The date and time of day are
 * formatted once per second, not per event.
 */
static char *fmt_wall_time(char *p, struct drain *d, __u64 mono_ns)
{
	__u64 wall_ns = mono_ns + d->wall_offset_ns;
	time_t secs = wall_ns / 1000000000ULL;
	__u64 frac = wall_ns % 1000000000ULL;
	struct tm tm;
	int i;

	if (secs != d->wall_cached_secs) {
		gmtime_r(&secs, &tm);
		strftime(d->wall_cached, sizeof(d->wall_cached), "%Y-%m-%dT%H:%M:%S", &tm);
		d->wall_cached_secs = secs;
	}
	p = fmt_str(p, d->wall_cached);
	*p++ = '.';
	for (i = 8; i >= 0; i--, frac /= 10)
		p[i] = '0' + frac % 10;
	p += 9;
	*p++ = 'Z';
	return p;
}

__u64 wall_offset_ns(void)
{
	struct timespec rt;

	clock_gettime(CLOCK_REALTIME, &rt);
	return rt.tv_sec * 1000000000ULL + rt.tv_nsec - monotonic_ns();
}

static void event_print(struct drain *d, const struct fbf_event *ev)
{
	/* The longest line: JSON with 15-character address, two 20-digit numbers, a time. */
	char line[192], *p = line;
	__u64 now;

	if (d->quiet)
		return;
	if (d->json) {
		now = monotonic_ns();
		p = fmt_str(p, "{\"saddr\":\"");
		p = fmt_ipv4(p, ev->saddr);
		p = fmt_str(p, "\",\"class\":\"");
		p = fmt_str(p, fbf_class_name(ev->class_id));
		p = fmt_str(p, "\",\"ktime_ns\":");
		p = fmt_u64(p, ev->ktime_ns);
		p = fmt_str(p, ",\"time\":\"");
		p = fmt_wall_time(p, d, ev->ktime_ns);
		*p++ = '"';
		p = fmt_str(p, ",\"age_ns\":");
		/* Both clocks are CLOCK_MONOTONIC; the event is never from the future. */
		p = fmt_u64(p, now > ev->ktime_ns ? now - ev->ktime_ns : 0);
		*p++ = '}';
	} else {
		p = fmt_ipv4(p, ev->saddr);
		*p++ = ' ';
		p = fmt_str(p, fbf_class_name(ev->class_id));
	}
	*p++ = '\n';
	/* Short only when a flush of the full buffer failed: errno is still its. */
	if (fwrite_unlocked(line, 1, p - line, stdout) != (size_t)(p - line) && !d->out_err)
		d->out_err = errno ?: EIO;
#ifdef FBF_CANARY_AGENT
	/* The agent canary (make CANARY=agent): one write syscall per event. Never shipped. */
	fflush(stdout);
#endif
}

/* 0: got one; -ENOENT: empty; -EBUSY: lock contended, try again; other: failure. */
static int event_pop(struct drain *d)
{
	/*
	 * Zeroed, though the kernel fills it: Valgrind 3.19 does not always see
	 * the bpf syscall's write into it, and two stores cost nothing beside it.
	 */
	struct fbf_event ev = {};

	if (bpf_map_lookup_and_delete_elem(d->events_fd, NULL, &ev))
		return -errno;
	/* One writer: a relaxed store is what a scrape on another thread needs. */
	__atomic_store_n(&d->delivered, d->delivered + 1, __ATOMIC_RELAXED);
	/* One event in AGE_SAMPLE_EVERY: a clock read per event cost 5-9% of the drain rate. */
	if (d->ages && !(d->delivered & (AGE_SAMPLE_EVERY - 1)))
		event_ages_observe(d->ages, monotonic_ns() - ev.ktime_ns);
	event_print(d, &ev);
	return 0;
}

static void output_flush(struct drain *d)
{
	if (fflush(stdout) == EOF && !d->out_err)
		d->out_err = errno ?: EIO;
}

/* A closed pipe ends the run like a signal (SIGPIPE is ignored for that). */
static enum drain_end output_end(const struct drain *d)
{
	return d->out_err == EPIPE ? DRAIN_OUTPUT_CLOSED : DRAIN_OUTPUT_ERROR;
}

static enum drain_end watch_end(enum ifwatch_state state)
{
	switch (state) {
	case IFWATCH_GONE:
		return DRAIN_IFACE_GONE;
	case IFWATCH_MOVED:
		return DRAIN_IFACE_MOVED;
	case IFWATCH_REPLACED:
	default:
		return DRAIN_PROG_REPLACED;
	}
}

/*
 * What the clock calls for, busy or idle: the deadline, running counters,
 * and once a second a look at the interface and the program on it. Returns
 * a reason to leave the live loop, or -1 to go on.
 */
static int timed_checks(struct drain *d, __u64 now, __u64 *next_iface_check)
{
	enum ifwatch_state state;

	if (d->deadline_ns && now >= d->deadline_ns)
		return DRAIN_DEADLINE;
	if (*d->stats || (d->stats_interval_ns && now >= d->next_stats_ns)) {
		*d->stats = 0;
		if (d->stats_interval_ns)
			d->next_stats_ns = now + d->stats_interval_ns;
		return DRAIN_STATS;
	}
	if (d->watch && now >= *next_iface_check) {
		state = ifwatch_check(d->watch);
		if (state != IFWATCH_OK)
			return watch_end(state);
		*next_iface_check = now + IFACE_CHECK_NS;
	}
	return -1;
}

enum drain_end drain_live(struct drain *d)
{
	__u64 sleep_ns = DRAIN_SLEEP_MIN_NS, next_iface_check = 0, now;
	struct timespec ts;
	int err, end;

	for (;;) {
		if (*d->stop)
			return DRAIN_SIGNAL;

		err = event_pop(d);
		if (!err) {
			if (d->count && d->delivered >= d->count)
				return DRAIN_COUNT;
			sleep_ns = DRAIN_SLEEP_MIN_NS;
			/* A steady stream never reaches the idle path: check here too. */
			if (d->delivered & (BUSY_CHECK_EVENTS - 1))
				continue;
			if (d->out_err)
				return output_end(d);
			end = timed_checks(d, monotonic_ns(), &next_iface_check);
			if (end >= 0)
				return end;
			continue;
		}
		if (err != -ENOENT && err != -EBUSY) {
			d->pop_err = err;
			return DRAIN_ERROR;
		}

		/* Empty: show what we have, then sleep. */
		output_flush(d);
		if (d->out_err)
			return output_end(d);
		now = monotonic_ns();
		end = timed_checks(d, now, &next_iface_check);
		if (end >= 0)
			return end;
		if (d->stats_interval_ns && d->next_stats_ns - now < sleep_ns)
			sleep_ns = d->next_stats_ns - now;
		if (d->deadline_ns && d->deadline_ns - now < sleep_ns)
			sleep_ns = d->deadline_ns - now;
		ts.tv_sec = sleep_ns / 1000000000ULL;
		ts.tv_nsec = sleep_ns % 1000000000ULL;
		nanosleep(&ts, NULL); /* EINTR: a signal, seen at the top of the loop */
		sleep_ns = sleep_ns * 2 > DRAIN_SLEEP_MAX_NS ? DRAIN_SLEEP_MAX_NS : sleep_ns * 2;
	}
}

int drain_rest(struct drain *d)
{
	int err;

	do
		err = event_pop(d);
	while (!err || err == -EBUSY);
	output_flush(d);
	return err == -ENOENT ? 0 : err;
}
