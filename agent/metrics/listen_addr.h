/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* --metrics' address, parsed without a lookup: what the agent will bind to. */
#ifndef AGENT_LISTEN_ADDR_H
#define AGENT_LISTEN_ADDR_H

#include <sys/socket.h>

/*
 * "ADDR:PORT" or "[ADDR]:PORT", numeric, port 1-65535, into @sa. 0 or -EINVAL.
 * Pure, for the unit tests and the fuzzer.
 */
int parse_listen_addr(const char *s, struct sockaddr_storage *sa, socklen_t *len);

#endif /* AGENT_LISTEN_ADDR_H */
