/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Userspace only: the program's event maps, one queue or ring per possible
 * CPU in the array of maps events, and the spare a CPU without one sends to
 * (xdp/fizzbuzzfib.bpf.c). Whoever reads events opens them all here, from
 * the array: the agent, whose interfaces' programs share one array, the
 * tests and the benchmarks.
 */
#ifndef FBF_EVENT_MAPS_H
#define FBF_EVENT_MAPS_H

#include <linux/bpf.h>
#include <linux/types.h>

/*
 * An array of maps named @name with a map of @type for each possible CPU,
 * each of @value_size and @max_entries (for a ring: 0 and its bytes), named
 * NAME_cpuN, for a program that sends to the map of the CPU it runs on: the
 * array's fd, which alone holds the maps, or -errno.
 */
int fbf_event_maps_create(const char *name, enum bpf_map_type type, __u32 value_size,
			  __u32 max_entries);

struct fbf_event_maps {
	int *fds;		/* each CPU's map in CPU order, then any spare */
	unsigned int nr;	/* how many: possible CPUs, + 1 with a spare */
};

/*
 * Open every CPU's map from the array @events_fd, and @spare_fd (a
 * duplicate is kept; -1: none). A CPU with no map (a slot never filled) is
 * left out. 0 or -errno.
 */
int fbf_event_maps_open(struct fbf_event_maps *m, int events_fd, int spare_fd);

/* Safe on one that failed to open, or never did. */
void fbf_event_maps_close(struct fbf_event_maps *m);

#endif /* FBF_EVENT_MAPS_H */
