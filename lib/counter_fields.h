/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Userspace only: each counter of struct fbf_counters, once, with the key
 * the agent's accounts give it (the summary, its JSON, the tests' messages),
 * in the order they print it.
 */
#ifndef FBF_COUNTER_FIELDS_H
#define FBF_COUNTER_FIELDS_H

#include <stddef.h>
#include <string.h>
#include <linux/types.h>

#include "fizzbuzzfib.h"

/* Which line of the summary a counter is on. */
enum fbf_counter_group {
	FBF_COUNTERS_FRAMES,	/* every frame: packets = non_ipv4 + malformed + classes */
	FBF_COUNTERS_CLASSES,	/* IPv4 frames by class, then those that sent no event */
	FBF_COUNTERS_LOSSES,	/* events lost, beside produced and delivered */
};

struct fbf_counter_field {
	const char *key;
	size_t offset;
	enum fbf_counter_group group;
};

extern const struct fbf_counter_field fbf_counter_fields[];
extern const size_t fbf_counter_nr_fields;

static inline __u64 fbf_counter_value(const struct fbf_counters *c,
				      const struct fbf_counter_field *f)
{
	__u64 v;

	memcpy(&v, (const char *)c + f->offset, sizeof(v));
	return v;
}

#endif /* FBF_COUNTER_FIELDS_H */
