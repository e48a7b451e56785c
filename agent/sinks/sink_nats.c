// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Events into a NATS JetStream stream (--output nats://HOST:PORT/SUBJECT),
 * through nats.c.
 *
 * One message per chunk, a few thousand NDJSON lines: a message per event
 * would cost a round trip per event, where the drain takes one in well under
 * a microsecond. Each message's id (Nats-Msg-Id) is this run's id and its
 * first event's number, the same on every retry, so the stream's duplicate
 * window keeps one copy of a message stored but not acknowledged before the
 * server died. Delivered means acknowledged: at least once, and exactly once
 * within that window.
 *
 * A publish that fails for want of a server (down, restarting, a cluster
 * electing a leader) is retried until acknowledged or the agent stops
 * waiting, the output down meanwhile (/readyz, sink_up). nats.c reconnects
 * by itself, to any server of the list; it connects so at start too, unless
 * --nats-fail-fast: a node that boots before its broker is reachable starts
 * and publishes once it is, as after an outage.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netdb.h>
#include <nats/nats.h>

#include "base/escape.h"
#include "base/exit_codes.h"
#include "base/log.h"
#include "sinks/nats_files.h"
#include "sinks/output_kind.h"
#include "sinks/output_url.h"
#include "sinks/sink.h"

/* How long one publish waits for its acknowledgement before it is sent again. */
#define NATS_ACK_WAIT_MS 2000
/* A round trip per 512 KiB (some 3,000 events) keeps a synchronous publish ahead of the drain. */
#define NATS_CHUNK_SIZE (512 * 1024)
/* Below this a server's max_payload is not followed: a chunk holds a few lines at least. */
#define NATS_CHUNK_MIN 4096
/* A stream's name: at most 255 bytes. */
#define NATS_STREAM_NAME_SIZE 256
/* How long the start waits for a server, per server of the list. */
#define NATS_CONNECT_TIMEOUT_MS 2000

struct nats_sink {
	struct nats_url url;
	natsOptions *opts;
	natsConnection *nc;
	jsCtx *js;
	char run_id[FORMAT_ENVELOPE_MAX];
	char stream[NATS_STREAM_NAME_SIZE + 16];	/* to create if none captures the subject */
	__u64 records_sent;		/* messages that are not events: their ids */
	bool failing;			/* said that publishing fails; say when it works again */
	bool stream_ready;		/* a stream captures the subject: checked once connected */
	bool stream_said;		/* ... said why not: not again each retry */
	__u32 replicas;			/* --nats-replicas, for that check */
};

static int nats_stream_ensure(struct sink *s, struct nats_sink *n, bool say);

/* The errno /readyz says for @st: the server away, or what it answered. */
static int nats_status_errno(natsStatus st)
{
	return st == NATS_TIMEOUT ? ETIMEDOUT : st == NATS_NO_RESPONDERS ? EHOSTUNREACH :
	       st == NATS_IO_ERROR || st == NATS_CONNECTION_CLOSED ||
	       st == NATS_CONNECTION_DISCONNECTED || st == NATS_NOT_YET_CONNECTED ||
	       st == NATS_NO_SERVER || st == NATS_STALE_CONNECTION ? ENOTCONN : EIO;
}

/* nats.c's threads: the connection lost, or back (a publish then says if it works). */
static void nats_on_disconnected(natsConnection *nc, void *closure)
{
	(void)nc;
	sink_set_down(closure, ENOTCONN);
}

static void nats_on_connected(natsConnection *nc, void *closure)
{
	struct sink *s = closure;

	(void)nc;
	pr_info("output %s: connected to nats://%s\n", s->name, s->target);
	sink_set_down(s, 0);
}

static void nats_on_reconnected(natsConnection *nc, void *closure)
{
	(void)nc;
	sink_set_down(closure, 0);
}

/* A failure a server that comes back would not have: not worth a retry. */
static bool nats_status_final(natsStatus st)
{
	switch (st) {
	case NATS_TIMEOUT:
	case NATS_NO_RESPONDERS:
	case NATS_IO_ERROR:
	case NATS_CONNECTION_CLOSED:
	case NATS_CONNECTION_DISCONNECTED:
	case NATS_NOT_YET_CONNECTED:
	case NATS_NO_SERVER:
	case NATS_STALE_CONNECTION:
	case NATS_INSUFFICIENT_BUFFER:
		return false;
	default:
		return true;
	}
}

static int nats_write(struct sink *s, struct sink_chunk *c)
{
	struct nats_sink *n = s->priv;
	char id[FORMAT_ENVELOPE_MAX + 32];
	jsErrCode jerr = 0;
	jsPubOptions po;
	jsPubAck *ack;
	natsStatus st;

	/* Its id is fixed before the first try: every retry is the same message. */
	if (c->first_seq)
		snprintf(id, sizeof(id), "%s.e%llu", n->run_id, c->first_seq);
	else
		snprintf(id, sizeof(id), "%s.r%llu", n->run_id, ++n->records_sent);
	jsPubOptions_Init(&po);
	po.MsgId = id;
	po.MaxWait = NATS_ACK_WAIT_MS;
	for (;;) {
		/* Started with no server: its stream looked for once one is reached. */
		if (!n->stream_ready &&
		    natsConnection_Status(n->nc) == NATS_CONN_STATUS_CONNECTED) {
			n->stream_ready = !nats_stream_ensure(s, n, !n->stream_said);
			n->stream_said = !n->stream_ready;
		}
		if (!n->stream_ready) {
			sink_set_down(s, ENOTCONN);
			if (sink_given_up(s))
				return -ETIMEDOUT;
			sink_retry_pause();
			continue;
		}
		ack = NULL;
		st = js_Publish(&ack, n->js, n->url.subject, c->data, (int)c->len, &po, &jerr);
		jsPubAck_Destroy(ack);
		if (st == NATS_OK) {
			sink_progress(s, c, c->len);
			if (n->failing)
				pr_info("output %s: publishing to %s again\n", s->name,
					n->url.subject);
			n->failing = false;
			return 0;
		}
		if (!n->failing)
			pr_warn("output %s: cannot publish to %s: %s (JetStream error %d); %s\n",
				s->name, n->url.subject, natsStatus_GetText(st), (int)jerr,
				nats_status_final(st) ? "the message is lost" : "retrying");
		n->failing = true;
		if (nats_status_final(st))
			return -EIO;
		sink_set_down(s, nats_status_errno(st));
		if (sink_given_up(s))
			return -ETIMEDOUT;
		if (st != NATS_TIMEOUT)
			sink_retry_pause();
	}
}

static void nats_close(struct sink *s)
{
	struct nats_sink *n = s->priv;

	jsCtx_Destroy(n->js);
	natsConnection_Destroy(n->nc);
	natsOptions_Destroy(n->opts);
	free(n);
	s->priv = NULL;
}

static const struct sink_ops nats_ops = {
	.write = nats_write,
	.close = nats_close,
};

/* Options as the agent's ask, the files' checked: 0, or an exit status after one line. */
static int nats_options(struct sink *s, struct nats_sink *n, const struct output_open_args *o)
{
	const char *servers[NATS_URL_SERVERS_MAX];
	natsStatus st;
	unsigned int i;
	int ret;

	for (i = 0; i < n->url.nr_servers; i++)
		servers[i] = n->url.servers[i];
	st = natsOptions_Create(&n->opts);
	ret = st == NATS_OK ? nats_files_check(n->opts, o->nats_creds, o->nats_ca) : 0;
	if (ret)
		return ret;
	if (st == NATS_OK)
		st = natsOptions_SetServers(n->opts, servers, n->url.nr_servers);
	if (st == NATS_OK)
		st = natsOptions_SetName(n->opts, "fizzbuzzfib-agent");
	if (st == NATS_OK)
		st = natsOptions_SetTimeout(n->opts, NATS_CONNECT_TIMEOUT_MS);
	/* Reconnect for as long as the agent runs: the buffer bounds what waits meanwhile. */
	if (st == NATS_OK)
		st = natsOptions_SetMaxReconnect(n->opts, -1);
	if (st == NATS_OK)
		st = natsOptions_SetReconnectWait(n->opts, 250);
	if (st == NATS_OK)
		st = natsOptions_SetDisconnectedCB(n->opts, nats_on_disconnected, s);
	if (st == NATS_OK)
		st = natsOptions_SetReconnectedCB(n->opts, nats_on_reconnected, s);
	if (st == NATS_OK && o->nats_creds)
		st = natsOptions_SetUserCredentialsFromFiles(n->opts, o->nats_creds, NULL);
	if (st == NATS_OK && o->nats_ca)
		st = natsOptions_SetSecure(n->opts, true);
	if (st != NATS_OK) {
		pr_err("output nats: %s\n", nats_last_error());
		return AGENT_EXIT_FAILURE;
	}
	return 0;
}

/*
 * No server reachable: if a name of the list does not resolve, that is the
 * cause, said as ipfix:// says it (an error if @fatal, else a warning: the
 * agent starts, and the name may resolve later). Whether one was said.
 */
static bool nats_unresolved_said(const struct sink *s, const struct nats_url *u, bool fatal)
{
	const struct addrinfo hints = { .ai_socktype = SOCK_STREAM };
	char host[NATS_URL_SERVER_SIZE], shown[NATS_URL_SERVER_SIZE * 4];
	struct addrinfo *ai;
	char *port, *h;
	int err;

	for (unsigned int i = 0; i < u->nr_servers; i++) {
		snprintf(host, sizeof(host), "%s", u->servers[i] + strlen("nats://"));
		port = strrchr(host, ':');
		if (!port)
			continue;
		*port++ = '\0';
		h = host;
		if (*h == '[' && h[strlen(h) - 1] == ']') {
			h[strlen(h) - 1] = '\0';
			h++;
		}
		err = getaddrinfo(h, port, &hints, &ai);
		if (!err) {
			freeaddrinfo(ai);
			continue;
		}
		escape_log(shown, sizeof(shown), u->servers[i] + strlen("nats://"));
		if (fatal)
			pr_err("output nats: cannot resolve %s (of nats://%s): %s; check the "
			       "address\n", shown, s->target, gai_strerror(err));
		else
			pr_warn("output nats: cannot resolve %s (of nats://%s) yet: %s; starting "
				"all the same, and publishing once a server is reached "
				"(--nats-fail-fast exits instead)\n", shown, s->target,
				gai_strerror(err));
		return true;
	}
	return false;
}

static int nats_connect_failed(struct sink *s, natsStatus st, const struct output_open_args *o);

/*
 * Connect: 0; 1 where no server is reached yet and nats.c goes on trying
 * (said at warning); or AGENT_EXIT_OUTPUT after one line that blames the
 * server only where it is the cause.
 */
static int nats_connect(struct sink *s, struct nats_sink *n, const struct output_open_args *o)
{
	natsStatus st;

	st = natsConnection_Connect(&n->nc, n->opts);
	/*
	 * No server there (down, not yet up, its name not yet resolved): tried
	 * again, nats.c going on trying after; not one that refused the agent,
	 * which no retry mends.
	 */
	if ((st == NATS_NO_SERVER || st == NATS_TIMEOUT || st == NATS_IO_ERROR) &&
	    !o->nats_fail_fast &&
	    natsOptions_SetRetryOnFailedConnect(n->opts, true, nats_on_connected, s) == NATS_OK)
		st = natsConnection_Connect(&n->nc, n->opts);
	if (st == NATS_NOT_YET_CONNECTED) {
		if (!nats_unresolved_said(s, &n->url, false))
			pr_warn("output %s: cannot connect to nats://%s yet; starting all the "
				"same, and publishing once a server is reached (--nats-fail-fast "
				"exits instead)\n", s->name, s->target);
		sink_set_down(s, ENOTCONN);
		st = natsConnection_JetStream(&n->js, n->nc, NULL);
		return st == NATS_OK ? 1 : nats_connect_failed(s, st, o);
	}
	if (st == NATS_OK)
		st = natsConnection_JetStream(&n->js, n->nc, NULL);
	if (st == NATS_OK)
		return 0;
	return nats_connect_failed(s, st, o);
}

/* The connection failed (--nats-fail-fast, or no retry can help): AGENT_EXIT_OUTPUT, said. */
static int nats_connect_failed(struct sink *s, natsStatus st, const struct output_open_args *o)
{
	struct nats_sink *n = s->priv;
	char creds[PATH_MAX];

	escape_log(creds, sizeof(creds), o->nats_creds ?: "");
	switch (st) {
	case NATS_NO_SERVER:
		if (nats_unresolved_said(s, &n->url, true))
			break;
		/* fall through */
	case NATS_TIMEOUT:
	case NATS_IO_ERROR:
		pr_err("output nats: cannot connect to nats://%s: %s; start the server, or check "
		       "the address\n", s->target, natsStatus_GetText(st));
		break;
	case NATS_CONNECTION_AUTH_FAILED:
	case NATS_NOT_PERMITTED:
		pr_err("output nats: the server of nats://%s refused the agent: %s; %s%s\n",
		       s->target, nats_last_error(),
		       o->nats_creds ? "check with its operator that it "
		       "accepts the user of --nats-creds " : "it may need --nats-creds", creds);
		break;
	case NATS_SECURE_CONNECTION_WANTED:
		pr_err("output nats: the server of nats://%s offers no TLS, which --nats-ca asks "
		       "for; enable TLS there, or drop --nats-ca\n", s->target);
		break;
	case NATS_SECURE_CONNECTION_REQUIRED:
		pr_err("output nats: the server of nats://%s requires TLS; give the CA that "
		       "signed its certificate with --nats-ca\n", s->target);
		break;
	case NATS_SSL_ERROR:
		pr_err("output nats: TLS with the server of nats://%s failed: %s; check that "
		       "--nats-ca holds the CA that signed its certificate\n", s->target,
		       nats_last_error());
		break;
	default:
		pr_err("output nats: cannot connect to nats://%s: %s\n", s->target,
		       nats_last_error());
	}
	return AGENT_EXIT_OUTPUT;
}

/*
 * A stream that captures the subject, or a new one named @n->stream. An
 * existing stream is never changed. 0, or an exit status after one line
 * (if @say).
 */
static int nats_stream_ensure(struct sink *s, struct nats_sink *n, bool say)
{
	const char *subjects[1] = { n->url.subject };
	jsStreamNamesList *names = NULL;
	jsStreamInfo *si = NULL;
	jsStreamConfig cfg;
	jsErrCode jerr = 0;
	jsOptions jo;
	natsStatus st;
	int found;

	jsOptions_Init(&jo);
	jo.Stream.Info.SubjectsFilter = n->url.subject;
	st = js_StreamNames(&names, n->js, &jo, &jerr);
	if (st != NATS_OK && st != NATS_NOT_FOUND) {
		jsStreamNamesList_Destroy(names);
		if (say)
			pr_err("output %s: cannot list the streams of %s: %s (JetStream error %d); "
			       "is JetStream enabled there (nats-server -js)?\n", s->name,
			       s->target, natsStatus_GetText(st), (int)jerr);
		return AGENT_EXIT_OUTPUT;
	}
	found = st == NATS_OK && names && names->Count > 0;
	/* Said: the operator who named another stream must know where events go. */
	if (found && strcmp(names->List[0], n->stream))
		pr_warn("output %s: publishing to stream %s, which captures %s already; %s "
			"(--nats-stream) is created only where no stream captures the subject\n",
			s->name, names->List[0], n->url.subject, n->stream);
	else if (found)
		pr_info("output %s: publishing to stream %s, which captures %s\n", s->name,
			names->List[0], n->url.subject);
	jsStreamNamesList_Destroy(names);
	if (found)
		return 0;
	jsStreamConfig_Init(&cfg);
	cfg.Name = n->stream;
	cfg.Subjects = subjects;
	cfg.SubjectsLen = 1;
	cfg.Storage = js_FileStorage;
	cfg.Replicas = n->replicas;
	st = js_AddStream(&si, n->js, &cfg, NULL, &jerr);
	jsStreamInfo_Destroy(si);
	if (st != NATS_OK) {
		if (say)
			pr_err("output %s: no stream captures %s, and creating stream %s failed: "
			       "%s (JetStream error %d); name another with --nats-stream, or "
			       "create one\n", s->name, n->url.subject, n->stream,
			       natsStatus_GetText(st), (int)jerr);
		return AGENT_EXIT_OUTPUT;
	}
	pr_info("output %s: created JetStream stream %s for %s, %u replica%s\n", s->name,
		n->stream, n->url.subject, n->replicas, plural_s(n->replicas));
	return 0;
}

static int nats_open(struct sink *s, const char *url, const struct output_open_args *o)
{
	struct nats_sink *n = calloc(1, sizeof(*n));
	static unsigned int nats_outputs;
	const char *why;
	int ret;

	if (!n) {
		pr_err("output nats: %s\n", strerror(ENOMEM));
		return AGENT_EXIT_FAILURE;
	}
	s->ops = &nats_ops;
	s->priv = n;
	s->target = url;
	/* Its name for messages is the kind's: the sink is named only once started. */
	snprintf(s->name, sizeof(s->name), "nats");
	/* Checked by the options already, unless memory ran out while they did. */
	if (nats_url_parse(url, &n->url, &why)) {
		pr_err("output nats://%s: %s\n", url, why);
		return AGENT_EXIT_USAGE;
	}
	snprintf(n->run_id, sizeof(n->run_id), "%s", o->run_id);
	/* A stream per NATS output, should each need one: NAME, NAME_2, ... */
	if (++nats_outputs == 1)
		snprintf(n->stream, sizeof(n->stream), "%s", o->nats_stream);
	else
		snprintf(n->stream, sizeof(n->stream), "%s_%u", o->nats_stream, nats_outputs);
	n->replicas = o->nats_replicas;
	ret = nats_options(s, n, o) ?: nats_connect(s, n, o);
	/* Not connected yet: the stream is looked for, and the payload read, once it is. */
	if (ret == 1) {
		s->chunk_size = NATS_CHUNK_SIZE;
		return 0;
	}
	if (ret)
		return ret;
	/* A message never passes what the server takes (max_payload, 1 MiB by default). */
	s->chunk_size = NATS_CHUNK_SIZE;
	if (natsConnection_GetMaxPayload(n->nc) >= NATS_CHUNK_MIN &&
	    (size_t)natsConnection_GetMaxPayload(n->nc) < s->chunk_size)
		s->chunk_size = natsConnection_GetMaxPayload(n->nc);
	ret = nats_stream_ensure(s, n, true);
	n->stream_ready = !ret;
	return ret;
}

/* Checked whole, on the heap: a struct nats_url is kilobytes. */
static int nats_parse(const char *rest, const char **why)
{
	struct nats_url *u = malloc(sizeof(*u));
	int err = u ? nats_url_parse(rest, u, why) : 0;

	free(u);
	return err;
}

const struct output_kind output_nats = {
	.name = "nats", .prefix = "nats://", .usage = "nats://HOST:PORT[,HOST:PORT...]/SUBJECT",
	.help = "nats://HOST:PORT[,HOST:PORT...]/SUBJECT (JetStream)",
	.options_set = "how a NATS --output publishes", .off_host = true,
	.parse = nats_parse, .same = nats_url_same, .open = nats_open,
};
