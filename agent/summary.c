// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The summary is read after the program is detached and the queue drained,
 * so every event produced is either delivered or counted as lost: the
 * balance below must be zero, and a warning says so loudly if it is not.
 */
#include <stdio.h>
#include <string.h>

#include "counters_read.h"
#include "exit_codes.h"
#include "summary.h"

int summary_print(int counters_fd, const struct summary_run *run)
{
	struct fbf_counters c;
	__u64 produced, accounted;
	int err;

	err = fbf_counters_read(counters_fd, &c);
	if (err) {
		fprintf(stderr, "agent: cannot read the counters: %s\n", strerror(-err));
		return AGENT_EXIT_FAILURE;
	}
	produced = c.by_class[FBF_FIZZ] + c.by_class[FBF_BUZZ] + c.by_class[FBF_FIZZBUZZ] +
		   c.by_class[FBF_FIBONACCI];
	accounted = run->delivered + c.queue_full + c.queue_busy;

	fprintf(stderr, "agent: summary iface=%s mode=%s seconds=%.2f\n", run->iface, run->mode,
		run->elapsed_ns / 1e9);
	fprintf(stderr, "agent: summary packets=%llu non_ipv4=%llu malformed=%llu\n",
		c.packets, c.non_ipv4, c.malformed);
	fprintf(stderr,
		"agent: summary none=%llu fizz=%llu buzz=%llu fizzbuzz=%llu fibonacci=%llu\n",
		c.by_class[FBF_NONE], c.by_class[FBF_FIZZ], c.by_class[FBF_BUZZ],
		c.by_class[FBF_FIZZBUZZ], c.by_class[FBF_FIBONACCI]);
	fprintf(stderr, "agent: summary produced=%llu delivered=%llu lost_queue_full=%llu "
		"lost_queue_busy=%llu\n", produced, run->delivered, c.queue_full, c.queue_busy);
	if (produced != accounted)
		fprintf(stderr, "agent: warning: %llu events produced but %llu delivered or lost, "
			"%s by %llu\n", produced, accounted,
			produced > accounted ? "short" : "over",
			produced > accounted ? produced - accounted : accounted - produced);
	return 0;
}
