/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The inputs of the micro benchmarks, shared by the timing harness (C++) and
 * the instruction-count driver (C) so that both measure exactly the same
 * work. Both measure two variants: "v4", the shipped fbf_classify(), and
 * "v3", the original's loop (fbf_v3_classify()), side by side.
 */
#ifndef FBF_MICRO_BATCHES_H
#define FBF_MICRO_BATCHES_H

#include <stddef.h>
#include "fizzbuzzfib.h"
#include "fizzbuzzfib_v3.h"

/* "SourceAddr" classifies 0..255 once, as the original's benchmark did. */
#define FBF_SOURCE_ADDR_LEN 256
/* A fixed pseudo-random batch: whole addresses, so every class and octet occurs. */
#define FBF_RANDOM_LEN 4096
#define FBF_RANDOM_SEED 0x46697a7a42757a7aULL

static inline void fbf_fill_source_addr(__u32 *batch)
{
	for (__u32 i = 0; i < FBF_SOURCE_ADDR_LEN; i++)
		batch[i] = i;
}

/* splitmix64: tiny, well mixed and the same on every machine. */
static inline void fbf_fill_random(__u32 *batch)
{
	__u64 state = FBF_RANDOM_SEED;

	for (size_t i = 0; i < FBF_RANDOM_LEN; i++) {
		__u64 z = (state += 0x9e3779b97f4a7c15ULL);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		batch[i] = (__u32)(z ^ (z >> 31));
	}
}

#endif /* FBF_MICRO_BATCHES_H */
