// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "metrics/listen_addr.h"
#include "parse_num.h"

int parse_listen_addr(const char *s, struct sockaddr_storage *sa, socklen_t *len)
{
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)sa;
	struct sockaddr_in *in = (struct sockaddr_in *)sa;
	/* An IPv6 address has colons of its own: it comes in brackets, "]:" ends it. */
	bool v6 = *s == '[';
	const char *addr = v6 ? s + 1 : s;
	const char *end = v6 ? strstr(s, "]:") : strrchr(s, ':');
	char host[INET6_ADDRSTRLEN + 2];
	__u64 port;
	size_t n;

	memset(sa, 0, sizeof(*sa));
	if (!end || (n = end - addr) >= sizeof(host) ||
	    parse_u64_range(v6 ? end + 2 : end + 1, 1, 65535, &port))
		return -EINVAL;
	memcpy(host, addr, n);
	host[n] = '\0';
	if (v6) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		*len = sizeof(*in6);
		return inet_pton(AF_INET6, host, &in6->sin6_addr) == 1 ? 0 : -EINVAL;
	}
	in->sin_family = AF_INET;
	in->sin_port = htons(port);
	*len = sizeof(*in);
	return inet_pton(AF_INET, host, &in->sin_addr) == 1 ? 0 : -EINVAL;
}
