/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Userspace only: reading the XDP program's per-CPU counters map. */
#ifndef FBF_COUNTERS_READ_H
#define FBF_COUNTERS_READ_H

#include "fizzbuzzfib.h"

/* The counters map summed over every possible CPU and every entry into @total. 0 or -errno. */
int fbf_counters_read(int counters_fd, struct fbf_counters *total);

/* One interface slot's entry summed over every possible CPU into @c. 0 or -errno. */
int fbf_counters_read_slot(int counters_fd, __u32 slot, struct fbf_counters *c);

/*
 * Slots 0 to @count - 1, each summed over every possible CPU into @out[slot],
 * in batches of slots a system call where the kernel has it. 0 or -errno.
 */
int fbf_counters_read_slots(int counters_fd, __u32 count, struct fbf_counters *out);

/*
 * @c less @base, counter by counter: what a slot counted since @base was
 * read, for the interface that took it then.
 */
void fbf_counters_since(struct fbf_counters *c, const struct fbf_counters *base);

/* @more added to @c, counter by counter. */
void fbf_counters_add(struct fbf_counters *c, const struct fbf_counters *more);

#endif /* FBF_COUNTERS_READ_H */
