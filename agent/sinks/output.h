/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Events on stdout, one line each: text or JSON, fully buffered. */
#ifndef AGENT_OUTPUT_H
#define AGENT_OUTPUT_H

#include <stdbool.h>
#include <linux/types.h>

struct fbf_event;

struct output {
	bool json;
	bool quiet;			/* print nothing */
	__u64 wall_offset_ns;		/* CLOCK_REALTIME - CLOCK_MONOTONIC, taken once */
	long long wall_cached_secs;	/* the second wall_cached shows */
	char wall_cached[24];		/* "YYYY-MM-DDTHH:MM:SS" of that second */
	int err;			/* errno of the first failed write, 0: none */
};

void output_init(struct output *o, bool json, bool quiet);

/* "2026-11-24T17:20:01.123456789Z": CLOCK_MONOTONIC @mono_ns on the events' timeline. */
#define OUTPUT_TIME_SIZE 32
void output_time(struct output *o, __u64 mono_ns, char *buf);

/* "192.0.2.1", of @addr in host byte order. */
#define OUTPUT_IPV4_SIZE 16
void output_ipv4(__u32 addr, char *buf);

/* Print @ev (JSON: with its age, now). A failed write is noted in o->err. */
void output_event(struct output *o, const struct fbf_event *ev);

/* Write out what is buffered; a failure is noted in o->err. */
void output_flush(struct output *o);

#endif /* AGENT_OUTPUT_H */
