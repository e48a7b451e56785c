#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# callgrind.sh BUILD DIR [VARIANTS]: count the classifier's instructions on
# every micro batch into DIR/BATCH__VARIANT.{out,len}, for bench/report.py
# callgrind. VARIANTS defaults to "v4 v3", the shipped and the v3 classifier.
set -euo pipefail

build=$1
counts=$2
variants=${3:-v4 v3}
rm -rf "$counts" && mkdir -p "$counts"
for batch in SourceAddr RandomBatch; do
	for variant in $variants; do
		# Fixed cache geometry, so the estimate does not depend on this machine's caches.
		valgrind --tool=callgrind --collect-atstart=no --cache-sim=yes \
			--I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64 \
			--callgrind-out-file="$counts/${batch}__$variant.out" \
			"$build/bench/micro_count" "$batch" "$variant" \
			>"$counts/${batch}__$variant.len" 2>"$counts/${batch}__$variant.log"
	done
done
