// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* --output's values: see output_url.h. */
#define _GNU_SOURCE /* memrchr */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse_num.h"
#include "sinks/output_url.h"

/* A subject's tokens are separated by dots, none empty, with no spaces or wildcards. */
static bool subject_valid(const char *s)
{
	const char *p;

	if (!*s || *s == '.')
		return false;
	for (p = s; *p; p++)
		if (*p <= ' ' || *p == '*' || *p == '>' || *p == 0x7f ||
		    (*p == '.' && (p[1] == '.' || !p[1])))
			return false;
	return true;
}

/* "HOST:PORT", the port from 1 to 65535, the host without spaces or slashes. */
static bool server_valid(const char *s, size_t len)
{
	const char *colon = memrchr(s, ':', len);
	unsigned long port = 0;
	const char *p;

	if (!colon || colon == s || colon + 1 == s + len)
		return false;
	for (p = s; p < colon; p++)
		if (*p <= ' ' || *p == '/' || *p == '@' || *p == 0x7f)
			return false;
	for (p = colon + 1; p < s + len; p++) {
		if (*p < '0' || *p > '9')
			return false;
		port = port * 10 + (*p - '0');
		if (port > 65535)
			return false;
	}
	return port > 0;
}

int nats_url_parse(const char *rest, struct nats_url *u, const char **why)
{
	const char *slash = strchr(rest, '/'), *p, *comma;
	size_t len;

	memset(u, 0, sizeof(*u));
	if (!slash || !slash[1]) {
		*why = "no subject: use nats://HOST:PORT/SUBJECT";
		return -EINVAL;
	}
	if (!subject_valid(slash + 1) || strlen(slash + 1) >= NATS_SUBJECT_SIZE) {
		*why = "the subject is not one NATS can publish to (dot-separated tokens, no "
		       "spaces or wildcards, at most 255 bytes)";
		return -EINVAL;
	}
	if (slash == rest) {
		*why = "no server: use nats://HOST:PORT/SUBJECT";
		return -EINVAL;
	}
	snprintf(u->subject, sizeof(u->subject), "%s", slash + 1);
	/* To the slash, whatever the commas: "a:1,/x" has an empty second server. */
	for (p = rest;; p = comma + 1) {
		comma = memchr(p, ',', slash - p) ?: slash;
		len = comma - p;
		if (u->nr_servers == NATS_URL_SERVERS_MAX) {
			*why = "more than 16 servers";
			return -EINVAL;
		}
		if (!len) {
			*why = "an empty server in the list: HOST:PORT[,HOST:PORT...]/SUBJECT";
			return -EINVAL;
		}
		if (!server_valid(p, len) || len + 8 > NATS_URL_SERVER_SIZE) {
			*why = "each server is HOST:PORT, the port from 1 to 65535";
			return -EINVAL;
		}
		snprintf(u->servers[u->nr_servers++], NATS_URL_SERVER_SIZE, "nats://%.*s",
			 (int)len, p);
		if (comma == slash)
			break;
	}
	return 0;
}

bool nats_url_same(const char *a, const char *b)
{
	struct nats_url *u = malloc(2 * sizeof(*u));
	bool same = false;
	unsigned int i, j;
	const char *why;

	if (!u || nats_url_parse(a, &u[0], &why) || nats_url_parse(b, &u[1], &why)) {
		free(u);
		return !strcmp(a, b);
	}
	if (!strcmp(u[0].subject, u[1].subject))
		for (i = 0; i < u[0].nr_servers; i++)
			for (j = 0; j < u[1].nr_servers; j++)
				same |= !strcmp(u[0].servers[i], u[1].servers[j]);
	free(u);
	return same;
}

int ipfix_url_parse(const char *rest, struct ipfix_url *u, const char **why)
{
	const char *query = strchr(rest, '?'), *end = query ?: rest + strlen(rest), *host, *colon;
	size_t host_len;
	__u64 domain;

	memset(u, 0, sizeof(*u));
	*why = "use ipfix://HOST:PORT or ipfix://HOST:PORT?domain=N, the port from 1 to 65535";
	if (!server_valid(rest, end - rest))
		return -EINVAL;
	colon = memrchr(rest, ':', end - rest);
	host = rest;
	host_len = colon - rest;
	/* An IPv6 address is written in brackets, as in any URL. */
	if (*host == '[') {
		if (host_len < 3 || host[host_len - 1] != ']')
			return -EINVAL;
		host++;
		host_len -= 2;
	} else if (memchr(host, ':', host_len)) {
		return -EINVAL;
	}
	if (host_len >= sizeof(u->host) || end - colon - 1 >= (long)sizeof(u->port))
		return -EINVAL;
	memcpy(u->host, host, host_len);
	memcpy(u->port, colon + 1, end - colon - 1);
	if (!query)
		return 0;
	if (strncmp(query, "?domain=", 8) ||
	    parse_u64_range(query + 8, 0, 0xffffffffULL, &domain)) {
		*why = "the only parameter is ?domain=N, "
		       "an observation domain from 0 to 4294967295";
		return -EINVAL;
	}
	u->domain = domain;
	u->has_domain = true;
	return 0;
}

bool ipfix_url_same(const char *a, const char *b)
{
	struct ipfix_url u, v;
	const char *why;

	if (ipfix_url_parse(a, &u, &why) || ipfix_url_parse(b, &v, &why))
		return !strcmp(a, b);
	return !strcmp(u.host, v.host) && !strcmp(u.port, v.port) &&
	       u.has_domain == v.has_domain && u.domain == v.domain;
}
