// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Instruction-count micro benchmark: classifies one batch with callgrind
 * collecting only the measured loop, so the counts depend on the code and
 * the compiler, not on the machine's load. Run by bench/micro/callgrind.sh under
 * valgrind --tool=callgrind --collect-atstart=no; outside valgrind the
 * client requests do nothing and it just runs the loop.
 *
 *   micro_count SourceAddr|RandomBatch v4|v3
 */
#include <stdio.h>
#include <string.h>
#include <valgrind/callgrind.h>

#include "micro_batches.h"

/* Keep each result, as benchmark::DoNotOptimize does, so no call is optimised away. */
#define KEEP(x) __asm__ volatile("" : : "r"(x) : "memory")

#define CLASSIFY_BATCH(classify, batch, len)                    \
	do {                                                    \
		for (size_t i = 0; i < (len); i++)              \
			KEEP(classify((batch)[i]));             \
	} while (0)

static __u32 source_addr[FBF_SOURCE_ADDR_LEN];
static __u32 random_batch[FBF_RANDOM_LEN];

int main(int argc, char **argv)
{
	const __u32 *batch;
	size_t len;
	int v3;

	if (argc != 3 || (strcmp(argv[2], "v4") && strcmp(argv[2], "v3"))) {
		fprintf(stderr, "usage: micro_count SourceAddr|RandomBatch v4|v3\n");
		return 2;
	}
	v3 = !strcmp(argv[2], "v3");
	if (!strcmp(argv[1], "SourceAddr")) {
		fbf_fill_source_addr(source_addr);
		batch = source_addr;
		len = FBF_SOURCE_ADDR_LEN;
	} else if (!strcmp(argv[1], "RandomBatch")) {
		fbf_fill_random(random_batch);
		batch = random_batch;
		len = FBF_RANDOM_LEN;
	} else {
		fprintf(stderr, "micro_count: unknown batch '%s'\n", argv[1]);
		return 2;
	}

	/* One pass uncollected warms the caches, as a steady stream of packets would. */
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1)
			CALLGRIND_TOGGLE_COLLECT;
		if (v3)
			CLASSIFY_BATCH(fbf_v3_classify, batch, len);
		else
			CLASSIFY_BATCH(fbf_classify, batch, len);
		if (pass == 1)
			CALLGRIND_TOGGLE_COLLECT;
	}
	printf("%zu\n", len);
	return 0;
}
