/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A program inside libxdp's dispatcher, against the program alone (cost_run
 * dispatcher; bench/cost/chain/chain_kernels.sh). The dispatcher calls each of its
 * up to ten slots in turn, a BPF-to-BPF call into a stub that freplace
 * replaced, and goes on while a slot returns XDP_PASS. The program measured is
 * the first slot, the others bare XDP_PASS programs or programs the user names
 * (each one's share: the time its slot adds over a bare program); libxdp attaches the
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
 * program fills the other slots. With @nr_named programs in @named, each
 * OBJECT or OBJECT:PROG (up to 9: the user's, or xdp-tools' filters), the
 * dispatcher holding the program and
 * them: "slot I NAME" in the order it runs them (libxdp's, by run priority),
 * "slots N NS OVER_ALONE", and "share OBJECT[:PROG] NS" for each, the
 * dispatcher's time less its time with that slot holding the bare program
 * instead. 0, or one line and the cost_exit status: COST_EXIT_DISPATCHER
 * where the dispatcher does not load.
 */
int cost_dispatch(const char *path, const char *prog, const char *pass_path,
		  char *const *named, int nr_named, int rounds, int repeat);

#endif /* FBF_COST_DISPATCH_H */
