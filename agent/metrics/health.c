// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * /healthz says whether the drain loop goes round: a loop stuck in a write
 * or a kernel call serves nothing, though the metrics thread still answers.
 * /readyz says whether the agent does all it was asked: every interface
 * selected has the program, every output writes.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <microhttpd.h>

#include "userspace_util.h"
#include "metrics/health.h"

__u64 health_interval_ns(__u64 watchdog_ns)
{
	return watchdog_ns && watchdog_ns < HEALTH_BEAT_NS ? watchdog_ns : HEALTH_BEAT_NS;
}

void health_beat(struct health *h, unsigned int unattached, bool none, const char *why)
{
	__atomic_store_n(&h->none, none, __ATOMIC_RELAXED);
	/* The lock only while some interface lacks the program: else no probe holds up the loop. */
	if (unattached || __atomic_load_n(&h->unattached, __ATOMIC_RELAXED)) {
		pthread_mutex_lock(&h->lock);
		snprintf(h->why, sizeof(h->why), "%s", why);
		__atomic_store_n(&h->unattached, unattached, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&h->lock);
	}
	__atomic_store_n(&h->round_ns, fbf_monotonic_ns(), __ATOMIC_RELAXED);
}

static __u64 round_age_ns(const struct health *h)
{
	__u64 now = fbf_monotonic_ns(), then = __atomic_load_n(&h->round_ns, __ATOMIC_RELAXED);

	return now > then ? now - then : 0;
}

double health_round_time(const struct health *h)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9 - round_age_ns(h) / 1e9;
}

unsigned int health_live(const struct health *h, char *buf, size_t size)
{
	__u64 age = round_age_ns(h);

	if (age >= HEALTH_STALE_NS) {
		snprintf(buf, size, "stalled: the drain loop last went round %.1f s ago (more than "
			 "%llu s)\n", age / 1e9, HEALTH_STALE_NS / 1000000000ULL);
		return MHD_HTTP_SERVICE_UNAVAILABLE;
	}
	snprintf(buf, size, "ok: the drain loop went round %.3f s ago\n", age / 1e9);
	return MHD_HTTP_OK;
}

unsigned int health_ready(struct health *h, const struct event_sink *sinks, char *buf,
			  size_t size)
{
	int err;

	event_sink_for_each(k, sinks) {
		err = __atomic_load_n(&k->figures.write_err, __ATOMIC_RELAXED);
		if (err) {
			snprintf(buf, size, "not ready: output %s (%s) cannot write: %s\n",
				 k->name, k->target ?: "-", strerror(err));
			return MHD_HTTP_SERVICE_UNAVAILABLE;
		}
	}
	if (__atomic_load_n(&h->unattached, __ATOMIC_RELAXED)) {
		pthread_mutex_lock(&h->lock);
		snprintf(buf, size, "not ready: %s\n", h->why);
		pthread_mutex_unlock(&h->lock);
		return MHD_HTTP_SERVICE_UNAVAILABLE;
	}
	snprintf(buf, size, "ready: %s, every output writes\n",
		 __atomic_load_n(&h->none, __ATOMIC_RELAXED) ? "no interface selected yet" :
		 "every interface selected has the program");
	return MHD_HTTP_OK;
}
