// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The summary is read after the program is detached and the queue (or ring)
 * drained, so every event produced is either delivered or counted as lost.
 * But a detach does not wait for runs of the program already under way on
 * other CPUs (there is no RCU grace period in it, and generic XDP runs in
 * any CPU's softirq): one may count an event and send it just after the
 * queue looked empty, and a ring's reader stops at a record still being
 * written. So while the counters show more events produced than delivered
 * or lost, the agent waits a millisecond and reads again; such a run ends
 * within microseconds. If the balance is still off after that, a
 * warning says so and the exit status does too.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "counters_read.h"
#include "exit_codes.h"
#include "log.h"
#include "summary.h"
#include "userspace_util.h"

static __u64 events_produced(const struct fbf_counters *c)
{
	return c->by_class[FBF_FIZZ] + c->by_class[FBF_BUZZ] + c->by_class[FBF_FIZZBUZZ] +
	       c->by_class[FBF_FIBONACCI];
}

static __u64 events_accounted(const struct fbf_counters *c, __u64 delivered)
{
	return delivered + c->queue_full + c->queue_busy;
}

static void settle_sleep(void)
{
	struct timespec ts = { .tv_nsec = SUMMARY_SETTLE_POLL_NS };

	nanosleep(&ts, NULL);
}

/*
 * One account of the counters: "agent: KIND k=v ..." lines, or with @json one
 * object {"type": KIND, ...}, on stderr. queued is what the counters say was
 * produced and neither delivered nor lost yet: the queue's (or ring's) depth,
 * which a queue map cannot report itself.
 */
static void account_print(const char *kind, const struct fbf_counters *c, __u64 delivered,
			  const struct summary_run *run, __u64 elapsed_ns, bool json)
{
	__u64 produced = events_produced(c), accounted = events_accounted(c, delivered);
	__u64 queued = produced > accounted ? produced - accounted : 0;

	if (json) {
		fprintf(stderr, "{\"type\":\"%s\",\"iface\":\"%s\",\"mode\":\"%s\","
			"\"seconds\":%.3f,\"packets\":%llu,\"non_ipv4\":%llu,\"malformed\":%llu,"
			"\"none\":%llu,\"fizz\":%llu,\"buzz\":%llu,\"fizzbuzz\":%llu,"
			"\"fibonacci\":%llu,\"produced\":%llu,\"delivered\":%llu,"
			"\"lost_queue_full\":%llu,\"lost_queue_busy\":%llu,\"queued\":%llu}\n",
			kind, run->iface, run->mode, elapsed_ns / 1e9, c->packets, c->non_ipv4,
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
	account_print("stats", &c, d->delivered, run, fbf_monotonic_ns() - run->start_ns, d->out.json);
	return 0;
}

int summary_final(struct drain *d, int counters_fd, const struct summary_run *run)
{
	__u64 produced, accounted;
	struct fbf_counters c;
	int polls, err, ret = 0;

	for (polls = 0;; polls++) {
		err = drain_rest(d);
		if (err) {
			pr_err("cannot read from the event %s: %s\n",
			       fbf_transport_name(d->transport), strerror(-err));
			ret = AGENT_EXIT_FAILURE; /* the summary still says what is left */
		}
		err = fbf_counters_read(counters_fd, &c);
		if (err) {
			pr_err("cannot read the counters: %s\n", strerror(-err));
			return AGENT_EXIT_FAILURE;
		}
		produced = events_produced(&c);
		accounted = events_accounted(&c, d->delivered);
		if (ret || produced <= accounted || polls == SUMMARY_SETTLE_POLLS)
			break;
		settle_sleep();
	}

	account_print("summary", &c, d->delivered, run, run->elapsed_ns, d->out.json);
	if (produced == accounted)
		return ret;
	pr_warn("%llu events produced but %llu delivered or lost, "
		"%s by %llu\n", produced, accounted, produced > accounted ? "short" : "over",
		produced > accounted ? produced - accounted : accounted - produced);
	return ret ?: AGENT_EXIT_UNACCOUNTED;
}
