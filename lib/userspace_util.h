/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Small helpers that the agent, the tests and the benchmarks all need.
 * Userspace only; header-only, so that nothing links for two functions.
 */
#ifndef FBF_USERSPACE_UTIL_H
#define FBF_USERSPACE_UTIL_H

#include <time.h>
#include <linux/types.h>

/*
 * CLOCK_MONOTONIC in nanoseconds: the clock bpf_ktime_get_ns() reads, so an
 * event's age is this minus its timestamp.
 */
static inline __u64 fbf_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The same clock in seconds, for rates and durations printed to people. */
static inline double fbf_monotonic_s(void)
{
	return fbf_monotonic_ns() / 1e9;
}

/*
 * splitmix64 (Steele, Lea and Flood, 2014): tiny and well mixed; a fixed
 * seed gives the same sequence on every machine, for replayable tests and
 * benchmark inputs.
 */
static inline __u64 fbf_splitmix64(__u64 *state)
{
	__u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

#endif /* FBF_USERSPACE_UTIL_H */
