/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Userspace only: reading the XDP program's per-CPU counters map. */
#ifndef FBF_COUNTERS_READ_H
#define FBF_COUNTERS_READ_H

#include "fizzbuzzfib.h"

/* The counters map summed over every possible CPU into @total. 0 or -errno. */
int fbf_counters_read(int counters_fd, struct fbf_counters *total);

#endif /* FBF_COUNTERS_READ_H */
