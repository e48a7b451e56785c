/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libxdp 1.3.1 (Debian 12's) keeps open the descriptor it gets for each
 * program it looks up by id or pin, a duplicate of which it holds and
 * closes (xdp-tools#343, fixed in libxdp 1.4 by PR #345): one or more for
 * every read of an interface's programs, which its attach and detach do
 * too. An agent refused by a program already on each interface of a churn
 * would run out of descriptors. Around each such call the agent notes the
 * descriptors open, then closes the program descriptors the call opened
 * and nothing holds.
 */
#ifndef AGENT_LIBXDP_FDS_H
#define AGENT_LIBXDP_FDS_H

#include <xdp/libxdp.h>

/* The descriptors open before the call. */
struct fd_fence {
	unsigned long *open;	/* a bit each, below max; NULL: none could be read */
	int max;		/* every descriptor from here on was not open */
};

void fd_fence_set(struct fd_fence *f);

/*
 * Close each BPF program descriptor opened since fd_fence_set() but
 * @keep's @n (-1s ignored), and forget the fence. Only the thread that
 * attaches and detaches opens program descriptors, so none is another's.
 */
void fd_fence_sweep(struct fd_fence *f, const int *keep, unsigned int n);

/* fd_fence_sweep() keeping the descriptors @mp (NULL: none) holds. */
void fd_fence_sweep_multiprog(struct fd_fence *f, struct xdp_multiprog *mp);

#endif /* AGENT_LIBXDP_FDS_H */
