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

struct fbf_event_maps {
	int *fds;		/* each CPU's map in CPU order, then the spare */
	unsigned int nr;	/* how many: possible CPUs + 1 */
};

/*
 * Open every CPU's map from the array @events_fd, and @spare_fd (a
 * duplicate is kept). A CPU with no map (a slot never filled) is left out.
 * 0 or -errno.
 */
int fbf_event_maps_open(struct fbf_event_maps *m, int events_fd, int spare_fd);

/* Safe on one that failed to open, or never did. */
void fbf_event_maps_close(struct fbf_event_maps *m);

#endif /* FBF_EVENT_MAPS_H */
