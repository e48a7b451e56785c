/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Userspace only: the strict number parsers every command line here uses
 * (the agent's and the traffic generator's). Pure functions, no I/O and no
 * global state, so that they can be unit tested and fuzzed on their own.
 *
 * Each returns 0 and stores the value, or -EINVAL (not a number of the
 * expected form: empty, sign, spaces, trailing characters) or -ERANGE (a
 * well-formed number outside the allowed range; parse_u64_range(): -EOVERFLOW
 * past 2^64-1) and leaves *out alone.
 */
#ifndef FBF_PARSE_NUM_H
#define FBF_PARSE_NUM_H

#include <linux/types.h>

#define FBF_NSEC_PER_SEC 1000000000ULL

/* Decimal digits only, from @min to @max. */
int parse_u64_range(const char *s, __u64 min, __u64 max, __u64 *out);

/*
 * "SECONDS[.FRACTION]", more than 0 and at most @max_s seconds, in
 * nanoseconds. -EINVAL: not such a number; -ERANGE: out of range; -EDOM:
 * more than nine decimals, finer than a nanosecond.
 */
int parse_seconds_ns(const char *s, __u64 max_s, __u64 *out_ns);

#endif /* FBF_PARSE_NUM_H */
