/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The state a program is measured in, as its users have it: global variables
 * (.rodata, .data, .bss) set by name before the load (SET), maps filled from
 * `bpftool map dump -j` files (MAPS, cost_dump.h) with the kernel's batch
 * updates, and what the runs changed: each map's entries after the fill and
 * after the runs, so that the table says what state was measured.
 */
#ifndef FBF_COST_STATE_H
#define FBF_COST_STATE_H

#include <stdbool.h>
#include <bpf/libbpf.h>

/* Is a map of @type per-CPU: one value for each possible CPU? */
bool cost_map_is_percpu(enum bpf_map_type type);

/* Is a map of @type an array or hash of maps? */
bool cost_map_is_map_of_maps(enum bpf_map_type type);

/*
 * @size bytes from @hex, "0x" optional, two digits a byte in the order they
 * are stored: 0, or -EINVAL if it is not that many.
 */
int cost_hex_bytes(const char *hex, __u8 *out, size_t size);

/* Maps of one object the tool keeps account of: more are left unaccounted. */
#define COST_STATE_MAPS 64

struct cost_state_map {
	struct bpf_map *map;
	__u64 filled;		/* entries written from MAPS */
	const char *how;	/* "batch"; "element": no batch update for the type; "lines" */
	double fill_s;		/* seconds to read and write them */
	bool counted;		/* of a type whose entries can be counted: state, not events */
	__u64 before, after;	/* entries after the fill and after the runs (arrays: non-zero) */
	__u64 digest_before, digest_after;	/* of the entries, in any order */
};

/* A map of maps' inner map as the object declares it, kept for MAPS's per-cpu. */
struct cost_state_inner {
	const struct bpf_map *outer;
	enum bpf_map_type type;
	__u32 key_size, value_size, max_entries, flags;
	bool filled;		/* given a map per CPU: its maps' entries are counted */
	int proto_fd;		/* MAPS's definition, made for the load, or -1 */
};

struct cost_state {
	struct cost_state_map maps[COST_STATE_MAPS];
	int nr;
	const char *object;	/* the object's path, which a line about its maps names */
	struct cost_state_inner inner[COST_STATE_MAPS];
	int nr_inner;
};

/*
 * Before @obj is loaded: each array or hash of maps' inner map definition,
 * which libbpf frees once it has made the map, kept for
 * cost_state_fill_per_cpu(). A map of maps that declares none (Katran's,
 * whose loader gives the kernel a prototype) takes its definition from a line
 * of the MAPS file @maps, "MAP per-cpu TYPE KEY_SIZE VALUE_SIZE MAX_ENTRIES",
 * made here into such a prototype. 0, or one line and COST_EXIT_NO_INNER (no
 * such line: the kernel makes no map of maps without one) or COST_EXIT_MAPS.
 */
int cost_state_keep_inner(struct cost_state *st, struct bpf_object *obj, const char *maps);

/* After the load, whatever came of it: the prototypes cost_state_keep_inner() made, closed. */
void cost_state_loaded(struct cost_state *st);

/*
 * Before the load: each "NAME=VALUE" of the comma-separated @set written into
 * the object's global variable NAME: an integer (decimal, 0x hex, negative
 * for a signed type) for an integer or enum, stored in network order where
 * its type is a __be16, __be32 or __be64, else the variable's bytes in hex
 * ("0x0a000001"), as many as it has. Returns 0, or prints one line and
 * returns COST_EXIT_USAGE (not NAME=VALUE), COST_EXIT_NO_GLOBAL (no such
 * variable; the line names those the object has) or COST_EXIT_GLOBAL_FIT.
 */
int cost_state_set_globals(struct bpf_object *obj, const char *path, const char *set);

/*
 * Is @path bpftool's JSON: a dump, or a directory of them, rather than a file
 * of "MAP KEY VALUE" lines?
 */
bool cost_state_is_dump(const char *path);

/*
 * After the load: the maps of the dump in @path, or of each NAME.json dump in
 * the directory @path, filled. A dump fills the map its file is named after
 * (NAME.json, NAME as bpftool map show names the map). Returns 0, or prints
 * one line and returns COST_EXIT_MAPS (not a dump, or the map refused an
 * entry), COST_EXIT_DUMP_MAP (no map of that name; cost_state_no_map()) or
 * COST_EXIT_DUMP_SIZE.
 */
int cost_state_fill_dumps(struct cost_state *st, struct bpf_object *obj, const char *path);

/*
 * MAPS names a map the object lacks: one line at @where (a dump's file, a line's
 * FILE:LINE) naming the object (@st's) and its maps, @how saying how MAPS names a
 * map, and COST_EXIT_DUMP_MAP, whichever way MAPS was given.
 */
int cost_state_no_map(const struct cost_state *st, struct bpf_object *obj, const char *where,
		      const char *name, const char *how);

/*
 * A MAPS line "MAP per-cpu": the array or hash of maps @map given one map per
 * possible CPU at keys 0, 1, ..., each made as its inner map is declared (type,
 * sizes, entries, flags), as a per-CPU design's loader fills it (Katran's
 * connection tables), where the object leaves every slot empty; their entries
 * are then counted, summed, as the map's (cost_state_count()). 0, or one line
 * at @where and COST_EXIT_NOT_MAP_OF_MAPS (no map of maps, or keys that are
 * not a __u32), COST_EXIT_PER_CPU_FIT (fewer entries than possible CPUs) or
 * COST_EXIT_MAPS (the kernel refused a map).
 */
#define COST_STATE_PER_CPU "per-cpu"
int cost_state_fill_per_cpu(struct cost_state *st, struct bpf_map *map, const char *where);

/* @n entries written into @map from MAPS's lines, one call each. */
void cost_state_filled(struct cost_state *st, struct bpf_map *map, __u64 n);

/*
 * Each map's entries counted, after the fill (@after false) or after the
 * runs: 0, or -errno.
 */
int cost_state_count(struct cost_state *st, struct bpf_object *obj, bool after);

/*
 * "#filled<TAB>ARM<TAB>MAP<TAB>TYPE<TAB>ENTRIES<TAB>HOW<TAB>SECONDS<TAB>INNER" for
 * each map filled (HOW: batch, element, lines or per-cpu, as cost_state_map says;
 * INNER: the type of the maps per-cpu made, else -; ENTRIES: per-cpu's maps), and
 * after runs (@measured) the maps' entries counted again, and for each map
 * counted "#changed<TAB>ARM<TAB>MAP<TAB>TYPE<TAB>BEFORE<TAB>AFTER<TAB>UNIT<TAB>WHETHER"
 * (UNIT: entries, or non-zero for an array; WHETHER: changed or same; a map
 * of maps filled per CPU: its maps' entries, summed), which
 * bench/cost/cost_report.py reads.
 */
void cost_state_print(struct cost_state *st, struct bpf_object *obj, const char *arm,
		      bool measured);

#endif /* FBF_COST_STATE_H */
