/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Exit statuses of the agent. Each failure a user can cause has its own, so
 * that scripts and tests can tell them apart without parsing messages.
 */
#ifndef AGENT_EXIT_CODES_H
#define AGENT_EXIT_CODES_H

#include <errno.h>

enum agent_exit {
	AGENT_EXIT_OK = 0,			/* stopped as asked, summary printed */
	AGENT_EXIT_FAILURE = 1,			/* unexpected libbpf, libxdp or system error */
	AGENT_EXIT_USAGE = 2,			/* unknown option or bad option value */
	AGENT_EXIT_NO_IFACE = 3,		/* no such interface in this network namespace */
	AGENT_EXIT_NO_PRIVILEGE = 4,		/* missing capability, or EPERM from the kernel */
	AGENT_EXIT_NATIVE_UNSUPPORTED = 5,	/* --mode native on a driver without XDP support */
	AGENT_EXIT_LOCKED = 6,			/* another agent is attached to the interface */
	AGENT_EXIT_IFACE_GONE = 7,		/* the interface disappeared while attached */
	AGENT_EXIT_XDP_BUSY = 8,		/* an XDP program libxdp cannot share owns it,
						 * or an xdp_fizzbuzzfib no agent recorded */
	AGENT_EXIT_UNACCOUNTED = 9,		/* events unaccounted for: the summary does
						 * not balance (produced != delivered + lost) */
	AGENT_EXIT_PROG_REPLACED = 10,		/* someone replaced or removed the agent's
						 * program on the interface while it ran */
	AGENT_EXIT_IFACE_MOVED = 11,		/* the interface went to another network
						 * namespace while attached */
	AGENT_EXIT_METRICS = 12,		/* cannot serve --metrics: address in use
						 * or not on this host */
	AGENT_EXIT_LOCK_DIR = 13,		/* cannot use the lock directory: missing,
						 * read-only, or its path too long */
};

/* The exit status for a failed call's -errno: a refusal, or anything else. */
static inline int agent_exit_for_errno(int err)
{
	return err == -EPERM || err == -EACCES ? AGENT_EXIT_NO_PRIVILEGE : AGENT_EXIT_FAILURE;
}

#endif /* AGENT_EXIT_CODES_H */
