/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What a tail call costs on the running kernel, in chains long enough to time
 * it below a nanosecond (cost_run tailcall; bench/cost/chain/chain_kernels.sh runs
 * it on the host and in a guest of each kernel). A chain of N tail calls is N
 * bare XDP programs, each tail-calling the next through one prog array by a
 * constant key, ending in the bare program; its cost less the bare program's,
 * divided by N, is one tail call. The kernel allows 33 tail calls a chain.
 */
#ifndef FBF_COST_TAILCALL_H
#define FBF_COST_TAILCALL_H

/*
 * Rows "bare 0 NS" and "tail-calls N NS PER_CALL" on stdout, N the chain
 * lengths 1, 2, 8 and 32, each the least of @rounds rounds of @repeat runs
 * of an IPv4 UDP frame: 0, or one line and COST_EXIT_FAILED.
 */
int cost_tailcall(int rounds, int repeat);

#endif /* FBF_COST_TAILCALL_H */
