/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The closing account of packets and events, from the per-CPU counters. */
#ifndef AGENT_SUMMARY_H
#define AGENT_SUMMARY_H

#include <linux/types.h>

#include "loop/drain.h"

struct summary_run {
	const char *iface;	/* escaped for a log line */
	const char *iface_json;	/* escaped for a JSON string */
	const char *mode;	/* as attached */
	bool json;		/* accounts as JSON objects */
	__u64 start_ns;		/* CLOCK_MONOTONIC at attach */
	__u64 elapsed_ns;	/* from attach to detach */
	const __u64 *aggregated_read;	/* --aggregate: frames read by source so far; or NULL */
};

/*
 * The running counters while attached (--stats-interval, SIGUSR1), in the
 * summary's form: lines "agent: stats ..." or, under --json, one object.
 * Returns 0, or AGENT_EXIT_FAILURE after saying why.
 */
int summary_running(const struct drain *d, int counters_fd, const struct summary_run *run);

/*
 * The summary once the program is detached and drain_settle() is done: the
 * logfmt lines on stderr (under --json, one JSON object), once the outputs
 * are stopped. Returns 0, or AGENT_EXIT_UNACCOUNTED after a warning if the
 * events, the frames counted by source, or an output's records do not add
 * up.
 */
int summary_final(const struct drain *d, const struct fbf_counters *c,
		  const struct summary_run *run);

/*
 * One interface's share of the counters, for an agent over several: one
 * line "KIND iface=NAME mode=MODE k=v ..." or, with @json, one object of type
 * @KIND; the XDP mode the interface got, the frames, the classes, the events
 * produced and lost. The interfaces' shares add up to the summary's figures.
 * @iface is escaped for a log line, @iface_json for a JSON string.
 */
void summary_iface(const char *kind, const struct fbf_counters *c, const char *iface,
		   const char *iface_json, const char *mode, bool json);

#endif /* AGENT_SUMMARY_H */
