// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The state a program is measured in: see cost_state.h. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "cost_dump.h"
#include "cost_exits.h"
#include "cost_state.h"

/* The kernel's errno for a map type without the operation (not in userspace's headers). */
#define ENOTSUPP_KERNEL 524
/* Entries a batch of lookups reads while counting a map's entries. */
#define COUNT_BATCH 4096
/* A map's name as the kernel keeps it, and bpftool shows it: 15 characters. */
#define KERNEL_NAME_LEN (BPF_OBJ_NAME_LEN - 1)

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct cost_state_map *slot(struct cost_state *st, struct bpf_map *map)
{
	for (int i = 0; i < st->nr; i++)
		if (st->maps[i].map == map)
			return &st->maps[i];
	if (st->nr == COST_STATE_MAPS)
		return NULL;
	memset(&st->maps[st->nr], 0, sizeof(st->maps[0]));
	st->maps[st->nr].map = map;
	return &st->maps[st->nr++];
}

bool cost_map_is_percpu(enum bpf_map_type type)
{
	return type == BPF_MAP_TYPE_PERCPU_ARRAY || type == BPF_MAP_TYPE_PERCPU_HASH ||
	       type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
}

bool cost_map_is_map_of_maps(enum bpf_map_type type)
{
	return type == BPF_MAP_TYPE_ARRAY_OF_MAPS || type == BPF_MAP_TYPE_HASH_OF_MAPS;
}

static bool is_array(enum bpf_map_type type)
{
	return type == BPF_MAP_TYPE_ARRAY || type == BPF_MAP_TYPE_PERCPU_ARRAY;
}

/* Map types whose entries userspace can walk and read: state, not events or maps. */
static bool is_countable(enum bpf_map_type type)
{
	return is_array(type) || type == BPF_MAP_TYPE_HASH || type == BPF_MAP_TYPE_PERCPU_HASH ||
	       type == BPF_MAP_TYPE_LRU_HASH || type == BPF_MAP_TYPE_LRU_PERCPU_HASH ||
	       type == BPF_MAP_TYPE_LPM_TRIE;
}

/*
 * One value's bytes in a lookup or update of a map of @type: a per-CPU map's,
 * one 8-aligned copy per CPU.
 */
static size_t value_bytes(enum bpf_map_type type, __u32 value_size, int *nr_cpus,
			  size_t *stride)
{
	*nr_cpus = cost_map_is_percpu(type) ? libbpf_num_possible_cpus() : 0;
	*stride = *nr_cpus ? (value_size + 7) / 8 * 8 : value_size;
	return *stride * (*nr_cpus ?: 1);
}

int cost_hex_bytes(const char *hex, __u8 *out, size_t size)
{
	if (!strncmp(hex, "0x", 2))
		hex += 2;
	if (strlen(hex) != 2 * size)
		return -EINVAL;
	for (size_t i = 0; i < size; i++) {
		char byte[3] = { hex[2 * i], hex[2 * i + 1], '\0' };

		if (!isxdigit((unsigned char)byte[0]) || !isxdigit((unsigned char)byte[1]))
			return -EINVAL;
		out[i] = strtoul(byte, NULL, 16);
	}
	return 0;
}

/* --- Global variables --- */

/* The datasec variable @name: its map (.rodata, .data, .bss), offset and size. */
static const struct btf_var_secinfo *find_global(struct bpf_object *obj, const char *name,
						 struct bpf_map **map)
{
	const struct btf *btf = bpf_object__btf(obj);

	for (__u32 id = 1; btf && id < btf__type_cnt(btf); id++) {
		const struct btf_type *sec = btf__type_by_id(btf, id);
		const struct btf_var_secinfo *vsi = btf_var_secinfos(sec);

		if (!btf_is_datasec(sec))
			continue;
		for (int i = 0; i < btf_vlen(sec); i++, vsi++) {
			const struct btf_type *var = btf__type_by_id(btf, vsi->type);
			const char *sec_name = btf__name_by_offset(btf, sec->name_off);

			if (!btf_is_var(var) ||
			    strcmp(btf__name_by_offset(btf, var->name_off), name))
				continue;
			*map = bpf_object__find_map_by_name(obj, sec_name);
			if (*map)
				return vsi;
		}
	}
	return NULL;
}

/* The variables @obj has, for a message: "a, b, c" into @buf. */
static void list_globals(struct bpf_object *obj, char *buf, size_t size)
{
	const struct btf *btf = bpf_object__btf(obj);
	size_t len = 0;

	buf[0] = '\0';
	for (__u32 id = 1; btf && id < btf__type_cnt(btf); id++) {
		const struct btf_type *sec = btf__type_by_id(btf, id);
		const struct btf_var_secinfo *vsi = btf_var_secinfos(sec);
		const char *sec_name = btf__name_by_offset(btf, sec->name_off);

		/* The data sections libbpf makes maps of: not .maps, license or .kconfig. */
		if (!btf_is_datasec(sec) || (strncmp(sec_name, ".rodata", 7) &&
		    strncmp(sec_name, ".data", 5) && strncmp(sec_name, ".bss", 4)))
			continue;
		for (int i = 0; i < btf_vlen(sec) && len < size; i++, vsi++) {
			const struct btf_type *var = btf__type_by_id(btf, vsi->type);

			len += snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
					btf__name_by_offset(btf, var->name_off));
		}
	}
	if (!buf[0])
		snprintf(buf, size, "none");
}

/* @v's low @size bytes, in network order or the host's, as the program reads its variable. */
static void put_low_bytes(__u8 *out, unsigned long long v, size_t size, bool network)
{
	for (size_t i = 0; i < size; i++, v >>= 8)
		out[network ? size - 1 - i : i] = v & 0xff;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	if (!network)
		for (size_t i = 0; i < size / 2; i++) {
			__u8 b = out[i];

			out[i] = out[size - 1 - i];
			out[size - 1 - i] = b;
		}
#endif
}

/*
 * Is the variable of type @id in network order: a __be16, __be32 or __be64
 * (an address, a port), whatever const or volatile wraps it?
 */
static bool is_network_order(const struct btf *btf, __u32 id)
{
	for (int depth = 0; id && depth < 32; depth++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (btf_is_typedef(t) && !strncmp(btf__name_by_offset(btf, t->name_off), "__be", 4))
			return true;
		if (!btf_is_mod(t) && !btf_is_typedef(t) && !btf_is_var(t))
			return false;
		id = t->type;
	}
	return false;
}

/* An integer @text into @out's @size bytes, in the order the program reads, if it fits. */
static bool put_integer(const char *text, bool is_signed, bool network, __u8 *out, size_t size)
{
	int bits = size * 8;
	char *end;

	if (!size || size > sizeof(long long))
		return false;	/* a 128-bit integer is given as its bytes */
	errno = 0;
	if (is_signed) {
		long long v = strtoll(text, &end, 0);
		long long lim = bits < 64 ? 1LL << (bits - 1) : 0;

		if (*end || end == text || errno || (bits < 64 && (v < -lim || v >= lim)))
			return false;
		put_low_bytes(out, v, size, network);
	} else {
		unsigned long long v = strtoull(text, &end, 0);

		if (*end || end == text || errno || *text == '-' ||
		    (bits < 64 && v >> bits))
			return false;
		put_low_bytes(out, v, size, network);
	}
	return true;
}

/* One NAME=VALUE into its variable's bytes in its map's initial value. */
static int set_global(struct bpf_object *obj, const char *path, char *assignment)
{
	const struct btf *btf = bpf_object__btf(obj);
	const struct btf_var_secinfo *vsi;
	const struct btf_type *type;
	char *eq = strchr(assignment, '='), names[512];
	struct bpf_map *map;
	const void *init;
	size_t size;
	__u8 *data;
	bool ok, network;
	int err;

	if (!eq || eq == assignment || !eq[1]) {
		fprintf(stderr, "cost: SET: '%s' is not NAME=VALUE\n", assignment);
		return COST_EXIT_USAGE;
	}
	*eq = '\0';
	vsi = find_global(obj, assignment, &map);
	if (!vsi) {
		list_globals(obj, names, sizeof(names));
		fprintf(stderr, "cost: SET: %s has no global variable %s (it has: %s)\n", path,
			assignment, names);
		return COST_EXIT_NO_GLOBAL;
	}
	init = bpf_map__initial_value(map, &size);
	data = init ? malloc(size) : NULL;
	if (!data || vsi->offset + vsi->size > size) {
		free(data);
		fprintf(stderr, "cost: SET: %s's %s could not be read\n", path, assignment);
		return COST_EXIT_FAILED;
	}
	memcpy(data, init, size);
	/* The variable's type, through its typedefs, const and volatile. */
	type = btf__type_by_id(btf, btf__resolve_type(btf, vsi->type));
	network = is_network_order(btf, vsi->type);
	if (btf_is_int(type))
		ok = put_integer(eq + 1, btf_int_encoding(type) & BTF_INT_SIGNED, network,
				 data + vsi->offset, vsi->size);
	else if (btf_is_any_enum(type))
		ok = put_integer(eq + 1, btf_kflag(type), network, data + vsi->offset, vsi->size);
	else
		ok = false;
	/* Any variable may be given as its bytes: a struct, an array, an address. */
	ok = ok || !cost_hex_bytes(eq + 1, data + vsi->offset, vsi->size);
	err = ok ? bpf_map__set_initial_value(map, data, size) : 0;
	free(data);
	if (!ok) {
		fprintf(stderr, "cost: SET: %s=%s does not fit %s, a variable of %u bytes: give "
			"%sits %u bytes in hex (0x...)\n", assignment, eq + 1, assignment,
			vsi->size, btf_is_int(type) || btf_is_any_enum(type) ?
			"an integer it can hold, or " : "", vsi->size);
		return COST_EXIT_GLOBAL_FIT;
	}
	if (err) {
		fprintf(stderr, "cost: SET: %s: %s\n", assignment, strerror(-err));
		return COST_EXIT_FAILED;
	}
	return 0;
}

int cost_state_set_globals(struct bpf_object *obj, const char *path, const char *set)
{
	char *list = set ? strdup(set) : NULL, *tok, *save;
	int err = 0;

	if (set && !list)
		return COST_EXIT_FAILED;
	for (tok = list ? strtok_r(list, ",", &save) : NULL; tok && !err;
	     tok = strtok_r(NULL, ",", &save))
		err = set_global(obj, path, tok);
	free(list);
	return err;
}

/* --- Maps from dumps --- */

bool cost_state_is_dump(const char *path)
{
	struct stat st;

	return (!stat(path, &st) && S_ISDIR(st.st_mode)) || cost_dump_is_json(path);
}

/* The map a dump's file names: by its object name, or as the kernel cut it to 15 characters. */
static struct bpf_map *find_map(struct bpf_object *obj, const char *name)
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, name);

	if (map || strlen(name) != KERNEL_NAME_LEN)
		return map;
	bpf_object__for_each_map(map, obj)
		if (!strncmp(bpf_map__name(map), name, KERNEL_NAME_LEN))
			return map;
	return NULL;
}

int cost_state_no_map(const struct cost_state *st, struct bpf_object *obj, const char *where,
		      const char *name, const char *how)
{
	struct bpf_map *map;
	char names[512];
	size_t len = 0;

	names[0] = '\0';
	bpf_object__for_each_map(map, obj)
		if (len < sizeof(names))
			len += snprintf(names + len, sizeof(names) - len, "%s%s", len ? ", " : "",
					bpf_map__name(map));
	fprintf(stderr, "cost: %s: the object %s has no map named %s (%s; its maps: %s)\n",
		where, st->object ?: "", name, how, names);
	return COST_EXIT_DUMP_MAP;
}

/* A map of maps whose inner map neither the object nor MAPS defines: the kernel makes none. */
static int no_inner(const struct cost_state *st, const struct bpf_map *map)
{
	fprintf(stderr, "cost: %s: %s (%s) declares no inner map, which its own loader gives "
		"(as Katran's sets a prototype): give its definition in MAPS, a line %s %s TYPE "
		"KEY_SIZE VALUE_SIZE MAX_ENTRIES (bpftool map show of one of its maps), or declare "
		"it in the object, __array(values, struct INNER)\n", st->object ?: "",
		bpf_map__name(map), libbpf_bpf_map_type_str(bpf_map__type(map)), bpf_map__name(map),
		COST_STATE_PER_CPU);
	return COST_EXIT_NO_INNER;
}

/* The map type bpftool and libbpf name @name ("lru_hash"), or BPF_MAP_TYPE_UNSPEC. */
static enum bpf_map_type map_type_named(const char *name)
{
	const char *s;

	for (int t = BPF_MAP_TYPE_UNSPEC + 1; (s = libbpf_bpf_map_type_str(t)); t++)
		if (!strcmp(s, name))
			return t;
	return BPF_MAP_TYPE_UNSPEC;
}

/*
 * The inner map a line "@name per-cpu TYPE KEY_SIZE VALUE_SIZE MAX_ENTRIES" of the
 * MAPS file @maps defines (a dump defines none): 0, -ENOENT where no line does, or
 * one line and COST_EXIT_MAPS.
 */
static int inner_from_lines(const char *maps, const char *name, struct cost_state_inner *in)
{
	FILE *f = maps && !cost_state_is_dump(maps) ? fopen(maps, "r") : NULL;
	char line[4096], map[256], how[16], type[64], extra[2];
	int line_no = 0, err = -ENOENT;

	while (f && err == -ENOENT && fgets(line, sizeof(line), f)) {
		int n = sscanf(line, "%255s %15s %63s %u %u %u %1s", map, how, type, &in->key_size,
			       &in->value_size, &in->max_entries, extra);

		line_no++;
		if (n <= 2 || strcmp(map, name) || strcmp(how, COST_STATE_PER_CPU))
			continue;
		in->type = map_type_named(type);
		err = 0;
		if (n != 6 || !in->type) {
			fprintf(stderr, "cost: %s:%d: not MAP %s TYPE KEY_SIZE VALUE_SIZE "
				"MAX_ENTRIES (TYPE as bpftool map show names it, lru_hash; "
				"sizes in bytes)\n", maps, line_no, COST_STATE_PER_CPU);
			err = COST_EXIT_MAPS;
		}
	}
	if (f)
		fclose(f);
	return err;
}

/*
 * @map's inner map from a MAPS line, made here as a prototype that the kernel
 * makes the map of maps by, as the object's own loader would give it.
 */
static int inner_given(struct cost_state *st, struct bpf_map *map, const char *maps,
		       struct cost_state_inner *in)
{
	int err = inner_from_lines(maps, bpf_map__name(map), in);

	if (err == -ENOENT)
		return no_inner(st, map);
	if (err)
		return err;
	in->proto_fd = bpf_map_create(in->type, NULL, in->key_size, in->value_size,
				      in->max_entries, NULL);
	if (in->proto_fd < 0 || bpf_map__set_inner_map_fd(map, in->proto_fd)) {
		if (in->proto_fd >= 0)
			close(in->proto_fd);
		fprintf(stderr, "cost: %s: %s's inner map as MAPS defines it (%s, key %u, value "
			"%u, %u entries): %s\n", maps, bpf_map__name(map),
			libbpf_bpf_map_type_str(in->type), in->key_size, in->value_size,
			in->max_entries, strerror(errno));
		return COST_EXIT_MAPS;
	}
	return 0;
}

int cost_state_keep_inner(struct cost_state *st, struct bpf_object *obj, const char *maps)
{
	struct bpf_map *map;

	st->nr_inner = 0;
	bpf_object__for_each_map(map, obj) {
		const struct bpf_map *in = bpf_map__inner_map(map);
		struct cost_state_inner *kept = &st->inner[st->nr_inner];
		int err;

		/* One given its map already (cost_events.h) needs no inner map to be made. */
		if (!cost_map_is_map_of_maps(bpf_map__type(map)) || bpf_map__fd(map) >= 0 ||
		    st->nr_inner == COST_STATE_MAPS)
			continue;
		*kept = (struct cost_state_inner){ .outer = map, .proto_fd = -1 };
		if (!in) {
			err = inner_given(st, map, maps, kept);
			if (err) {
				cost_state_loaded(st);
				return err;
			}
		} else {
			kept->type = bpf_map__type(in);
			kept->key_size = bpf_map__key_size(in);
			kept->value_size = bpf_map__value_size(in);
			kept->max_entries = bpf_map__max_entries(in);
			kept->flags = bpf_map__map_flags(in);
		}
		st->nr_inner++;
	}
	return 0;
}

void cost_state_loaded(struct cost_state *st)
{
	for (int i = 0; i < st->nr_inner; i++)
		if (st->inner[i].proto_fd >= 0) {
			close(st->inner[i].proto_fd);
			st->inner[i].proto_fd = -1;
		}
}

static struct cost_state_inner *kept_inner(struct cost_state *st, const struct bpf_map *map)
{
	for (int i = 0; i < st->nr_inner; i++)
		if (st->inner[i].outer == map)
			return &st->inner[i];
	return NULL;
}

/* Can @map take a map per CPU, keyed by the CPU's index? 0, or one line and its status. */
static int per_cpu_fits(const struct bpf_map *map, const char *where, int cpus)
{
	if (!cost_map_is_map_of_maps(bpf_map__type(map))) {
		fprintf(stderr, "cost: %s: %s fills an array or hash of maps, one map per CPU, and "
			"%s is of type %s: give its entries as MAP KEY VALUE lines\n", where,
			COST_STATE_PER_CPU, bpf_map__name(map),
			libbpf_bpf_map_type_str(bpf_map__type(map)));
		return COST_EXIT_NOT_MAP_OF_MAPS;
	}
	if (bpf_map__key_size(map) != sizeof(__u32)) {
		fprintf(stderr, "cost: %s: %s keys each CPU's map by the CPU's index, a __u32, and "
			"%s's keys are %u bytes\n", where, COST_STATE_PER_CPU,
			bpf_map__name(map), bpf_map__key_size(map));
		return COST_EXIT_NOT_MAP_OF_MAPS;
	}
	if (cpus > 0 && (__u32)cpus > bpf_map__max_entries(map)) {
		fprintf(stderr, "cost: %s: %s holds at most %u, and this host has %d possible "
			"CPUs: one map each does not fit; declare max_entries of %d or more\n",
			where, bpf_map__name(map), bpf_map__max_entries(map), cpus, cpus);
		return COST_EXIT_PER_CPU_FIT;
	}
	return 0;
}

int cost_state_fill_per_cpu(struct cost_state *st, struct bpf_map *map, const char *where)
{
	struct cost_state_inner *inner = kept_inner(st, map);
	int cpus = libbpf_num_possible_cpus(), outer = bpf_map__fd(map), err;
	struct cost_state_map *sm;

	err = per_cpu_fits(map, where, cpus);
	if (err)
		return err;
	if (!inner) {
		/* An array of queues or rings: cost_events.h gave it its CPUs' maps. */
		fprintf(stderr, "cost: %s: %s holds the tool's own map per CPU already, as an "
			"array of event maps: leave the line out\n", where, bpf_map__name(map));
		return COST_EXIT_MAPS;
	}
	for (__u32 cpu = 0; cpus > 0 && !err && cpu < (__u32)cpus; cpu++) {
		LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = inner->flags);
		int fd = bpf_map_create(inner->type, NULL, inner->key_size, inner->value_size,
					inner->max_entries, &opts);

		/* The outer map holds the map from here on. */
		err = fd < 0 || bpf_map_update_elem(outer, &cpu, &fd, BPF_ANY) ? -errno : 0;
		if (fd >= 0)
			close(fd);
	}
	if (cpus < 0 || err) {
		fprintf(stderr, "cost: %s: a map per CPU into %s: %s\n", where, bpf_map__name(map),
			strerror(cpus < 0 ? -cpus : -err));
		return COST_EXIT_MAPS;
	}
	inner->filled = true;
	cost_state_filled(st, map, cpus);
	sm = slot(st, map);
	if (sm)
		sm->how = COST_STATE_PER_CPU;
	return 0;
}

/* Why the map refused entry @i of @file: one line, and its status. */
static int refused(const struct bpf_map *map, const char *file, size_t i, int err)
{
	if (err == E2BIG && is_array(bpf_map__type(map))) {
		fprintf(stderr, "cost: %s: entry %zu's key is past the end of array %s (%u "
			"%s): the dump of a larger map?\n", file, i + 1, bpf_map__name(map),
			bpf_map__max_entries(map),
			bpf_map__max_entries(map) == 1 ? "entry" : "entries");
		return COST_EXIT_DUMP_SIZE;
	}
	if (err == E2BIG) {
		fprintf(stderr, "cost: %s: map %s is full at entry %zu (max_entries %u): the dump "
			"of a larger map?\n", file, bpf_map__name(map), i + 1,
			bpf_map__max_entries(map));
		return COST_EXIT_DUMP_SIZE;
	}
	fprintf(stderr, "cost: %s: entry %zu: map %s refused it: %s\n", file, i + 1,
		bpf_map__name(map), strerror(err));
	return COST_EXIT_MAPS;
}

/*
 * Every entry of @d into @map in one batch update (5.6; the kernel walks the
 * entries itself); one call an entry where the map type has no batch update.
 */
static int write_dump(struct cost_state_map *sm, const char *file, const struct cost_dump *d)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts, .elem_flags = BPF_ANY);
	int fd = bpf_map__fd(sm->map);
	size_t key_size = bpf_map__key_size(sm->map), done = 0;
	__u32 count = d->nr;

	if (!d->nr)
		return 0;
	if (!bpf_map_update_batch(fd, d->keys, d->values, &count, &opts))
		return 0;
	if (errno != ENOTSUPP_KERNEL && errno != EOPNOTSUPP)
		return refused(sm->map, file, count, errno);
	sm->how = "element";
	for (; done < d->nr; done++)
		if (bpf_map_update_elem(fd, d->keys + done * key_size,
					d->values + done * d->value_bytes, BPF_ANY))
			return refused(sm->map, file, done, errno);
	return 0;
}

static int fill_dump(struct cost_state *st, struct bpf_object *obj, const char *file,
		     const char *name)
{
	struct cost_dump_shape shape = { .map = name };
	struct cost_state_map *sm;
	struct cost_dump d;
	struct bpf_map *map = find_map(obj, name);
	double start = now_s();
	int err;

	if (!map)
		return cost_state_no_map(st, obj, file, name, "a dump fills the map its file is "
					 "named after, NAME.json");
	sm = slot(st, map);
	if (!sm) {
		fprintf(stderr, "cost: %s: more than %d maps filled\n", file, COST_STATE_MAPS);
		return COST_EXIT_MAPS;
	}
	shape.key_size = bpf_map__key_size(map);
	shape.value_size = bpf_map__value_size(map);
	value_bytes(bpf_map__type(map), shape.value_size, &shape.nr_cpus, &shape.stride);
	err = cost_dump_read(file, &shape, &d);
	if (err)
		return err;
	err = write_dump(sm, file, &d);
	if (!err)
		sm->filled += d.nr;
	sm->fill_s += now_s() - start;
	cost_dump_free(&d);
	return err;
}

/* NAME.json: the map's name, or NULL for any other file. */
static char *dump_name(const char *file)
{
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	size_t len = strlen(base);

	if (len <= 5 || strcmp(base + len - 5, ".json"))
		return strdup(base);
	return strndup(base, len - 5);
}

static int is_json_file(const struct dirent *e)
{
	size_t len = strlen(e->d_name);

	return e->d_name[0] != '.' && len > 5 && !strcmp(e->d_name + len - 5, ".json");
}

int cost_state_fill_dumps(struct cost_state *st, struct bpf_object *obj, const char *path)
{
	struct dirent **files;
	char file[PATH_MAX], *name;
	struct stat sb;
	int n, err = 0;

	if (stat(path, &sb) || !S_ISDIR(sb.st_mode)) {
		name = dump_name(path);
		err = name ? fill_dump(st, obj, path, name) : COST_EXIT_FAILED;
		free(name);
		return err;
	}
	n = scandir(path, &files, is_json_file, alphasort);
	if (n <= 0) {
		fprintf(stderr, "cost: MAPS: %s holds no dump: one NAME.json a map, from bpftool "
			"map dump -j name NAME\n", path);
		if (n == 0)
			free(files);
		return COST_EXIT_MAPS;
	}
	for (int i = 0; i < n; i++) {
		snprintf(file, sizeof(file), "%s/%s", path, files[i]->d_name);
		name = err ? NULL : dump_name(file);
		if (name)
			err = fill_dump(st, obj, file, name);
		free(name);
		free(files[i]);
	}
	free(files);
	return err;
}

void cost_state_filled(struct cost_state *st, struct bpf_map *map, __u64 n)
{
	struct cost_state_map *sm = slot(st, map);

	if (sm) {
		sm->filled += n;
		sm->how = "lines";
	}
}

/* --- What the runs changed --- */

static __u64 fnv1a(__u64 h, const __u8 *p, size_t n)
{
	while (n--)
		h = (h ^ *p++) * 0x100000001b3ULL;
	return h;
}

/* What a census of a map's entries adds up: how many, and a digest of them in any order. */
struct census {
	size_t key_size, value_bytes;
	bool array;		/* count an entry only if its value is not all zero */
	__u64 entries, digest;
};

static void tally(struct census *c, const __u8 *key, const __u8 *value)
{
	bool zero = true;

	for (size_t i = 0; c->array && zero && i < c->value_bytes; i++)
		zero = !value[i];
	if (c->array && zero)
		return;
	c->entries++;
	c->digest += fnv1a(fnv1a(0xcbf29ce484222325ULL, key, c->key_size), value, c->value_bytes);
}

/*
 * Every entry in batches of lookups (5.6: arrays and hashes), a few thousand
 * a call: 0, -EOPNOTSUPP where the map type has none, or -errno.
 */
static int census_batched(int fd, struct census *c, __u8 *keys, __u8 *values)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	/* A hash's position is a bucket's index, an array's a key: room for either. */
	__u64 token[2][4] = {};
	bool first = true;

	for (;;) {
		__u32 count = COUNT_BATCH;
		int err = bpf_map_lookup_batch(fd, first ? NULL : token[0], token[1], keys, values,
					       &count, &opts);

		/* Too many entries in one hash bucket for a batch: walked one by one. */
		if (err && first && (errno == ENOTSUPP_KERNEL || errno == EOPNOTSUPP ||
				     errno == EINVAL || errno == ENOSPC))
			return -EOPNOTSUPP;
		if (err && errno != ENOENT)
			return -errno;
		for (__u32 i = 0; i < count; i++)
			tally(c, keys + i * c->key_size, values + i * c->value_bytes);
		if (err)
			return 0;
		memcpy(token[0], token[1], sizeof(token[0]));
		first = false;
	}
}

/* Every entry, one key and one lookup at a time: for map types without batches. */
static int census_walked(int fd, struct census *c, __u8 *key, __u8 *next, __u8 *value)
{
	void *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, next)) {
		memcpy(key, next, c->key_size);
		prev = key;
		/* Gone since: an LRU's eviction, the program's delete. */
		if (!bpf_map_lookup_elem(fd, key, value))
			tally(c, key, value);
	}
	return errno == ENOENT ? 0 : -errno;
}

/*
 * The entries of map @fd, of @type and sizes (an array's: those not all zero),
 * and a digest of them in any order.
 */
static int count_entries(int fd, enum bpf_map_type type, __u32 key_size, __u32 value_size,
			 __u64 *entries, __u64 *digest)
{
	struct census c = { .key_size = key_size, .array = is_array(type) };
	int nr_cpus, err = -ENOMEM;
	size_t stride;
	__u8 *keys, *values;

	c.value_bytes = value_bytes(type, value_size, &nr_cpus, &stride);
	keys = calloc(COUNT_BATCH, c.key_size);
	values = calloc(COUNT_BATCH, c.value_bytes);
	if (keys && values)
		err = census_batched(fd, &c, keys, values);
	if (err == -EOPNOTSUPP) {
		c.entries = c.digest = 0;
		err = census_walked(fd, &c, keys, keys + c.key_size, values);
	}
	free(keys);
	free(values);
	*entries = c.entries;
	*digest = c.digest;
	return err;
}

/*
 * The entries of every map that the map of maps @outer holds, summed: the
 * state a per-CPU design keeps in its CPUs' maps, whichever map the program
 * found in each slot.
 */
static int count_inner(const struct cost_state_inner *inner, int outer, __u64 *entries,
		       __u64 *digest)
{
	__u32 key, next, id;
	void *prev = NULL;

	*entries = *digest = 0;
	while (!bpf_map_get_next_key(outer, prev, &next)) {
		__u64 n, d;
		int fd, err;

		key = next;
		prev = &key;
		/* A slot left empty (an array's past the CPUs) holds no entry. */
		if (bpf_map_lookup_elem(outer, &key, &id))
			continue;
		fd = bpf_map_get_fd_by_id(id);
		if (fd < 0)
			return -errno;
		err = count_entries(fd, inner->type, inner->key_size, inner->value_size, &n, &d);
		close(fd);
		if (err)
			return err;
		*entries += n;
		*digest += fnv1a(d, (const __u8 *)&key, sizeof(key));
	}
	return errno == ENOENT ? 0 : -errno;
}

/* @map's entries; a map of maps MAPS filled per CPU: its maps' entries, summed. */
static int count_map(struct cost_state *st, const struct bpf_map *map, __u64 *entries,
		     __u64 *digest)
{
	const struct cost_state_inner *inner = kept_inner(st, map);

	if (inner && inner->filled)
		return count_inner(inner, bpf_map__fd(map), entries, digest);
	return count_entries(bpf_map__fd(map), bpf_map__type(map), bpf_map__key_size(map),
			     bpf_map__value_size(map), entries, digest);
}

/* Is @map state whose entries the runs may change, and can be counted? */
static bool is_counted(struct cost_state *st, const struct bpf_map *map)
{
	const struct cost_state_inner *inner = kept_inner(st, map);

	if (inner && inner->filled)
		return is_countable(inner->type);
	/* What the program cannot write (.rodata) cannot change. */
	return is_countable(bpf_map__type(map)) && !(bpf_map__map_flags(map) & BPF_F_RDONLY_PROG);
}

int cost_state_count(struct cost_state *st, struct bpf_object *obj, bool after)
{
	struct bpf_map *map;

	bpf_object__for_each_map(map, obj) {
		struct cost_state_map *sm;
		int err;

		if (!is_counted(st, map))
			continue;
		sm = slot(st, map);
		if (!sm)
			return 0;
		sm->counted = true;
		err = count_map(st, map, after ? &sm->after : &sm->before,
				after ? &sm->digest_after : &sm->digest_before);
		if (err)
			return err;
	}
	return 0;
}

static const char *type_name(const struct bpf_map *map)
{
	return libbpf_bpf_map_type_str(bpf_map__type(map)) ?: "map";
}

void cost_state_print(struct cost_state *st, struct bpf_object *obj, const char *arm,
		      bool measured)
{
	int err = measured ? cost_state_count(st, obj, true) : 0;

	if (err)
		fprintf(stderr, "cost: %s: counting its maps' entries: %s\n", arm, strerror(-err));
	for (int i = 0; i < st->nr; i++) {
		const struct cost_state_map *sm = &st->maps[i];
		const struct cost_state_inner *inner = kept_inner(st, sm->map);

		if (sm->filled)
			printf("#filled\t%s\t%s\t%s\t%llu\t%s\t%.3f\t%s\n", arm,
			       bpf_map__name(sm->map), type_name(sm->map),
			       (unsigned long long)sm->filled, sm->how ?: "batch", sm->fill_s,
			       inner && inner->filled ? libbpf_bpf_map_type_str(inner->type) : "-");
		if (measured && !err && sm->counted)
			printf("#changed\t%s\t%s\t%s\t%llu\t%llu\t%s\t%s\n", arm,
			       bpf_map__name(sm->map), type_name(sm->map),
			       (unsigned long long)sm->before, (unsigned long long)sm->after,
			       is_array(bpf_map__type(sm->map)) ? "non-zero" : "entries",
			       sm->digest_before != sm->digest_after ? "changed" : "same");
	}
}
