// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Each interval's counts per source as IPFIX data records over UDP
 * (--output ipfix://HOST:PORT[?domain=N]), for the flow collectors network
 * operators already run (nfcapd, pmacct's nfacctd).
 *
 * libfixbuf encodes (template, observation domain, sequence numbers) into a
 * buffer, and this sink sends each message on a socket of its own: fixbuf's
 * UDP exporter hides a failed send (one warning, then success), and an
 * output here must count what it could not send.
 *
 * An interval is one record of the accounting and many messages (some 42
 * sources each): delivered once every send of it succeeded, lost at the
 * first that fails. The socket is connected, so a collector that is not
 * listening shows as ECONNREFUSED (ICMP port unreachable): on loopback at
 * once, losing this interval; from a remote host later, losing the one sent
 * then. UDP tells no more: a collector that drops messages in its own buffer
 * is not seen here, which is why the sending is paced (IPFIX_PACE_*).
 */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <fixbuf/public.h>

#include "fizzbuzzfib.h"
#include "base/exit_codes.h"
#include "base/log.h"
#include "sinks/output_kind.h"
#include "sinks/output_url.h"
#include "sinks/sink.h"
#include "source_counts.h"
#include "userspace_util.h"

/* fixbuf's own size for UDP: under a 1500-byte MTU with room for tunnels, never fragmented. */
#define IPFIX_MESSAGE_SIZE 1420
/* The template's id: the first one RFC 7011 leaves to data sets. */
#define IPFIX_TEMPLATE_ID 256
/*
 * The pace: at most IPFIX_PACE_BURST messages every IPFIX_PACE_NS, some
 * 22 MB/s, 65,536 sources in about 100 ms. A collector reads one datagram
 * at a time from a socket buffer of some 200 KiB by default (about 90 of
 * these messages); the kernel drops what does not fit, silently. Unpaced,
 * nfcapd on loopback kept 27,610 of 65,536 sources; at twice this pace all,
 * but 61,630 beside a CPU-bound process; at this pace all, with both CPUs of
 * the host busy: a collector may sleep some 5 ms and lose nothing
 * (tests/e2e/ipfix.bats).
 */
#define IPFIX_PACE_BURST 8
#define IPFIX_PACE_NS 500000ULL
/* How often a long interval's loop asks whether the agent stopped waiting. */
#define IPFIX_GIVEN_UP_EVERY 64

/*
 * One data record as the internal template describes it, packed: fixbuf reads
 * each field where the lengths before it add up to, and writes it big-endian.
 */
struct ipfix_record {
	__u32 saddr;			/* sourceIPv4Address */
	__u64 packets;			/* packetDeltaCount */
	__u64 start_ms, end_ms;		/* flowStartMilliseconds, flowEndMilliseconds */
	__u32 ifindex;			/* ingressInterface */
	__u8 class_id;			/* classId: enum fbf_class */
} __attribute__((packed));

/* The template, in the order of struct ipfix_record: both internal and external. */
static fbInfoElementSpec_t ipfix_spec[] = {
	{ "sourceIPv4Address", 4, 0 },
	{ "packetDeltaCount", 8, 0 },
	{ "flowStartMilliseconds", 8, 0 },
	{ "flowEndMilliseconds", 8, 0 },
	{ "ingressInterface", 4, 0 },
	{ "classId", 1, 0 },
	FB_IESPEC_NULL
};

struct ipfix_sink {
	struct ipfix_url url;
	__u32 ifindex;
	int fd;				/* a connected UDP socket */
	fbInfoModel_t *model;
	fBuf_t *fbuf;			/* owns the session and the exporter */
	__u8 msg[IPFIX_MESSAGE_SIZE];	/* where the exporter puts each message */
	size_t pending;			/* records and templates in fbuf since its last emit */
	__u64 burst_start_ns;		/* the pace's window */
	unsigned int burst;		/* messages sent in it */
	bool failing;			/* said that sending fails; say when it works again */
};

/* Hold the pace: after IPFIX_PACE_BURST messages, wait for the window's end. */
static void ipfix_pace(struct ipfix_sink *x)
{
	__u64 now = fbf_monotonic_ns(), until;
	struct timespec ts;

	if (now - x->burst_start_ns >= IPFIX_PACE_NS) {
		x->burst_start_ns = now;
		x->burst = 0;
	}
	if (++x->burst < IPFIX_PACE_BURST)
		return;
	until = x->burst_start_ns + IPFIX_PACE_NS;
	ts.tv_sec = until / 1000000000ULL;
	ts.tv_nsec = until % 1000000000ULL;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
	x->burst_start_ns = until;
	x->burst = 0;
}

/* Close the message fbuf holds, never empty (a template or a record), and send it. 0 or -errno. */
static int ipfix_emit(struct sink *s, struct ipfix_sink *x)
{
	GError *err = NULL;
	size_t len;
	ssize_t n;

	x->pending = 0;
	if (!fBufEmit(x->fbuf, &err)) {
		pr_warn("output %s: cannot encode an IPFIX message: %s\n", s->name, err->message);
		g_clear_error(&err);
		return -EIO;
	}
	len = fbExporterGetMsgLen(fBufGetExporter(x->fbuf));
	do
		n = send(x->fd, x->msg, len, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	ipfix_pace(x);
	return n == (ssize_t)len ? 0 : -EMSGSIZE;
}

/* Append @rec to the current message, sending it first if it is full. 0 or -errno. */
static int ipfix_append(struct sink *s, struct ipfix_sink *x, struct ipfix_record *rec)
{
	GError *err = NULL;
	bool sent = false;
	int ret;

	while (!fBufAppend(x->fbuf, (uint8_t *)rec, sizeof(*rec), &err)) {
		if (sent || !g_error_matches(err, FB_ERROR_DOMAIN, FB_ERROR_EOM)) {
			pr_warn("output %s: cannot encode an IPFIX record: %s\n", s->name,
				err->message);
			g_clear_error(&err);
			return -EIO;
		}
		g_clear_error(&err);
		ret = ipfix_emit(s, x);
		if (ret)
			return ret;
		sent = true;
	}
	x->pending++;
	return 0;
}

/*
 * The interval's first message opens with the template: a collector that
 * started, restarted or forgot it decodes the interval all the same, as
 * RFC 7011 asks of an exporter over UDP (10.3.6), at no cost of a message.
 */
static int ipfix_templates(struct sink *s, struct ipfix_sink *x)
{
	fbSession_t *session = fBufGetSession(x->fbuf);
	GError *err = NULL;
	bool ok;

	ok = fbSessionExportTemplates(session, &err);
	/* In manual mode fixbuf asks for a new message before a template set: once. */
	if (!ok && g_error_matches(err, FB_ERROR_DOMAIN, FB_ERROR_EOM)) {
		g_clear_error(&err);
		ok = fbSessionExportTemplates(session, &err);
	}
	if (ok && fBufSetInternalTemplate(x->fbuf, IPFIX_TEMPLATE_ID, &err) &&
	    fBufSetExportTemplate(x->fbuf, IPFIX_TEMPLATE_ID, &err)) {
		x->pending++;
		return 0;
	}
	pr_warn("output %s: cannot encode the IPFIX template: %s\n", s->name, err->message);
	g_clear_error(&err);
	return -EIO;
}

/* Every source of the interval @h, after the template. 0 or -errno. */
static int ipfix_send_interval(struct sink *s, struct ipfix_sink *x, const struct sink_counts *h)
{
	const struct fbf_source_count *sc = (const void *)(h + 1);
	struct ipfix_record rec = {
		.start_ms = (h->start_ns + s->fmt.wall_offset_ns) / 1000000ULL,
		.end_ms = (h->end_ns + s->fmt.wall_offset_ns) / 1000000ULL,
		.ifindex = x->ifindex,
	};
	socklen_t len = sizeof(int);
	GError *gerr = NULL;
	int ret, err = 0;
	__u32 i;

	ret = ipfix_templates(s, x);
	for (i = 0; !ret && i < h->nr; i++) {
		rec.saddr = sc[i].saddr;
		rec.packets = sc[i].packets;
		rec.class_id = fbf_classify(sc[i].saddr);
		ret = ipfix_append(s, x, &rec);
		if (!ret && i % IPFIX_GIVEN_UP_EVERY == IPFIX_GIVEN_UP_EVERY - 1 &&
		    sink_given_up(s))
			ret = -ETIMEDOUT;
	}
	if (!ret)
		ret = ipfix_emit(s, x);
	/* Sent, unless a refusal came since the last send (ECONNREFUSED, at the top). */
	if (!ret)
		return getsockopt(x->fd, SOL_SOCKET, SO_ERROR, &err, &len) ? -errno : -err;
	/*
	 * Nothing of a failed interval goes out with the next one: what fbuf
	 * holds is encoded and dropped; its sequence numbers are spent, so a
	 * collector sees the gap.
	 */
	if (x->pending && !fBufEmit(x->fbuf, &gerr))
		g_clear_error(&gerr);
	x->pending = 0;
	return ret;
}

static int ipfix_write(struct sink *s, struct sink_chunk *c)
{
	const struct sink_counts *h = (const void *)c->data;
	struct ipfix_sink *x = s->priv;
	int ret;

	/* A note (what was lost, when) has no IPFIX form: the counters say it. */
	if (!c->records) {
		sink_progress(s, c, c->len);
		return 0;
	}
	if (c->len < sizeof(*h) || (c->len - sizeof(*h)) / sizeof(struct fbf_source_count) < h->nr)
		return -EINVAL;
	ret = ipfix_send_interval(s, x, h);
	if (!ret) {
		sink_progress(s, c, c->len);
		if (x->failing)
			pr_info("output %s: sending to ipfix://%s again\n", s->name, s->target);
		x->failing = false;
		return 0;
	}
	/* Stopped waiting at exit (-ETIMEDOUT): sink_stop() says so, and counts it. */
	if (ret == -ETIMEDOUT)
		return ret;
	if (!x->failing)
		pr_warn("output %s: cannot send to ipfix://%s: %s; the interval is lost, and "
			"each until the collector takes them again\n", s->name, s->target,
			strerror(-ret));
	x->failing = true;
	return ret;
}

static void ipfix_close(struct sink *s)
{
	struct ipfix_sink *x = s->priv;

	if (x->fbuf)
		fBufFree(x->fbuf);
	if (x->model)
		fbInfoModelFree(x->model);
	if (x->fd >= 0)
		close(x->fd);
	free(x);
	s->priv = NULL;
}

static const struct sink_ops ipfix_ops = {
	.write = ipfix_write,
	.close = ipfix_close,
};

/* A UDP socket connected to the collector: 0, or an exit status after one line. */
static int ipfix_connect(struct sink *s, struct ipfix_sink *x)
{
	/* No AI_ADDRCONFIG: it would refuse 127.0.0.1 on a host whose only address is loopback. */
	const struct addrinfo hints = { .ai_socktype = SOCK_DGRAM };
	struct addrinfo *ai, *a;
	int err;

	err = getaddrinfo(x->url.host, x->url.port, &hints, &ai);
	if (err) {
		pr_err("output ipfix: cannot resolve %s: %s; check the address\n", s->target,
		       gai_strerror(err));
		return AGENT_EXIT_OUTPUT;
	}
	for (a = ai; a; a = a->ai_next) {
		x->fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
		if (x->fd < 0)
			continue;
		if (!connect(x->fd, a->ai_addr, a->ai_addrlen))
			break;
		err = errno;
		close(x->fd);
		x->fd = -1;
		errno = err;
	}
	freeaddrinfo(ai);
	if (x->fd < 0) {
		pr_err("output ipfix: cannot send to %s: %s; check the address\n", s->target,
		       strerror(errno));
		return AGENT_EXIT_OUTPUT;
	}
	return 0;
}

/* The template in a session of the domain, and fbuf to encode with: 0 or -EIO (@err set). */
static int ipfix_encoder(struct ipfix_sink *x, GError **err)
{
	fbSession_t *session;
	fbTemplate_t *tmpl;
	fbExporter_t *exp;

	x->model = fbInfoModelAlloc();
	tmpl = fbTemplateAlloc(x->model);
	if (!fbTemplateAppendSpecArray(tmpl, ipfix_spec, ~0U, err)) {
		fbTemplateFreeUnused(tmpl);
		return -EIO;
	}
	session = fbSessionAlloc(x->model);
	fbSessionSetDomain(session, x->url.has_domain ? x->url.domain : x->ifindex);
	if (!fbSessionAddTemplate(session, TRUE, IPFIX_TEMPLATE_ID, tmpl, err) ||
	    !fbSessionAddTemplate(session, FALSE, IPFIX_TEMPLATE_ID, tmpl, err)) {
		fbSessionFree(session);
		return -EIO;
	}
	exp = fbExporterAllocBuffer(x->msg, sizeof(x->msg));
	x->fbuf = fBufAllocForExport(session, exp);
	/* Manual: a full message comes back as FB_ERROR_EOM, and this sink sends it. */
	fBufSetAutomaticMode(x->fbuf, FALSE);
	return 0;
}

static int ipfix_open(struct sink *s, const char *url, const struct output_open_args *a)
{
	struct ipfix_sink *x = calloc(1, sizeof(*x));
	GError *err = NULL;
	const char *why;
	int ret;

	if (!x) {
		pr_err("output ipfix: %s\n", strerror(ENOMEM));
		return AGENT_EXIT_FAILURE;
	}
	s->ops = &ipfix_ops;
	s->priv = x;
	s->target = url;
	s->takes_counts = true;
	x->fd = -1;
	x->ifindex = a->ifindex;
	/* Cannot fail: the options refused a URL it does not take before anything opens. */
	ipfix_url_parse(url, &x->url, &why);
	ret = ipfix_connect(s, x);
	if (!ret && ipfix_encoder(x, &err)) {
		pr_err("output ipfix: cannot build the IPFIX template: %s\n", err->message);
		g_clear_error(&err);
		ret = AGENT_EXIT_FAILURE;
	}
	if (ret)
		return ret;
	pr_info("output ipfix: %s, observation domain %u, %zu-byte messages\n", url,
		x->url.has_domain ? x->url.domain : x->ifindex, sizeof(x->msg));
	return 0;
}

static int ipfix_parse(const char *rest, const char **why)
{
	struct ipfix_url u;

	return ipfix_url_parse(rest, &u, why);
}

const struct output_kind output_ipfix = {
	.name = "ipfix", .prefix = "ipfix://", .usage = "ipfix://HOST:PORT",
	.help = "ipfix://HOST:PORT[?domain=N] (IPFIX over UDP, with --aggregate)",
	.needs_aggregate = "exports each interval's packets per source", .off_host = true,
	.parse = ipfix_parse, .same = ipfix_url_same, .open = ipfix_open,
};
