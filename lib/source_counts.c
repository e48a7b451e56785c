// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The per-source counts of --aggregate: see source_counts.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "fbf_object.h"
#include "source_counts.h"

/* Point sources[0] at map @which; returns once no run of the program counts elsewhere. */
static int source_reader_count_into(struct source_reader *r, int which)
{
	__u32 slot = 0;

	if (bpf_map_update_elem(r->outer_fd, &slot, &r->map_fd[which], BPF_ANY))
		return -errno;
	r->counting = which;
	return 0;
}

int source_reader_open(struct source_reader *r, const struct fbf_object *o, __u32 capacity)
{
	int ncpus = libbpf_num_possible_cpus();

	memset(r, 0, sizeof(*r));
	if (ncpus < 0)
		return ncpus;
	r->outer_fd = bpf_map__fd(o->sources);
	r->map_fd[0] = bpf_map__fd(o->source_maps[0]);
	r->map_fd[1] = bpf_map__fd(o->source_maps[1]);
	r->capacity = capacity;
	r->nr_cpus = ncpus;
	r->keys = calloc(capacity, sizeof(*r->keys));
	r->values = calloc((size_t)capacity * ncpus, sizeof(*r->values));
	r->counts = calloc(capacity, sizeof(*r->counts));
	if (!r->keys || !r->values || !r->counts) {
		source_reader_close(r);
		return -ENOMEM;
	}
	/* The load put the first map there already; say so again rather than trust it. */
	return source_reader_count_into(r, 0);
}

/*
 * Read and delete every entry of map @fd, nobody counting into it any more:
 * batches of what room is left, until the kernel says there is no more. A
 * per-CPU hash gives each key one 8-byte value per possible CPU.
 */
static long source_reader_empty(struct source_reader *r, int fd)
{
	__u32 batch, n, total = 0;
	void *in = NULL;
	int err, cpu;

	while (total < r->capacity) {
		n = r->capacity - total;
		err = bpf_map_lookup_and_delete_batch(fd, in, &batch, r->keys + total,
						      r->values + (size_t)total * r->nr_cpus, &n,
						      NULL);
		/* -ENOENT: the last batch, which may still hold entries. */
		if (err && errno != ENOENT)
			return -errno;
		total += n;
		if (err)
			break;
		in = &batch;
	}
	for (__u32 i = 0; i < total; i++) {
		const __u64 *v = r->values + (size_t)i * r->nr_cpus;

		r->counts[i].saddr = r->keys[i];
		r->counts[i].packets = 0;
		for (cpu = 0; cpu < r->nr_cpus; cpu++)
			r->counts[i].packets += v[cpu];
	}
	return total;
}

long source_reader_take(struct source_reader *r)
{
	int full = r->counting, err;

	err = source_reader_count_into(r, !full);
	return err ?: source_reader_empty(r, r->map_fd[full]);
}

void source_reader_close(struct source_reader *r)
{
	free(r->keys);
	free(r->values);
	free(r->counts);
	r->keys = NULL;
	r->values = NULL;
	r->counts = NULL;
}
