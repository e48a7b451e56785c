// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --iface's names and patterns on their own: what each kind selects, that an
 * exclusion wins, that lo needs its exact name, how commas split, and every
 * malformed item refused with the reason.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "iface/ifselect.h"

/* A selection made of @args, each one --iface value; each must parse. */
static void build(struct ifselect *s, const char *const *args)
{
	char why[128];

	memset(s, 0, sizeof(*s));
	for (; *args; args++)
		if (ifselect_add(s, *args, why, sizeof(why)))
			fail_msg("'%s' refused: %s", *args, why);
}

static void assert_selects(const char *const *args, const char *const *in,
			   const char *const *out)
{
	struct ifselect s;

	build(&s, args);
	for (; *in; in++)
		if (!ifselect_match(&s, *in))
			fail_msg("'%s' not selected by '%s'", *in, args[0]);
	for (; *out; out++)
		if (ifselect_match(&s, *out))
			fail_msg("'%s' selected by '%s'", *out, args[0]);
	ifselect_free(&s);
}

#define L(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define NONE ((const char *const[]){ NULL })

static void test_exact_name(void **state __attribute__((unused)))
{
	struct ifselect s;

	assert_selects(L("eth0"), L("eth0"), L("eth00", "eth", "veth0", "lo"));
	/* One exact name is the agent of one interface, as it always was. */
	build(&s, L("eth0"));
	assert_string_equal(ifselect_single(&s), "eth0");
	ifselect_free(&s);
	build(&s, L("eth0,eth1"));
	assert_null(ifselect_single(&s));
	ifselect_free(&s);
	build(&s, L("eth*"));
	assert_null(ifselect_single(&s));
	ifselect_free(&s);
}

static void test_glob(void **state __attribute__((unused)))
{
	assert_selects(L("veth*"), L("veth0", "veth", "vethab12"), L("eth0", "xveth0", "lo"));
	assert_selects(L("eth?"), L("eth0", "eth9"), L("eth10", "eth"));
	assert_selects(L("eth[0-2]"), L("eth0", "eth2"), L("eth3"));
}

static void test_regex(void **state __attribute__((unused)))
{
	assert_selects(L("/^eth[0-9]+$/"), L("eth0", "eth12"), L("eth", "eth0.5", "veth0"));
	/* Unanchored, as regexec searches: */
	assert_selects(L("/bond/"), L("bond0", "xbond"), L("bon0"));
	/* A comma inside the slashes belongs to the expression. */
	assert_selects(L("/^e{1,2}th0$/,lo0"), L("eth0", "eeth0", "lo0"), L("eeeth0"));
}

static void test_exclusion_wins(void **state __attribute__((unused)))
{
	assert_selects(L("veth*,!veth1"), L("veth0", "veth2"), L("veth1"));
	/* Whatever the order, and against an exact name too. */
	assert_selects(L("!veth1", "veth1", "veth*"), L("veth0"), L("veth1"));
	assert_selects(L("*,!/^docker/,!br-*"), L("eth0"), L("docker0", "br-12ab", "lo"));
}

static void test_lo_only_by_name(void **state __attribute__((unused)))
{
	assert_selects(L("*"), L("eth0", "a"), L("lo"));
	assert_selects(L("/.*/"), L("eth0"), L("lo"));
	assert_selects(L("l?"), NONE, L("lo"));
	assert_selects(L("*,lo"), L("lo", "eth0"), NONE);
	assert_selects(L("lo,!lo"), NONE, L("lo"));
}

static void test_repeated_and_comma_separated(void **state __attribute__((unused)))
{
	struct ifselect s;

	build(&s, L("a,b", "c"));
	assert_int_equal(s.nr, 3);
	assert_int_equal(s.nr_include, 3);
	ifselect_free(&s);
	build(&s, L("a,!b,/c,d/,!/e/"));
	assert_int_equal(s.nr, 4);
	assert_int_equal(s.nr_include, 2);
	assert_true(ifselect_match(&s, "c,d"));
	ifselect_free(&s);
}

static void assert_refused(const char *arg, int err, const char *why_part)
{
	struct ifselect s = { 0 };
	char why[128] = "";

	assert_int_equal(ifselect_add(&s, arg, why, sizeof(why)), err);
	if (!strstr(why, why_part))
		fail_msg("'%s': '%s' does not say '%s'", arg, why, why_part);
	ifselect_free(&s);
}

static void test_refused(void **state __attribute__((unused)))
{
	assert_refused("", -EINVAL, "empty");
	assert_refused("a,,b", -EINVAL, "empty");
	assert_refused("a,", -EINVAL, "empty");
	assert_refused("!", -EINVAL, "excludes nothing");
	assert_refused("a,!", -EINVAL, "excludes nothing");
	assert_refused("/", -EINVAL, "ends with '/'");
	assert_refused("/abc", -EINVAL, "ends with '/'");
	assert_refused("/(/", -EINVAL, "not a POSIX extended regular expression");
	assert_refused("abcdefghijklmnop", -ENAMETOOLONG, "at most 15 bytes, and this one has 16");
	/* glibc compiles each of these into gigabytes, or would. */
	assert_refused("/x++++++++++++++++++++++++/", -EINVAL, "write a simpler one");
	assert_refused("/((((((((((((((x)+)+)+)+)+)+)+)+)+)+)+)+)+)+/", -EINVAL, "simpler one");
	assert_refused("/(((x{1,20}){1,20}){1,20})/", -EINVAL, "write a simpler one");
	assert_refused("/x{30000}/", -EINVAL, "write a simpler one");
	/* ... and these for minutes: repetitions of what may match nothing. */
	assert_refused("/$*********+++/", -EINVAL, "write a simpler one");
	assert_refused("/x**/", -EINVAL, "write a simpler one");
	assert_refused("/(a*)*/", -EINVAL, "write a simpler one");
	assert_refused("/(a|)+/", -EINVAL, "write a simpler one");
	assert_refused("/()+/", -EINVAL, "write a simpler one");
	assert_refused("/*/", -EINVAL, "write a simpler one");
}

static void test_ordinary_regex_accepted(void **state __attribute__((unused)))
{
	assert_selects(L("/^(eth|ens|enp)[0-9]+(s[0-9]+)?(\\.[0-9]{1,4})?$/"),
		       L("eth0", "enp3s0", "ens5.100"), L("eth", "enp3s0.12345"));
	assert_selects(L("/^[a-z]+[0-9]+$/"), L("veth12"), L("veth"));
	assert_selects(L("/^x{1,15}$/"), L("xxx"), L("xy"));
	assert_selects(L("/^(veth|tap)[0-9a-f]+$/"), L("veth1a", "tap0"), L("vethx"));
	assert_selects(L("/^(br-)+[a-z]*$/"), L("br-abc", "br-br-"), L("br"));
	assert_selects(L("/a{2}/"), L("baab"), L("ab"));
}

static void test_at_most_max(void **state __attribute__((unused)))
{
	struct ifselect s = { 0 };
	char why[128];
	int i;

	for (i = 0; i < IFSELECT_MAX; i++)
		assert_int_equal(ifselect_add(&s, "a", why, sizeof(why)), 0);
	assert_int_equal(ifselect_add(&s, "b", why, sizeof(why)), -E2BIG);
	assert_non_null(strstr(why, "more than 64"));
	ifselect_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_name),
		cmocka_unit_test(test_glob),
		cmocka_unit_test(test_regex),
		cmocka_unit_test(test_exclusion_wins),
		cmocka_unit_test(test_lo_only_by_name),
		cmocka_unit_test(test_repeated_and_comma_separated),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_ordinary_regex_accepted),
		cmocka_unit_test(test_at_most_max),
	};

	return cmocka_run_group_tests_name("ifselect", tests, NULL, NULL);
}
