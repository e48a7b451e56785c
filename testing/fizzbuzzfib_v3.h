/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The original v3 classifier, kept as a reference and a regression canary,
 * never shipped: it recomputes the Fibonacci sequence for every address, the
 * planted slow path that put "production on fire". Unlike the original's u8
 * loop, which wrapped around, this one is correct, so it differs from
 * fbf_classify() in cost only. The loop is bounded for the verifier:
 * fib(14) = 377 is the first Fibonacci number above any octet.
 */
#ifndef FIZZBUZZFIB_V3_H
#define FIZZBUZZFIB_V3_H

#include "fizzbuzzfib.h"

#define FBF_V3_MAX_STEPS 14

static inline int fbf_v3_is_fibonacci(__u32 addr)
{
	__u32 octet = addr & 0xff;
	__u32 a = 0, b = 1, next;
	int i;

	for (i = 0; i < FBF_V3_MAX_STEPS && a < octet; i++) {
		next = a + b;
		a = b;
		b = next;
	}
	return a == octet;
}

static inline enum fbf_class fbf_v3_classify(__u32 addr)
{
	if (fbf_v3_is_fibonacci(addr))
		return FBF_FIBONACCI;
	if (addr % 15 == 0)
		return FBF_FIZZBUZZ;
	if (addr % 3 == 0)
		return FBF_FIZZ;
	if (addr % 5 == 0)
		return FBF_BUZZ;
	return FBF_NONE;
}

/*
 * The regression canary, `make CANARY=1`: whoever includes this header gets
 * the v3 loop for fbf_classify(), so the XDP program (into which that build
 * forces it with -include) and the micro benchmarks regress exactly as the
 * original did, and the regression gate must fail.
 */
#ifdef FBF_CANARY_V3
#define fbf_classify fbf_v3_classify
#endif

#endif /* FIZZBUZZFIB_V3_H */
