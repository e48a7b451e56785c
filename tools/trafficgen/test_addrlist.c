// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The traffic generator's --source parser: what it accepts, in what order,
 * and that everything else is refused with a reason rather than guessed at.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "addrlist.h"
#include "frames.h"

static void assert_parses_to(const char *spec, const uint32_t *want, size_t len)
{
	uint32_t *addrs = NULL;
	size_t count = 0;
	char err[128] = "";

	if (addrlist_parse(spec, &addrs, &count, err, sizeof(err)))
		fail_msg("\"%s\" refused: %s", spec, err);
	assert_int_equal(count, len);
	assert_memory_equal(addrs, want, len * sizeof(*want));
	free(addrs);
}

static void assert_refused(const char *spec, int want_err)
{
	uint32_t *addrs = NULL;
	size_t count = 0;
	char err[128] = "";
	int ret = addrlist_parse(spec, &addrs, &count, err, sizeof(err));

	if (ret != want_err)
		fail_msg("\"%s\": got %d, want %d", spec, ret, want_err);
	assert_null(addrs);
	assert_int_equal(count, 0);
	/* The user gets a reason, on one line. */
	assert_true(strlen(err) > 0);
	assert_null(strchr(err, '\n'));
}

static void test_single_address(void **state)
{
	const uint32_t want[] = { IPV4_ADDR(10, 213, 0, 1) };

	(void)state;
	assert_parses_to("10.213.0.1", want, 1);
}

static void test_list_keeps_order_and_duplicates(void **state)
{
	const uint32_t want[] = { IPV4_ADDR(10, 0, 0, 9), IPV4_ADDR(10, 0, 0, 1),
				  IPV4_ADDR(10, 0, 0, 9) };

	(void)state;
	assert_parses_to("10.0.0.9,10.0.0.1,10.0.0.9", want, 3);
}

static void test_range_with_last_octet(void **state)
{
	const uint32_t want[] = { IPV4_ADDR(10, 0, 0, 1), IPV4_ADDR(10, 0, 0, 2),
				  IPV4_ADDR(10, 0, 0, 3) };

	(void)state;
	assert_parses_to("10.0.0.1-3", want, 3);
}

static void test_range_with_full_end_crosses_octets(void **state)
{
	const uint32_t want[] = { IPV4_ADDR(10, 0, 0, 255), IPV4_ADDR(10, 0, 1, 0),
				  IPV4_ADDR(10, 0, 1, 1) };

	(void)state;
	assert_parses_to("10.0.0.255-10.0.1.1", want, 3);
}

static void test_mixed_items(void **state)
{
	const uint32_t want[] = { IPV4_ADDR(192, 0, 2, 7), IPV4_ADDR(10, 0, 0, 1),
				  IPV4_ADDR(10, 0, 0, 2) };

	(void)state;
	assert_parses_to("192.0.2.7,10.0.0.1-2", want, 3);
}

static void test_largest_list_is_accepted(void **state)
{
	uint32_t *addrs = NULL;
	size_t count = 0;
	char err[128];

	(void)state;
	assert_int_equal(addrlist_parse("10.0.0.0-10.0.255.255", &addrs, &count, err, sizeof(err)),
			 0);
	assert_int_equal(count, ADDRLIST_MAX);
	assert_int_equal(addrs[ADDRLIST_MAX - 1], IPV4_ADDR(10, 0, 255, 255));
	free(addrs);
}

static void test_bad_syntax_is_refused(void **state)
{
	static const char *const bad[] = {
		"", ",", "10.0.0.1,", ",10.0.0.1", "10.0.0.1,,10.0.0.2", "10.0.0", "10.0.0.256",
		"10.0.0.1 ", " 10.0.0.1", "010.0.0.1", "0x0a.0.0.1", "10.0.0.1-", "-10.0.0.1",
		"10.0.0.1-256", "10.0.0.1-2-3", "host", "10.0.0.1/24", "10.0.0.1-10.0.0",
		"10.0.0.1\n", "10.0.0.1-.0-1.1\n", "10.0.0.1,\r\n10.0.0.2",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_refused(bad[i], -EINVAL);
}

static void test_reversed_range_is_refused(void **state)
{
	(void)state;
	assert_refused("10.0.0.5-1", -EINVAL);
	assert_refused("10.0.1.0-10.0.0.255", -EINVAL);
}

static void test_too_many_addresses_are_refused(void **state)
{
	(void)state;
	assert_refused("10.0.0.0-10.1.0.0", -E2BIG);
	assert_refused("0.0.0.0-255.255.255.255", -E2BIG);
	assert_refused("10.0.0.0-10.0.255.255,10.1.0.0", -E2BIG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single_address),
		cmocka_unit_test(test_list_keeps_order_and_duplicates),
		cmocka_unit_test(test_range_with_last_octet),
		cmocka_unit_test(test_range_with_full_end_crosses_octets),
		cmocka_unit_test(test_mixed_items),
		cmocka_unit_test(test_largest_list_is_accepted),
		cmocka_unit_test(test_bad_syntax_is_refused),
		cmocka_unit_test(test_reversed_range_is_refused),
		cmocka_unit_test(test_too_many_addresses_are_refused),
	};

	return cmocka_run_group_tests_name("addrlist", tests, NULL, NULL);
}
