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

/* Add entry @key of every CPU to @sum; @percpu has room for them. 0 or -errno. */
static int counters_add(int counters_fd, __u32 key, __u64 (*percpu)[NR_COUNTERS], int ncpus,
			__u64 *sum)
{
	if (bpf_map_lookup_elem(counters_fd, &key, percpu))
		return -errno;
	for (int cpu = 0; cpu < ncpus; cpu++)
		for (size_t i = 0; i < NR_COUNTERS; i++)
			sum[i] += percpu[cpu][i];
	return 0;
}

/* Entries @first up to @end summed. 0 or -errno. */
static int counters_sum(int counters_fd, __u32 first, __u32 end, struct fbf_counters *total)
{
	__u64 (*percpu)[NR_COUNTERS], sum[NR_COUNTERS] = {};
	int ncpus = libbpf_num_possible_cpus();
	int err = 0;

	if (ncpus < 0)
		return ncpus;
	percpu = calloc(ncpus, sizeof(*percpu));
	if (!percpu)
		return -ENOMEM;
	for (__u32 key = first; key < end && !err; key++)
		err = counters_add(counters_fd, key, percpu, ncpus, sum);
	free(percpu);
	if (!err)
		memcpy(total, sum, sizeof(*total));
	return err;
}

/*
 * Every entry: an interface's entry keeps its counts when the interface
 * goes (the next to take its slot starts from them), so the sum is every
 * frame the program ever ran on, wherever it was attached.
 */
int fbf_counters_read(int counters_fd, struct fbf_counters *total)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(counters_fd, &info, &len))
		return -errno;
	return counters_sum(counters_fd, 0, info.max_entries, total);
}

int fbf_counters_read_slot(int counters_fd, __u32 slot, struct fbf_counters *c)
{
	return counters_sum(counters_fd, slot, slot + 1, c);
}

/* The kernel's "not supported", which its UAPI headers do not name. */
#ifndef ENOTSUPP
#define ENOTSUPP 524
#endif

/* Slots a batched read takes at once: a bound on its buffer, CPUs times this. */
#define SLOTS_BATCH 64

/* Every slot from one per-slot lookup each, where the kernel has no batched read. */
static int slots_one_by_one(int counters_fd, __u32 count, struct fbf_counters *out)
{
	int err = 0;

	for (__u32 slot = 0; slot < count && !err; slot++)
		err = fbf_counters_read_slot(counters_fd, slot, &out[slot]);
	return err;
}

int fbf_counters_read_slots(int counters_fd, __u32 count, struct fbf_counters *out)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	int ncpus = libbpf_num_possible_cpus(), err = 0;
	__u64 (*percpu)[NR_COUNTERS];
	__u32 keys[SLOTS_BATCH] = {}, next = 0, n, done = 0;

	if (ncpus < 0)
		return ncpus;
	percpu = calloc((size_t)ncpus * SLOTS_BATCH, sizeof(*percpu));
	if (!percpu)
		return -ENOMEM;
	memset(out, 0, count * sizeof(*out));
	while (done < count && !err) {
		n = SLOTS_BATCH;
		err = bpf_map_lookup_batch(counters_fd, done ? &next : NULL, &next, keys, percpu,
					   &n, &opts);
		/* -ENOENT: the last batch, n entries of it read. */
		if (err == -ENOENT)
			err = 0;
		else if (!err && !n)
			err = -EIO;
		if (err)
			break;
		/* An array's batch is its keys in order from done. */
		for (__u32 k = 0; k < n && done + k < count; k++) {
			__u64 *sum = (__u64 *)&out[done + k];

			for (int cpu = 0; cpu < ncpus; cpu++)
				for (size_t i = 0; i < NR_COUNTERS; i++)
					sum[i] += percpu[(size_t)k * ncpus + cpu][i];
		}
		done += n;
		if (n < SLOTS_BATCH)
			break;
	}
	free(percpu);
	/* Before 5.6 arrays have no batched read, and say so at the first. */
	if (err && !done && (err == -EINVAL || err == -ENOTSUPP || err == -EOPNOTSUPP))
		return slots_one_by_one(counters_fd, count, out);
	return err;
}

void fbf_counters_since(struct fbf_counters *c, const struct fbf_counters *base)
{
	__u64 *v = (__u64 *)c;
	const __u64 *b = (const __u64 *)base;

	for (size_t i = 0; i < NR_COUNTERS; i++)
		v[i] -= b[i];
}

void fbf_counters_add(struct fbf_counters *c, const struct fbf_counters *more)
{
	__u64 *v = (__u64 *)c;
	const __u64 *m = (const __u64 *)more;

	for (size_t i = 0; i < NR_COUNTERS; i++)
		v[i] += m[i];
}
