/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the BPF suites do when their program did not load: skip where BPF
 * cannot be used at all, fail where it was refused. Include after <cmocka.h>.
 */
#ifndef PROGRAM_LOADED_H
#define PROGRAM_LOADED_H

#include <stdio.h>
#include <string.h>

#include "bpf_fixture.h"

/* In a suite's setup, after its loads: one line on why every test will skip. */
static inline void program_load_note(int load_err)
{
	if (bpf_fixture_unavailable(load_err))
		fprintf(stderr, "# cannot load BPF programs here (%s): skipping; run as root\n",
			strerror(-load_err));
}

/* In a test, first: a macro, so that a failure names the test's own line. */
#define require_program_loaded(load_err)						\
	do {										\
		int err_ = (load_err);							\
											\
		if (err_ && bpf_fixture_unavailable(err_))				\
			skip();								\
		if (err_)								\
			fail_msg("loading the XDP program: %s (libbpf log above)",	\
				 strerror(-err_));					\
	} while (0)

#endif /* PROGRAM_LOADED_H */
