// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The agent's table of options (agent/options.c), the one place their
 * limits and defaults are written: the parser puts each option where the
 * table says, starts from its defaults, and the manual and the docs state
 * what it holds. Run from the tree's root, where make test runs it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "options.h"

#define MANUAL "man/fizzbuzzfib-agent.8"
/* The pages that give an option's range or default beside its name, `--name ARG` (...). */
static const char *const docs[] = { "README.md", "docs/agent.md", "docs/output.md" };

#define FOR_EACH_OPTION(o) for (o = agent_options; o->name; o++)

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text;
	long len;

	if (!f)
		fail_msg("cannot read %s: run the test from the tree's root", path);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	text = calloc(1, len + 1);
	assert_non_null(text);
	assert_int_equal(fread(text, 1, len, f), len);
	fclose(f);
	return text;
}

/* @o's field in @opts, as a number. */
static unsigned long long field_of(const struct agent_options *opts, const struct agent_option *o)
{
	const char *p = (const char *)opts + o->field;

	if (o->size == sizeof(bool))
		return *(const bool *)p;
	if (o->size == sizeof(__u32))
		return *(const __u32 *)p;
	return *(const __u64 *)p;
}

/*
 * A command line every option may join: a pattern in --iface, a file and a NATS output,
 * --aggregate (but beside an option it refuses), and @name.
 */
static void parse(struct agent_options *opts, const char *name, const char *value)
{
	const struct agent_option *o;
	char option[64];
	char *argv[] = { "agent", "-i", "lo,veth*", "-o", "file:/nonexistent/x",
			 "-o", "nats://localhost:4222/s", "--aggregate", "2", NULL, NULL };
	int argc = 9;

	FOR_EACH_OPTION(o)
		if (name && !strcmp(name, o->name) && o->aggregate_refuses)
			argc -= 2;
	if (name) {
		snprintf(option, sizeof(option), "--%s%s%s", name, value ? "=" : "", value ?: "");
		argv[argc++] = option;
	}
	argv[argc] = NULL;
	options_parse(argc, argv, opts);
}

static void test_every_option_is_one_row_with_sane_limits(void **state)
{
	const struct agent_option *o, *p;

	(void)state;
	FOR_EACH_OPTION(o) {
		for (p = agent_options; p < o; p++) {
			assert_string_not_equal(p->name, o->name);
			assert_int_not_equal(p->key, o->key);
		}
		assert_true(o->doc && *o->doc);
		assert_true(!o->arg == (o->type == OPTION_FLAG));
		if (o->type == OPTION_NUMBER) {
			assert_true(o->min <= o->max);
			assert_true(!o->def || (o->def >= o->min && o->def <= o->max));
		}
		if (o->type == OPTION_SECONDS)
			assert_true(o->max && o->max_words && o->example &&
				    o->def <= o->max * 1000000000ULL);
		if (o->type == OPTION_TEXT)
			assert_non_null(o->unit);
		if (o->needs_output)
			assert_non_null(o->needs_output->options_set);
	}
}

static void test_defaults_come_from_the_table(void **state)
{
	const struct agent_option *o;
	struct agent_options opts;

	(void)state;
	parse(&opts, NULL, NULL);
	FOR_EACH_OPTION(o) {
		/* All but what that command line sets. */
		if (!o->size || !strcmp(o->name, "aggregate"))
			continue;
		if (o->def_text)
			assert_string_equal(*(const char *const *)((const char *)&opts + o->field),
					    o->def_text);
		else
			assert_int_equal(field_of(&opts, o), o->def);
	}
}

static void test_each_value_lands_in_its_field(void **state)
{
	const struct agent_option *o;
	struct agent_options opts;
	char value[32];

	(void)state;
	FOR_EACH_OPTION(o) {
		if (o->type == OPTION_OWN)
			continue;
		/* Its least value, but 1 for seconds; any text for a name. */
		snprintf(value, sizeof(value), "%llu", o->type == OPTION_SECONDS ? 1 : o->min);
		parse(&opts, o->name, o->type == OPTION_TEXT ? "name" :
				      o->type == OPTION_FLAG ? NULL : value);
		if (o->type == OPTION_TEXT)
			assert_string_equal(*(const char *const *)((const char *)&opts + o->field),
					    "name");
		else
			assert_int_equal(field_of(&opts, o), o->type == OPTION_FLAG ? 1 :
					 o->type == OPTION_SECONDS ? 1000000000ULL : o->min);
	}
}

/* @text, a roff entry or a Markdown aside, as prose: no requests, font changes or escapes. */
static void prose(const char *text, size_t len, char *out, size_t size)
{
	const char *p = text, *end = text + len;
	size_t n = 0;

	for (; p < end && n < size - 1; p++) {
		if (p == text || p[-1] == '\n') {
			if (*p == '.') /* a request: its name goes, its words stay */
				while (p < end && *p != ' ' && *p != '\n')
					p++;
			if (p == end)
				break;
		}
		if (*p == '\\' && p + 1 < end && p[1] == 'f') {
			p += 2;
			continue;
		}
		if (*p == '\\' && p + 1 < end) /* \- and "\ " */
			p++;
		/* Spaces and line ends as one space, as the text shows them. */
		if (*p != '`' && !((*p == ' ' || *p == '\n') && n && out[n - 1] == ' '))
			out[n++] = *p == '\n' ? ' ' : *p;
	}
	out[n] = '\0';
}

/*
 * What @text says of @o's limits and default: each of them that @text
 * speaks of must be the table's (all of them, if @all).
 */
static void check_stated(const struct agent_option *o, const char *text, const char *where,
			 bool all)
{
	char range[64] = "", def[64] = "", def_after[64] = "";
	unsigned long long def_value = o->type == OPTION_SECONDS ? o->def / 1000000000ULL : o->def;

	if (o->type == OPTION_NUMBER && o->max == ~0ULL)
		snprintf(range, sizeof(range), "at least %llu", o->min);
	else if (o->type == OPTION_NUMBER)
		snprintf(range, sizeof(range), "%llu to %llu", o->min, o->max);
	else if (o->type == OPTION_SECONDS)
		snprintf(range, sizeof(range), "at most %s", o->max_words);
	if (o->def_text)
		snprintf(def, sizeof(def), "%s", o->def_text);
	else if (o->def && (o->type == OPTION_NUMBER || o->type == OPTION_SECONDS))
		snprintf(def, sizeof(def), "default %llu", def_value);
	/* Or, in prose, "5 by default". */
	snprintf(def_after, sizeof(def_after), "%llu by default", def_value);
	if (*range && (all || strstr(text, " to ") || strstr(text, "at most") ||
		       strstr(text, "at least")) && !strstr(text, range))
		fail_msg("%s: --%s lacks \"%s\" (agent/options.c) in: %s", where, o->name, range,
			 text);
	if (*def && (all || strstr(text, "default")) && !strstr(text, def) &&
	    (o->def_text || !strstr(text, def_after)))
		fail_msg("%s: --%s lacks \"%s\" (agent/options.c) in: %s", where, o->name, def,
			 text);
}

static void test_the_manual_states_each_limit_and_default(void **state)
{
	char *man = slurp(MANUAL), header[80], text[4096];
	const struct agent_option *o;
	const char *entry, *end, *p;
	size_t i;

	(void)state;
	FOR_EACH_OPTION(o) {
		/* Its entry: after a .TP, the line naming it ("\-\-name", then =, space or end). */
		for (i = 0, p = o->name; *p && i < sizeof(header) - 3; p++)
			i += snprintf(header + i, sizeof(header) - i, *p == '-' ? "\\-" : "%c", *p);
		entry = NULL;
		for (p = strstr(man, ".TP\n"); p && !entry; p = strstr(p + 1, ".TP\n")) {
			end = strchr(p + 4, '\n');
			for (const char *q = strstr(p + 4, "\\-\\-"); q && q < end;
			     q = strstr(q + 1, "\\-\\-"))
				if (!strncmp(q + 4, header, i) && strchr("= \n", q[4 + i]))
					entry = p + 4;
		}
		if (!entry)
			fail_msg("%s has no entry for --%s", MANUAL, o->name);
		end = strstr(entry, "\n.TP\n") ?: strstr(entry, "\n.SH") ?: entry + strlen(entry);
		prose(entry, end - entry, text, sizeof(text));
		check_stated(o, text, MANUAL, true);
	}
	free(man);
}

static void test_the_docs_state_them_as_the_table_does(void **state)
{
	const struct agent_option *o;
	char mention[96], text[1024];
	const char *p, *aside, *close;
	unsigned int d;

	(void)state;
	for (d = 0; d < sizeof(docs) / sizeof(docs[0]); d++) {
		char *md = slurp(docs[d]);

		FOR_EACH_OPTION(o) {
			snprintf(mention, sizeof(mention), "`--%s%s%s` (", o->name,
				 o->arg ? " " : "", o->arg ?: "");
			for (p = strstr(md, mention); p; p = strstr(p + 1, mention)) {
				aside = p + strlen(mention);
				close = strchr(aside, ')');
				assert_non_null(close);
				prose(aside, close - aside, text, sizeof(text));
				check_stated(o, text, docs[d], false);
			}
		}
		free(md);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_option_is_one_row_with_sane_limits),
		cmocka_unit_test(test_defaults_come_from_the_table),
		cmocka_unit_test(test_each_value_lands_in_its_field),
		cmocka_unit_test(test_the_manual_states_each_limit_and_default),
		cmocka_unit_test(test_the_docs_state_them_as_the_table_does),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
