// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A per-CPU array lookup returns one value per possible CPU, each rounded up
 * to 8 bytes. struct fbf_counters holds only __u64s, so it is summed as an
 * array of them: a counter added to the struct is summed without a change
 * here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "counters_read.h"

#define NR_COUNTERS (sizeof(struct fbf_counters) / sizeof(__u64))

_Static_assert(sizeof(struct fbf_counters) % sizeof(__u64) == 0,
	       "struct fbf_counters must hold only __u64 counters");

int fbf_counters_read(int counters_fd, struct fbf_counters *total)
{
	__u64 (*percpu)[NR_COUNTERS], sum[NR_COUNTERS] = {};
	int ncpus = libbpf_num_possible_cpus();
	__u32 key = 0;

	if (ncpus < 0)
		return ncpus;
	percpu = calloc(ncpus, sizeof(*percpu));
	if (!percpu)
		return -ENOMEM;
	if (bpf_map_lookup_elem(counters_fd, &key, percpu)) {
		int err = -errno;

		free(percpu);
		return err;
	}
	for (int cpu = 0; cpu < ncpus; cpu++)
		for (size_t i = 0; i < NR_COUNTERS; i++)
			sum[i] += percpu[cpu][i];
	free(percpu);
	memcpy(total, sum, sizeof(*total));
	return 0;
}
