/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Up-front check of the capabilities that loading and attaching XDP needs. */
#ifndef AGENT_PRIVILEGES_H
#define AGENT_PRIVILEGES_H

/*
 * Return 0 if the effective set has every capability the agent needs, or
 * AGENT_EXIT_NO_PRIVILEGE after saying which one is missing, or
 * AGENT_EXIT_FAILURE if the capabilities cannot be read.
 */
int privileges_check(void);

#endif /* AGENT_PRIVILEGES_H */
