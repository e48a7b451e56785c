// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The account of every packet and event, from the per-CPU counters: while
 * running and at the end, once drain_settle() has taken what was left.
 */
#include <stdio.h>
#include <string.h>

#include "counters_read.h"
#include "exit_codes.h"
#include "log.h"
#include "summary.h"
#include "userspace_util.h"

/*
 * One account of the counters: "agent: KIND k=v ..." lines, or with @json one
 * object {"type": KIND, ...}, on stderr. queued is what the counters say was
 * produced and neither delivered nor lost yet: the queue's (or ring's) depth,
 * which a queue map cannot report itself.
 */
static void account_print(const char *kind, const struct fbf_counters *c, __u64 delivered,
			  const struct summary_run *run, __u64 elapsed_ns, bool json)
{
	__u64 produced = fbf_events_produced(c), accounted = delivered + fbf_events_lost(c);
	__u64 queued = produced > accounted ? produced - accounted : 0;

	if (json) {
		fprintf(stderr, "{\"type\":\"%s\",\"iface\":\"%s\",\"mode\":\"%s\","
			"\"seconds\":%.3f,\"packets\":%llu,\"non_ipv4\":%llu,\"malformed\":%llu,"
			"\"none\":%llu,\"fizz\":%llu,\"buzz\":%llu,\"fizzbuzz\":%llu,"
			"\"fibonacci\":%llu,\"produced\":%llu,\"delivered\":%llu,"
			"\"lost_queue_full\":%llu,\"lost_queue_busy\":%llu,\"queued\":%llu}\n",
			kind, run->iface_json, run->mode, elapsed_ns / 1e9, c->packets, c->non_ipv4,
			c->malformed, c->by_class[FBF_NONE], c->by_class[FBF_FIZZ],
			c->by_class[FBF_BUZZ], c->by_class[FBF_FIZZBUZZ], c->by_class[FBF_FIBONACCI],
			produced, delivered, c->queue_full, c->queue_busy, queued);
		return;
	}
	if (!strcmp(kind, "stats")) {
		/* One line per interval, so that a log reader sees each account whole. */
		pr_info("stats seconds=%.2f packets=%llu non_ipv4=%llu "
			"malformed=%llu none=%llu fizz=%llu buzz=%llu fizzbuzz=%llu fibonacci=%llu "
			"produced=%llu delivered=%llu lost_queue_full=%llu lost_queue_busy=%llu "
			"queued=%llu\n", elapsed_ns / 1e9, c->packets, c->non_ipv4, c->malformed,
			c->by_class[FBF_NONE], c->by_class[FBF_FIZZ], c->by_class[FBF_BUZZ],
			c->by_class[FBF_FIZZBUZZ], c->by_class[FBF_FIBONACCI], produced, delivered,
			c->queue_full, c->queue_busy, queued);
		return;
	}
	pr_info("%s iface=%s mode=%s seconds=%.2f\n", kind, run->iface, run->mode,
		elapsed_ns / 1e9);
	pr_info("%s packets=%llu non_ipv4=%llu malformed=%llu\n", kind,
		c->packets, c->non_ipv4, c->malformed);
	pr_info("%s none=%llu fizz=%llu buzz=%llu fizzbuzz=%llu fibonacci=%llu\n",
		kind, c->by_class[FBF_NONE], c->by_class[FBF_FIZZ], c->by_class[FBF_BUZZ],
		c->by_class[FBF_FIZZBUZZ], c->by_class[FBF_FIBONACCI]);
	pr_info("%s produced=%llu delivered=%llu lost_queue_full=%llu "
		"lost_queue_busy=%llu queued=%llu\n", kind, produced, delivered, c->queue_full,
		c->queue_busy, queued);
}

int summary_running(const struct drain *d, int counters_fd, const struct summary_run *run)
{
	struct fbf_counters c;
	int err;

	err = fbf_counters_read(counters_fd, &c);
	if (err) {
		pr_err("cannot read the counters: %s\n", strerror(-err));
		return AGENT_EXIT_FAILURE;
	}
	account_print("stats", &c, d->sink.delivered, run, fbf_monotonic_ns() - run->start_ns,
		      d->sink.out.json);
	return 0;
}

int summary_final(const struct drain *d, const struct fbf_counters *c,
		  const struct summary_run *run)
{
	__u64 produced = fbf_events_produced(c), accounted = d->sink.delivered + fbf_events_lost(c);

	account_print("summary", c, d->sink.delivered, run, run->elapsed_ns, d->sink.out.json);
	if (produced == accounted)
		return 0;
	if (d->abandoned && produced > accounted) {
		pr_warn("stopped during the drain: %llu events left unread, counted as queued\n",
			produced - accounted);
		return 0;
	}
	pr_warn("%llu events produced but %llu delivered or lost, "
		"%s by %llu\n", produced, accounted, produced > accounted ? "short" : "over",
		produced > accounted ? produced - accounted : accounted - produced);
	return AGENT_EXIT_UNACCOUNTED;
}
