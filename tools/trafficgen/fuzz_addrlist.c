// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer harness for the traffic generator's source address lists
 * (tools/trafficgen/addrlist.c). Besides what the sanitizers catch, each result is
 * checked against the contract in addrlist.h: 0, -EINVAL or -E2BIG (-ENOMEM
 * aside); outputs untouched and a one-line reason on failure; on success at
 * least one and at most ADDRLIST_MAX addresses, and a list of one address
 * parses to what inet_pton() says.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "addrlist.h"

/* Where the addresses are read to: ASan then checks the whole array. */
volatile uint32_t addrlist_sink;

static void check(int ok, const char *what, const char *s)
{
	if (ok)
		return;
	fprintf(stderr, "contract broken: %s for input '%.200s'\n", what, s);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t *addrs = (uint32_t *)&addrs, pton;
	int single;
	size_t count = 12345;
	char err[128], *s;
	int ret;

	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	memset(err, 'x', sizeof(err));
	single = !strpbrk(s, ",-") && inet_pton(AF_INET, s, &pton) == 1;

	ret = addrlist_parse(s, &addrs, &count, err, sizeof(err));
	if (ret) {
		check(ret == -EINVAL || ret == -E2BIG || ret == -ENOMEM, "unexpected error", s);
		check(addrs == (uint32_t *)&addrs && count == 12345, "output written", s);
		/* One printable line, whatever the input held. */
		check(memchr(err, '\0', sizeof(err)) && err[0] && !strpbrk(err, "\n\r"),
		      "no one-line reason", s);
		check(!single, "rejects an address inet_pton accepts", s);
	} else {
		check(count >= 1 && count <= ADDRLIST_MAX, "count out of range", s);
		for (size_t i = 0; i < count; i++)
			addrlist_sink ^= addrs[i];
		if (single)
			check(count == 1 && addrs[0] == ntohl(pton), "differs from inet_pton", s);
		free(addrs);
	}
	free(s);
	return 0;
}
