// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * nats_stream SERVERS STREAM COMMAND: what a JetStream stream holds, read
 * back through the JetStream API (request/reply on $JS.API.STREAM.INFO.<stream>
 * and $JS.API.STREAM.MSG.GET.<stream>, through nats.c), for the suites that
 * check the agent's NATS output (tests/e2e/outputs.bats). There is no NATS
 * command-line client in Debian 12. SERVERS is HOST:PORT[,HOST:PORT...].
 *
 *   info                      one line: msgs=N first_seq=F last_seq=L leader=NAME;
 *                             exit 3 if there is no such stream
 *   dump                      every message's data, from the first sequence to
 *                             the last, each one message after the other (the
 *                             agent's are whole NDJSON lines); a hole fails
 *   ids                       one line per message: SEQ MSG_ID BYTES (its
 *                             Nats-Msg-Id header, "-" without one)
 *   probe SUBJECT REPLICAS    create stream STREAM on SUBJECT with REPLICAS,
 *                             publish one message to it and delete it: exit 0
 *                             once a cluster can take a stream
 *   stepdown                  ask the stream's leader to step down
 *                             ($JS.API.STREAM.LEADER.STEPDOWN.<stream>): the
 *                             cluster elects another among its replicas
 *
 * Exit status: 0, 1 on a failure (said on stderr), 2 on bad usage, 3 for
 * info on a stream that does not exist.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <nats/nats.h>

/* How long one request waits for its reply. */
#define REQUEST_WAIT_MS 5000
#define SERVERS_MAX 16

static const char *prog = "nats_stream";

static int usage(void)
{
	fprintf(stderr, "usage: %s HOST:PORT[,HOST:PORT...] STREAM info|dump|ids|stepdown|"
		"probe SUBJECT REPLICAS\n", prog);
	return 2;
}

static int fail(const char *what, natsStatus st, jsErrCode jerr)
{
	fprintf(stderr, "%s: %s: %s (JetStream error %d)\n", prog, what, natsStatus_GetText(st),
		(int)jerr);
	return 1;
}

/* "a:1,b:2" into nats://a:1 and nats://b:2. Returns how many, 0 on a bad list. */
static int parse_servers(char *list, char urls[][256], const char **servers)
{
	char *tok, *save = NULL;
	int n = 0;

	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == SERVERS_MAX)
			return 0;
		snprintf(urls[n], 256, "nats://%s", tok);
		servers[n] = urls[n];
		n++;
	}
	return n;
}

static int info(jsCtx *js, const char *stream, jsOptions *jo)
{
	jsStreamInfo *si = NULL;
	jsErrCode jerr = 0;
	natsStatus st;

	st = js_GetStreamInfo(&si, js, stream, jo, &jerr);
	if (st == NATS_NOT_FOUND) {
		fprintf(stderr, "%s: no stream %s\n", prog, stream);
		return 3;
	}
	if (st != NATS_OK)
		return fail("stream info", st, jerr);
	printf("msgs=%llu first_seq=%llu last_seq=%llu leader=%s\n",
	       (unsigned long long)si->State.Msgs, (unsigned long long)si->State.FirstSeq,
	       (unsigned long long)si->State.LastSeq,
	       si->Cluster && si->Cluster->Leader ? si->Cluster->Leader : "-");
	jsStreamInfo_Destroy(si);
	return 0;
}

/* Every message from the first sequence to the last: its data (dump) or its id (ids). */
static int read_all(jsCtx *js, const char *stream, jsOptions *jo, bool ids)
{
	jsStreamInfo *si = NULL;
	jsErrCode jerr = 0;
	uint64_t seq, first, last;
	const char *id;
	natsMsg *msg;
	natsStatus st;
	int len;

	st = js_GetStreamInfo(&si, js, stream, jo, &jerr);
	if (st != NATS_OK)
		return fail("stream info", st, jerr);
	first = si->State.FirstSeq;
	last = si->State.LastSeq;
	jsStreamInfo_Destroy(si);
	if (!last)
		return 0; /* empty */
	for (seq = first; seq <= last; seq++) {
		msg = NULL;
		jerr = 0;
		st = js_GetMsg(&msg, js, stream, seq, jo, &jerr);
		if (st != NATS_OK) {
			fprintf(stderr, "%s: message %llu of %llu..%llu: %s (JetStream error %d)\n",
				prog, (unsigned long long)seq, (unsigned long long)first,
				(unsigned long long)last, natsStatus_GetText(st), (int)jerr);
			return 1;
		}
		len = natsMsg_GetDataLength(msg);
		if (ids) {
			if (natsMsgHeader_Get(msg, "Nats-Msg-Id", &id) != NATS_OK)
				id = "-";
			printf("%llu %s %d\n", (unsigned long long)seq, id, len);
		} else if (len > 0 && fwrite(natsMsg_GetData(msg), 1, len, stdout) != (size_t)len) {
			perror(prog);
			natsMsg_Destroy(msg);
			return 1;
		}
		natsMsg_Destroy(msg);
	}
	if (fflush(stdout)) {
		perror(prog);
		return 1;
	}
	return 0;
}

static int probe(jsCtx *js, const char *stream, const char *subject, int replicas,
		 jsOptions *jo)
{
	const char *subjects[1] = { subject };
	jsStreamInfo *si = NULL;
	jsStreamConfig cfg;
	jsPubAck *ack = NULL;
	jsErrCode jerr = 0;
	natsStatus st;
	int ret = 0;

	jsStreamConfig_Init(&cfg);
	cfg.Name = stream;
	cfg.Subjects = subjects;
	cfg.SubjectsLen = 1;
	cfg.Storage = js_FileStorage;
	cfg.Replicas = replicas;
	st = js_AddStream(&si, js, &cfg, jo, &jerr);
	jsStreamInfo_Destroy(si);
	if (st != NATS_OK)
		return fail("create stream", st, jerr);
	st = js_Publish(&ack, js, subject, "probe", 5, NULL, &jerr);
	jsPubAck_Destroy(ack);
	if (st != NATS_OK)
		ret = fail("publish", st, jerr);
	st = js_DeleteStream(js, stream, jo, &jerr);
	if (st != NATS_OK)
		ret = fail("delete stream", st, jerr);
	return ret;
}

static int stepdown(natsConnection *nc, const char *stream)
{
	char subject[512];
	natsMsg *reply = NULL;
	natsStatus st;
	int ret = 0;

	snprintf(subject, sizeof(subject), "$JS.API.STREAM.LEADER.STEPDOWN.%s", stream);
	st = natsConnection_RequestString(&reply, nc, subject, "", REQUEST_WAIT_MS);
	if (st != NATS_OK)
		return fail("leader stepdown", st, 0);
	/* {"type":...,"success":true}, or an "error" object. */
	if (!strstr(natsMsg_GetData(reply) ?: "", "\"success\":true")) {
		fprintf(stderr, "%s: leader stepdown: %.*s\n", prog, natsMsg_GetDataLength(reply),
			natsMsg_GetData(reply));
		ret = 1;
	}
	natsMsg_Destroy(reply);
	return ret;
}

int main(int argc, char **argv)
{
	char urls[SERVERS_MAX][256];
	const char *servers[SERVERS_MAX];
	natsConnection *nc = NULL;
	natsOptions *opts = NULL;
	jsCtx *js = NULL;
	jsOptions jo;
	natsStatus st;
	int n, ret;

	if (argc < 4)
		return usage();
	n = parse_servers(argv[1], urls, servers);
	if (!n)
		return usage();
	if (strcmp(argv[3], "info") && strcmp(argv[3], "dump") && strcmp(argv[3], "ids") &&
	    strcmp(argv[3], "probe") && strcmp(argv[3], "stepdown"))
		return usage();
	if (!strcmp(argv[3], "probe") ? argc != 6 || atoi(argv[5]) < 1 : argc != 4)
		return usage();

	st = natsOptions_Create(&opts);
	if (st == NATS_OK)
		st = natsOptions_SetServers(opts, servers, n);
	if (st == NATS_OK)
		st = natsOptions_SetTimeout(opts, 2000);
	if (st == NATS_OK)
		st = natsOptions_SetMaxReconnect(opts, 10);
	if (st == NATS_OK)
		st = natsOptions_SetName(opts, "nats_stream");
	if (st == NATS_OK)
		st = natsConnection_Connect(&nc, opts);
	if (st == NATS_OK)
		st = natsConnection_JetStream(&js, nc, NULL);
	if (st != NATS_OK) {
		ret = fail("connect", st, 0);
		goto out;
	}
	jsOptions_Init(&jo);
	jo.Wait = REQUEST_WAIT_MS;

	if (!strcmp(argv[3], "info"))
		ret = info(js, argv[2], &jo);
	else if (!strcmp(argv[3], "stepdown"))
		ret = stepdown(nc, argv[2]);
	else if (!strcmp(argv[3], "probe"))
		ret = probe(js, argv[2], argv[4], atoi(argv[5]), &jo);
	else
		ret = read_all(js, argv[2], &jo, !strcmp(argv[3], "ids"));
out:
	jsCtx_Destroy(js);
	natsConnection_Destroy(nc);
	natsOptions_Destroy(opts);
	nats_Close();
	return ret;
}
