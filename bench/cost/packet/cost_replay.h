/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A capture's frames through one program, in the capture's order, each once a
 * round (cost_capture.h): every call gets the frame as captured, so a program
 * that rewrites its frames is timed on its first pass over each, as it would
 * meet it, and one that keeps state sees it grow frame by frame.
 *
 * Each frame is one BPF_PROG_TEST_RUN call of one run: the kernel's time of
 * that run holds its timer's own reading (tens of ns), which bare XDP_PASS,
 * run the same way on the same frames, holds too; the difference is the
 * program's.
 */
#ifndef FBF_COST_REPLAY_H
#define FBF_COST_REPLAY_H

#include <stdbool.h>
#include <linux/types.h>

#include "cost_capture.h"

struct cost_replay {
	const struct cost_capture *cap;
	int rounds;
	float *ns;		/* [round][frame]: the kernel's ns of each frame's run */
	__u32 *actions;		/* each frame's action in the first round */
	size_t rewrites;	/* frames the first round changed */
	__u32 first_rewrite;	/* the first such frame's index in the capture */
	bool *refused;		/* frames the kernel's test run refused in the first round */
	size_t nr_refused;
	__u32 first_refused;	/* the first such frame's index in the capture */
};

/* Room for @rounds rounds of @cap: 0 or -ENOMEM. */
int cost_replay_init(struct cost_replay *r, const struct cost_capture *cap, int rounds);

/*
 * One round of every frame through @prog_fd; @drain(@ctx) empties the
 * program's event maps, untimed, every @drain_every frames and at the end.
 * Prints the round's rows for @arm: cost/capture (mean ns per frame),
 * cost/capture/p50, p90, p99 and max, each measure latency. 0, or -errno
 * with *@frame the frame that failed. A frame test_run refuses in round 0
 * (EINVAL: 6.18 builds no skb of an IPv4 frame shorter than its header) is
 * marked refused, left out of every round and of the figures: -EINVAL only
 * where it refuses them all.
 */
int cost_replay_round(struct cost_replay *r, int round, const char *arm, int prog_fd,
		      int (*drain)(void *ctx), void *ctx, size_t drain_every, size_t *frame);

/* The costliest frames listed, by their median over the rounds. */
#define COST_REPLAY_TOP 10

/*
 * After @rounds rounds, as lines for @arm: how many frames got each action
 * ("#capture-actions<TAB>ARM<TAB>ACTION<TAB>COUNT"), the frames the program rewrote
 * ("#capture-rewrites<TAB>ARM<TAB>COUNT<TAB>FIRST"), and the COST_REPLAY_TOP costliest
 * ("#capture-costliest<TAB>ARM<TAB>INDEX<TAB>NS<TAB>ACTION<TAB>SUMMARY"); and
 * every frame run, in the capture's order, its median and first action
 * ("#capture-frame<TAB>ARM<TAB>INDEX<TAB>NS<TAB>ACTION").
 */
void cost_replay_print(const struct cost_replay *r, const char *arm, int rounds);

/*
 * The frames whose first-round action differs from @from to @to (a compare's
 * base and candidate, over one capture): "#capture-changed-frame<TAB>INDEX<TAB>
 * FROM<TAB>TO<TAB>SUMMARY" for the first COST_REPLAY_TOP, then
 * "#capture-changed<TAB>COUNT".
 */
void cost_replay_print_changed(const struct cost_replay *from, const struct cost_replay *to);

void cost_replay_free(struct cost_replay *r);

#endif /* FBF_COST_REPLAY_H */
