/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What follows nats:// and ipfix:// in an --output (their kinds' rows,
 * output_kind.h, use these). Pure parsers, no I/O: the options check every
 * value before anything opens.
 */
#ifndef AGENT_OUTPUT_URL_H
#define AGENT_OUTPUT_URL_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* A cluster's seed list holds at most this many servers. */
#define NATS_URL_SERVERS_MAX 16
#define NATS_URL_SERVER_SIZE 272	/* "nats://" and a host:port */
#define NATS_SUBJECT_SIZE 256

struct nats_url {
	char servers[NATS_URL_SERVERS_MAX][NATS_URL_SERVER_SIZE];	/* "nats://HOST:PORT" */
	unsigned int nr_servers;
	char subject[NATS_SUBJECT_SIZE];
};

/*
 * Split "HOST:PORT[,HOST:PORT...]/SUBJECT" (after "nats://"). 0, or -EINVAL
 * with *why saying what is wrong.
 */
int nats_url_parse(const char *rest, struct nats_url *u, const char **why);

/* The same subject through a server in common: the same stream takes both. */
bool nats_url_same(const char *a, const char *b);

#define IPFIX_HOST_SIZE 256
#define IPFIX_PORT_SIZE 6

struct ipfix_url {
	char host[IPFIX_HOST_SIZE];	/* a name or an address; an IPv6 one without its [] */
	char port[IPFIX_PORT_SIZE];
	bool has_domain;		/* ?domain=N given; else the interface's index */
	__u32 domain;			/* the observation domain */
};

/*
 * Split "HOST:PORT[?domain=N]" (after "ipfix://"), an IPv6 HOST in
 * brackets, N from 0 to 4294967295. 0, or -EINVAL with *why saying what is
 * wrong.
 */
int ipfix_url_parse(const char *rest, struct ipfix_url *u, const char **why);

/* The same collector and observation domain: the collector would count each source twice. */
bool ipfix_url_same(const char *a, const char *b);

#endif /* AGENT_OUTPUT_URL_H */
