// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Wall-clock micro benchmark of the classifier with Google Benchmark: the
 * shipped classifier and the original's v3 loop over the same batches in one
 * binary and one run, so their ratio is measured side by side.
 */
#include <benchmark/benchmark.h>
#include <vector>

#include "micro_batches.h"

/* The classifier is a template argument so that it inlines, as it does in the XDP program. */
template <enum fbf_class (*classify)(__u32)>
static void classify_batch(benchmark::State &state, const std::vector<__u32> *batch)
{
	for (auto _ : state) {
		/* One opaque result per address: no vectorising across packets. */
		for (__u32 addr : *batch)
			benchmark::DoNotOptimize(classify(addr));
	}
	state.SetItemsProcessed(state.iterations() * batch->size());
	state.counters["ns_per_addr"] = benchmark::Counter(
		(double)batch->size(), benchmark::Counter::kIsIterationInvariantRate |
					       benchmark::Counter::kInvert);
}

int main(int argc, char **argv)
{
	static std::vector<__u32> source_addr(FBF_SOURCE_ADDR_LEN), random(FBF_RANDOM_LEN);

	fbf_fill_source_addr(source_addr.data());
	fbf_fill_random(random.data());
	benchmark::RegisterBenchmark("SourceAddr/v4", classify_batch<fbf_classify>,
				     &source_addr);
	benchmark::RegisterBenchmark("SourceAddr/v3", classify_batch<fbf_v3_classify>,
				     &source_addr);
	benchmark::RegisterBenchmark("RandomBatch/v4", classify_batch<fbf_classify>, &random);
	benchmark::RegisterBenchmark("RandomBatch/v3", classify_batch<fbf_v3_classify>,
				     &random);
	benchmark::Initialize(&argc, argv);
	if (benchmark::ReportUnrecognizedArguments(argc, argv))
		return 2;
	benchmark::RunSpecifiedBenchmarks();
	benchmark::Shutdown();
	return 0;
}
