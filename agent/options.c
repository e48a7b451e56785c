// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Command line parsing: the table of the agent's options, and argp glue. */
#define _GNU_SOURCE /* program_invocation_short_name */
#include <argp.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fizzbuzzfib.h"
#include "loop/aggregate.h"
#include "base/escape.h"
#include "base/exit_codes.h"
#include "base/log.h"
#include "fbf_object.h"
#include "iface/ifselect.h"
#include "iface/lock.h"
#include "metrics/listen_addr.h"
#include "options.h"
#include "outputs.h"
#include "iface/xdp_mode.h"
#include "sinks/output_dest.h"
#include "sinks/output_kind.h"
#include "sinks/sink.h"
#include "transports/transport_memory.h"

/* Options with no short form. */
enum {
	OPT_USAGE = 0x100, OPT_LOCK_DIR, OPT_METRICS, OPT_SAMPLE, OPT_AGGREGATE, OPT_TOP,
	OPT_MAX_SOURCES, OPT_MAX_IFACES, OPT_OUTPUT_ROTATE_BYTES, OPT_OUTPUT_KEEP,
	OPT_OUTPUT_BUFFER, OPT_OUTPUT_TIMEOUT, OPT_NATS_STREAM, OPT_NATS_REPLICAS, OPT_NATS_CREDS,
	OPT_NATS_CA, OPT_NATS_FAIL_FAST, OPT_DETACH,
};

#define FIELD(f) .field = offsetof(struct agent_options, f), \
		 .size = sizeof(((struct agent_options *)0)->f)

const struct agent_option agent_options[] = {
	{ "iface", 'i', "IFACE", OPTION_OWN,
	  .doc = "Interface to attach to (required); repeatable, or comma-separated: exact names, "
		 "shell globs (veth*), /extended regex/, and '!' before any of them to exclude "
		 "what it matches (an exclusion wins; lo only by its exact name)" },
	{ "max-ifaces", OPT_MAX_IFACES, "N", OPTION_NUMBER, FIELD(max_ifaces),
	  .min = 1, .max = FBF_IFACE_SLOTS_MAX, .def = 256, .needs_patterns = true,
	  .doc = "With patterns in --iface: interfaces served at once, {min}..{max} (default: "
		 "{default}), taken as they come, at start those up before those down; those "
		 "selected beyond it are left alone, said once, each taken in turn as soon as one "
		 "has gone" },
	{ "mode", 'm', "MODE", OPTION_OWN, FIELD(mode), .def = XDP_MODE_UNSPEC,
	  .doc = "native, skb or auto (default: the cheaper for the driver; the start line says "
		 "which)" },
	{ "transport", 't', "KIND", OPTION_OWN, FIELD(transport), .def = FBF_TRANSPORT_QUEUE,
	  .doc = "How events reach the agent: queue (a queue map, one syscall per event) or "
		 "ringbuf (a BPF ring buffer, read in place) (default: queue)" },
	{ "queue-size", 'Q', "N", OPTION_NUMBER, FIELD(queue_size),
	  .min = AGENT_QUEUE_SIZE_MIN, .max = AGENT_QUEUE_SIZE_MAX, .def = FBF_DEFAULT_QUEUE_SIZE,
	  .doc = "Events each CPU's queue or ring holds, {min}..{max} (default: {default}): a "
		 "CPU's events go to its own map, so this is what one CPU holds while the agent "
		 "catches up, on any number of CPUs. A ring is rounded up to a power-of-two number "
		 "of pages. Kernel memory: possible CPUs x (N + 1) x 16 bytes in a queue, N x 24 "
		 "rounded up in a ring; "
		 "{memory}. A size whose maps would take more than three quarters of the memory "
		 "the agent may use (the host's available, or its memory cgroup's room) is "
		 "refused. Not with --aggregate, which sends no events",
	  .aggregate_refuses = "has nothing to size; use one of the two" },
	{ "sample", OPT_SAMPLE, "N", OPTION_NUMBER, FIELD(sample),
	  .min = 1, .max = FBF_SAMPLE_MAX, .def = FBF_SAMPLE_DEFAULT, .min_words = " (every event)",
	  .doc = "Send 1 event in N, {min}..{max}, on each CPU; the others are counted as "
		 "not_sampled (default: {default}, every event)" },
	{ "aggregate", OPT_AGGREGATE, "SECONDS", OPTION_SECONDS, FIELD(aggregate_ns),
	  .max = 24 * 3600, .max_words = "one day", .example = "1 or 0.5",
	  .doc = "Send no events: count packets per source in the kernel and print, every SECONDS "
		 "(at most {max}), the packets per class and the top sources per class" },
	{ "top", OPT_TOP, "N", OPTION_NUMBER, FIELD(top), .needs_aggregate = true,
	  .min = 0, .max = AGGREGATE_TOP_MAX, .def = AGGREGATE_TOP_DEFAULT,
	  .doc = "With --aggregate: the top N sources per class, {min}..{max} (default: "
		 "{default})" },
	{ "max-sources", OPT_MAX_SOURCES, "N", OPTION_NUMBER, FIELD(max_sources),
	  .needs_aggregate = true, .min = 1, .max = FBF_AGGREGATE_MAX_SOURCES,
	  .def = FBF_AGGREGATE_DEFAULT_SOURCES,
	  .doc = "With --aggregate: sources counted per interval, {min}..{max} (default: "
		 "{default}); packets from more are counted as no_room. Kernel memory: two maps "
		 "of N entries of 80 bytes and 8 more per CPU (13 MB on 2 CPUs at the default)" },
	{ "duration", 'd', "SECONDS", OPTION_SECONDS, FIELD(duration_ns),
	  .max = AGENT_DURATION_MAX_S, .max_words = "one year", .example = "10 or 2.5",
	  .doc = "Stop after SECONDS (decimals allowed, at most {max})" },
	{ "count", 'c', "N", OPTION_NUMBER, FIELD(count), .min = 1, .max = ~0ULL,
	  .doc = "Stop after N events (events already queued are still printed)",
	  .aggregate_refuses = "would never stop it; use --duration" },
	{ "stats-interval", 's', "SECONDS", OPTION_SECONDS, FIELD(stats_interval_ns),
	  .max = 24 * 3600, .max_words = "one day", .example = "10 or 0.5",
	  .doc = "Print the running counters on stderr every SECONDS (at most {max}; also on "
		 "SIGUSR1)" },
	{ "metrics", OPT_METRICS, "ADDR:PORT", OPTION_OWN, FIELD(metrics),
	  .doc = "Serve Prometheus metrics at http://ADDR:PORT/metrics (e.g. 127.0.0.1:9435)" },
	{ "output", 'o', "URL", OPTION_OWN,
	  .doc = "Where events go (or under --aggregate the intervals), repeatable: {outputs}. "
		 "Default: stdout; with --output, stdout only if named" },
	{ "output-rotate-bytes", OPT_OUTPUT_ROTATE_BYTES, "N", OPTION_NUMBER,
	  FIELD(output_rotate_bytes), .needs_output = &output_file, .min = 4096, .max = ~0ULL,
	  .doc = "Rotate file outputs once they would pass N bytes (at least {min}; default: "
		 "never)" },
	{ "output-keep", OPT_OUTPUT_KEEP, "K", OPTION_NUMBER, FIELD(output_keep),
	  .needs_output = &output_file, .min = 0, .max = 1000, .def = 5,
	  .doc = "Keep K rotated files, PATH.1 the newest, {min}..{max} (default: {default})" },
	{ "output-buffer", OPT_OUTPUT_BUFFER, "BYTES", OPTION_NUMBER, FIELD(output_buffer),
	  .min = SINK_BUFFER_MIN, .max = SINK_BUFFER_MAX, .def = SINK_BUFFER_DEFAULT,
	  .unit = " of bytes",
	  .doc = "What each output may hold while it cannot keep up, {min}..{max}; past it, "
		 "events are counted lost (default: {default}; raised to two chunks: 512 KiB, "
		 "1 MiB for NATS)" },
	{ "output-timeout", OPT_OUTPUT_TIMEOUT, "SECONDS", OPTION_SECONDS,
	  FIELD(output_timeout_ns), .max = 3600, .max_words = "one hour",
	  .example = "5 or 0.5", .def = 5 * FBF_NSEC_PER_SEC,
	  .doc = "At exit, how long the outputs may take to write what they hold, at most {max}; "
		 "the rest is counted lost (default: {default})" },
	{ "nats-stream", OPT_NATS_STREAM, "NAME", OPTION_OWN, FIELD(nats_stream),
	  .needs_output = &output_nats, .def_text = "FIZZBUZZFIB",
	  .doc = "The JetStream stream to create if none captures the subject (default: "
		 "{default}); a stream that exists is never changed" },
	{ "nats-replicas", OPT_NATS_REPLICAS, "N", OPTION_NUMBER, FIELD(nats_replicas),
	  .needs_output = &output_nats, .min = 1, .max = 5, .def = 1,
	  .doc = "Replicas of a stream the agent creates, {min}..{max} (default: {default})" },
	{ "nats-creds", OPT_NATS_CREDS, "FILE", OPTION_TEXT, FIELD(nats_creds),
	  .needs_output = &output_nats, .unit = "the file name",
	  .doc = "NATS credentials (JWT and NKey seed) file" },
	{ "nats-ca", OPT_NATS_CA, "FILE", OPTION_TEXT, FIELD(nats_ca),
	  .needs_output = &output_nats, .unit = "the file name",
	  .doc = "CA certificates to verify the NATS servers with, over TLS" },
	{ "nats-fail-fast", OPT_NATS_FAIL_FAST, NULL, OPTION_FLAG, FIELD(nats_fail_fast),
	  .needs_output = &output_nats,
	  .doc = "Exit (status 14) if no NATS server can be reached at start; by default the "
		 "agent starts, /readyz says 503 naming the output, and it publishes once one "
		 "is reached, events held by --output-buffer meanwhile, beyond it counted lost" },
	{ "lock-dir", OPT_LOCK_DIR, "DIR", OPTION_TEXT, FIELD(lock_dir),
	  .def_text = AGENT_LOCK_DIR, .unit = "the directory name",
	  .doc = "Keep the per-interface lock files in DIR (default: {default})" },
	{ "detach", OPT_DETACH, NULL, OPTION_FLAG, FIELD(detach),
	  .doc = "Attach nothing: remove the program a dead agent left on IFACE (the one its lock "
		 "file records, never another) and that lock file, then exit, 0 if there was "
		 "nothing to remove; for a service manager to run after every exit. Other options "
		 "than --lock-dir, --json and -v are checked and ignored" },
	{ "json", 'j', NULL, OPTION_FLAG, FIELD(json),
	  .doc = "Print events, running counters and the summary as JSON objects, one per line" },
	{ "quiet", 'q', NULL, OPTION_FLAG, FIELD(quiet),
	  .doc = "Print no events, only the summary" },
	{ "verbose", 'v', NULL, OPTION_FLAG, FIELD(verbose),
	  .doc = "Show libbpf and libxdp debug output" },
	{},
};

#define NR_OPTIONS (sizeof(agent_options) / sizeof(agent_options[0]) - 1)

/* argp's own --help would not print under ARGP_NO_ERRS, so these are the agent's. */
static const struct argp_option argp_tail[] = {
	{ "help", 'h', NULL, 0, "Give this help list", -1 },
	{ NULL, '?', NULL, OPTION_HIDDEN, NULL, -1 },
	{ "usage", OPT_USAGE, NULL, 0, "Give a short usage message", -1 },
	{ "version", 'V', NULL, 0, "Print the program version", -1 },
	{},
};

static const char doc_head[] =
	"Attach the FizzBuzzFibonacci XDP classifier to an interface and print one line per "
	"classified IPv4 packet (Fizz, Buzz, FizzBuzz or Fibonacci source address), of 1 in N "
	"(--sample), or per interval the packets per class and the top sources, counted in the "
	"kernel (--aggregate).\v"
	"The agent stops on Ctrl-C, SIGTERM, SIGHUP (which reopens the files instead, with a "
	"file --output), SIGQUIT, SIGALRM or any other signal that would end it, and on "
	"--duration or --count. It then detaches the program first and "
	"prints every event still queued, so --count N may print more than N lines; the summary "
	"on stderr accounts for every packet and event. SIGUSR1 prints the running counters.";

static char doc[2048];

/* doc_head, then "Exit status: 0 ..., 1 ...": the statuses as exit_codes.h lists them. */
static void doc_build(void)
{
#define AGENT_EXIT_ENTRY(name, status, meaning, todo) { status, meaning },
	static const struct {
		int status;
		const char *meaning;
	} exits[] = { AGENT_EXITS(AGENT_EXIT_ENTRY) };
#undef AGENT_EXIT_ENTRY
	FILE *f = fmemopen(doc, sizeof(doc), "w");
	const char *c;
	size_t i;

	/* Out of memory at start: the help without its list of statuses. */
	if (!f) {
		snprintf(doc, sizeof(doc), "%s", doc_head);
		return;
	}
	fprintf(f, "%s\n\nExit status:", doc_head);
	for (i = 0; i < sizeof(exits) / sizeof(exits[0]); i++) {
		fprintf(f, "%s %d ", i ? "," : "", exits[i].status);
		/* The list marks commands and options with backquotes, which help text has not. */
		for (c = exits[i].meaning; *c; c++)
			if (*c != '`')
				fputc(*c, f);
	}
	fputc('.', f);
	fclose(f);
}

/* --queue-size's kernel memory on this host, at the default, for its help. */
static void queue_memory_words(char *buf, size_t size)
{
	struct transport_memory queue, ring;
	char q[32], r[32];

	if (transport_memory(FBF_TRANSPORT_QUEUE, FBF_DEFAULT_QUEUE_SIZE, &queue) ||
	    transport_memory(FBF_TRANSPORT_RINGBUF, FBF_DEFAULT_QUEUE_SIZE, &ring)) {
		snprintf(buf, size, "on this host: its CPUs could not be counted");
		return;
	}
	transport_memory_format(queue.total, q, sizeof(q));
	transport_memory_format(ring.total, r, sizeof(r));
	snprintf(buf, size, "on this host %d CPUs, %s and %s at the default", queue.cpus, q, r);
}

/* @o's help: its doc with its range, its default and the like filled in. */
static void option_doc(const struct agent_option *o, char *buf, size_t size)
{
	const char *p = o->doc, *end;
	size_t n = 0, len;
	char word[512];

	while (*p && n < size - 1) {
		end = *p == '{' ? strchr(p, '}') : NULL;
		if (!end) {
			buf[n++] = *p++;
			continue;
		}
		len = end - p + 1;
		if (!strncmp(p, "{min}", len))
			snprintf(word, sizeof(word), "%llu", o->min);
		else if (!strncmp(p, "{max}", len) && o->type == OPTION_SECONDS)
			snprintf(word, sizeof(word), "%s", o->max_words);
		else if (!strncmp(p, "{max}", len))
			snprintf(word, sizeof(word), "%llu", o->max);
		else if (!strncmp(p, "{default}", len) && o->def_text)
			snprintf(word, sizeof(word), "%s", o->def_text);
		else if (!strncmp(p, "{default}", len) && o->type == OPTION_SECONDS)
			snprintf(word, sizeof(word), "%g", o->def / 1e9);
		else if (!strncmp(p, "{default}", len))
			snprintf(word, sizeof(word), "%llu", o->def);
		else if (!strncmp(p, "{memory}", len))
			queue_memory_words(word, sizeof(word));
		else if (!strncmp(p, "{outputs}", len))
			output_kinds_list(word, sizeof(word), true);
		else
			snprintf(word, sizeof(word), "%.*s", (int)len, p);
		n += snprintf(buf + n, size - n, "%s", word);
		p = end + 1;
	}
	buf[n < size ? n : size - 1] = '\0';
}

static struct argp_option argp_options[NR_OPTIONS + sizeof(argp_tail) / sizeof(argp_tail[0])];

/* argp's options from the table, each with its help filled in, then argp_tail's. */
static void argp_options_build(void)
{
	static char docs[NR_OPTIONS][768];
	unsigned int i;

	for (i = 0; i < NR_OPTIONS; i++) {
		option_doc(&agent_options[i], docs[i], sizeof(docs[i]));
		argp_options[i] = (struct argp_option){ agent_options[i].name, agent_options[i].key,
							agent_options[i].arg, 0, docs[i], 0 };
	}
	memcpy(argp_options + NR_OPTIONS, argp_tail, sizeof(argp_tail));
}

/*
 * A usage error is one line on stderr and AGENT_EXIT_USAGE, whatever caused
 * it: argp's own errors are silenced (ARGP_NO_ERRS) and reported here too,
 * without argp's second line.
 */
/* The command line asks for --json (json_asked()): a usage error is said as its log would be. */
static bool usage_json;

/* Room for a usage error's line: values shown cut at ARG_SHOWN_SIZE, --output's kinds listed. */
#define USAGE_LINE_SIZE 2048

static void __attribute__((noreturn, format(printf, 1, 2))) usage_error(const char *fmt, ...)
{
	char line[USAGE_LINE_SIZE];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* Named as invoked: build/agent, or fizzbuzzfib-agent as installed. */
	if (usage_json) {
		log_setup(false, true);
		pr_err("%s; see %s --help\n", line, program_invocation_short_name);
	} else {
		fprintf(stderr, "%s: %s; see %s --help\n", program_invocation_short_name, line,
			program_invocation_short_name);
	}
	exit(AGENT_EXIT_USAGE);
}

/*
 * Whether the word after @a, an option, is its value: a long one that takes
 * one without "=", or short ones whose first that takes one is the last.
 */
static bool value_follows(const char *a)
{
	const struct agent_option *o;
	size_t len;

	if (a[1] == '-') {
		for (o = agent_options; o->name; o++) {
			len = strlen(o->name);
			if (!strncmp(a + 2, o->name, len) && !a[2 + len])
				return o->arg;
		}
		return false;
	}
	for (const char *c = a + 1; *c; c++)
		for (o = agent_options; o->name; o++)
			if (o->key == *c && o->arg)
				return !c[1];
	return false;
}

/* Whether @a is short flags only (-q, -qv), @key among them. */
static bool flags_with(const char *a, int key)
{
	const struct agent_option *o;
	bool found = false;

	for (const char *c = a + 1; *c; c++) {
		for (o = agent_options; o->name && o->key != *c; o++)
			;
		if (!o->name || o->type != OPTION_FLAG)
			return false;
		found |= *c == key;
	}
	return found;
}

/*
 * Whether @argv asks for --json, looked for before it is parsed, so that a
 * usage error before or after it is said in JSON too: --json, or -j alone
 * or among other flags (-qj), up to a "--"; not a value that looks so
 * (--iface -j).
 */
static bool json_asked(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		const char *a = argv[i];

		if (a[0] != '-' || !a[1])
			continue;
		if (!strcmp(a, "--json") || (a[1] != '-' && flags_with(a, 'j')))
			return true;
		/* The next word is this one's value, not an option. */
		if (value_follows(a))
			i++;
	}
	return false;
}

/*
 * An option's value as an error message shows it: escaped like a log line, so
 * that no byte of it can move the terminal's cursor or forge a line; cut
 * short if long, as a 5,000-byte name would bury the message.
 */
#define ARG_SHOWN_SIZE 128
#define arg_shown(buf, arg) (escape_log((buf), sizeof(buf), (arg)), (buf))

/* Store @v, or the text @text, in @o's field of @opts. */
static void field_set(struct agent_options *opts, const struct agent_option *o, __u64 v,
		      const char *text)
{
	char *p = (char *)opts + o->field;

	if (text)
		memcpy(p, &text, sizeof(text));
	else if (o->size == sizeof(bool))
		*(bool *)p = v;
	else if (o->size == sizeof(__u32))
		*(__u32 *)p = v;
	else
		*(__u64 *)p = v;
}

/*
 * Why @arg is not seconds parse_seconds_ns() takes (@err its answer): a
 * number it does not take for its sign or exponent ("-1", "1e12") is still a
 * number, out of range or written otherwise.
 */
static const char *seconds_why(const char *arg, int err, __u64 max)
{
	char *end;
	double v;

	if (err == -ERANGE)
		return "out of range";
	if (err == -EDOM)
		return "finer than a nanosecond (at most nine decimals)";
	v = strtod(arg, &end);
	if (end == arg || *end || v != v)
		return "not a number of seconds";
	if (v <= 0 || v > max)
		return "out of range";
	return "not in plain decimals";
}

/* A value of a NUMBER, SECONDS or TEXT option, or a usage error that says what is allowed. */
static void value_option(struct agent_options *opts, const struct agent_option *o,
			 const char *arg)
{
	char shown[ARG_SHOWN_SIZE];
	__u64 v;
	int err;

	switch (o->type) {
	case OPTION_NUMBER:
		err = parse_u64_range(arg, o->min, o->max, &v);
		if (!err)
			break;
		usage_error("--%s '%s': %suse a whole number%s from %llu%s to %llu", o->name,
			    arg_shown(shown, arg), err == -EOVERFLOW ? "too large; " : "",
			    o->unit ?: "", o->min, o->min_words ?: "", o->max);
	case OPTION_SECONDS:
		err = parse_seconds_ns(arg, o->max, &v);
		if (!err)
			break;
		usage_error("--%s '%s': %s; use seconds greater than 0 and at most %llu (%s), "
			    "e.g. %s", o->name, arg_shown(shown, arg),
			    seconds_why(arg, err, o->max), o->max, o->max_words, o->example);
	case OPTION_TEXT:
		if (!*arg)
			usage_error("--%s: %s is empty", o->name, o->unit);
		field_set(opts, o, 0, arg);
		return;
	default:
		v = true;
	}
	field_set(opts, o, v, NULL);
}

/* One --output: checked now, so that a bad one stops the agent before it attaches. */
static void output_option(struct agent_options *opts, const char *arg)
{
	const struct output_kind *kind;
	char shown[ARG_SHOWN_SIZE], kinds[256];
	const char *rest, *why;

	kind = output_kind_of(arg, &rest);
	if (!kind) {
		output_kinds_list(kinds, sizeof(kinds), false);
		usage_error("--output '%s': use %s", arg_shown(shown, arg), kinds);
	}
	if (kind->parse && kind->parse(rest, &why))
		usage_error("--output '%s': %s", arg_shown(shown, arg), why);
	if (opts->nr_outputs == EVENT_SINK_MAX)
		usage_error("--output given more than %d times", EVENT_SINK_MAX);
	opts->outputs[opts->nr_outputs++] = arg;
}

/* The options read by code of their own (OPTION_OWN). */
static void own_option(struct agent_options *opts, int key, const char *arg)
{
	char shown[ARG_SHOWN_SIZE];
	int err;

	switch (key) {
	case 'i': {
		char why[128];
		size_t len;

		err = ifselect_add(&opts->ifaces, arg, why, sizeof(why));
		if (err == -ENAMETOOLONG)
			usage_error("--iface: %s", why);
		if (err)
			usage_error("--iface '%s': %s", arg_shown(shown, arg), why);
		len = strlen(opts->iface_given);
		snprintf(opts->iface_given + len, sizeof(opts->iface_given) - len, "%s%s",
			 len ? "," : "", arg);
		break;
	}
	case 'm':
		if (xdp_mode_parse(arg, &opts->mode))
			usage_error("--mode '%s': use native, skb or auto", arg_shown(shown, arg));
		break;
	case 't':
		if (fbf_transport_parse(arg, &opts->transport))
			usage_error("--transport '%s': use queue or ringbuf",
				    arg_shown(shown, arg));
		break;
	case OPT_METRICS: {
		struct sockaddr_storage sa;
		socklen_t len;

		if (parse_listen_addr(arg, &sa, &len))
			usage_error("--metrics '%s': use ADDR:PORT or [ADDR]:PORT, a numeric "
				    "address and a port from 1 to 65535, "
				    "e.g. 127.0.0.1:9435 or [::]:9435",
				    arg_shown(shown, arg));
		opts->metrics = arg;
		break;
	}
	case 'o':
		output_option(opts, arg);
		break;
	case OPT_NATS_STREAM:
		/* NATS refuses these in a stream's name. */
		if (!*arg || strpbrk(arg, " \t.*>/\\") || strlen(arg) > 255)
			usage_error("--nats-stream '%s': a stream's name has 1 to 255 bytes, "
				    "none of them a space, '.', '*', '>', '/' or '\\'",
				    arg_shown(shown, arg));
		opts->nats_stream = arg;
		break;
	}
}

/* Two outputs that write to one place would put every event (interval) there twice: refused. */
static void outputs_distinct(const struct agent_options *opts)
{
	char a[ARG_SHOWN_SIZE], b[ARG_SHOWN_SIZE];
	struct output_dest d[EVENT_SINK_MAX];
	unsigned int i, j;

	for (i = 0; i < opts->nr_outputs; i++) {
		output_dest_get(opts->outputs[i], &d[i]);
		for (j = 0; j < i; j++)
			if (output_dest_same(&d[j], &d[i]))
				usage_error("--output '%s' and --output '%s' write to the same "
					    "place, each %s twice; keep one",
					    arg_shown(a, opts->outputs[j]),
					    arg_shown(b, opts->outputs[i]),
					    opts->aggregate_ns ? "interval" : "event");
	}
}

/* What the parse keeps beside the options: the order the options came in. */
struct parse_state {
	struct agent_options *opts;
	unsigned int given;		/* options given so far */
	unsigned int order[NR_OPTIONS];	/* each one's place among them, the last time; 0: none */
};

/* The last option given that sets how --aggregate counts (@kind NULL) or how @kind writes. */
static const char *last_needing(const struct parse_state *ps, const struct output_kind *kind)
{
	unsigned int i, last = 0;
	const char *name = NULL;

	for (i = 0; i < NR_OPTIONS; i++)
		if (ps->order[i] > last && (kind ? agent_options[i].needs_output == kind :
					    agent_options[i].needs_aggregate)) {
			last = ps->order[i];
			name = agent_options[i].name;
		}
	return name;
}

/* Once every option is read: what they ask of each other. */
static void options_end(const struct parse_state *ps)
{
	const struct output_kind *const *k;
	struct agent_options *opts = ps->opts;
	const char *needs;
	char refusal[256];
	unsigned int i;

	if (!opts->ifaces.nr)
		usage_error("--iface IFACE is required");
	if (!opts->ifaces.nr_include)
		usage_error("--iface names only exclusions, which take away from the names "
			    "and patterns given; add one, e.g. --iface 'veth*,!veth0'");
	opts->iface = ifselect_single(&opts->ifaces);
	/* An option that would do nothing is refused, as --top without --aggregate is. */
	for (i = 0; i < NR_OPTIONS && opts->iface; i++)
		if (ps->order[i] && agent_options[i].needs_patterns)
			usage_error("--%s sets how --iface's patterns are served, and --iface "
				    "names one interface", agent_options[i].name);
	needs = last_needing(ps, NULL);
	if (needs && !opts->aggregate_ns)
		usage_error("--%s sets how --aggregate counts, and --aggregate is not given",
			    needs);
	if (opts->aggregate_ns && opts->sample > 1)
		usage_error("--aggregate sends no events, so there are none for --sample "
			    "to sample; use one of the two");
	outputs_distinct(opts);
	for (k = output_kinds; *k; k++) {
		needs = last_needing(ps, *k);
		if (needs && !outputs_has(opts, *k))
			usage_error("--%s sets %s, and none is given", needs, (*k)->options_set);
		if ((*k)->needs_aggregate && !opts->aggregate_ns && outputs_has(opts, *k))
			usage_error("--output %s %s, and without --aggregate there are no "
				    "intervals; add --aggregate SECONDS", (*k)->prefix,
				    (*k)->needs_aggregate);
	}
	for (i = 0; i < NR_OPTIONS && opts->aggregate_ns; i++)
		if (ps->order[i] && agent_options[i].aggregate_refuses)
			usage_error("--aggregate sends no events, so --%s %s",
				    agent_options[i].name, agent_options[i].aggregate_refuses);
	if (transport_memory_refusal(opts->transport, opts->queue_size, refusal,
				     sizeof(refusal)))
		usage_error("--queue-size %u: %s; use a smaller size", opts->queue_size,
			    refusal);
	if (opts->aggregate_ns && opts->quiet && !opts->metrics && !opts->nr_outputs)
		usage_error("--quiet would hide --aggregate's intervals, its only output; "
			    "drop --quiet, send them to an --output, or read the counts "
			    "from --metrics");
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	struct parse_state *ps = state->input;
	char shown[ARG_SHOWN_SIZE];
	const struct agent_option *o;

	switch (key) {
	case 'h':
	case '?':
		argp_help(state->root_argp, stdout, ARGP_HELP_STD_HELP, state->name);
		exit(AGENT_EXIT_OK);
	case OPT_USAGE:
		argp_help(state->root_argp, stdout, ARGP_HELP_USAGE, state->name);
		exit(AGENT_EXIT_OK);
	case 'V':
		printf("%s %s\n", program_invocation_short_name, FBF_VERSION);
		exit(AGENT_EXIT_OK);
	case ARGP_KEY_ARG:
		usage_error("unexpected argument '%s'", arg_shown(shown, arg));
	case ARGP_KEY_END:
		options_end(ps);
		return 0;
	case ARGP_KEY_ERROR:
		/* getopt's: an unknown option, or one without its value. */
		usage_error("'%s' is not an option, or lacks its value",
			    arg_shown(shown, state->argv[state->next > 1 ? state->next - 1 : 0]));
	}
	for (o = agent_options; o->name && o->key != key; o++)
		;
	if (!o->name)
		return ARGP_ERR_UNKNOWN;
	if (o->type == OPTION_OWN)
		own_option(ps->opts, key, arg);
	else
		value_option(ps->opts, o, arg);
	ps->order[o - agent_options] = ++ps->given;
	return 0;
}

void options_parse(int argc, char **argv, struct agent_options *opts)
{
	static const struct argp argp = {
		.options = argp_options,
		.parser = parse_arg,
		.doc = doc,
	};
	struct parse_state ps = { .opts = opts };
	const struct agent_option *o;

	*opts = (struct agent_options){};
	for (o = agent_options; o->name; o++)
		if (o->size && (o->def || o->def_text))
			field_set(opts, o, o->def, o->def_text);
	argp_err_exit_status = AGENT_EXIT_USAGE;
	usage_json = json_asked(argc, argv);
	doc_build();
	argp_options_build();
	/* Every error exits through usage_error(), so a return means success. */
	if (argp_parse(&argp, argc, argv, ARGP_NO_ERRS | ARGP_NO_HELP, NULL, &ps))
		usage_error("cannot parse the command line");
}
