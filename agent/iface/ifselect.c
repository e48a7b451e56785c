// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* --iface's names and patterns, and which interfaces they select. */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>

#include "iface/ifselect.h"

/*
 * A regular expression's limits: glibc compiles some short ones into
 * gigabytes or for minutes (regex_cheap()), and a 15-byte name needs none of them.
 */
#define IFSELECT_REGEX_LEN_MAX 256
#define IFSELECT_REGEX_DEPTH 32
#define IFSELECT_REGEX_WEIGHT_MAX 256UL

/* Characters that make an item a glob: fnmatch(3)'s, which no name in practice holds. */
#define GLOB_CHARS "*?["

/*
 * Where the item at @p ends: at the next comma, or for /regex/ at the comma
 * after its closing slash, so that /eth{0,3}/ stays whole.
 */
static const char *item_end(const char *p)
{
	const char *q = p + (*p == '!');
	const char *c;

	if (*q == '/')
		for (c = strchr(q + 1, '/'); c; c = strchr(c + 1, '/'))
			if (c[1] == ',' || !c[1])
				return c + 1;
	c = strchr(p, ',');
	return c ? c : p + strlen(p);
}

/*
 * Whether glibc's regcomp() compiles @re cheaply. It copies an atom under a
 * repetition, twice for a+ and n times for a{m,n}, so that repetitions
 * nested or in a row multiply ("x" and 24 '+' take 12 GB), and a repetition
 * of something that can match nothing ("$*", "(a*)*", "(a|)+") makes its
 * closures grow exponentially in time. So: no repetition after a repetition,
 * an anchor or nothing; none of a group that holds '*', '?', a bound from 0,
 * an anchor or an empty alternative; and the copies, counted with nesting (an
 * over-estimate: alternatives add up), at most IFSELECT_REGEX_WEIGHT_MAX.
 */
enum regex_prev { PREV_NOTHING, PREV_ATOM, PREV_GROUP, PREV_RISKY_GROUP, PREV_OTHER };

static bool regex_cheap(const char *re)
{
	unsigned long size[IFSELECT_REGEX_DEPTH + 1] = { 0 }, last = 0, k, m, n;
	bool risky[IFSELECT_REGEX_DEPTH + 1] = { false };
	enum regex_prev prev = PREV_NOTHING;
	unsigned int depth = 0;
	const char *p = re;
	char *end;

	while (*p) {
		switch (*p++) {
		case '(':
			if (depth == IFSELECT_REGEX_DEPTH)
				return false;
			depth++;
			size[depth] = 0;
			risky[depth] = false;
			prev = PREV_NOTHING;
			continue;
		case ')':
			if (!depth)
				break;
			/* "()" and "(a|)" match nothing. */
			risky[depth] |= prev == PREV_NOTHING;
			last = size[depth];
			size[depth - 1] += last;
			prev = risky[depth] ? PREV_RISKY_GROUP : PREV_GROUP;
			depth--;
			continue;
		case '|':
			risky[depth] |= prev == PREV_NOTHING;
			size[depth]++;
			prev = PREV_NOTHING;
			continue;
		case '^':
		case '$':
			risky[depth] = true;
			size[depth]++;
			prev = PREV_OTHER;
			continue;
		case '+':
			k = 2;
			goto repeat;
		case '*':
		case '?':
			/* A node around the atom, no copy. */
			k = 1;
			risky[depth] = true;
			size[depth]++;
			goto repeat;
		case '{':
			m = strtoul(p, &end, 10);
			n = *end == ',' && end[1] != '}' ? strtoul(end + 1, &end, 10) :
			    m + (*end == ',');
			if (*end == ',')
				end++;
			if (*end != '}')
				break;	/* not a bound: a '{' of its own */
			k = n > m ? n : m;
			if (k < 1)
				k = 1;
			risky[depth] |= !m;
			p = end + 1;
			goto repeat;
		case '[':
			/* A bracket expression is one atom; ']' first belongs to it. */
			p += *p == '^';
			p += *p == ']';
			p += strcspn(p, "]");
			p += *p == ']';
			break;
		case '\\':
			p += *p != '\0';
			break;
		}
		last = 1;
		size[depth]++;
		prev = PREV_ATOM;
		continue;
repeat:
		if (prev != PREV_ATOM && prev != PREV_GROUP)
			return false;
		if (last > IFSELECT_REGEX_WEIGHT_MAX || k > IFSELECT_REGEX_WEIGHT_MAX)
			return false;
		size[depth] += last * (k - 1);
		last *= k;
		if (size[depth] > IFSELECT_REGEX_WEIGHT_MAX)
			return false;
		prev = PREV_OTHER;
	}
	/* Groups left open (regcomp() refuses them, after it has copied what they hold). */
	for (; depth; depth--)
		size[depth - 1] += size[depth];
	return size[0] <= IFSELECT_REGEX_WEIGHT_MAX;
}

static int rule_parse(struct ifselect_rule *r, const char *item, size_t len, char *why,
		      size_t why_size)
{
	const char *body = item;
	size_t n = len;
	int err;

	r->exclude = *body == '!';
	if (r->exclude) {
		body++;
		n--;
	}
	if (!n) {
		snprintf(why, why_size, r->exclude ? "'!' excludes nothing; follow it with a name "
			 "or a pattern" : "the interface name is empty");
		return -EINVAL;
	}
	if (*body == '/') {
		if (n < 2 || body[n - 1] != '/') {
			snprintf(why, why_size, "a regular expression ends with '/' as it starts");
			return -EINVAL;
		}
		body++;
		n -= 2;
		r->kind = IFSELECT_REGEX;
	} else if (strcspn(body, GLOB_CHARS) < n) {
		r->kind = IFSELECT_GLOB;
	} else {
		r->kind = IFSELECT_EXACT;
		if (n >= IF_NAMESIZE) {
			snprintf(why, why_size, "an interface name is at most %d bytes, and this "
				 "one has %zu", IF_NAMESIZE - 1, n);
			return -ENAMETOOLONG;
		}
	}
	r->text = strndup(body, n);
	if (!r->text) {
		snprintf(why, why_size, "out of memory");
		return -ENOMEM;
	}
	if (r->kind != IFSELECT_REGEX)
		return 0;
	if (n > IFSELECT_REGEX_LEN_MAX || !regex_cheap(r->text)) {
		snprintf(why, why_size, "a regular expression too long, or with repetitions "
			 "nested or of what may match nothing; write a simpler one");
		goto fail;
	}
	err = regcomp(&r->re, r->text, REG_EXTENDED | REG_NOSUB);
	if (!err)
		return 0;
	n = snprintf(why, why_size, "not a POSIX extended regular expression: ");
	if (n < why_size)
		regerror(err, &r->re, why + n, why_size - n);
fail:
	free(r->text);
	r->text = NULL;
	return -EINVAL;
}

int ifselect_add(struct ifselect *s, const char *arg, char *why, size_t why_size)
{
	const char *p = arg, *end;
	int err;

	for (;;) {
		end = item_end(p);
		if (s->nr == IFSELECT_MAX) {
			snprintf(why, why_size, "more than %d names and patterns", IFSELECT_MAX);
			return -E2BIG;
		}
		err = rule_parse(&s->rules[s->nr], p, end - p, why, why_size);
		if (err)
			return err;
		s->nr_include += !s->rules[s->nr].exclude;
		s->nr++;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

static bool rule_match(const struct ifselect_rule *r, const char *name)
{
	switch (r->kind) {
	case IFSELECT_EXACT:
		return !strcmp(r->text, name);
	case IFSELECT_GLOB:
		return !fnmatch(r->text, name, 0);
	case IFSELECT_REGEX:
		return !regexec(&r->re, name, 0, NULL, 0);
	}
	return false;
}

bool ifselect_match(const struct ifselect *s, const char *name)
{
	bool included = false;
	unsigned int i;

	for (i = 0; i < s->nr; i++) {
		const struct ifselect_rule *r = &s->rules[i];

		if (!rule_match(r, name))
			continue;
		if (r->exclude)
			return false;
		if (r->kind == IFSELECT_EXACT || strcmp(name, "lo"))
			included = true;
	}
	return included;
}

const char *ifselect_single(const struct ifselect *s)
{
	const struct ifselect_rule *r = &s->rules[0];

	return s->nr == 1 && r->kind == IFSELECT_EXACT && !r->exclude ? r->text : NULL;
}

void ifselect_free(struct ifselect *s)
{
	unsigned int i;

	for (i = 0; i < s->nr; i++) {
		if (s->rules[i].kind == IFSELECT_REGEX)
			regfree(&s->rules[i].re);
		free(s->rules[i].text);
	}
	s->nr = 0;
	s->nr_include = 0;
}
