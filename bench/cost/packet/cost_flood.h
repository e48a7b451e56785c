/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The live part's flood of a capture (bench/cost/packet/cost_live.sh): its frames in
 * order, looping, from one CPU out of a veth through an AF_PACKET socket, as
 * fast as the CPU sends them. Each goes through the veth's egress path, its
 * qdisc and TC egress, so that a TC egress program sees it. A frame the path
 * refuses (ENOBUFS: a program's TC_ACT_SHOT on egress, or the veth's own drop
 * when its peer's backlog is full) counts as sent and is counted apart, never
 * retried: tcpreplay retries such a frame for ever.
 */
#ifndef FBF_COST_FLOOD_H
#define FBF_COST_FLOOD_H

#include "cost_capture.h"

struct cost_flood_counts {
	unsigned long long sent;	/* frames handed to the kernel, refused ones too */
	unsigned long long refused;	/* of those, refused on the way out (ENOBUFS) */
	double seconds;			/* how long the flood ran */
};

/*
 * @cap's frames out of interface @ifindex for @seconds, looping, into @counts:
 * 0, or -errno of the socket or a send that failed otherwise.
 */
int cost_flood(const struct cost_capture *cap, unsigned int ifindex, double seconds,
	       struct cost_flood_counts *counts);

#endif /* FBF_COST_FLOOD_H */
