// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * trafficgen: send HTTP GET requests from chosen local IPv4 source
 * addresses, so that real TCP traffic with known sources crosses an XDP
 * hook. One thread on libcurl's multi interface; a fixed pool of easy
 * handles is reused for every request.
 */
#define _GNU_SOURCE /* pipe2() */
#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "addrlist.h"
#include "parse_num.h"
#include "userspace_util.h"

#define PROG "trafficgen"

#define REQUESTS_MAX 100000000ULL
#define DURATION_MAX 86400ULL
#define CONCURRENCY_MAX 1024
#define CONCURRENCY_DEFAULT 8
#define TIMEOUT_MS_MAX 600000
#define TIMEOUT_MS_DEFAULT 5000
/* Idle connections kept for --reuse with many sources, on top of one per transfer. */
#define REUSE_IDLE_MAX 4096
/* Descriptors besides sockets: stdio, the signal pipe, libcurl's own. */
#define FD_SPARE 64
/* Longest wait in curl_multi_poll(); the signal pipe wakes it earlier. */
#define POLL_MS_MAX 1000

enum exit_code {
	EXIT_ALL_OK = 0,
	EXIT_FAILED = 1,
	EXIT_USAGE = 2,
};

struct options {
	const char *url;
	unsigned long long requests; /* 0: no limit by count */
	double duration;	     /* seconds; 0: no limit by time */
	unsigned int concurrency;
	long timeout_ms;
	uint32_t *sources; /* host order; NULL: the kernel picks */
	size_t nr_sources;
	bool reuse;
	bool json;
	bool quiet;
};

struct slot {
	CURL *easy;
	bool busy; /* added to the multi handle */
	uint32_t source; /* of the current request, with --source */
	char errbuf[CURL_ERROR_SIZE];
};

struct run {
	const struct options *opts;
	CURLM *multi;
	struct slot *slots;
	struct slot **idle; /* stack of slots not in a transfer */
	unsigned int nr_idle;
	unsigned long long started;
	unsigned long long ok;
	unsigned long long failed;
	double deadline; /* monotonic seconds; 0: none */
	bool stopping;
	bool reported_failure;
};

static int signal_pipe[2] = { -1, -1 };

static const char help_text[] =
	"Usage: " PROG " --url URL (--requests N | --duration SECONDS) [OPTIONS]\n"
	"\n"
	"Send HTTP GET requests to URL, spread round-robin over local IPv4 source\n"
	"addresses, and report how many succeeded and the request rate.\n"
	"\n"
	"  -u, --url URL           URL to fetch (http://; https:// also works)\n"
	"  -n, --requests N        send N requests in total (1-100000000)\n"
	"  -d, --duration SECONDS  stop starting requests after SECONDS (decimal, up to 86400)\n"
	"                          At least one of -n and -d is required; with both,\n"
	"                          whichever limit is reached first ends the run.\n"
	"  -c, --concurrency C     requests in flight at once (1-1024, default 8)\n"
	"  -s, --source LIST       source addresses, used in turn: comma-separated\n"
	"                          addresses and inclusive ranges, e.g.\n"
	"                          10.0.0.1-20,10.0.1.1-10.0.1.9,10.0.2.7 (at most 65536);\n"
	"                          each must be assigned to a local interface.\n"
	"                          Default: the kernel picks the source.\n"
	"      --timeout-ms MS     give up on one request after MS ms (1-600000, default 5000)\n"
	"      --reuse             keep connections alive between requests; by default every\n"
	"                          request opens and closes its own TCP connection\n"
	"      --json              print the summary as one JSON object\n"
	"  -q, --quiet             print only the summary line (and errors)\n"
	"  -h, --help              show this help\n"
	"  -V, --version           show the version\n"
	"\n"
	"A request fails on a transport error or an HTTP status outside 200-399;\n"
	"the first failure's reason is printed on stderr.\n"
	"SIGINT or SIGTERM stops starting requests and lets running ones finish\n"
	"(each within --timeout-ms); a second signal aborts them.\n"
	"\n"
	"Summary on stdout:\n"
	"  " PROG ": requests=N ok=N failed=N seconds=S.SSS rate=R.R\n"
	"  {\"requests\":N,\"ok\":N,\"failed\":N,\"seconds\":S,\"rate\":R}   (--json)\n"
	"rate is completed requests per second.\n"
	"\n"
	"Exit status: 0 every request succeeded, 1 a request failed or libcurl\n"
	"could not be set up, 2 usage error.\n";

static void __attribute__((noreturn, format(printf, 1, 2))) usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (see --help)\n", stderr);
	exit(EXIT_USAGE);
}

static void parse_options(int argc, char **argv, struct options *opts)
{
	enum { OPT_TIMEOUT_MS = 256, OPT_REUSE, OPT_JSON };
	static const struct option long_opts[] = {
		{ "url", required_argument, NULL, 'u' },
		{ "requests", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 'd' },
		{ "concurrency", required_argument, NULL, 'c' },
		{ "source", required_argument, NULL, 's' },
		{ "timeout-ms", required_argument, NULL, OPT_TIMEOUT_MS },
		{ "reuse", no_argument, NULL, OPT_REUSE },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{},
	};
	__u64 v, ns;
	char err[256];
	int opt;

	*opts = (struct options){
		.concurrency = CONCURRENCY_DEFAULT,
		.timeout_ms = TIMEOUT_MS_DEFAULT,
	};

	/* Leading ':' and opterr = 0: report bad options in our own one-line format. */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":u:n:d:c:s:qhV", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'u':
			if (strncasecmp(optarg, "http://", 7) && strncasecmp(optarg, "https://", 8))
				usage_error("--url: \"%s\" does not start with http:// or https://",
					    optarg);
			opts->url = optarg;
			break;
		case 'n':
			if (parse_u64_range(optarg, 1, REQUESTS_MAX, &v))
				usage_error("--requests: \"%s\" is not an integer from 1 to %llu",
					    optarg, REQUESTS_MAX);
			opts->requests = v;
			break;
		case 'd':
			if (parse_seconds_ns(optarg, DURATION_MAX, &ns))
				usage_error("--duration: \"%s\" is not a number of seconds "
					    "in (0, %llu]",
					    optarg, DURATION_MAX);
			opts->duration = ns / 1e9;
			break;
		case 'c':
			if (parse_u64_range(optarg, 1, CONCURRENCY_MAX, &v))
				usage_error("--concurrency: \"%s\" is not an integer from 1 to %d",
					    optarg, CONCURRENCY_MAX);
			opts->concurrency = (unsigned int)v;
			break;
		case 's':
			free(opts->sources);
			opts->sources = NULL;
			if (addrlist_parse(optarg, &opts->sources, &opts->nr_sources, err,
					   sizeof(err)))
				usage_error("--source: %s", err);
			break;
		case OPT_TIMEOUT_MS:
			if (parse_u64_range(optarg, 1, TIMEOUT_MS_MAX, &v))
				usage_error("--timeout-ms: \"%s\" is not an integer from 1 to %d",
					    optarg, TIMEOUT_MS_MAX);
			opts->timeout_ms = (long)v;
			break;
		case OPT_REUSE:
			opts->reuse = true;
			break;
		case OPT_JSON:
			opts->json = true;
			break;
		case 'q':
			opts->quiet = true;
			break;
		case 'h':
			fputs(help_text, stdout);
			exit(EXIT_ALL_OK);
		case 'V':
			printf(PROG " %s (libcurl %s)\n", FBF_VERSION,
			       curl_version_info(CURLVERSION_NOW)->version);
			exit(EXIT_ALL_OK);
		case ':':
			usage_error("option %s needs a value", argv[optind - 1]);
		default: {
			const char *arg = argv[optind - 1];
			const char *eq = strchr(arg, '=');

			if (strncmp(arg, "--", 2))
				usage_error("unknown option -%c", optopt);
			if (eq && optopt)
				usage_error("option %.*s takes no value", (int)(eq - arg), arg);
			usage_error("unknown option %s", arg);
		}
		}
	}
	if (optind < argc)
		usage_error("unexpected argument \"%s\"; the URL goes after --url", argv[optind]);
	if (!opts->url)
		usage_error("--url is required");
	if (!opts->requests && !opts->duration)
		usage_error("give --requests, --duration or both, so that the run ends");
}

static void on_signal(int sig)
{
	int saved_errno = errno;
	char c = (char)sig;

	/* Wakes curl_multi_poll(), which watches the read end. */
	if (write(signal_pipe[1], &c, 1) < 0) {
		/* Pipe full: a wake-up is already pending. */
	}
	errno = saved_errno;
}

static int setup_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	if (pipe2(signal_pipe, O_NONBLOCK | O_CLOEXEC))
		return -errno;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL))
		return -errno;
	/* CURLOPT_NOSIGNAL leaves SIGPIPE to us; a peer's reset must not kill the run. */
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

static size_t discard_body(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	(void)ptr;
	(void)userdata;
	return size * nmemb;
}

static int setup_slot(struct slot *s, const struct options *opts)
{
	CURL *e = curl_easy_init();
	unsigned int rc = 0; /* non-zero once any option fails */

	if (!e)
		return -1;
	s->easy = e;
	rc |= curl_easy_setopt(e, CURLOPT_URL, opts->url);
	rc |= curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	rc |= curl_easy_setopt(e, CURLOPT_USERAGENT, PROG "/" FBF_VERSION);
	rc |= curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, discard_body);
	rc |= curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	rc |= curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, opts->timeout_ms);
	rc |= curl_easy_setopt(e, CURLOPT_ERRORBUFFER, s->errbuf);
	rc |= curl_easy_setopt(e, CURLOPT_PRIVATE, s);
	if (!opts->reuse) {
		rc |= curl_easy_setopt(e, CURLOPT_FRESH_CONNECT, 1L);
		rc |= curl_easy_setopt(e, CURLOPT_FORBID_REUSE, 1L);
	}
	/* An IPv4 source cannot reach a host name's IPv6 address. */
	if (opts->sources)
		rc |= curl_easy_setopt(e, CURLOPT_IPRESOLVE, (long)CURL_IPRESOLVE_V4);
	return rc == CURLE_OK ? 0 : -1;
}

/*
 * Each request in flight, and each connection kept for --reuse, holds a
 * socket; a default soft limit of 1024 descriptors would fail requests
 * at high concurrency. Raise the soft limit as far as the hard one allows.
 */
static void raise_fd_limit(rlim_t need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= need)
		return;
	rl.rlim_cur = (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > need) ? need : rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_cur >= need)
		return;
	/* libcurl reports running out only as "Couldn't connect", so say why here. */
	fprintf(stderr,
		PROG ": warning: open file limit %llu is below the %llu this run needs; "
		"raise ulimit -n or lower --concurrency\n",
		(unsigned long long)rl.rlim_cur, (unsigned long long)need);
}

/*
 * With --reuse, libcurl reuses a connection only for the same source
 * address, so keep one idle connection per source (up to a cap);
 * its default cache of 4 per handle would close and reopen them.
 */
static long idle_connections(const struct options *o)
{
	if (!o->reuse || !o->sources)
		return 0;
	return (long)o->concurrency +
	       (long)(o->nr_sources < REUSE_IDLE_MAX ? o->nr_sources : REUSE_IDLE_MAX);
}

static bool may_start(const struct run *r)
{
	const struct options *o = r->opts;

	if (r->stopping || !r->nr_idle)
		return false;
	if (o->requests && r->started >= o->requests)
		return false;
	return !r->deadline || fbf_monotonic_s() < r->deadline;
}

static int start_request(struct run *r)
{
	const struct options *o = r->opts;
	struct slot *s = r->idle[r->nr_idle - 1];
	CURLMcode mc;

	if (o->sources) {
		/*
		 * "host!" makes libcurl bind() to the address, never look for an
		 * interface of that name; libcurl sets IP_BIND_ADDRESS_NO_PORT
		 * itself, so TIME_WAIT ports do not exhaust bind().
		 */
		char iface[sizeof("host!") + INET_ADDRSTRLEN];
		struct in_addr in;

		s->source = o->sources[r->started % o->nr_sources];
		in.s_addr = htonl(s->source);
		strcpy(iface, "host!");
		inet_ntop(AF_INET, &in, iface + 5, INET_ADDRSTRLEN);
		if (curl_easy_setopt(s->easy, CURLOPT_INTERFACE, iface) != CURLE_OK)
			return -1;
	}
	mc = curl_multi_add_handle(r->multi, s->easy);
	if (mc != CURLM_OK) {
		fprintf(stderr, PROG ": cannot start a request: %s\n", curl_multi_strerror(mc));
		return -1;
	}
	s->busy = true;
	r->nr_idle--;
	r->started++;
	return 0;
}

static void record_failure(struct run *r, const struct slot *s, const char *reason)
{
	char src[INET_ADDRSTRLEN + 4] = "";

	r->failed++;
	if (r->reported_failure)
		return;
	r->reported_failure = true;
	if (r->opts->sources) {
		struct in_addr in = { .s_addr = htonl(s->source) };

		inet_ntop(AF_INET, &in, src, INET_ADDRSTRLEN);
		strcat(src, " -> ");
	}
	fprintf(stderr, PROG ": first failure: %s%s: %s\n", src, r->opts->url, reason);
}

static void finish_request(struct run *r, struct slot *s, CURLcode res)
{
	char reason[64];
	long status = 0;

	curl_multi_remove_handle(r->multi, s->easy);
	s->busy = false;
	r->idle[r->nr_idle++] = s;

	if (res != CURLE_OK) {
		record_failure(r, s, s->errbuf[0] ? s->errbuf : curl_easy_strerror(res));
		return;
	}
	curl_easy_getinfo(s->easy, CURLINFO_RESPONSE_CODE, &status);
	if (status >= 200 && status < 400) {
		r->ok++;
		return;
	}
	snprintf(reason, sizeof(reason), "HTTP status %ld", status);
	record_failure(r, s, reason);
}

/* Second signal: give up on the requests still running, as failures. */
static void abort_running(struct run *r)
{
	for (unsigned int i = 0; i < r->opts->concurrency; i++) {
		struct slot *s = &r->slots[i];

		if (!s->busy)
			continue;
		curl_multi_remove_handle(r->multi, s->easy);
		s->busy = false;
		r->idle[r->nr_idle++] = s;
		record_failure(r, s, "aborted by a second signal");
	}
}

/* Returns how many signals arrived since the last call. */
static int drain_signals(void)
{
	char buf[16];
	ssize_t n;
	int total = 0;

	while ((n = read(signal_pipe[0], buf, sizeof(buf))) > 0)
		total += (int)n;
	return total;
}

static int run_loop(struct run *r)
{
	const struct options *o = r->opts;
	struct curl_waitfd wfd = { .fd = signal_pipe[0], .events = CURL_WAIT_POLLIN };
	int signals_seen = 0;

	for (;;) {
		CURLMsg *msg;
		CURLMcode mc;
		int running, left;
		int timeout_ms = POLL_MS_MAX;

		while (may_start(r))
			if (start_request(r))
				return -1;
		if (r->nr_idle == o->concurrency)
			return 0; /* nothing running and nothing more to start */

		mc = curl_multi_perform(r->multi, &running);
		if (mc != CURLM_OK) {
			fprintf(stderr, PROG ": curl_multi_perform: %s\n", curl_multi_strerror(mc));
			return -1;
		}
		while ((msg = curl_multi_info_read(r->multi, &left))) {
			char *slot;

			if (msg->msg != CURLMSG_DONE)
				continue;
			curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &slot);
			finish_request(r, (struct slot *)slot, msg->data.result);
		}
		/* Start the next requests before sleeping, so the pool stays full. */
		if (may_start(r))
			continue;
		if (r->nr_idle == o->concurrency)
			continue;

		/* Wake at the deadline; once it has passed, only transfers matter. */
		if (r->deadline && !r->stopping) {
			double left_ms = (r->deadline - fbf_monotonic_s()) * 1000.0;

			if (left_ms > 0 && left_ms < timeout_ms)
				timeout_ms = (int)left_ms + 1;
		}
		wfd.revents = 0;
		mc = curl_multi_poll(r->multi, &wfd, 1, timeout_ms, NULL);
		if (mc != CURLM_OK) {
			fprintf(stderr, PROG ": curl_multi_poll: %s\n", curl_multi_strerror(mc));
			return -1;
		}
		if (wfd.revents) {
			signals_seen += drain_signals();
			if (!r->stopping && !o->quiet)
				fprintf(stderr, PROG ": stopping; %u requests running, "
					"signal again to abort\n",
					o->concurrency - r->nr_idle);
			r->stopping = true;
			if (signals_seen > 1)
				abort_running(r);
		}
	}
}

static void print_summary(const struct run *r, double seconds)
{
	unsigned long long done = r->ok + r->failed;
	double rate = seconds > 0 ? (double)done / seconds : 0.0;

	if (r->opts->json)
		printf("{\"requests\":%llu,\"ok\":%llu,\"failed\":%llu,"
		       "\"seconds\":%.3f,\"rate\":%.1f}\n",
		       done, r->ok, r->failed, seconds, rate);
	else
		printf(PROG ": requests=%llu ok=%llu failed=%llu seconds=%.3f rate=%.1f\n", done,
		       r->ok, r->failed, seconds, rate);
	fflush(stdout);
}

static void describe_run(const struct options *o)
{
	char limit[96];

	if (o->requests && o->duration)
		snprintf(limit, sizeof(limit), "%llu requests or %g s", o->requests,
			 o->duration);
	else if (o->requests)
		snprintf(limit, sizeof(limit), "%llu requests", o->requests);
	else
		snprintf(limit, sizeof(limit), "%g s", o->duration);
	fprintf(stderr, PROG ": GET %s: %s, concurrency %u, ", o->url, limit, o->concurrency);
	if (o->sources)
		fprintf(stderr, "%zu source address%s, ", o->nr_sources,
			o->nr_sources == 1 ? "" : "es");
	fprintf(stderr, "%s\n", o->reuse ? "connections reused" : "one connection per request");
}

int main(int argc, char **argv)
{
	struct options opts;
	struct run r = { .opts = &opts };
	int exit_code = EXIT_FAILED;
	double start;
	long idle;
	int err;

	parse_options(argc, argv, &opts);

	err = setup_signals();
	if (err) {
		fprintf(stderr, PROG ": cannot set up signal handling: %s\n", strerror(-err));
		goto out_free;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		fprintf(stderr, PROG ": cannot initialise libcurl\n");
		goto out_free;
	}
	r.multi = curl_multi_init();
	r.slots = calloc(opts.concurrency, sizeof(*r.slots));
	r.idle = calloc(opts.concurrency, sizeof(*r.idle));
	if (!r.multi || !r.slots || !r.idle) {
		fprintf(stderr, PROG ": cannot initialise libcurl: out of memory\n");
		goto out_cleanup;
	}
	idle = idle_connections(&opts);
	if (idle)
		curl_multi_setopt(r.multi, CURLMOPT_MAXCONNECTS, idle);
	raise_fd_limit((rlim_t)opts.concurrency + (rlim_t)idle + FD_SPARE);
	for (unsigned int i = 0; i < opts.concurrency; i++) {
		if (setup_slot(&r.slots[i], &opts)) {
			fprintf(stderr, PROG ": cannot set up a libcurl handle (7.85+ needed)\n");
			goto out_cleanup;
		}
		r.idle[r.nr_idle++] = &r.slots[i];
	}

	if (!opts.quiet)
		describe_run(&opts);
	start = fbf_monotonic_s();
	if (opts.duration)
		r.deadline = start + opts.duration;
	err = run_loop(&r);
	print_summary(&r, fbf_monotonic_s() - start);
	if (!err && !r.failed)
		exit_code = EXIT_ALL_OK;

out_cleanup:
	if (r.slots) {
		for (unsigned int i = 0; i < opts.concurrency; i++) {
			if (!r.slots[i].easy)
				continue;
			if (r.slots[i].busy)
				curl_multi_remove_handle(r.multi, r.slots[i].easy);
			curl_easy_cleanup(r.slots[i].easy);
		}
	}
	if (r.multi)
		curl_multi_cleanup(r.multi);
	free(r.slots);
	free(r.idle);
	curl_global_cleanup();
out_free:
	free(opts.sources);
	return exit_code;
}
