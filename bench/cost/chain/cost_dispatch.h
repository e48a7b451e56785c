/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A program inside libxdp's dispatcher, against the program alone (cost_run
 * dispatcher; bench/cost/chain/chain_kernels.sh). The dispatcher calls each of its
 * up to ten slots in turn, a BPF-to-BPF call into a stub that freplace
 * replaced, and goes on while a slot returns XDP_PASS. The program measured is
 * the first slot, the others bare XDP_PASS programs; libxdp attaches the
 * dispatcher to the loopback of a network namespace of its own (in skb mode:
 * nothing passes there), and the dispatcher's fd is timed by
 * BPF_PROG_TEST_RUN, as the program alone is. Where libxdp cannot load its
 * dispatcher (freplace refused, as on 6.18 with libxdp 1.3.1) it says so.
 */
#ifndef FBF_COST_DISPATCH_H
#define FBF_COST_DISPATCH_H

/*
 * Rows "alone 0 NS" and "dispatcher N NS PER_SLOT" on stdout, N the programs
 * in the dispatcher (1, 2, 5 and 10) and PER_SLOT its cost beyond the program
 * alone divided by N, each the least of @rounds rounds of @repeat runs of an
 * IPv4 UDP frame. @prog (NULL: the first) of @path is measured, @pass_path's
 * program fills the other slots. 0, or one line and the cost_exit status:
 * COST_EXIT_DISPATCHER where the dispatcher does not load.
 */
int cost_dispatch(const char *path, const char *prog, const char *pass_path, int rounds,
		  int repeat);

#endif /* FBF_COST_DISPATCH_H */
