// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Slow or half-open clients time out; connections beyond a limit are refused,
 * so a flood of them costs the agent file descriptors it has, never its drain.
 *
 * The limit is high, because a connection waiting for a free slot waits for
 * an idle one to time out: with 64 slots, a thousand idle connections held
 * every scrape 5 to 8 s, and Prometheus gives up after 10. An idle
 * connection costs one descriptor and a small memory pool on the epoll
 * set, so the agent raises its soft descriptor limit to make room.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <bpf/bpf.h>
#include <microhttpd.h>

#include "counters_read.h"
#include "base/log.h"
#include "base/thread_name.h"
#include "metrics/metrics.h"

#define METRICS_TIMEOUT_S 5
#define METRICS_MAX_CONNECTIONS 4096
/* Per connection: a request line and a few headers; the answers are not kept there. */
#define METRICS_CONNECTION_MEMORY 8192
/* Descriptors the agent needs besides the connections: maps, sockets, files. */
#define METRICS_FDS_RESERVED 256
#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct metrics_server {
	struct MHD_Daemon *daemon;
	struct metrics_source src;
	bool thread_named;		/* its one thread's, by the thread itself */
};

static int snapshot(const struct metrics_source *src, struct metrics_snapshot *s)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	int i;

	*s = (struct metrics_snapshot){ .src = src, .version = FBF_VERSION };
	/* Delivered first: every event delivered was produced before it, so never more. */
	s->delivered = __atomic_load_n(&src->sinks->delivered, __ATOMIC_RELAXED);
	for (i = 0; i < METRICS_AGE_BUCKETS; i++)
		s->ages.le[i] = __atomic_load_n(&src->sinks->ages->le[i], __ATOMIC_RELAXED);
	s->ages.sum_ns = __atomic_load_n(&src->sinks->ages->sum_ns, __ATOMIC_RELAXED);
	s->ages.count = __atomic_load_n(&src->sinks->ages->count, __ATOMIC_RELAXED);
	if (src->aggregate) {
		const struct aggregate_figures *f = src->aggregate;

		/* Read first, as delivered: never more than the counters say were counted. */
		s->aggregate.read = __atomic_load_n(&f->read, __ATOMIC_RELAXED);
		s->aggregate.intervals = __atomic_load_n(&f->intervals, __ATOMIC_RELAXED);
		s->aggregate.sources = __atomic_load_n(&f->sources, __ATOMIC_RELAXED);
		for (i = 0; i < FBF_NR_CLASSES; i++)
			s->aggregate.packets[i] = __atomic_load_n(&f->packets[i], __ATOMIC_RELAXED);
	}
	for (i = 0; i < (int)src->sinks->nr; i++) {
		const struct sink *k = &src->sinks->sinks[i];

		s->sinks[i].name = k->name;
		s->sinks[i].delivered = __atomic_load_n(&k->figures.delivered, __ATOMIC_RELAXED);
		s->sinks[i].lost = __atomic_load_n(&k->figures.lost, __ATOMIC_RELAXED);
		s->sinks[i].write_err = __atomic_load_n(&k->figures.write_err, __ATOMIC_RELAXED);
		s->nr_sinks++;
	}
	s->unattached = __atomic_load_n(&src->health->unattached, __ATOMIC_RELAXED);
	s->round_time_seconds = health_round_time(src->health);
	s->drain_gap_max_ns = __atomic_load_n(src->drain_gap_max_ns, __ATOMIC_RELAXED);
	/* What /proc cannot tell is left at 0: the counters matter more than these. */
	process_figures_read(&s->process, src->start_time_seconds);
	if (src->ifaces) {
		ifset_run_stats(src->ifaces, &s->run_time_ns, &s->run_cnt);
		/* The totals from the same read as the shares: they add up within a scrape. */
		s->nr_shares = ifset_shares(src->ifaces, &s->shares, &s->counters);
		return s->nr_shares < 0 ? s->nr_shares : 0;
	}
	if (!bpf_obj_get_info_by_fd(src->prog_fd, &info, &len)) {
		s->run_time_ns = info.run_time_ns;
		s->run_cnt = info.run_cnt;
	}
	return fbf_counters_read(src->counters_fd, &s->counters);
}

/* The landing page exporters have: what this is, and where the metrics are. */
#define LANDING_PAGE \
	"<!DOCTYPE html>\n<html><head><title>fizzbuzzfib agent</title></head><body>\n" \
	"<h1>fizzbuzzfib agent</h1>\n" \
	"<p>The XDP FizzBuzzFibonacci classifier's agent. <a href=\"/metrics\">Metrics</a>, " \
	"<a href=\"/healthz\">health</a>, <a href=\"/readyz\">readiness</a></p>\n" \
	"</body></html>\n"

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned int status, char *body,
			     size_t len, const char *type)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;

	resp = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	/* HTTP requires it on a 405 (RFC 9110, 15.5.6); it is true of every answer. */
	MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result reply_text(struct MHD_Connection *conn, unsigned int status,
				  const char *text)
{
	return reply(conn, status, strdup(text), strlen(text), "text/plain; charset=utf-8");
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **req)
{
	struct metrics_server *srv = cls;
	struct metrics_snapshot s;
	char why[256];
	size_t len = 0;
	char *body = NULL;
	FILE *out;

	/* libmicrohttpd names its thread once started: named here, from within, after it. */
	if (!srv->thread_named) {
		thread_name_self("metrics");
		srv->thread_named = true;
	}
	(void)version;
	(void)upload;
	(void)upload_size;
	(void)req;
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "use GET\n");
	if (!strcmp(url, "/"))
		return reply(conn, MHD_HTTP_OK, strdup(LANDING_PAGE), strlen(LANDING_PAGE),
			     "text/html; charset=utf-8");
	if (!strcmp(url, "/healthz"))
		return reply_text(conn, health_live(srv->src.health, why, sizeof(why)), why);
	if (!strcmp(url, "/readyz"))
		return reply_text(conn, health_ready(srv->src.health, srv->src.sinks, why,
						     sizeof(why)), why);
	if (strcmp(url, "/metrics"))
		return reply_text(conn, MHD_HTTP_NOT_FOUND, "not found: the metrics are at "
				  "/metrics, the probes at /healthz and /readyz\n");
	if (snapshot(&srv->src, &s))
		return reply_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
				  "cannot read the counters\n");
	out = open_memstream(&body, &len);
	if (out)
		metrics_format(out, &s);
	free(s.shares);
	if (!out || fclose(out)) {
		free(body);
		return MHD_NO;
	}
	return reply(conn, MHD_HTTP_OK, body, len, CONTENT_TYPE);
}

int metrics_listen(const char *text)
{
	struct sockaddr_storage sa;
	int fd, one = 1, err;
	socklen_t len;

	/* The options check refused every address this cannot parse. */
	parse_listen_addr(text, &sa, &len);
	fd = socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		pr_err("cannot serve metrics on %s: %s\n", text, strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)&sa, len) || listen(fd, SOMAXCONN)) {
		err = errno;
		close(fd);
		pr_err("cannot serve metrics on %s: %s%s\n", text, strerror(err),
		       err == EADDRINUSE ? "; pick another port" :
		       err == EADDRNOTAVAIL ? "; use an address of this host, or 0.0.0.0" :
		       err == EACCES ? "; ports below 1024 need CAP_NET_BIND_SERVICE" : "");
		return -1;
	}
	return fd;
}

/*
 * Connections, within the descriptors the agent leaves: main.c raised the
 * soft limit to the hard one before it attached.
 */
static unsigned int connections_max(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) ||
	    rl.rlim_cur >= METRICS_MAX_CONNECTIONS + METRICS_FDS_RESERVED)
		return METRICS_MAX_CONNECTIONS;
	return rl.rlim_cur > METRICS_FDS_RESERVED ? rl.rlim_cur - METRICS_FDS_RESERVED : 1;
}

struct metrics_server *metrics_serve(int listen_fd, const char *text,
				     const struct metrics_source *src)
{
	struct metrics_server *srv;
	struct sockaddr_storage sa;
	socklen_t len = sizeof(sa);

	srv = calloc(1, sizeof(*srv));
	if (!srv) {
		close(listen_fd);
		pr_err("cannot serve metrics on %s: out of memory\n", text);
		return NULL;
	}
	getsockname(listen_fd, (struct sockaddr *)&sa, &len);
	srv->src = *src;
	srv->daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
				       (sa.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
				       0, NULL, NULL, on_request, srv,
				       MHD_OPTION_LISTEN_SOCKET, listen_fd,
				       MHD_OPTION_CONNECTION_TIMEOUT,
				       (unsigned int)METRICS_TIMEOUT_S,
				       MHD_OPTION_CONNECTION_LIMIT, connections_max(),
				       MHD_OPTION_CONNECTION_MEMORY_LIMIT,
				       (size_t)METRICS_CONNECTION_MEMORY,
				       MHD_OPTION_END);
	/*
	 * Not closed here: libmicrohttpd closes a given socket on some of its
	 * failure paths, and a second close could take an output's descriptor.
	 */
	if (!srv->daemon) {
		pr_err("cannot serve metrics on %s: libmicrohttpd did not start\n", text);
		free(srv);
		return NULL;
	}
	return srv;
}

void metrics_stop(struct metrics_server *srv)
{
	if (!srv)
		return;
	/* It closes the listening socket too, given or its own. */
	MHD_stop_daemon(srv->daemon);
	free(srv);
}
