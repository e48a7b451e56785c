// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The events' ages, as the drain loop sees them: see event_ages.h. */
#include "sinks/event_ages.h"

const __u64 metrics_age_bounds_ns[METRICS_AGE_BUCKETS] = {
	10000ULL, 100000ULL, 1000000ULL, 10000000ULL, 100000000ULL, 1000000000ULL,
	10000000000ULL, 60000000000ULL,
};

void event_ages_observe(struct event_ages *a, __u64 age_ns)
{
	int i;

	for (i = 0; i < METRICS_AGE_BUCKETS && age_ns > metrics_age_bounds_ns[i]; i++)
		;
	/* One writer: a relaxed store of the new value is all a reader needs. */
	if (i < METRICS_AGE_BUCKETS)
		__atomic_store_n(&a->le[i], a->le[i] + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&a->sum_ns, a->sum_ns + age_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&a->count, a->count + 1, __ATOMIC_RELAXED);
}
