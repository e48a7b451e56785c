/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The closing account of packets and events, from the per-CPU counters. */
#ifndef AGENT_SUMMARY_H
#define AGENT_SUMMARY_H

#include <linux/types.h>

#include "fizzbuzzfib.h"

struct summary_run {
	const char *iface;
	const char *mode;	/* as attached */
	__u64 elapsed_ns;	/* from attach to detach */
	__u64 delivered;	/* events popped by the agent */
};

/*
 * Print the logfmt summary on stderr, and a warning if the events do not
 * add up. Returns 0 or an agent exit status if the counters cannot be read.
 */
int summary_print(int counters_fd, const struct summary_run *run);

#endif /* AGENT_SUMMARY_H */
