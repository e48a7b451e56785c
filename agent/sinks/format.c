// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* An event as a line: see format.h. */
#include <string.h>
#include <time.h>

#include "fizzbuzzfib.h"
#include "sinks/format.h"
#include "sinks/iface_names.h"
#include "userspace_util.h"

__u64 format_wall_offset(void)
{
	struct timespec rt;

	clock_gettime(CLOCK_REALTIME, &rt);
	return rt.tv_sec * 1000000000ULL + rt.tv_nsec - fbf_monotonic_ns();
}

void format_init(struct format *f, bool json, const char *envelope, __u64 wall_offset_ns)
{
	*f = (struct format){
		.json = json,
		.envelope = envelope,
		.envelope_len = envelope ? strlen(envelope) : 0,
		.wall_offset_ns = wall_offset_ns,
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
	for (int shift = 24; shift; shift -= 8) {
		p = fmt_u64(p, (addr >> shift) & 0xff);
		*p++ = '.';
	}
	return fmt_u64(p, addr & 0xff);
}

/*
 * RFC 3339 UTC with nanoseconds, of CLOCK_MONOTONIC @mono_ns on the run's one timeline
 * (format_wall_offset()); the date and time of day formatted once per second, not per event.
 */
static char *fmt_wall_time(char *p, struct format *f, __u64 mono_ns)
{
	__u64 wall_ns = mono_ns + f->wall_offset_ns, frac = wall_ns % 1000000000ULL;
	time_t secs = wall_ns / 1000000000ULL;
	struct tm tm;
	int i;

	if (secs != f->wall_cached_secs) {
		gmtime_r(&secs, &tm);
		strftime(f->wall_cached, sizeof(f->wall_cached), "%Y-%m-%dT%H:%M:%S", &tm);
		f->wall_cached_secs = secs;
	}
	p = fmt_str(p, f->wall_cached);
	*p++ = '.';
	for (i = 8; i >= 0; i--, frac /= 10)
		p[i] = '0' + frac % 10;
	p += 9;
	*p++ = 'Z';
	return p;
}

void format_time(const struct format *f, __u64 mono_ns, char *buf)
{
	/* A cache of its own: @f's is the drain's, which may be formatting meanwhile. */
	struct format own = { .wall_offset_ns = f->wall_offset_ns, .wall_cached_secs = -1 };

	*fmt_wall_time(buf, &own, mono_ns) = '\0';
}

void format_ipv4(__u32 addr, char *buf)
{
	*fmt_ipv4(buf, addr) = '\0';
}

size_t format_open_object(const struct format *f, char *buf)
{
	if (!f->envelope) {
		*buf = '{';
		return 1;
	}
	memcpy(buf, f->envelope, f->envelope_len);
	buf[f->envelope_len] = ',';
	return f->envelope_len + 1;
}

size_t format_event(struct format *f, const struct fbf_event *ev, __u64 seq, char *buf)
{
	char *p = buf;
	__u64 now;

	if (f->json) {
		p += format_open_object(f, p);
		if (f->ifaces) {
			p = fmt_str(p, "\"iface\":\"");
			p = fmt_str(p, iface_name(f->ifaces, ev->iface, true));
			p = fmt_str(p, "\",");
		}
		if (f->envelope) {
			p = fmt_str(p, "\"seq\":");
			p = fmt_u64(p, seq);
			*p++ = ',';
		}
		p = fmt_str(p, "\"saddr\":\"");
		p = fmt_ipv4(p, ev->saddr);
		p = fmt_str(p, "\",\"class\":\"");
		p = fmt_str(p, fbf_class_name(ev->class_id));
		*p++ = '"';
		/* Only a stamped event has a time (FBF_STAMP_EVERY): the others, none. */
		if (ev->ktime_ns) {
			now = fbf_monotonic_ns();
			p = fmt_str(p, ",\"ktime_ns\":");
			p = fmt_u64(p, ev->ktime_ns);
			p = fmt_str(p, ",\"time\":\"");
			p = fmt_wall_time(p, f, ev->ktime_ns);
			*p++ = '"';
			p = fmt_str(p, ",\"age_ns\":");
			/* Both clocks are CLOCK_MONOTONIC; the event is never from the future. */
			p = fmt_u64(p, now > ev->ktime_ns ? now - ev->ktime_ns : 0);
		}
		*p++ = '}';
	} else {
		p = fmt_ipv4(p, ev->saddr);
		*p++ = ' ';
		p = fmt_str(p, fbf_class_name(ev->class_id));
		if (f->ifaces) {
			*p++ = ' ';
			p = fmt_str(p, iface_name(f->ifaces, ev->iface, false));
		}
	}
	*p++ = '\n';
	return p - buf;
}
