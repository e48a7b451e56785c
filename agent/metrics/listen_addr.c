// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* An address to listen on, from the command line: see listen_addr.h. */
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "metrics/listen_addr.h"
#include "parse_num.h"

static int parse_port(const char *s, in_port_t *port)
{
	__u64 v;

	if (parse_u64_range(s, 1, 65535, &v))
		return -EINVAL;
	*port = htons(v);
	return 0;
}

int parse_listen_addr(const char *s, struct sockaddr_storage *sa, socklen_t *len)
{
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)sa;
	struct sockaddr_in *in = (struct sockaddr_in *)sa;
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon;
	size_t n;

	memset(sa, 0, sizeof(*sa));
	if (*s == '[') {
		colon = strstr(s, "]:");
		if (!colon || (n = colon - s - 1) >= sizeof(host))
			return -EINVAL;
		memcpy(host, s + 1, n);
		host[n] = '\0';
		in6->sin6_family = AF_INET6;
		*len = sizeof(*in6);
		return inet_pton(AF_INET6, host, &in6->sin6_addr) == 1 ?
		       parse_port(colon + 2, &in6->sin6_port) : -EINVAL;
	}
	colon = strrchr(s, ':');
	if (!colon || (n = colon - s) >= sizeof(host))
		return -EINVAL;
	memcpy(host, s, n);
	host[n] = '\0';
	in->sin_family = AF_INET;
	*len = sizeof(*in);
	return inet_pton(AF_INET, host, &in->sin_addr) == 1 ? parse_port(colon + 1, &in->sin_port) :
	       -EINVAL;
}
