// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The counters by key: see counter_fields.h. */
#include "counter_fields.h"

#define FIELD(key, field, group) { key, offsetof(struct fbf_counters, field), group }
#define CLASS_FIELD(id, value, name, key) FIELD(key, by_class[id], FBF_COUNTERS_CLASSES),

const struct fbf_counter_field fbf_counter_fields[] = {
	FIELD("packets", packets, FBF_COUNTERS_FRAMES),
	FIELD("non_ipv4", non_ipv4, FBF_COUNTERS_FRAMES),
	FIELD("malformed", malformed, FBF_COUNTERS_FRAMES),
	FBF_CLASSES(CLASS_FIELD)
	FIELD("not_sampled", not_sampled, FBF_COUNTERS_CLASSES),
	FIELD("aggregated", aggregated, FBF_COUNTERS_CLASSES),
	FIELD("no_room", no_room, FBF_COUNTERS_CLASSES),
	FIELD("lost_queue_full", queue_full, FBF_COUNTERS_LOSSES),
	FIELD("lost_queue_busy", queue_busy, FBF_COUNTERS_LOSSES),
};

const size_t fbf_counter_nr_fields = sizeof(fbf_counter_fields) / sizeof(fbf_counter_fields[0]);

/*
 * A counter added to struct fbf_counters must be added above, or no account
 * shows it; sample_countdown and stamp_countdown, the program's state, are the
 * fields that are none.
 */
_Static_assert(sizeof(fbf_counter_fields) / sizeof(fbf_counter_fields[0]) * sizeof(__u64) +
	       sizeof(((struct fbf_counters *)0)->sample_countdown) +
	       sizeof(((struct fbf_counters *)0)->stamp_countdown) == sizeof(struct fbf_counters),
	       "fbf_counter_fields does not cover struct fbf_counters");
