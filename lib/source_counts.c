// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The per-source counts of --aggregate: see source_counts.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "fizzbuzzfib.h"
#include "fbf_object.h"
#include "source_counts.h"

/*
 * Name generation @half (its table half and its hash) to the program, then
 * wait until no run counts into the other: the update of an array of maps
 * returns after an RCU grace period, and a run that begins after it sees the
 * half named before it (xdp/fizzbuzzfib.bpf.c, beside the maps).
 */
static int source_reader_count_into(struct source_reader *r, int half)
{
	__u32 slot = 0, value = half;

	if (bpf_map_update_elem(r->half_fd, &slot, &value, BPF_ANY) ||
	    bpf_map_update_elem(r->outer_fd, &slot, &r->map_fd[half], BPF_ANY))
		return -errno;
	r->half = half;
	return 0;
}

int source_reader_open(struct source_reader *r, const struct fbf_object *o, __u32 capacity)
{
	int ncpus = libbpf_num_possible_cpus();
	size_t slots;

	memset(r, 0, sizeof(*r));
	if (ncpus < 0)
		return ncpus;
	r->outer_fd = bpf_map__fd(o->sources);
	r->map_fd[0] = bpf_map__fd(o->source_maps[0]);
	r->map_fd[1] = bpf_map__fd(o->source_maps[1]);
	r->cache_fd = bpf_map__fd(o->source_cache);
	r->half_fd = bpf_map__fd(o->source_half);
	r->capacity = capacity;
	r->nr_cpus = ncpus;
	slots = (size_t)FBF_SOURCE_CACHE_SLOTS * ncpus;
	r->room = capacity + slots;
	r->keys = calloc(r->room, sizeof(*r->keys));
	r->values = calloc((size_t)capacity * ncpus, sizeof(*r->values));
	r->slots = calloc(slots, sizeof(*r->slots));
	r->zeros = calloc(slots, sizeof(*r->zeros));
	r->counts = calloc(r->room, sizeof(*r->counts));
	if (!r->keys || !r->values || !r->slots || !r->zeros || !r->counts) {
		source_reader_close(r);
		return -ENOMEM;
	}
	/* The load named generation 0 already; say so again rather than trust it. */
	return source_reader_count_into(r, 0);
}

/*
 * Read and delete every entry of map @fd, nobody counting into it any more:
 * batches of what room is left, until the kernel says there is no more. A
 * per-CPU hash gives each key one 8-byte value per possible CPU. The map's
 * sources go to counts[0..n); returns n or -errno.
 */
static long source_reader_empty_map(struct source_reader *r, int fd)
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

/* The kernel's ENOTSUPP, which it returns to userspace too: no batch operations here. */
#define KERNEL_ENOTSUPP 524

/*
 * The slots of half @half, one lookup and one update per slot: for kernels
 * without batch operations on per-CPU arrays (5.13 added them; 5.10 has
 * none). Returns 0 or -errno.
 */
static int source_reader_copy_half_slowly(struct source_reader *r, __u32 first)
{
	size_t per_slot = r->nr_cpus;
	__u32 i, key;

	for (i = 0; i < FBF_SOURCE_CACHE_SLOTS; i++) {
		key = first + i;
		if (bpf_map_lookup_elem(r->cache_fd, &key, r->slots + i * per_slot) ||
		    bpf_map_update_elem(r->cache_fd, &key, r->zeros, BPF_ANY))
			return -errno;
	}
	return 0;
}

/*
 * The slots of half @half in batches, which go by slot number, the last one
 * read standing for where to go on; then each emptied. Returns 0, -errno,
 * or -KERNEL_ENOTSUPP where the kernel has no batches for per-CPU arrays.
 */
static int source_reader_copy_half(struct source_reader *r, __u32 first)
{
	__u32 batch, got, total = 0;
	void *in = NULL;
	int err;

	if (first) {
		batch = first - 1;
		in = &batch;
	}
	while (total < FBF_SOURCE_CACHE_SLOTS) {
		got = FBF_SOURCE_CACHE_SLOTS - total;
		err = bpf_map_lookup_batch(r->cache_fd, in, &batch, r->keys + total,
					   r->slots + (size_t)total * r->nr_cpus, &got, NULL);
		if (err && errno != ENOENT)
			return -errno;
		total += got;
		if (err)
			break;
		in = &batch;
	}
	if (total != FBF_SOURCE_CACHE_SLOTS || r->keys[0] != first)
		return -EIO;
	got = total;
	return bpf_map_update_batch(r->cache_fd, r->keys, r->zeros, &got, NULL) ? -errno : 0;
}

/*
 * Read and empty half @half of the table, nobody counting into it any more,
 * and add each CPU's taken slots to counts[n..). Returns the new n, or -errno.
 * A per-CPU array gives each slot one value per possible CPU.
 */
static long source_reader_empty_half(struct source_reader *r, int half, long n)
{
	size_t slots = (size_t)FBF_SOURCE_CACHE_SLOTS * r->nr_cpus, i;
	__u32 first = half * FBF_SOURCE_CACHE_SLOTS;
	int err;

	err = source_reader_copy_half(r, first);
	if (err == -KERNEL_ENOTSUPP || err == -EOPNOTSUPP)
		err = source_reader_copy_half_slowly(r, first);
	if (err)
		return err;
	for (i = 0; i < slots; i++)
		if (r->slots[i].packets)
			r->counts[n++] = (struct fbf_source_count){ r->slots[i].saddr,
								    r->slots[i].packets };
	return n;
}

static int by_saddr(const void *a, const void *b)
{
	__u32 x = ((const struct fbf_source_count *)a)->saddr;
	__u32 y = ((const struct fbf_source_count *)b)->saddr;

	return (x > y) - (x < y);
}

/*
 * One count per source: a source can be in the map and in a slot of each
 * CPU. Sorted, then summed in place; an entry made but never counted into
 * (a source whose frames all stayed in its slot) adds nothing.
 */
static long source_reader_merge(struct source_reader *r, long n)
{
	struct fbf_source_count *c = r->counts;
	long i, out = 0;

	qsort(c, n, sizeof(*c), by_saddr);
	for (i = 0; i < n; i++) {
		if (!c[i].packets)
			continue;
		if (out && c[out - 1].saddr == c[i].saddr)
			c[out - 1].packets += c[i].packets;
		else
			c[out++] = c[i];
	}
	return out;
}

long source_reader_take(struct source_reader *r)
{
	int half = r->half, err;
	long n;

	err = source_reader_count_into(r, !half);
	if (err)
		return err;
	n = source_reader_empty_map(r, r->map_fd[half]);
	if (n >= 0)
		n = source_reader_empty_half(r, half, n);
	return n < 0 ? n : source_reader_merge(r, n);
}

void source_reader_close(struct source_reader *r)
{
	free(r->keys);
	free(r->values);
	free(r->slots);
	free(r->zeros);
	free(r->counts);
	r->keys = NULL;
	r->values = NULL;
	r->slots = NULL;
	r->zeros = NULL;
	r->counts = NULL;
}
