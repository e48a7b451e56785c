// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* bpftool's JSON dump of a map, read for the cost tool: see cost_dump.h. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cost_dump.h"
#include "cost_exits.h"

/* How deep a "formatted" member nests: a struct of arrays of structs... */
#define MAX_DEPTH 64

struct cursor {
	const char *start, *p, *end;
	const char *path;
	const struct cost_dump_shape *shape;
	size_t entry;		/* the entry being read, from 1 */
	size_t cap;		/* entries @d has room for */
	__u8 *bytes;		/* one value as the dump gives it */
};

static void blank(struct cursor *c)
{
	while (c->p < c->end && isspace((unsigned char)*c->p))
		c->p++;
}

static bool eat(struct cursor *c, char ch)
{
	blank(c);
	if (c->p >= c->end || *c->p != ch)
		return false;
	c->p++;
	return true;
}

static int syntax(const struct cursor *c, const char *what)
{
	fprintf(stderr, "cost: %s: entry %zu, byte %td: %s: not the JSON of bpftool map dump -j\n",
		c->path, c->entry, c->p - c->start, what);
	return COST_EXIT_MAPS;
}

/* A string's contents, unescaped no further: member names and "0xNN" bytes have no escapes. */
static bool string(struct cursor *c, const char **s, size_t *len)
{
	if (!eat(c, '"'))
		return false;
	*s = c->p;
	while (c->p < c->end && *c->p != '"')
		c->p += *c->p == '\\' ? 2 : 1;
	if (c->p >= c->end)
		return false;
	*len = c->p - *s;
	c->p++;
	return true;
}

/* Any JSON value, unread: what "formatted" holds. */
static bool skip_value(struct cursor *c, int depth)
{
	const char *s;
	size_t len;
	char close;

	blank(c);
	if (c->p >= c->end || depth > MAX_DEPTH)
		return false;
	if (*c->p == '"')
		return string(c, &s, &len);
	if (*c->p != '{' && *c->p != '[') {
		const char *from = c->p;

		while (c->p < c->end && !strchr(",}] \t\r\n", *c->p))
			c->p++;
		return c->p > from;
	}
	close = *c->p == '{' ? '}' : ']';
	c->p++;
	if (eat(c, close))
		return true;
	do {
		if (close == '}' && !(string(c, &s, &len) && eat(c, ':')))
			return false;
		if (!skip_value(c, depth + 1))
			return false;
	} while (eat(c, ','));
	return eat(c, close);
}

static int hex_digit(char ch)
{
	return isdigit((unsigned char)ch) ? ch - '0' : tolower((unsigned char)ch) - 'a' + 10;
}

/* ["0x01","0x02",...] into @out, its first @size bytes; @n: how many it had. */
static int hex_array(struct cursor *c, __u8 *out, size_t size, size_t *n)
{
	const char *s;
	size_t len;

	*n = 0;
	if (!eat(c, '['))
		return syntax(c, "bytes are not a list");
	if (eat(c, ']'))
		return 0;
	do {
		if (!string(c, &s, &len) || len != 4 || s[0] != '0' || s[1] != 'x' ||
		    !isxdigit((unsigned char)s[2]) || !isxdigit((unsigned char)s[3]))
			return syntax(c, "a byte that is not \"0xNN\"");
		if (*n < size)
			out[*n] = hex_digit(s[2]) << 4 | hex_digit(s[3]);
		(*n)++;
	} while (eat(c, ','));
	return eat(c, ']') ? 0 : syntax(c, "a list of bytes without its ']'");
}

static int wrong_size(const struct cursor *c, const char *what, size_t got, size_t want)
{
	fprintf(stderr, "cost: %s: entry %zu has a %s of %zu bytes, and map %s takes %zu: the "
		"dump of another map? (bpftool map show name %s)\n", c->path, c->entry, what, got,
		c->shape->map, want, c->shape->map);
	return COST_EXIT_DUMP_SIZE;
}

/* One "value" into every CPU's copy (one for a map that is not per-CPU). */
static int value_all(struct cursor *c, __u8 *value)
{
	const struct cost_dump_shape *sh = c->shape;
	size_t n;
	int err;

	blank(c);
	if (c->p < c->end && *c->p == '"')
		return syntax(c, "a value bpftool could not read (it printed a message)");
	err = hex_array(c, c->bytes, sh->value_size, &n);
	if (err)
		return err;
	if (n != sh->value_size)
		return wrong_size(c, "value", n, sh->value_size);
	for (int cpu = 0; cpu < (sh->nr_cpus ?: 1); cpu++)
		memcpy(value + cpu * sh->stride, c->bytes, sh->value_size);
	return 0;
}

static int cpu_past(const struct cursor *c, long cpu)
{
	fprintf(stderr, "cost: %s: entry %zu has a value for CPU %ld, and this host's map %s "
		"has %d: dump it on a host with as many CPUs, or give one \"value\" for all\n",
		c->path, c->entry, cpu, c->shape->map, c->shape->nr_cpus);
	return COST_EXIT_DUMP_SIZE;
}

/* A per-CPU map's "values": [{"cpu":N,"value":[...]},...]; CPUs it leaves out are zero. */
static int values_per_cpu(struct cursor *c, __u8 *value)
{
	const struct cost_dump_shape *sh = c->shape;
	const char *s;
	size_t len, n;
	int err;

	if (!sh->nr_cpus) {
		fprintf(stderr, "cost: %s: entry %zu has a value per CPU, and map %s is not "
			"per-CPU: the dump of another map?\n", c->path, c->entry, sh->map);
		return COST_EXIT_DUMP_SIZE;
	}
	if (!eat(c, '['))
		return syntax(c, "\"values\" is not a list");
	if (eat(c, ']'))
		return 0;
	do {
		bool has_value = false;
		long cpu = -1;

		if (!eat(c, '{'))
			return syntax(c, "a CPU's value is not an object");
		do {
			if (!string(c, &s, &len) || !eat(c, ':'))
				return syntax(c, "a member without its name");
			if (len == 3 && !memcmp(s, "cpu", 3)) {
				char *end;

				blank(c);
				cpu = strtol(c->p, &end, 10);
				if (end == c->p || cpu < 0)
					return syntax(c, "a CPU that is not a number");
				c->p = end;
			} else if (len == 5 && !memcmp(s, "value", 5)) {
				err = hex_array(c, c->bytes, sh->value_size, &n);
				if (err)
					return err;
				if (n != sh->value_size)
					return wrong_size(c, "value", n, sh->value_size);
				has_value = true;
			} else if (!skip_value(c, 0)) {
				return syntax(c, "a member that is not JSON");
			}
		} while (eat(c, ','));
		if (!eat(c, '}') || cpu < 0 || !has_value)
			return syntax(c, "a CPU's value without its \"cpu\", its \"value\" "
					 "or its end");
		if (cpu >= sh->nr_cpus)
			return cpu_past(c, cpu);
		memcpy(value + cpu * sh->stride, c->bytes, sh->value_size);
	} while (eat(c, ','));
	return eat(c, ']') ? 0 : syntax(c, "\"values\" without its ']'");
}

static int grow(struct cursor *c, struct cost_dump *d)
{
	size_t cap = c->cap ? c->cap * 2 : 1024;
	__u8 *keys = realloc(d->keys, cap * c->shape->key_size);
	__u8 *values;

	if (keys)
		d->keys = keys;
	values = keys ? realloc(d->values, cap * d->value_bytes) : NULL;
	if (!values) {
		fprintf(stderr, "cost: %s: %zu entries: out of memory\n", c->path, cap);
		return COST_EXIT_FAILED;
	}
	d->values = values;
	c->cap = cap;
	return 0;
}

static int entry(struct cursor *c, struct cost_dump *d)
{
	const struct cost_dump_shape *sh = c->shape;
	bool has_key = false, has_value = false;
	__u8 *key, *value;
	const char *s;
	size_t len, n;
	int err;

	if (d->nr == c->cap && (err = grow(c, d)))
		return err;
	key = d->keys + d->nr * sh->key_size;
	value = d->values + d->nr * d->value_bytes;
	memset(value, 0, d->value_bytes);
	if (!eat(c, '{'))
		return syntax(c, "an entry that is not an object");
	do {
		if (!string(c, &s, &len) || !eat(c, ':'))
			return syntax(c, "a member without its name");
		if (len == 3 && !memcmp(s, "key", 3)) {
			err = hex_array(c, key, sh->key_size, &n);
			if (!err && n != sh->key_size)
				err = wrong_size(c, "key", n, sh->key_size);
			has_key = true;
		} else if (len == 5 && !memcmp(s, "value", 5)) {
			err = value_all(c, value);
			has_value = true;
		} else if (len == 6 && !memcmp(s, "values", 6)) {
			err = values_per_cpu(c, value);
			has_value = true;
		} else if (len == 8 && !memcmp(s, "elements", 8)) {
			/* bpftool's dump of several maps: each an object with its "elements". */
			fprintf(stderr, "cost: %s: a dump of several maps (bpftool map dump -j "
				"name NAME matched more than one): dump the one map, by its id or "
				"pinned path\n", c->path);
			return COST_EXIT_DUMP_SEVERAL;
		} else {
			err = skip_value(c, 0) ? 0 : syntax(c, "a member that is not JSON");
		}
		if (err)
			return err;
	} while (eat(c, ','));
	if (!eat(c, '}'))
		return syntax(c, "an entry without its '}'");
	if (!has_key || !has_value)
		return syntax(c, "an entry without its \"key\" or its \"value\"");
	d->nr++;
	return 0;
}

bool cost_dump_is_json(const char *path)
{
	FILE *f = fopen(path, "r");
	int ch = EOF;

	if (!f)
		return false;
	while ((ch = fgetc(f)) != EOF && isspace(ch))
		;
	fclose(f);
	return ch == '[';
}

static int parse(struct cursor *c, struct cost_dump *d)
{
	int err;

	if (!eat(c, '['))
		return syntax(c, "no '[' first");
	c->entry = 1;
	if (!eat(c, ']')) {
		do {
			err = entry(c, d);
			if (err)
				return err;
			c->entry++;
		} while (eat(c, ','));
		if (!eat(c, ']'))
			return syntax(c, "entries without their ']'");
	}
	blank(c);
	return c->p == c->end ? 0 : syntax(c, "more after the entries' ']'");
}

int cost_dump_read(const char *path, const struct cost_dump_shape *shape, struct cost_dump *d)
{
	struct cursor c = { .path = path, .shape = shape };
	struct stat st;
	void *map = MAP_FAILED;
	int fd, err;

	memset(d, 0, sizeof(*d));
	d->value_bytes = shape->nr_cpus ? shape->nr_cpus * shape->stride : shape->value_size;
	fd = open(path, O_RDONLY);
	if (fd >= 0 && !fstat(fd, &st) && st.st_size)
		map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "cost: cannot read the dump %s: %s\n", path,
			fd >= 0 && !st.st_size ? "it is empty" : strerror(errno));
		if (fd >= 0)
			close(fd);
		return COST_EXIT_MAPS;
	}
	c.start = c.p = map;
	c.end = c.p + st.st_size;
	c.bytes = malloc(shape->value_size ?: 1);
	err = c.bytes ? parse(&c, d) : COST_EXIT_FAILED;
	free(c.bytes);
	munmap(map, st.st_size);
	close(fd);
	if (err)
		cost_dump_free(d);
	return err;
}

void cost_dump_free(struct cost_dump *d)
{
	free(d->keys);
	free(d->values);
	d->keys = d->values = NULL;
	d->nr = 0;
}
