/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The kinds of --output, one row each, kept in the kind's own file
 * (sink_stdout.c, sink_file.c, sink_nats.c, sink_ipfix.c) and named once in
 * OUTPUT_KINDS: a new kind is a file and a line there. The options check
 * a URL with its row before anything opens; outputs.c opens it with it.
 */
#ifndef AGENT_OUTPUT_KIND_H
#define AGENT_OUTPUT_KIND_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct sink;

/* What the kinds take from the other options when they open. */
struct output_open_args {
	__u64 rotate_bytes;		/* file: rotate past this size; 0: never */
	__u32 keep;			/* ... keeping this many old files */
	const char *nats_stream;	/* nats: the stream to create if none takes the subject */
	__u32 nats_replicas;		/* ... with this many replicas */
	const char *nats_creds;		/* ... a credentials file, or NULL */
	const char *nats_ca;		/* ... a CA certificate file for TLS, or NULL */
	bool nats_fail_fast;		/* ... no server at start: exit, not retry */
	const char *run_id;		/* unique to this run: NATS message ids start with it */
	__u32 ifindex;			/* ipfix: ingressInterface, default domain; 0: several */
};

struct output_kind {
	const char *name;		/* "file": its sinks' name in the summary and messages */
	const char *prefix;		/* what its URLs start with: "file:" */
	const char *alias;		/* a whole URL that names it too ("-"), or NULL */
	bool bare;			/* its URL is the prefix (or the alias) alone */
	const char *usage;		/* its URLs in a usage error: "file:PATH" */
	const char *help;		/* ... and in --help: "file:PATH (NDJSON lines)" */
	const char *options_set;	/* what its own options set: "how a file --output writes" */
	const char *needs_aggregate;	/* why it takes only --aggregate's intervals, or NULL */
	bool off_host;			/* its lines leave the host: JSON, in the envelope */
	/* What follows the prefix: 0, or -EINVAL with *why. NULL: any text but none. */
	int (*parse)(const char *rest, const char **why);
	/* Whether two URLs' rests name one place; NULL: the same text. */
	bool (*same)(const char *a, const char *b);
	/* Open @s onto @rest: 0, or an exit status after one line (then ops->close frees). */
	int (*open)(struct sink *s, const char *rest, const struct output_open_args *a);
};

/* Every kind, in the order --help lists them: X(name) for output_name, in sink_name.c. */
#define OUTPUT_KINDS(X) \
	X(stdout) \
	X(file) \
	X(nats) \
	X(ipfix)

#define OUTPUT_KIND_EXTERN(name) extern const struct output_kind output_##name;
OUTPUT_KINDS(OUTPUT_KIND_EXTERN)
#undef OUTPUT_KIND_EXTERN

/* OUTPUT_KINDS' rows, NULL-terminated. */
extern const struct output_kind *const output_kinds[];

/* The kind of @url, and in *rest what follows its prefix; NULL: none. */
const struct output_kind *output_kind_of(const char *url, const char **rest);

/* Every kind's usage ("a, b or c"), or with @help every kind's help ("a, b, c"), into @buf. */
void output_kinds_list(char *buf, size_t size, bool help);

#endif /* AGENT_OUTPUT_KIND_H */
