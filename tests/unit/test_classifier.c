// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The classifier in common/fizzbuzzfib.h, which the XDP program and the agent
 * share, against the reference in testing/ref_parser.c, written to be
 * obviously right rather than fast.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fizzbuzzfib.h"
#include "fizzbuzzfib_v3.h"
#include "frames.h"
#include "ref_parser.h"
#include "userspace_util.h"

#define RANDOM_ADDRESSES 1000000
#define RANDOM_SEED 0x46697a7a42757a7aULL

static void assert_classified(uint32_t addr, enum fbf_class want)
{
	enum fbf_class got = fbf_classify(addr);

	if (got != want)
		fail_msg("%u.%u.%u.%u (%u): got %s, want %s", addr >> 24, (addr >> 16) & 0xff,
			 (addr >> 8) & 0xff, addr & 0xff, addr, fbf_class_name(got),
			 fbf_class_name(want));
}

static void assert_matches_reference(uint32_t addr)
{
	assert_classified(addr, ref_classify(addr));
}

/* The reference itself: 13 distinct numbers below 256, the largest 233. */
static void test_reference_knows_13_fibonacci_octets(void **state)
{
	unsigned int octet, count = 0, largest = 0;

	(void)state;
	for (octet = 0; octet < 256; octet++) {
		if (ref_is_fibonacci(octet)) {
			count++;
			largest = octet;
		}
	}
	assert_int_equal(count, 13);
	assert_int_equal(largest, 233);
}

/* Each last octet under a few upper octets: only the last one may matter for Fibonacci. */
static const uint32_t upper_octets[] = { 0x00000000, 0x0a000000, 0xc0000200, 0xffffff00 };

static void test_is_fibonacci_matches_reference_for_all_last_octets(void **state)
{
	unsigned int octet;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(upper_octets) / sizeof(upper_octets[0]); i++) {
		for (octet = 0; octet < 256; octet++) {
			uint32_t addr = upper_octets[i] | octet;

			if (!!fbf_is_fibonacci(addr) != ref_is_fibonacci(octet))
				fail_msg("0x%08x: fbf_is_fibonacci says %u", addr,
					 fbf_is_fibonacci(addr));
		}
	}
}

static void test_classify_matches_reference_for_all_last_octets(void **state)
{
	unsigned int octet;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(upper_octets) / sizeof(upper_octets[0]); i++)
		for (octet = 0; octet < 256; octet++)
			assert_matches_reference(upper_octets[i] | octet);
}

static void test_classify_matches_reference_for_random_addresses(void **state)
{
	__u64 seed = RANDOM_SEED;
	unsigned int i, seen[FBF_NR_CLASSES] = {};

	(void)state;
	for (i = 0; i < RANDOM_ADDRESSES; i++) {
		uint32_t addr = (uint32_t)fbf_splitmix64(&seed);

		assert_matches_reference(addr);
		seen[ref_classify(addr)]++;
	}
	/* A broken generator (all zero, say) would make the comparison above say little. */
	for (i = 0; i < FBF_NR_CLASSES; i++)
		assert_true(seen[i] > RANDOM_ADDRESSES / 100);
}

/*
 * The v3 loop is the benchmarks' reference and the regression canary: it must
 * differ from the shipped classifier in cost only, never in result.
 */
static void test_v3_loop_matches_reference(void **state)
{
	__u64 seed = RANDOM_SEED;
	unsigned int i;

	(void)state;
	for (i = 0; i < 256 + RANDOM_ADDRESSES / 10; i++) {
		uint32_t addr = i < 256 ? i : (uint32_t)fbf_splitmix64(&seed);

		if (fbf_v3_classify(addr) != ref_classify(addr))
			fail_msg("v3 classifies %u as %s, want %s", addr,
				 fbf_class_name(fbf_v3_classify(addr)),
				 fbf_class_name(ref_classify(addr)));
	}
}

static void test_classify_matches_reference_at_extremes(void **state)
{
	(void)state;
	assert_matches_reference(0);
	assert_matches_reference(UINT32_MAX);
	assert_matches_reference(UINT32_MAX - 1);
	assert_matches_reference(UINT32_MAX / 3 * 3);
	assert_matches_reference(UINT32_MAX / 5 * 5);
	assert_matches_reference(UINT32_MAX / 15 * 15);
}

static void test_example_10_0_0_233_is_fibonacci(void **state)
{
	(void)state;
	assert_classified(IPV4_ADDR(10, 0, 0, 233), FBF_FIBONACCI);
}

static void test_example_0_0_0_15_is_fizzbuzz(void **state)
{
	(void)state;
	assert_classified(IPV4_ADDR(0, 0, 0, 15), FBF_FIZZBUZZ);
}

static void test_example_0_0_0_9_is_fizz(void **state)
{
	(void)state;
	assert_classified(IPV4_ADDR(0, 0, 0, 9), FBF_FIZZ);
}

static void test_example_0_0_0_10_is_buzz(void **state)
{
	(void)state;
	assert_classified(IPV4_ADDR(0, 0, 0, 10), FBF_BUZZ);
}

static void test_example_0_0_0_7_is_none(void **state)
{
	(void)state;
	assert_classified(IPV4_ADDR(0, 0, 0, 7), FBF_NONE);
}

/* 167838212: remainder 2 by 3 and by 5, last octet 4. */
static void test_example_10_1_2_4_is_none(void **state)
{
	(void)state;
	assert_int_equal(IPV4_ADDR(10, 1, 2, 4), 167838212);
	assert_classified(IPV4_ADDR(10, 1, 2, 4), FBF_NONE);
}

/* The FizzBuzz rule uses the whole address: the last octet alone would say otherwise. */
static void test_fizzbuzz_rule_uses_whole_address(void **state)
{
	(void)state;
	assert_classified(IPV4_ADDR(192, 0, 2, 4), FBF_FIZZ);		/* 3221225988 */
	assert_classified(IPV4_ADDR(192, 0, 2, 6), FBF_BUZZ);		/* 3221225990 */
	assert_classified(IPV4_ADDR(192, 0, 2, 16), FBF_FIZZBUZZ);	/* 3221226000 */
	assert_classified(IPV4_ADDR(192, 0, 2, 9), FBF_NONE);		/* 3221225993 */
}

/* Divisible by 3, by 5 or by both, and still Fibonacci. */
static void test_fibonacci_takes_precedence(void **state)
{
	(void)state;
	assert_classified(IPV4_ADDR(0, 0, 0, 0), FBF_FIBONACCI);	/* by 15 */
	assert_classified(IPV4_ADDR(0, 0, 0, 3), FBF_FIBONACCI);	/* by 3 */
	assert_classified(IPV4_ADDR(0, 0, 0, 5), FBF_FIBONACCI);	/* by 5 */
	assert_classified(IPV4_ADDR(0, 0, 0, 21), FBF_FIBONACCI);	/* by 3 */
	assert_classified(IPV4_ADDR(0, 0, 0, 55), FBF_FIBONACCI);	/* by 5 */
	assert_classified(IPV4_ADDR(0, 0, 0, 144), FBF_FIBONACCI);	/* by 3 */
}

/*
 * The original loop over a u8 wrapped around and got these octets wrong.
 * Both the reference and the expected class are checked, so that a mistake
 * in one of them shows.
 */
static void test_octets_the_wrapping_loop_got_wrong(void **state)
{
	static const struct {
		unsigned int octet;
		enum fbf_class class;
	} cases[] = {
		{ 0, FBF_FIBONACCI },
		{ 241, FBF_NONE },
		{ 245, FBF_BUZZ },
		{ 247, FBF_NONE },
		{ 253, FBF_NONE },
		{ 255, FBF_FIZZBUZZ },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(ref_classify(cases[i].octet), cases[i].class);
		assert_int_equal(!!fbf_is_fibonacci(cases[i].octet), cases[i].octet == 0);
		assert_matches_reference(cases[i].octet);
	}
}

/* One early version of the set forgot the largest member. */
static void test_233_is_fibonacci(void **state)
{
	(void)state;
	assert_true(ref_is_fibonacci(233));
	assert_true(fbf_is_fibonacci(233));
	assert_classified(IPV4_ADDR(0, 0, 0, 233), FBF_FIBONACCI);
	assert_classified(IPV4_ADDR(255, 255, 255, 233), FBF_FIBONACCI);
}

static void test_class_names(void **state)
{
	(void)state;
	assert_string_equal(fbf_class_name(FBF_NONE), "none");
	assert_string_equal(fbf_class_name(FBF_FIZZ), "Fizz");
	assert_string_equal(fbf_class_name(FBF_BUZZ), "Buzz");
	assert_string_equal(fbf_class_name(FBF_FIZZBUZZ), "FizzBuzz");
	assert_string_equal(fbf_class_name(FBF_FIBONACCI), "Fibonacci");
}

static void test_class_name_out_of_range_is_invalid(void **state)
{
	(void)state;
	assert_string_equal(fbf_class_name(FBF_NR_CLASSES), "invalid");
	assert_string_equal(fbf_class_name(100), "invalid");
	assert_string_equal(fbf_class_name(UINT32_MAX), "invalid");
}

/* The values travel through the queue map and into logs: they must never change. */
static void test_class_values_are_stable(void **state)
{
	(void)state;
	assert_int_equal(FBF_NONE, 0);
	assert_int_equal(FBF_FIZZ, 1);
	assert_int_equal(FBF_BUZZ, 2);
	assert_int_equal(FBF_FIZZBUZZ, 3);
	assert_int_equal(FBF_FIBONACCI, 4);
	assert_int_equal(FBF_NR_CLASSES, 5);
}

/* Shared by the BPF program and userspace: the same layout on both sides, no padding. */
static void test_event_layout_is_16_bytes(void **state)
{
	(void)state;
	assert_int_equal(sizeof(struct fbf_event), 16);
	assert_int_equal(offsetof(struct fbf_event, ktime_ns), 0);
	assert_int_equal(offsetof(struct fbf_event, saddr), 8);
	assert_int_equal(offsetof(struct fbf_event, class_id), 12);
	assert_int_equal(offsetof(struct fbf_event, iface), 14);
}

static void test_counters_layout_has_no_padding(void **state)
{
	(void)state;
	/*
	 * packets, not_sampled, aggregated, no_room, the classes, four more
	 * counters, the sampling's countdown
	 */
	assert_int_equal(sizeof(struct fbf_counters), (4 + FBF_NR_CLASSES + 4 + 2) * sizeof(__u64));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reference_knows_13_fibonacci_octets),
		cmocka_unit_test(test_is_fibonacci_matches_reference_for_all_last_octets),
		cmocka_unit_test(test_classify_matches_reference_for_all_last_octets),
		cmocka_unit_test(test_classify_matches_reference_for_random_addresses),
		cmocka_unit_test(test_classify_matches_reference_at_extremes),
		cmocka_unit_test(test_v3_loop_matches_reference),
		cmocka_unit_test(test_example_10_0_0_233_is_fibonacci),
		cmocka_unit_test(test_example_0_0_0_15_is_fizzbuzz),
		cmocka_unit_test(test_example_0_0_0_9_is_fizz),
		cmocka_unit_test(test_example_0_0_0_10_is_buzz),
		cmocka_unit_test(test_example_0_0_0_7_is_none),
		cmocka_unit_test(test_example_10_1_2_4_is_none),
		cmocka_unit_test(test_fizzbuzz_rule_uses_whole_address),
		cmocka_unit_test(test_fibonacci_takes_precedence),
		cmocka_unit_test(test_octets_the_wrapping_loop_got_wrong),
		cmocka_unit_test(test_233_is_fibonacci),
		cmocka_unit_test(test_class_names),
		cmocka_unit_test(test_class_name_out_of_range_is_invalid),
		cmocka_unit_test(test_class_values_are_stable),
		cmocka_unit_test(test_event_layout_is_16_bytes),
		cmocka_unit_test(test_counters_layout_has_no_padding),
	};

	return cmocka_run_group_tests_name("classifier", tests, NULL, NULL);
}
