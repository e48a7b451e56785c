// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer harness for the agent's option value parsers (agent/options.c),
 * --output's kinds and nats:// values (agent/sinks/output_kind.c,
 * output_url.c) and --iface's names and patterns (agent/iface/ifselect.c).
 * Input: one range byte, then the option value. Besides what the sanitizers
 * catch, every result is checked against the parsers' contract: 0, -EINVAL,
 * -ERANGE or -EOVERFLOW; the output untouched on failure; on success, a value in range
 * that the text really spells.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <net/if.h>

#include "iface/ifselect.h"
#include "metrics/listen_addr.h"
#include "options.h"
#include "iface/xdp_mode.h"
#include "sinks/output_kind.h"
#include "sinks/output_url.h"

#define SENTINEL 0x5a5a5a5a5a5a5a5aULL

static void check(int ok, const char *what, const char *s)
{
	if (ok)
		return;
	fprintf(stderr, "contract broken: %s for input '%s'\n", what, s);
	abort();
}

static int only_digits(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return n > 0;
}

static void fuzz_u64_range(const char *s, __u64 min, __u64 max)
{
	char again[32];
	__u64 v = SENTINEL;
	int err = parse_u64_range(s, min, max, &v);

	check(err == 0 || err == -EINVAL || err == -ERANGE || err == -EOVERFLOW,
	      "unexpected error code", s);
	if (err) {
		check(v == SENTINEL, "output written on failure", s);
		check(err != -EINVAL || !only_digits(s, strlen(s)), "digits only yet -EINVAL", s);
		check(err != -EOVERFLOW || strlen(s) >= 20, "-EOVERFLOW under 2^64", s);
		return;
	}
	check(only_digits(s, strlen(s)), "accepted a non-digit", s);
	check(v >= min && v <= max, "value out of range", s);
	/* The value, printed again, is the text without its leading zeros. */
	snprintf(again, sizeof(again), "%llu", (unsigned long long)v);
	while (s[0] == '0' && s[1])
		s++;
	check(!strcmp(again, s), "value differs from the text", s);
}

static void fuzz_seconds(const char *s, __u64 max_s)
{
	const char *dot = strchr(s, '.');
	__u64 ns = SENTINEL;
	int err = parse_seconds_ns(s, max_s, &ns);
	size_t int_len, frac_len;

	check(err == 0 || err == -EINVAL || err == -ERANGE || err == -EDOM,
	      "unexpected error code", s);
	/* -EDOM: ten or more digits after the dot. */
	check(err != -EDOM || (dot && only_digits(dot + 1, 10)), "-EDOM without ten decimals", s);
	if (err) {
		check(ns == SENTINEL, "output written on failure", s);
		return;
	}
	int_len = dot ? (size_t)(dot - s) : strlen(s);
	frac_len = dot ? strlen(dot + 1) : 0;
	check(int_len || dot, "accepted an empty number", s);
	check(!int_len || only_digits(s, int_len), "accepted a non-digit before the dot", s);
	check(!dot || (frac_len >= 1 && frac_len <= 9 && only_digits(dot + 1, frac_len)),
	      "accepted a bad fraction", s);
	check(ns > 0, "accepted zero", s);
	check(ns / 1000000000ULL < max_s || (ns / 1000000000ULL == max_s && !(ns % 1000000000ULL)),
	      "accepted more than the maximum", s);
}

/* An accepted --metrics address prints back to the same text. */
static void fuzz_listen_addr(const char *s)
{
	char host[INET6_ADDRSTRLEN], back[INET6_ADDRSTRLEN + 16];
	struct sockaddr_storage sa;
	socklen_t len;
	const void *addr;
	int port;

	if (parse_listen_addr(s, &sa, &len))
		return;
	if (sa.ss_family == AF_INET) {
		addr = &((struct sockaddr_in *)&sa)->sin_addr;
		port = ntohs(((struct sockaddr_in *)&sa)->sin_port);
	} else {
		addr = &((struct sockaddr_in6 *)&sa)->sin6_addr;
		port = ntohs(((struct sockaddr_in6 *)&sa)->sin6_port);
	}
	check(port > 0, "accepted port 0", s);
	inet_ntop(sa.ss_family, addr, host, sizeof(host));
	snprintf(back, sizeof(back), sa.ss_family == AF_INET ? "%s:%d" : "[%s]:%d", host, port);
	/* Only canonical text round-trips: compare numbers, not spellings. */
	{
		struct sockaddr_storage again;
		socklen_t again_len;

		check(!parse_listen_addr(back, &again, &again_len) && again_len == len &&
		      !memcmp(&again, &sa, len), "accepted address does not round-trip", s);
	}
}

/*
 * An accepted --output nats:// value: servers that NATS can dial (nats://,
 * a port from 1 to 65535, no space) and a subject with no empty token, no
 * wildcard and no space; a refused one says why.
 */
static void fuzz_nats_url(const char *s)
{
	static struct nats_url u;
	const char *why = NULL, *p, *colon;
	unsigned int i;

	if (nats_url_parse(s, &u, &why)) {
		check(why && *why, "refused without a reason", s);
		return;
	}
	check(u.nr_servers >= 1 && u.nr_servers <= NATS_URL_SERVERS_MAX, "server count", s);
	for (i = 0; i < u.nr_servers; i++) {
		check(!strncmp(u.servers[i], "nats://", 7), "server without nats://", s);
		colon = strrchr(u.servers[i], ':');
		check(colon && colon > u.servers[i] + 7 && atoi(colon + 1) >= 1 &&
		      atoi(colon + 1) <= 65535, "server without a port in range", s);
		/* After the scheme: HOST:PORT, no space, no slash. */
		for (p = u.servers[i] + 7; *p; p++)
			check(*p > ' ' && *p != '/', "server with a space or a slash", s);
	}
	check(u.subject[0] && u.subject[0] != '.' && !strstr(u.subject, ".."), "empty token", s);
	check(!strpbrk(u.subject, " *>\t\n"), "subject with a wildcard or a space", s);
}

/*
 * An --output value: of a kind only if the kind's prefix begins it (and is
 * all of it, for a bare kind) or its alias is all of it; a value its kind's
 * parser refuses comes with a reason.
 */
static void fuzz_output_url(const char *s)
{
	const struct output_kind *k;
	const char *rest, *why = NULL;
	size_t len;

	k = output_kind_of(s, &rest);
	if (!k)
		return;
	len = strlen(k->prefix);
	if (k->alias && !strcmp(s, k->alias))
		check(!*rest, "alias with a rest", s);
	else
		check(!strncmp(s, k->prefix, len) && rest == s + len, "kind without its prefix", s);
	check(!k->bare || !*rest, "bare kind with more after it", s);
	if (k->parse && k->parse(rest, &why))
		check(why && *why, "refused without a reason", s);
}

/*
 * An --iface value: refused with a reason, or rules that hold what the text
 * says: one exact name is that name and selects it, lo is selected only by
 * an exact "lo", and nothing is left allocated after the free.
 */
static void fuzz_ifselect(const char *s)
{
	static struct ifselect sel;
	char why[128] = "", name[IF_NAMESIZE];
	bool lo_named = false;
	unsigned int i;
	const char *one;
	int err;

	memset(&sel, 0, sizeof(sel));
	err = ifselect_add(&sel, s, why, sizeof(why));
	check(!err || err == -EINVAL || err == -E2BIG || err == -ENAMETOOLONG,
	      "unexpected error code", s);
	if (err) {
		check(why[0], "refused without a reason", s);
		ifselect_free(&sel);
		return;
	}
	check(sel.nr >= 1 && sel.nr_include <= sel.nr, "rule counts", s);
	for (i = 0; i < sel.nr; i++) {
		const struct ifselect_rule *r = &sel.rules[i];

		check(r->kind != IFSELECT_EXACT || (r->text[0] && strlen(r->text) < IF_NAMESIZE),
		      "exact name empty or too long", s);
		lo_named |= r->kind == IFSELECT_EXACT && !r->exclude && !strcmp(r->text, "lo");
	}
	one = ifselect_single(&sel);
	check(!one || (!strcmp(one, s) && ifselect_match(&sel, s)), "single name not the text", s);
	check(lo_named || !ifselect_match(&sel, "lo"), "lo selected without its name", s);
	/* What the agent matches: names of at most IF_NAMESIZE - 1 bytes. */
	snprintf(name, sizeof(name), "%s", s);
	ifselect_match(&sel, name);
	ifselect_free(&sel);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const __u64 bounds[][2] = {
		{ AGENT_QUEUE_SIZE_MIN, AGENT_QUEUE_SIZE_MAX },
		{ 1, ~0ULL },
		{ 0, 0 },
		{ 0, ~0ULL },
		{ 1000, 999 },	/* an empty range accepts nothing */
	};
	enum xdp_attach_mode mode = XDP_MODE_HW;
	const __u64 *b;
	char *s;

	if (!size)
		return 0;
	b = bounds[data[0] % (sizeof(bounds) / sizeof(bounds[0]))];
	s = malloc(size);
	if (!s)
		return 0;
	/* A C string: the value up to the first NUL, as argv would carry it. */
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';

	if (xdp_mode_parse(s, &mode))
		check(mode == XDP_MODE_HW, "mode written on failure", s);
	else
		check(!strcmp(xdp_mode_name(mode), s), "mode name does not round-trip", s);
	fuzz_u64_range(s, b[0], b[1]);
	fuzz_seconds(s, AGENT_DURATION_MAX_S);
	fuzz_seconds(s, data[0]);
	fuzz_listen_addr(s);
	fuzz_nats_url(s);
	fuzz_output_url(s);
	fuzz_ifselect(s);
	free(s);
	return 0;
}
