// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Events on stdout. stdout is fully buffered, and the transports flush it
 * each time they run out of events; a failed write is noted when it
 * happens, and the transports act on it.
 */
#include <errno.h>
#include <stdio.h>
#include <time.h>

#include "fizzbuzzfib.h"
#include "sinks/output.h"
#include "userspace_util.h"

void output_init(struct output *o, bool json, bool quiet)
{
	struct timespec rt;

	clock_gettime(CLOCK_REALTIME, &rt);
	*o = (struct output){
		.json = json,
		.quiet = quiet,
		.wall_offset_ns = rt.tv_sec * 1000000000ULL + rt.tv_nsec - fbf_monotonic_ns(),
		.wall_cached_secs = -1,
	};
}

/*
 * Events are formatted by hand: printf's format parsing costs about as much
 * as the pop syscall itself, and would halve how fast a full queue drains;
 * beside a ring buffer, which needs no syscall per event, it would dominate.
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
static char *fmt_wall_time(char *p, struct output *o, __u64 mono_ns)
{
	__u64 wall_ns = mono_ns + o->wall_offset_ns;
	time_t secs = wall_ns / 1000000000ULL;
	__u64 frac = wall_ns % 1000000000ULL;
	struct tm tm;
	int i;

	if (secs != o->wall_cached_secs) {
		gmtime_r(&secs, &tm);
		strftime(o->wall_cached, sizeof(o->wall_cached), "%Y-%m-%dT%H:%M:%S", &tm);
		o->wall_cached_secs = secs;
	}
	p = fmt_str(p, o->wall_cached);
	*p++ = '.';
	for (i = 8; i >= 0; i--, frac /= 10)
		p[i] = '0' + frac % 10;
	p += 9;
	*p++ = 'Z';
	return p;
}

void output_time(struct output *o, __u64 mono_ns, char *buf)
{
	*fmt_wall_time(buf, o, mono_ns) = '\0';
}

void output_ipv4(__u32 addr, char *buf)
{
	*fmt_ipv4(buf, addr) = '\0';
}

void output_event(struct output *o, const struct fbf_event *ev)
{
	/* The longest line: JSON with 15-character address, two 20-digit numbers, a time. */
	char line[192], *p = line;
	__u64 now;

	if (o->quiet)
		return;
	if (o->json) {
		now = fbf_monotonic_ns();
		p = fmt_str(p, "{\"saddr\":\"");
		p = fmt_ipv4(p, ev->saddr);
		p = fmt_str(p, "\",\"class\":\"");
		p = fmt_str(p, fbf_class_name(ev->class_id));
		p = fmt_str(p, "\",\"ktime_ns\":");
		p = fmt_u64(p, ev->ktime_ns);
		p = fmt_str(p, ",\"time\":\"");
		p = fmt_wall_time(p, o, ev->ktime_ns);
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
	if (fwrite_unlocked(line, 1, p - line, stdout) != (size_t)(p - line) && !o->err)
		o->err = errno ?: EIO;
#ifdef FBF_CANARY_AGENT
	/* The agent canary (make CANARY=agent): one write syscall per event. Never shipped. */
	fflush(stdout);
#endif
}

void output_flush(struct output *o)
{
	if (fflush(stdout) == EOF && !o->err)
		o->err = errno ?: EIO;
}
