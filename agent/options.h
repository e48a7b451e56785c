/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Command line of the agent: one table of its options (options.c), from
 * which the parser, the defaults and --help come, and which the tests hold
 * the manual and the docs to. The number parsers are lib/parse_num.c's.
 */
#ifndef AGENT_OPTIONS_H
#define AGENT_OPTIONS_H

#include <stdbool.h>
#include <linux/types.h>
#include <xdp/libxdp.h>

#include "fbf_transport.h"
#include "iface/ifselect.h"
#include "parse_num.h"
#include "sinks/event_sink.h"
#include "sinks/output_kind.h"

/* Limits of the option values that code beside the table needs too. */
#define AGENT_QUEUE_SIZE_MIN 1U
/* Per CPU; past the host's memory or a ring's 2 GiB, refused (transport_memory.h). */
#define AGENT_QUEUE_SIZE_MAX (1U << 31)
#define AGENT_DURATION_MAX_S (365ULL * 24 * 3600)

struct agent_options {
	struct ifselect ifaces;		/* --iface: the names and patterns */
	const char *iface;		/* ... if that is one exact name, else NULL */
	char iface_given[256];		/* ... as given, the values joined by commas, for logs */
	__u32 max_ifaces;		/* patterns: interfaces served at once */
	enum xdp_attach_mode mode;	/* XDP_MODE_UNSPEC: let the kernel pick */
	enum fbf_transport transport;	/* how events reach the agent */
	__u32 queue_size;		/* events each CPU's queue or ring holds */
	__u32 sample;			/* send 1 event in this many, 1: every event */
	__u64 aggregate_ns;		/* count per source, report this often; 0: events */
	__u32 top;			/* --aggregate: top sources shown per class */
	__u32 max_sources;		/* --aggregate: sources the kernel's maps hold */
	__u64 duration_ns;		/* 0: run until stopped */
	__u64 count;			/* 0: no limit */
	__u64 stats_interval_ns;	/* running counters on stderr this often, 0: never */
	const char *lock_dir;		/* where the per-interface lock files live */
	const char *metrics;		/* "ADDR:PORT" to serve Prometheus metrics on, or NULL */
	const char *outputs[EVENT_SINK_MAX];	/* --output URLs; none: stdout */
	unsigned int nr_outputs;
	__u64 output_rotate_bytes;	/* file sinks rotate past this size; 0: never */
	__u32 output_keep;		/* ... keeping this many old files */
	__u64 output_buffer;		/* bytes each sink may hold */
	__u64 output_timeout_ns;	/* at exit, how long the sinks may take to write the rest */
	const char *nats_stream;	/* the stream to create if none captures the subject */
	__u32 nats_replicas;		/* ... with this many replicas */
	const char *nats_creds;		/* a NATS credentials file, or NULL */
	const char *nats_ca;		/* a CA file for TLS to NATS, or NULL */
	bool nats_fail_fast;		/* no NATS server at start: exit, not retry */
	bool detach;			/* attach nothing: remove what a dead agent left */
	bool json;
	bool quiet;
	bool verbose;
};

/* How an option's value is read. */
enum agent_option_type {
	OPTION_FLAG,		/* no value: its bool is set */
	OPTION_NUMBER,		/* a whole number from min to max (a __u32 or a __u64) */
	OPTION_SECONDS,		/* seconds, greater than 0 and at most max, kept in ns */
	OPTION_TEXT,		/* any text but none, kept as given */
	OPTION_OWN,		/* read by code of its own in options.c */
};

/* One option of the agent: all that the parser, --help and the tests know of it. */
struct agent_option {
	const char *name;		/* "queue-size" */
	int key;			/* its short form ('Q'), or a number past any character */
	const char *arg;		/* its value's name ("N"); NULL: it takes none */
	enum agent_option_type type;
	size_t field;			/* where it goes in struct agent_options */
	size_t size;			/* ... and its size; 0: nowhere */
	__u64 min, max;			/* NUMBER: its range; SECONDS: max, in seconds */
	__u64 def;			/* its default (SECONDS: in ns), unless def_text */
	const char *def_text;		/* a TEXT's (or an OWN's) default, or NULL */
	const char *max_words;		/* SECONDS: max in words ("one day") */
	const char *example;		/* SECONDS: values a usage error shows ("1 or 0.5") */
	const char *unit;		/* NUMBER: its unit (" of bytes"); TEXT: what it names */
	const char *min_words;		/* NUMBER: what min means (" (every event)") */
	const char *doc;		/* --help's words: {min}, {max} and {default} filled in */
	bool needs_aggregate;		/* it sets how --aggregate counts */
	bool needs_patterns;		/* it sets how --iface's patterns are served */
	const char *aggregate_refuses;	/* given with --aggregate: why that is refused */
	const struct output_kind *needs_output;	/* it sets how outputs of this kind write */
};

/* The agent's options, --help's order, ended by a row without a name. */
extern const struct agent_option agent_options[];

/* Parse argv into *opts; exits with AGENT_EXIT_USAGE on a usage error. */
void options_parse(int argc, char **argv, struct agent_options *opts);

#endif /* AGENT_OPTIONS_H */
