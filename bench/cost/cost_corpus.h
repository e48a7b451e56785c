/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The frame shapes any XDP program is timed on: the in-kernel benchmarks'
 * own (bench/kernel/kernel_cases.h) and those a program written by someone
 * else may tell apart: TCP, UDP, ARP, two VLAN tags, a truncated frame and a
 * jumbo one.
 */
#ifndef FBF_COST_CORPUS_H
#define FBF_COST_CORPUS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define COST_SHAPES_MAX 16
/*
 * The jumbo frame's length: above any 1500-byte MTU, and within what
 * BPF_PROG_TEST_RUN hands a program without fragments on 4 kB pages (about
 * 3.5 kB after the headroom and the shared info).
 */
#define COST_JUMBO_LEN 3000

struct cost_shape {
	const char *name;
	char label[32];		/* the name, where it is made here */
	__u8 frame[COST_JUMBO_LEN];
	size_t len;
};

/*
 * Fill @shapes (COST_SHAPES_MAX of them) and return how many there are;
 * @classifier_only: the in-kernel benchmarks' own shapes alone, under their
 * own names (ipv4-fizz), which the regression gate times fizzbuzzfib on; else
 * those are named by what they are (ipv4-src-10.0.0.254).
 */
size_t cost_corpus_build(struct cost_shape *shapes, bool classifier_only);

#endif /* FBF_COST_CORPUS_H */
