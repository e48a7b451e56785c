/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One event as one line: text ("192.0.2.1 Fizz") or a JSON object, and for
 * lines that leave the host a JSON object that names the host, the
 * interface and the event's number. Formatted by hand, into the caller's
 * buffer: see format.c for why.
 */
#ifndef AGENT_FORMAT_H
#define AGENT_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "base/escape.h"

struct fbf_event;
struct iface_names;

struct format {
	bool json;
	/* Set for lines that leave the host: "{\"host\":...,\"iface\":...,\"seq\":N," first. */
	const char *envelope;		/* "{\"host\":\"h\",\"iface\":\"i\"", or NULL */
	size_t envelope_len;
	/* Several interfaces: each event names its own ("iface", or last on a text line). */
	const struct iface_names *ifaces;	/* NULL: one, named by the envelope if any */
	__u64 wall_offset_ns;		/* CLOCK_REALTIME - CLOCK_MONOTONIC, taken once */
	long long wall_cached_secs;	/* the second wall_cached shows */
	char wall_cached[24];		/* "YYYY-MM-DDTHH:MM:SS" of that second */
};

/* CLOCK_REALTIME - CLOCK_MONOTONIC now: taken once per run, for every output alike. */
__u64 format_wall_offset(void);

/* Times on the timeline @wall_offset_ns gives, which every output of a run shares. */
void format_init(struct format *f, bool json, const char *envelope, __u64 wall_offset_ns);

/* The longest event line, envelope aside, an interface's name included; the longest envelope. */
#define FORMAT_EVENT_MAX (192 + ESCAPE_IFNAME_SIZE)
#define FORMAT_ENVELOPE_MAX 512

/* "2026-11-24T17:20:01.123456789Z": CLOCK_MONOTONIC @mono_ns on the events' timeline. */
#define FORMAT_TIME_SIZE 32
void format_time(const struct format *f, __u64 mono_ns, char *buf);

/* "192.0.2.1", of @addr in host byte order. */
#define FORMAT_IPV4_SIZE 16
void format_ipv4(__u32 addr, char *buf);

/*
 * @ev as one line with its newline, event number @seq, into @buf, which has
 * room for FORMAT_EVENT_MAX plus the envelope: the length.
 */
size_t format_event(struct format *f, const struct fbf_event *ev, __u64 seq, char *buf);

/* "{" and the envelope with its comma if the sink has one: where a record's fields go. */
size_t format_open_object(const struct format *f, char *buf);

#endif /* AGENT_FORMAT_H */
