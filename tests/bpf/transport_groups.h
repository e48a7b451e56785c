/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A cmocka group run once per event transport, named "NAME queue" and
 * "NAME ringbuf". Include after <cmocka.h>.
 */
#ifndef TRANSPORT_GROUPS_H
#define TRANSPORT_GROUPS_H

#include <stdio.h>

#include "fbf_transport.h"

/*
 * Run @tests as a group on each transport, with *@transport set to it for
 * the group's setup to read. Returns the number of failed tests.
 */
static inline int run_groups_per_transport(const char *name, const struct CMUnitTest *tests,
					   size_t nr_tests, CMFixtureFunction setup,
					   CMFixtureFunction teardown,
					   enum fbf_transport *transport)
{
	static const enum fbf_transport all[] = { FBF_TRANSPORT_QUEUE, FBF_TRANSPORT_RINGBUF };
	char group[64];
	int failed = 0;
	size_t i;

	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		*transport = all[i];
		snprintf(group, sizeof(group), "%s %s", name, fbf_transport_name(all[i]));
		failed += _cmocka_run_group_tests(group, tests, nr_tests, setup, teardown);
	}
	return failed;
}

#endif /* TRANSPORT_GROUPS_H */
