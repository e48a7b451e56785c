/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Which interfaces --iface names: exact names, shell globs (veth*), POSIX
 * extended regular expressions between slashes (/^eth[0-9]+$/), and any of
 * these after '!' to exclude what they match. An exclusion wins over every
 * inclusion; lo is selected only by its exact name, as it carries no traffic
 * from the network and a pattern such as '*' means "every uplink".
 * No I/O: the rules are tested and fuzzed on their own.
 */
#ifndef AGENT_IFSELECT_H
#define AGENT_IFSELECT_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

/* How many names and patterns --iface may add up to. */
#define IFSELECT_MAX 64

enum ifselect_kind {
	IFSELECT_EXACT,
	IFSELECT_GLOB,		/* fnmatch(3) */
	IFSELECT_REGEX,		/* regcomp(3), REG_EXTENDED */
};

struct ifselect_rule {
	enum ifselect_kind kind;
	bool exclude;
	char *text;		/* the name, the glob, or the expression without its slashes */
	regex_t re;		/* IFSELECT_REGEX only */
};

struct ifselect {
	struct ifselect_rule rules[IFSELECT_MAX];
	unsigned int nr;
	unsigned int nr_include;
};

/*
 * Add one --iface value: names and patterns separated by commas (a comma
 * inside /.../ belongs to the expression). Returns 0, or -EINVAL (-E2BIG
 * past IFSELECT_MAX, -ENAMETOOLONG for a name no interface can have) with
 * @why saying what is wrong, for a usage error.
 */
int ifselect_add(struct ifselect *s, const char *arg, char *why, size_t why_size);

/* Whether interface @name is selected. */
bool ifselect_match(const struct ifselect *s, const char *name);

/* The name, if the selection is exactly one exact name and nothing else; NULL otherwise. */
const char *ifselect_single(const struct ifselect *s);

void ifselect_free(struct ifselect *s);

#endif /* AGENT_IFSELECT_H */
