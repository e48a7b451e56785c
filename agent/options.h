/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Command line of the agent. The value parsers are pure functions (no I/O,
 * no global state) so that they can be unit tested and fuzzed on their own.
 */
#ifndef AGENT_OPTIONS_H
#define AGENT_OPTIONS_H

#include <stdbool.h>
#include <linux/types.h>
#include <xdp/libxdp.h>

#include "fbf_transport.h"
#include "iface/ifselect.h"
#include "parse_num.h"

/* Limits of the option values, also quoted in the error messages. */
#define AGENT_QUEUE_SIZE_MIN 1U
/* Per CPU; past the host's memory or a ring's 2 GiB, refused (transport_memory.h). */
#define AGENT_QUEUE_SIZE_MAX (1U << 31)
#define AGENT_DURATION_MAX_S (365ULL * 24 * 3600)
#define AGENT_STATS_INTERVAL_MAX_S (24ULL * 3600)
#define AGENT_AGGREGATE_MAX_S (24ULL * 3600)
#define AGENT_OUTPUTS_MAX 8
#define AGENT_OUTPUT_TIMEOUT_MAX_S 3600ULL
#define AGENT_OUTPUT_TIMEOUT_DEFAULT_NS 5000000000ULL
#define AGENT_OUTPUT_KEEP_MAX 1000U
#define AGENT_OUTPUT_ROTATE_MIN 4096ULL
#define AGENT_NATS_STREAM_DEFAULT "FIZZBUZZFIB"
/* --max-ifaces' default: interfaces one agent serves at once. */
#define AGENT_MAX_IFACES_DEFAULT 256
#define AGENT_NATS_REPLICAS_MAX 5U

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
	const char *needs_aggregate;	/* an option given that only --aggregate takes */
	__u64 duration_ns;		/* 0: run until stopped */
	__u64 count;			/* 0: no limit */
	__u64 stats_interval_ns;	/* running counters on stderr this often, 0: never */
	const char *lock_dir;		/* where the per-interface lock files live */
	const char *metrics;		/* "ADDR:PORT" to serve Prometheus metrics on, or NULL */
	const char *outputs[AGENT_OUTPUTS_MAX];	/* --output URLs; none: stdout */
	unsigned int nr_outputs;
	__u64 output_rotate_bytes;	/* file sinks rotate past this size; 0: never */
	__u32 output_keep;		/* ... keeping this many old files */
	__u64 output_buffer;		/* bytes each sink may hold */
	__u64 output_timeout_ns;	/* at exit, how long the sinks may take to write the rest */
	const char *nats_stream;	/* the stream to create if none captures the subject */
	__u32 nats_replicas;		/* ... with this many replicas */
	const char *nats_creds;		/* a NATS credentials file, or NULL */
	const char *nats_ca;		/* a CA file for TLS to NATS, or NULL */
	const char *needs_file;		/* an option given that only a file --output takes */
	const char *needs_nats;		/* ... that only a NATS --output takes */
	bool detach;			/* attach nothing: remove what a dead agent left */
	bool json;
	bool quiet;
	bool verbose;
};

/* Parse argv into *opts; exits with AGENT_EXIT_USAGE on a usage error. */
void options_parse(int argc, char **argv, struct agent_options *opts);

#endif /* AGENT_OPTIONS_H */
