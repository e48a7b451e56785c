// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* --output's values: see output_url.h. */
#define _GNU_SOURCE /* memrchr */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sinks/output_url.h"

enum output_kind output_url_kind(const char *url, const char **rest)
{
	*rest = url;
	if (!strcmp(url, "stdout") || !strcmp(url, "-"))
		return OUTPUT_STDOUT;
	if (!strncmp(url, "file:", 5) && url[5]) {
		*rest = url + 5;
		return OUTPUT_FILE;
	}
	if (!strncmp(url, "nats://", 7)) {
		*rest = url + 7;
		return OUTPUT_NATS;
	}
	if (!strncmp(url, "ipfix://", 8)) {
		*rest = url + 8;
		return OUTPUT_IPFIX;
	}
	return OUTPUT_INVALID;
}

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

/* "N" from 0 to 4294967295, digits only: an observation domain. */
static bool domain_valid(const char *s, __u32 *out)
{
	unsigned long long v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (*s - '0');
		if (v > 0xffffffffULL)
			return false;
	}
	*out = v;
	return true;
}

int ipfix_url_parse(const char *rest, struct ipfix_url *u, const char **why)
{
	const char *query = strchr(rest, '?'), *end = query ?: rest + strlen(rest), *host, *colon;
	size_t host_len;

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
	if (strncmp(query, "?domain=", 8) || !domain_valid(query + 8, &u->domain)) {
		*why = "the only parameter is ?domain=N, an observation domain from 0 to 4294967295";
		return -EINVAL;
	}
	u->has_domain = true;
	return 0;
}
