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
#include "userspace_util.h"

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

static inline void fbf_fill_random(__u32 *batch)
{
	__u64 state = FBF_RANDOM_SEED;

	for (size_t i = 0; i < FBF_RANDOM_LEN; i++)
		batch[i] = (__u32)fbf_splitmix64(&state);
}

#endif /* FBF_MICRO_BATCHES_H */
