// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Command line parsing: argp glue and strict parsers for option values. */
#define _GNU_SOURCE /* program_invocation_short_name */
#include <argp.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>

#include "fizzbuzzfib.h"
#include "loop/aggregate.h"
#include "base/escape.h"
#include "base/exit_codes.h"
#include "fbf_object.h"
#include "iface/ifselect.h"
#include "iface/lock.h"
#include "metrics/listen_addr.h"
#include "options.h"
#include "iface/xdp_mode.h"
#include "sinks/output_dest.h"
#include "sinks/output_url.h"
#include "sinks/sink.h"
#include "transports/transport_memory.h"

#define STR_(x) #x
#define STR(x) STR_(x)


/* Options with no short form. */
enum {
	OPT_USAGE = 0x100, OPT_LOCK_DIR, OPT_METRICS, OPT_SAMPLE, OPT_AGGREGATE, OPT_TOP,
	OPT_MAX_SOURCES, OPT_MAX_IFACES, OPT_OUTPUT_ROTATE_BYTES, OPT_OUTPUT_KEEP, OPT_OUTPUT_BUFFER,
	OPT_OUTPUT_TIMEOUT, OPT_NATS_STREAM, OPT_NATS_REPLICAS, OPT_NATS_CREDS, OPT_NATS_CA,
	OPT_DETACH,
};

/* Before "Exit status:", which doc_build() adds from exit_codes.h's list. */
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
	size_t n, i;
	const char *c;

	n = snprintf(doc, sizeof(doc), "%s\n\nExit status:", doc_head);
	for (i = 0; i < sizeof(exits) / sizeof(exits[0]) && n < sizeof(doc); i++) {
		n += snprintf(doc + n, sizeof(doc) - n, "%s %d ", i ? "," : "", exits[i].status);
		/* The list marks commands and options with backquotes, which help text has not. */
		for (c = exits[i].meaning; *c && n < sizeof(doc) - 2; c++)
			if (*c != '`')
				doc[n++] = *c;
	}
	if (n < sizeof(doc) - 1) {
		doc[n++] = '.';
		doc[n] = '\0';
	}
}

static char queue_size_doc[512];

/* --queue-size's help, with the kernel memory it takes on this host. */
static void queue_size_doc_build(void)
{
	struct transport_memory queue, ring;
	char q[32], r[32];

	if (transport_memory(FBF_TRANSPORT_QUEUE, FBF_DEFAULT_QUEUE_SIZE, &queue) ||
	    transport_memory(FBF_TRANSPORT_RINGBUF, FBF_DEFAULT_QUEUE_SIZE, &ring))
		queue.cpus = 0;
	transport_memory_format(queue.total, q, sizeof(q));
	transport_memory_format(ring.total, r, sizeof(r));
	snprintf(queue_size_doc, sizeof(queue_size_doc),
		 "Events each CPU's queue or ring holds, %u..%u (default: %u): a CPU's events go "
		 "to its own map, so this is what one CPU holds while the agent catches up, on any "
		 "number of CPUs. A ring is rounded up to a power-of-two number of pages. Kernel "
		 "memory: possible CPUs x N x 16 bytes in a queue, 24 in a ring; on this host %d "
		 "CPUs, %s and %s at the default. A size that would not fit in the memory the host "
		 "has available is refused", AGENT_QUEUE_SIZE_MIN, AGENT_QUEUE_SIZE_MAX,
		 FBF_DEFAULT_QUEUE_SIZE, queue.cpus, q, r);
}

static const struct argp_option argp_options[] = {
	{ "iface", 'i', "IFACE", 0,
	  "Interface to attach to (required); repeatable, or comma-separated: exact names, "
	  "shell globs (veth*), /extended regex/, and '!' before any of them to exclude what it "
	  "matches (an exclusion wins; lo only by its exact name)", 0 },
	{ "max-ifaces", OPT_MAX_IFACES, "N", 0,
	  "With patterns in --iface: interfaces served at once, 1..4096 (default: 256); one "
	  "more selected is left alone, said once; its next link event after one has gone "
	  "takes it", 0 },
	{ "mode", 'm', "MODE", 0,
	  "native, skb or auto (default: the cheaper for the driver; the start line says which)", 0 },
	{ "transport", 't', "KIND", 0,
	  "How events reach the agent: queue (a queue map, one syscall per event) or ringbuf "
	  "(a BPF ring buffer, read in place) (default: queue)", 0 },
	{ "queue-size", 'Q', "N", 0, queue_size_doc, 0 },
	{ "sample", OPT_SAMPLE, "N", 0,
	  "Send 1 event in N, 1..2147483648, on each CPU; the others are counted as not_sampled "
	  "(default: 1, every event)", 0 },
	{ "aggregate", OPT_AGGREGATE, "SECONDS", 0,
	  "Send no events: count packets per source in the kernel and print, every SECONDS, the "
	  "packets per class and the top sources per class", 0 },
	{ "top", OPT_TOP, "N", 0,
	  "With --aggregate: the top N sources per class, 0..1000 (default: "
	  STR(AGGREGATE_TOP_DEFAULT) ")", 0 },
	{ "max-sources", OPT_MAX_SOURCES, "N", 0,
	  "With --aggregate: sources counted per interval, 1..1048576 (default: 65536); packets "
	  "from more are counted as no_room. Kernel memory: two maps of N entries of 80 bytes "
	  "and 8 more per CPU (13 MB on 2 CPUs at the default)", 0 },
	{ "duration", 'd', "SECONDS", 0, "Stop after SECONDS (decimals allowed, at most a year)",
	  0 },
	{ "count", 'c', "N", 0, "Stop after N events (events already queued are still printed)",
	  0 },
	{ "stats-interval", 's', "SECONDS", 0,
	  "Print the running counters on stderr every SECONDS (also on SIGUSR1)", 0 },
	{ "metrics", OPT_METRICS, "ADDR:PORT", 0,
	  "Serve Prometheus metrics at http://ADDR:PORT/metrics (e.g. 127.0.0.1:9435)", 0 },
	{ "output", 'o', "URL", 0,
	  "Where events go (or under --aggregate the intervals), repeatable: stdout (or -), "
	  "file:PATH (NDJSON lines), nats://HOST:PORT[,HOST:PORT...]/SUBJECT (JetStream), "
	  "ipfix://HOST:PORT[?domain=N] (IPFIX over UDP, with --aggregate). "
	  "Default: stdout; with --output, stdout only if named", 0 },
	{ "output-rotate-bytes", OPT_OUTPUT_ROTATE_BYTES, "N", 0,
	  "Rotate file outputs once they would pass N bytes (at least 4096; default: never)", 0 },
	{ "output-keep", OPT_OUTPUT_KEEP, "K", 0,
	  "Keep K rotated files, PATH.1 the newest, 0..1000 (default: 5)", 0 },
	{ "output-buffer", OPT_OUTPUT_BUFFER, "BYTES", 0,
	  "What each output may hold while it cannot keep up; past it, events are counted lost "
	  "(default: 4194304; raised to two chunks: 512 KiB, 1 MiB for NATS)", 0 },
	{ "output-timeout", OPT_OUTPUT_TIMEOUT, "SECONDS", 0,
	  "At exit, how long the outputs may take to write what they hold; the rest is counted "
	  "lost (default: 5)", 0 },
	{ "nats-stream", OPT_NATS_STREAM, "NAME", 0,
	  "The JetStream stream to create if none captures the subject (default: "
	  AGENT_NATS_STREAM_DEFAULT "); a stream that exists is never changed", 0 },
	{ "nats-replicas", OPT_NATS_REPLICAS, "N", 0,
	  "Replicas of a stream the agent creates, 1..5 (default: 1)", 0 },
	{ "nats-creds", OPT_NATS_CREDS, "FILE", 0, "NATS credentials (JWT and NKey seed) file",
	  0 },
	{ "nats-ca", OPT_NATS_CA, "FILE", 0,
	  "CA certificates to verify the NATS servers with, over TLS", 0 },
	{ "lock-dir", OPT_LOCK_DIR, "DIR", 0,
	  "Keep the per-interface lock files in DIR (default: " AGENT_LOCK_DIR ")", 0 },
	{ "detach", OPT_DETACH, NULL, 0,
	  "Attach nothing: remove the program a dead agent left on IFACE (the one its lock file "
	  "records, never another) and that lock file, then exit, 0 if there was nothing to "
	  "remove; for a service manager to run after every exit. Other options than --lock-dir, "
	  "--json and -v are checked and ignored", 0 },
	{ "json", 'j', NULL, 0, "Print events, running counters and the summary as JSON "
	  "objects, one per line", 0 },
	{ "quiet", 'q', NULL, 0, "Print no events, only the summary", 0 },
	{ "verbose", 'v', NULL, 0, "Show libbpf and libxdp debug output", 0 },
	/* argp's own --help would not print under ARGP_NO_ERRS, so these are the agent's. */
	{ "help", 'h', NULL, 0, "Give this help list", -1 },
	{ NULL, '?', NULL, OPTION_HIDDEN, NULL, -1 },
	{ "usage", OPT_USAGE, NULL, 0, "Give a short usage message", -1 },
	{ "version", 'V', NULL, 0, "Print the program version", -1 },
	{},
};

/*
 * A usage error is one line on stderr and AGENT_EXIT_USAGE, whatever caused
 * it: argp's own errors are silenced (ARGP_NO_ERRS) and reported here too,
 * without argp's second line.
 */
static void __attribute__((noreturn, format(printf, 1, 2))) usage_error(const char *fmt, ...)
{
	va_list ap;

	/* Named as invoked: build/agent, or fizzbuzzfib-agent as installed. */
	fprintf(stderr, "%s: ", program_invocation_short_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "; see %s --help\n", program_invocation_short_name);
	exit(AGENT_EXIT_USAGE);
}

/*
 * An option's value as an error message shows it: escaped like a log line, so
 * that no byte of it can move the terminal's cursor or forge a line; cut
 * short if long, as a 5,000-byte name would bury the message.
 */
#define ARG_SHOWN_SIZE 128
#define arg_shown(buf, arg) (escape_log((buf), sizeof(buf), (arg)), (buf))

/* A time in seconds for option @opt, or a usage error that says what is allowed. */
static void seconds_option(const char *opt, const char *arg, __u64 max_s, const char *max_text,
			   const char *example, __u64 *out_ns)
{
	int err = parse_seconds_ns(arg, max_s, out_ns);
	char shown[ARG_SHOWN_SIZE];

	if (err)
		usage_error("%s '%s': %s; use seconds greater than 0 and at most %llu (%s), "
			    "e.g. %s", opt, arg_shown(shown, arg),
			    err == -ERANGE ? "out of range" :
			    err == -EDOM ? "finer than a nanosecond (at most nine decimals)" :
			    "not a number of seconds", max_s, max_text, example);
}

/* One --output: checked now, so that a bad one stops the agent before it attaches. */
static void output_option(struct agent_options *opts, const char *arg)
{
	char shown[ARG_SHOWN_SIZE];
	struct ipfix_url ipfix;
	struct nats_url *u;
	const char *rest, *why;

	switch (output_url_kind(arg, &rest)) {
	case OUTPUT_STDOUT:
	case OUTPUT_FILE:
		break;
	case OUTPUT_NATS:
		u = malloc(sizeof(*u));
		if (u && nats_url_parse(rest, u, &why))
			usage_error("--output '%s': %s", arg_shown(shown, arg), why);
		free(u);
		break;
	case OUTPUT_IPFIX:
		if (ipfix_url_parse(rest, &ipfix, &why))
			usage_error("--output '%s': %s", arg_shown(shown, arg), why);
		break;
	default:
		usage_error("--output '%s': use stdout, file:PATH, "
			    "nats://HOST:PORT[,HOST:PORT...]/SUBJECT or ipfix://HOST:PORT",
			    arg_shown(shown, arg));
	}
	if (opts->nr_outputs == AGENT_OUTPUTS_MAX)
		usage_error("--output given more than %d times", AGENT_OUTPUTS_MAX);
	opts->outputs[opts->nr_outputs++] = arg;
}

/* The options of --output and of the outputs it names. */
static void output_options(int key, const char *arg, struct agent_options *opts)
{
	char shown[ARG_SHOWN_SIZE];
	__u64 v;

	switch (key) {
	case 'o':
		output_option(opts, arg);
		break;
	case OPT_OUTPUT_ROTATE_BYTES:
		if (parse_u64_range(arg, AGENT_OUTPUT_ROTATE_MIN, ~0ULL, &opts->output_rotate_bytes))
			usage_error("--output-rotate-bytes '%s': use a whole number of at least %llu",
				    arg_shown(shown, arg), AGENT_OUTPUT_ROTATE_MIN);
		opts->needs_file = "--output-rotate-bytes";
		break;
	case OPT_OUTPUT_KEEP:
		if (parse_u64_range(arg, 0, AGENT_OUTPUT_KEEP_MAX, &v))
			usage_error("--output-keep '%s': use a whole number from 0 to %u",
				    arg_shown(shown, arg), AGENT_OUTPUT_KEEP_MAX);
		opts->output_keep = v;
		opts->needs_file = "--output-keep";
		break;
	case OPT_OUTPUT_BUFFER:
		if (parse_u64_range(arg, SINK_BUFFER_MIN, SINK_BUFFER_MAX, &opts->output_buffer))
			usage_error("--output-buffer '%s': use a whole number of bytes from %u to %u",
				    arg_shown(shown, arg), SINK_BUFFER_MIN, SINK_BUFFER_MAX);
		break;
	case OPT_OUTPUT_TIMEOUT:
		seconds_option("--output-timeout", arg, AGENT_OUTPUT_TIMEOUT_MAX_S, "one hour",
			       "5 or 0.5", &opts->output_timeout_ns);
		break;
	case OPT_NATS_STREAM:
		/* NATS refuses these in a stream's name. */
		if (!*arg || strpbrk(arg, " \t.*>/\\") || strlen(arg) > 255)
			usage_error("--nats-stream '%s': a stream's name has 1 to 255 bytes, none of "
				    "them a space, '.', '*', '>', '/' or '\\'", arg_shown(shown, arg));
		opts->nats_stream = arg;
		opts->needs_nats = "--nats-stream";
		break;
	case OPT_NATS_REPLICAS:
		if (parse_u64_range(arg, 1, AGENT_NATS_REPLICAS_MAX, &v))
			usage_error("--nats-replicas '%s': use a whole number from 1 to %u",
				    arg_shown(shown, arg), AGENT_NATS_REPLICAS_MAX);
		opts->nats_replicas = v;
		opts->needs_nats = "--nats-replicas";
		break;
	case OPT_NATS_CREDS:
	case OPT_NATS_CA:
		if (!*arg)
			usage_error("--nats-%s: the file name is empty",
				    key == OPT_NATS_CREDS ? "creds" : "ca");
		*(key == OPT_NATS_CREDS ? &opts->nats_creds : &opts->nats_ca) = arg;
		opts->needs_nats = key == OPT_NATS_CREDS ? "--nats-creds" : "--nats-ca";
		break;
	}
}

/* Two outputs that write to one place would put every event there twice: refused. */
static void outputs_distinct(const struct agent_options *opts)
{
	char a[ARG_SHOWN_SIZE], b[ARG_SHOWN_SIZE];
	struct output_dest d[AGENT_OUTPUTS_MAX];
	unsigned int i, j;

	for (i = 0; i < opts->nr_outputs; i++) {
		output_dest_get(opts->outputs[i], &d[i]);
		for (j = 0; j < i; j++)
			if (output_dest_same(&d[j], &d[i]))
				usage_error("--output '%s' and --output '%s' write to the same place, "
					    "each event twice; keep one",
					    arg_shown(a, opts->outputs[j]),
					    arg_shown(b, opts->outputs[i]));
	}
}

/* The kind of output an option like --nats-stream needs, given or not. */
static bool has_output(const struct agent_options *opts, enum output_kind kind)
{
	const char *rest;
	unsigned int i;

	for (i = 0; i < opts->nr_outputs; i++)
		if (output_url_kind(opts->outputs[i], &rest) == kind)
			return true;
	return false;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	struct agent_options *opts = state->input;
	char shown[ARG_SHOWN_SIZE], refusal[256];
	__u64 v;
	int err;

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
	case OPT_MAX_IFACES:
		if (parse_u64_range(arg, 1, FBF_IFACE_SLOTS_MAX, &v))
			usage_error("--max-ifaces '%s': use a whole number from 1 to %u",
				    arg_shown(shown, arg), FBF_IFACE_SLOTS_MAX);
		opts->max_ifaces = v;
		break;
	case 'm':
		if (xdp_mode_parse(arg, &opts->mode))
			usage_error("--mode '%s': use native, skb or auto", arg_shown(shown, arg));
		break;
	case 't':
		if (fbf_transport_parse(arg, &opts->transport))
			usage_error("--transport '%s': use queue or ringbuf",
				    arg_shown(shown, arg));
		break;
	case 'Q':
		if (parse_u64_range(arg, AGENT_QUEUE_SIZE_MIN, AGENT_QUEUE_SIZE_MAX, &v))
			usage_error("--queue-size '%s': use a whole number from %u to %u",
				    arg_shown(shown, arg),
				    AGENT_QUEUE_SIZE_MIN, AGENT_QUEUE_SIZE_MAX);
		opts->queue_size = v;
		break;
	case OPT_SAMPLE:
		if (parse_u64_range(arg, 1, FBF_SAMPLE_MAX, &v))
			usage_error("--sample '%s': use a whole number from 1 (every event) to %u",
				    arg_shown(shown, arg), FBF_SAMPLE_MAX);
		opts->sample = v;
		break;
	case OPT_AGGREGATE:
		seconds_option("--aggregate", arg, AGENT_AGGREGATE_MAX_S, "one day", "1 or 0.5",
			       &opts->aggregate_ns);
		break;
	case OPT_TOP:
		if (parse_u64_range(arg, 0, AGGREGATE_TOP_MAX, &v))
			usage_error("--top '%s': use a whole number from 0 to %u",
				    arg_shown(shown, arg), AGGREGATE_TOP_MAX);
		opts->top = v;
		opts->needs_aggregate = "--top";
		break;
	case OPT_MAX_SOURCES:
		if (parse_u64_range(arg, 1, FBF_AGGREGATE_MAX_SOURCES, &v))
			usage_error("--max-sources '%s': use a whole number from 1 to %u",
				    arg_shown(shown, arg), FBF_AGGREGATE_MAX_SOURCES);
		opts->max_sources = v;
		opts->needs_aggregate = "--max-sources";
		break;
	case 'd':
		seconds_option("--duration", arg, AGENT_DURATION_MAX_S, "one year", "10 or 2.5",
			       &opts->duration_ns);
		break;
	case 'c':
		err = parse_u64_range(arg, 1, ~0ULL, &opts->count);
		if (err == -ERANGE && *arg != '0')
			usage_error("--count '%s': too large; use a whole number from 1 to %llu",
				    arg_shown(shown, arg), ~0ULL);
		if (err)
			usage_error("--count '%s': use a whole number greater than 0",
				    arg_shown(shown, arg));
		break;
	case 's':
		seconds_option("--stats-interval", arg, AGENT_STATS_INTERVAL_MAX_S, "one day",
			       "10 or 0.5", &opts->stats_interval_ns);
		break;
	case OPT_METRICS: {
		struct sockaddr_storage sa;
		socklen_t len;

		if (parse_listen_addr(arg, &sa, &len))
			usage_error("--metrics '%s': use ADDR:PORT or [ADDR]:PORT, a numeric address "
				    "and a port from 1 to 65535, e.g. 127.0.0.1:9435 or [::]:9435",
				    arg_shown(shown, arg));
		opts->metrics = arg;
		break;
	}
	case 'o':
	case OPT_OUTPUT_ROTATE_BYTES:
	case OPT_OUTPUT_KEEP:
	case OPT_OUTPUT_BUFFER:
	case OPT_OUTPUT_TIMEOUT:
	case OPT_NATS_STREAM:
	case OPT_NATS_REPLICAS:
	case OPT_NATS_CREDS:
	case OPT_NATS_CA:
		output_options(key, arg, opts);
		break;
	case OPT_LOCK_DIR:
		if (!*arg)
			usage_error("--lock-dir: the directory name is empty");
		opts->lock_dir = arg;
		break;
	case OPT_DETACH:
		opts->detach = true;
		break;
	case 'j':
		opts->json = true;
		break;
	case 'q':
		opts->quiet = true;
		break;
	case 'v':
		opts->verbose = true;
		break;
	case ARGP_KEY_ARG:
		usage_error("unexpected argument '%s'", arg_shown(shown, arg));
		break;
	case ARGP_KEY_END:
		if (!opts->ifaces.nr)
			usage_error("--iface IFACE is required");
		if (!opts->ifaces.nr_include)
			usage_error("--iface names only exclusions, which take away from the names "
				    "and patterns given; add one, e.g. --iface 'veth*,!veth0'");
		opts->iface = ifselect_single(&opts->ifaces);
		if (opts->needs_aggregate && !opts->aggregate_ns)
			usage_error("%s sets how --aggregate counts, and --aggregate is not given",
				    opts->needs_aggregate);
		if (opts->aggregate_ns && opts->sample > 1)
			usage_error("--aggregate sends no events, so there are none for --sample "
				    "to sample; use one of the two");
		outputs_distinct(opts);
		if (opts->needs_file && !has_output(opts, OUTPUT_FILE))
			usage_error("%s sets how a file --output writes, and none is given",
				    opts->needs_file);
		if (opts->needs_nats && !has_output(opts, OUTPUT_NATS))
			usage_error("%s sets how a NATS --output publishes, and none is given",
				    opts->needs_nats);
		if (!opts->aggregate_ns && has_output(opts, OUTPUT_IPFIX))
			usage_error("--output ipfix:// exports each interval's packets per source, "
				    "and without --aggregate there are no intervals; add --aggregate "
				    "SECONDS");
		if (opts->aggregate_ns && opts->count)
			usage_error("--aggregate sends no events, so --count would never stop it; "
				    "use --duration");
		if (transport_memory_refusal(opts->transport, opts->queue_size, refusal,
					     sizeof(refusal)))
			usage_error("--queue-size %u: %s; use a smaller size", opts->queue_size,
				    refusal);
		if (opts->aggregate_ns && opts->quiet && !opts->metrics && !opts->nr_outputs)
			usage_error("--quiet would hide --aggregate's intervals, its only output; "
				    "drop --quiet, send them to an --output, or read the counts "
				    "from --metrics");
		break;
	case ARGP_KEY_ERROR:
		/* getopt's: an unknown option, or one without its value. */
		usage_error("'%s' is not an option, or lacks its value",
			    arg_shown(shown, state->argv[state->next > 1 ? state->next - 1 : 0]));
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

void options_parse(int argc, char **argv, struct agent_options *opts)
{
	static const struct argp argp = {
		.options = argp_options,
		.parser = parse_arg,
		.doc = doc,
	};

	*opts = (struct agent_options){
		.mode = XDP_MODE_UNSPEC,
		.queue_size = FBF_DEFAULT_QUEUE_SIZE,
		.sample = FBF_SAMPLE_DEFAULT,
		.top = AGGREGATE_TOP_DEFAULT,
		.max_sources = FBF_AGGREGATE_DEFAULT_SOURCES,
		.max_ifaces = AGENT_MAX_IFACES_DEFAULT,
		.lock_dir = AGENT_LOCK_DIR,
		.output_keep = 5,
		.output_buffer = SINK_BUFFER_DEFAULT,
		.output_timeout_ns = AGENT_OUTPUT_TIMEOUT_DEFAULT_NS,
		.nats_stream = AGENT_NATS_STREAM_DEFAULT,
		.nats_replicas = 1,
	};
	argp_err_exit_status = AGENT_EXIT_USAGE;
	doc_build();
	queue_size_doc_build();
	/* Every error exits through usage_error(), so a return means success. */
	if (argp_parse(&argp, argc, argv, ARGP_NO_ERRS | ARGP_NO_HELP, NULL, opts))
		usage_error("cannot parse the command line");
}
