/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * How the user gave the tool its arguments, for the advice in its messages:
 * make's variables (make cost PROG=NAME), or the installed fizzbuzzfib-cost's
 * positional ones, which its wrapper says by setting FBF_COST_INSTALLED.
 */
#ifndef FBF_COST_ARGS_H
#define FBF_COST_ARGS_H

#include <stdlib.h>

/* "PROG=NAME" through make, or "fizzbuzzfib-cost's PROG argument" installed. */
static inline const char *cost_arg(const char *make_form, const char *installed_form)
{
	const char *installed = getenv("FBF_COST_INSTALLED");

	return installed && *installed ? installed_form : make_form;
}

#define COST_ARG_PROG cost_arg("PROG=NAME", "the PROG argument")
#define COST_ARG_MAPS cost_arg("MAPS=FILE", "the MAPS argument")

#endif /* FBF_COST_ARGS_H */
