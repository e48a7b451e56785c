/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Up-front check of the capabilities that loading and attaching XDP needs. */
#ifndef AGENT_PRIVILEGES_H
#define AGENT_PRIVILEGES_H

#include <stdbool.h>

/*
 * Return 0 if the effective set has every capability the agent needs, or
 * AGENT_EXIT_NO_PRIVILEGE after saying which one is missing, or
 * AGENT_EXIT_FAILURE if the capabilities cannot be read.
 */
int privileges_check(void);

/*
 * Whether CAP_SYS_ADMIN is effective: libxdp (its dispatcher, and finding
 * programs on an interface by id) needs it; without it the agent attaches
 * alone, through a BPF link.
 */
bool privileges_sys_admin(void);

/*
 * Whether a seccomp filter is on the process (Seccomp: 2 in
 * /proc/self/status): a container runtime's default profile refuses bpf()
 * with EPERM whatever the capabilities, on Debian 12 unless CAP_SYS_ADMIN.
 */
bool privileges_seccomp_filtered(void);

#endif /* AGENT_PRIVILEGES_H */
