/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A map's entries as `bpftool map dump -j` prints them (bpftool 7.1):
 *
 *   [{"key":["0x01","0x00",...],"value":["0x02",...]},...]
 *
 * with a per-CPU map's "values":[{"cpu":0,"value":[...]},...] in place of
 * "value", and, where the map has BTF, a "formatted" member beside them that
 * is skipped: the hex bytes are the map's own, whatever its types. Read in one
 * pass, without a tree, so that a dump of a million entries costs a fraction
 * of a second to read.
 */
#ifndef FBF_COST_DUMP_H
#define FBF_COST_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* The shape of the map a dump is read for. */
struct cost_dump_shape {
	const char *map;	/* its name, for the messages */
	size_t key_size;
	size_t value_size;
	int nr_cpus;		/* a per-CPU map's possible CPUs; 0 for any other */
	size_t stride;		/* one CPU's value in a per-CPU map's buffer: value_size to 8 */
};

/*
 * The entries, keys and values as the kernel's batch update takes them: a
 * per-CPU map's value is nr_cpus values, each @stride bytes apart.
 */
struct cost_dump {
	__u8 *keys;
	__u8 *values;
	size_t nr;
	size_t value_bytes;	/* one entry's in @values */
};

/*
 * Is @path bpftool's JSON (its first character that is not blank an '['),
 * rather than the "MAP KEY VALUE" lines?
 */
bool cost_dump_is_json(const char *path);

/*
 * The dump in @path for a map of @shape into @d. A value given once fills
 * every CPU of a per-CPU map; a CPU the dump names past this host's is
 * refused. Returns 0, or prints one line and returns COST_EXIT_MAPS (not
 * bpftool's JSON) or COST_EXIT_DUMP_SIZE (a key or value of another size:
 * the dump of another map). cost_dump_free() in either case.
 */
int cost_dump_read(const char *path, const struct cost_dump_shape *shape, struct cost_dump *d);

void cost_dump_free(struct cost_dump *d);

#endif /* FBF_COST_DUMP_H */
