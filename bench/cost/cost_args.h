/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * How the user gave the tool its arguments, for the advice in its messages:
 * make's variables (make cost PROG=NAME), or the installed fizzbuzzfib-cost's
 * positional ones, which its wrapper says by setting FBF_COST_INSTALLED.
 */
#ifndef FBF_COST_ARGS_H
#define FBF_COST_ARGS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "PROG=NAME" through make, or "fizzbuzzfib-cost's PROG argument" installed. */
static inline const char *cost_arg(const char *make_form, const char *installed_form)
{
	const char *installed = getenv("FBF_COST_INSTALLED");

	return installed && *installed ? installed_form : make_form;
}

#define COST_ARG_PROG cost_arg("PROG=NAME", "the PROG argument")
#define COST_ARG_MAPS cost_arg("MAPS=FILE", "the MAPS argument")

/*
 * -M ARM=MAPS, -S ARM=NAME=VALUE,...: one arm's own, over the shared -m and -s
 * (a compare's side), in cost_run and cost_trace alike.
 */
struct cost_arm_option {
	const char *arm, *value;
};

/* ARM=VALUE @arg into @opts, of @max: 0, or -1 after one line. */
static inline int cost_arm_option(struct cost_arm_option *opts, int *nr, int max, char *arg)
{
	char *eq = strchr(arg, '=');

	if (!eq || eq == arg || *nr == max) {
		fprintf(stderr, "cost: '%s' is not ARM=VALUE\n", arg);
		return -1;
	}
	*eq = '\0';
	opts[(*nr)++] = (struct cost_arm_option){ .arm = arg, .value = eq + 1 };
	return 0;
}

/* @arm's own value among @opts, else @shared. */
static inline const char *cost_arm_value(const struct cost_arm_option *opts, int nr,
					 const char *arm, const char *shared)
{
	for (int i = 0; i < nr; i++)
		if (!strcmp(opts[i].arm, arm))
			return opts[i].value;
	return shared;
}

#endif /* FBF_COST_ARGS_H */
