// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Loading a user's object: see cost_object.h. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "cost_args.h"
#include "cost_exits.h"
#include "cost_object.h"
#include "cost_state.h"

/* The verifier's last lines a refusal shows: where it stopped, and why. */
#define REFUSAL_LINES 6
/* The verifier's statistics alone (BPF_LOG_STATS, 5.2). */
#define LOG_LEVEL_STATS 4

static char *libbpf_log;
static size_t libbpf_log_len, libbpf_log_size;

static int keep_libbpf_log(enum libbpf_print_level level, const char *fmt, va_list args)
{
	va_list again;
	int n;

	if (level == LIBBPF_DEBUG)
		return 0;
	va_copy(again, args);
	n = vsnprintf(NULL, 0, fmt, again);
	va_end(again);
	if (n < 0)
		return 0;
	if (libbpf_log_len + n + 1 > libbpf_log_size) {
		size_t size = (libbpf_log_len + n + 1) * 2;
		char *log = realloc(libbpf_log, size);

		if (!log)
			return 0;
		libbpf_log = log;
		libbpf_log_size = size;
	}
	vsnprintf(libbpf_log + libbpf_log_len, n + 1, fmt, args);
	libbpf_log_len += n;
	return 0;
}

void cost_object_init(void)
{
	libbpf_set_print(keep_libbpf_log);
}

/*
 * The last lines of the verifier's log, which libbpf prints between its
 * BEGIN and END markers after a refusal; false if there is none, so the
 * failure came before the verifier (no permission, a map the kernel lacks).
 */
bool cost_object_print_refusal(void)
{
	const char *begin_mark = "-- BEGIN PROG LOAD LOG --\n";
	char *begin, *end, *p;
	int lines = 0;

	if (!libbpf_log)
		return false;
	begin = strstr(libbpf_log, begin_mark);
	if (!begin)
		return false;
	for (char *next; (next = strstr(begin + 1, begin_mark)); begin = next)
		;
	begin += strlen(begin_mark);
	end = strstr(begin, "-- END PROG LOAD LOG --");
	if (!end)
		end = libbpf_log + libbpf_log_len;
	while (end > begin && end[-1] == '\n')
		end--;
	for (p = end; p > begin && lines < REFUSAL_LINES; p--)
		if (p[-1] == '\n')
			lines++;
	if (p > begin)
		p++;
	fprintf(stderr, "%.*s\n", (int)(end - p), p);
	return true;
}

/* One "MAP KEY VALUE" line into the loaded object's map; the same value on every CPU. */
static int fill_entry(struct cost_state *st, struct bpf_object *obj, const char *file,
		      int line_no, char *line)
{
	char *name = strtok(line, " \t\n"), *key_hex = strtok(NULL, " \t\n");
	char *value_hex = strtok(NULL, " \t\n");
	struct bpf_map *map;
	__u8 *key = NULL, *value = NULL;
	size_t key_size, value_size, stride, copies = 1;
	int err = COST_EXIT_MAPS;

	char where[PATH_MAX + 16];
	/* An inner map's definition after it was read before the load (cost_state.h). */
	bool per_cpu = key_hex && !strcmp(key_hex, COST_STATE_PER_CPU);

	if (!name || *name == '#')
		return 0;
	if (!key_hex || (!value_hex && !per_cpu) || (!per_cpu && strtok(NULL, " \t\n"))) {
		fprintf(stderr, "cost: %s:%d: not MAP KEY VALUE (hex bytes as the map stores "
			"them), nor MAP %s [TYPE KEY_SIZE VALUE_SIZE MAX_ENTRIES]\n", file,
			line_no, COST_STATE_PER_CPU);
		return COST_EXIT_MAPS;
	}
	snprintf(where, sizeof(where), "%s:%d", file, line_no);
	map = bpf_object__find_map_by_name(obj, name);
	if (!map)
		return cost_state_no_map(st, obj, where, name, "a line fills the map "
					 "it names first");
	if (per_cpu)
		return cost_state_fill_per_cpu(st, map, where);
	key_size = bpf_map__key_size(map);
	value_size = bpf_map__value_size(map);
	stride = value_size;
	if (cost_map_is_percpu(bpf_map__type(map))) {
		copies = libbpf_num_possible_cpus();
		stride = (value_size + 7) / 8 * 8;
	}
	key = calloc(1, key_size ?: 1);
	value = calloc(copies, stride);
	if (!key || !value)
		goto out;
	if (cost_hex_bytes(key_hex, key, key_size) ||
	    cost_hex_bytes(value_hex, value, value_size)) {
		fprintf(stderr, "cost: %s:%d: map %s takes a key of %zu bytes and a value of "
			"%zu, in hex\n", file, line_no, name, key_size, value_size);
		goto out;
	}
	for (size_t c = 1; c < copies; c++)
		memcpy(value + c * stride, value, value_size);
	if (bpf_map_update_elem(bpf_map__fd(map), key, value, BPF_ANY)) {
		/* An array says E2BIG for an index past its end: "Argument list too long". */
		if (errno == E2BIG && (bpf_map__type(map) == BPF_MAP_TYPE_ARRAY ||
				       bpf_map__type(map) == BPF_MAP_TYPE_PERCPU_ARRAY)) {
			fprintf(stderr, "cost: %s:%d: key %s is past the end of map %s, which "
				"holds %u %s (keys 0 to %u, little-endian)\n", file, line_no,
				key_hex, name, bpf_map__max_entries(map),
				bpf_map__max_entries(map) == 1 ? "entry" : "entries",
				bpf_map__max_entries(map) - 1);
			/* As for a dump's key past the end: the same mistake, one status. */
			err = COST_EXIT_DUMP_SIZE;
		} else {
			fprintf(stderr, "cost: %s:%d: map %s refused the entry: %s\n", file,
				line_no, name, strerror(errno));
		}
		goto out;
	}
	cost_state_filled(st, map, 1);
	err = 0;
out:
	free(key);
	free(value);
	return err;
}

static int fill_maps(struct cost_state *st, struct bpf_object *obj, const char *file)
{
	char line[4096];
	int line_no = 0, err = 0;
	FILE *f = fopen(file, "r");

	if (!f) {
		fprintf(stderr, "cost: cannot read the map entries in %s: %s\n", file,
			strerror(errno));
		return COST_EXIT_MAPS;
	}
	while (!err && fgets(line, sizeof(line), f))
		err = fill_entry(st, obj, file, ++line_no, line);
	fclose(f);
	return err;
}

int cost_object_fill(struct cost_state *st, struct bpf_object *obj, const char *maps_file)
{
	return cost_state_is_dump(maps_file) ? cost_state_fill_dumps(st, obj, maps_file) :
	       fill_maps(st, obj, maps_file);
}

/* "a (xdp), b (sched_cls)": each program of the object and its type, for a line on stderr. */
static const char *list_progs(struct bpf_object *obj, char *buf, size_t size)
{
	struct bpf_program *p;
	size_t len = 0;

	buf[0] = '\0';
	bpf_object__for_each_program(p, obj) {
		const char *type = libbpf_bpf_prog_type_str(bpf_program__type(p));
		bool known = type && strcmp(type, "unspec");

		if (len >= size)
			break;
		len += snprintf(buf + len, size - len, "%s%s (%s%s%s)", len ? ", " : "",
				bpf_program__name(p), known ? type : "section ",
				known ? "" : bpf_program__section_name(p),
				known ? "" : ", unknown to libbpf");
	}
	return len ? buf : "none";
}

static bool has_prog_array(struct bpf_object *obj)
{
	struct bpf_map *map;

	bpf_object__for_each_map(map, obj)
		if (bpf_map__type(map) == BPF_MAP_TYPE_PROG_ARRAY)
			return true;
	return false;
}

/* The program to measure: the one named, or the only one of a type the tool measures. */
static int choose_prog(struct cost_prog *cp, const char *path, const char *name)
{
	struct bpf_program *p;
	int nr_typed = 0;
	bool chain;
	char types[64], sections[128], progs[512];

	bpf_object__for_each_program(p, cp->obj) {
		const struct cost_type *type = cost_type_of(p);

		if (type)
			nr_typed++;
		if (type && (name ? !strcmp(bpf_program__name(p), name) : !cp->prog)) {
			cp->prog = p;
			cp->type = type;
		}
	}
	list_progs(cp->obj, progs, sizeof(progs));
	cost_type_list(types, sizeof(types), false);
	if (!nr_typed) {
		fprintf(stderr, "cost: %s has no %s program (no %s function); its programs: %s\n",
			path, types, cost_type_list(sections, sizeof(sections), true), progs);
		return COST_EXIT_NO_XDP;
	}
	if (name && !cp->prog) {
		fprintf(stderr, "cost: %s has no %s program named %s; its programs: %s\n", path,
			types, name, progs);
		return COST_EXIT_NO_PROG;
	}
	if (!name && nr_typed > 1) {
		fprintf(stderr, "cost: %s has %d %s programs: name one with %s; its programs: "
			"%s\n", path, nr_typed, types, COST_ARG_PROG, progs);
		return COST_EXIT_SEVERAL;
	}
	/*
	 * Only it, the object's other programs may need targets this tool cannot
	 * give; but where the object has a prog array, every program of its type
	 * too: libbpf fills an array the object initialises itself (.values) only
	 * if every program named there is loaded (else the load fails, EBADF), and
	 * CHAIN= may name any of them (cost_chain.h). A tail call reaches only a
	 * program of the caller's type, so none of another type is needed.
	 */
	chain = has_prog_array(cp->obj);
	bpf_object__for_each_program(p, cp->obj)
		bpf_program__set_autoload(p, p == cp->prog ||
					  (chain && cost_type_of(p) == cp->type));
	return 0;
}

/*
 * Why @path did not open: the file itself (missing, unreadable, a directory),
 * or its contents, which libbpf answers with its own codes (from 4000: not
 * ELF, not BPF, sections it cannot read) or an errno while reading them.
 */
static void tell_open_error(const char *path, int err)
{
	char why[128];

	if (err == ENOENT || err == EACCES || err == EISDIR || err == EPERM) {
		fprintf(stderr, "cost: cannot open %s: %s\n", path, strerror(err));
		return;
	}
	libbpf_strerror(err, why, sizeof(why));
	if (err == LIBBPF_ERRNO__ENDIAN) {
		/* -target bpf is the host's own order; bpfel and bpfeb name one. */
		fprintf(stderr, "cost: %s is a BPF object of the other byte order (libbpf: %s): "
			"build it for this host's, with clang -target bpf here or -target %s\n",
			path, why, __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? "bpfel" : "bpfeb");
		return;
	}
	fprintf(stderr, "cost: %s is not a BPF object (libbpf: %s): give an object built "
		"with clang -target bpf\n", path, why);
}

int cost_prog_open(struct cost_prog *cp, const char *path, const char *name)
{
	struct bpf_map *map;
	int err;

	cp->obj = bpf_object__open_file(path, NULL);
	if (!cp->obj) {
		err = errno;
		tell_open_error(path, err);
		return COST_EXIT_OPEN;
	}
	cp->prog = NULL;
	cp->type = NULL;
	err = choose_prog(cp, path, name);
	if (err)
		return err;
	bpf_object__for_each_map(map, cp->obj)
		bpf_map__set_pin_path(map, NULL);
	return 0;
}

/*
 * A refused load again, without the statistics log, so that libbpf retries
 * it with the verifier's full log and prints that: its last lines say why.
 */
static int tell_refusal(struct cost_prog *cp, const char *path, const char *name,
			const char *globals)
{
	int err;

	bpf_object__close(cp->obj);
	err = cost_prog_open(cp, path, name) ?: cost_state_set_globals(cp->obj, path, globals);
	if (err)
		return err;
	libbpf_log_len = 0;
	if (libbpf_log)
		libbpf_log[0] = '\0';
	if (!bpf_object__load(cp->obj) || !cost_object_print_refusal())
		return 0;
	fprintf(stderr, "cost: the verifier refused %s in %s: its log ends as above\n",
		bpf_program__name(cp->prog), path);
	return COST_EXIT_REFUSED;
}

int cost_prog_load(struct cost_prog *cp, const char *path, const char *name,
		   const char *maps_file, const char *globals, __u32 runs, __u32 cpus)
{
	int err;

	cp->fd = -1;
	memset(&cp->events, 0, sizeof(cp->events));
	cp->state.nr = 0;
	cp->state.object = path;
	err = cost_prog_open(cp, path, name) ?: cost_state_set_globals(cp->obj, path, globals);
	if (err)
		return err;
	err = cost_events_prepare(&cp->events, cp->obj, runs, cpus) ?:
	      bpf_program__set_log_buf(cp->prog, cp->log, sizeof(cp->log)) ?:
	      bpf_program__set_log_level(cp->prog, LOG_LEVEL_STATS);
	if (err) {
		fprintf(stderr, "cost: preparing %s: %s\n", path, strerror(-err));
		return COST_EXIT_FAILED;
	}
	err = cost_state_keep_inner(&cp->state, cp->obj, maps_file);
	if (err)
		return err;
	if (bpf_object__load(cp->obj)) {
		int load_err = errno;

		cost_state_loaded(&cp->state);
		/* Its maps go with the object, which a refusal opens again. */
		cost_events_close(&cp->events);
		if (load_err != EPERM) {
			err = tell_refusal(cp, path, name, globals);
			if (err)
				return err;
		}
		fprintf(stderr, "cost: loading %s: %s%s\n", path, strerror(load_err),
			load_err == EPERM ? " (run as root)" : "");
		return COST_EXIT_FAILED;
	}
	cost_state_loaded(&cp->state);
	cp->fd = bpf_program__fd(cp->prog);
	snprintf(cp->name, sizeof(cp->name), "%s", bpf_program__name(cp->prog));
	err = cost_events_open(&cp->events);
	if (err) {
		fprintf(stderr, "cost: reading %s's event maps: %s\n", path, strerror(-err));
		return COST_EXIT_FAILED;
	}
	if (maps_file)
		err = cost_object_fill(&cp->state, cp->obj, maps_file);
	err = err ?: cost_state_count(&cp->state, cp->obj, false);
	if (err > 0)
		return err;
	if (err)
		fprintf(stderr, "cost: counting %s's map entries: %s\n", path, strerror(-err));
	return err ? COST_EXIT_FAILED : 0;
}

int cost_prog_get(struct cost_prog *cp, __u32 id)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	cp->obj = NULL;
	memset(&cp->events, 0, sizeof(cp->events));
	cp->state.nr = 0;
	cp->fd = bpf_prog_get_fd_by_id(id);
	if (cp->fd < 0) {
		fprintf(stderr, "cost: no BPF program has id %u: %s (bpftool prog list shows "
			"them)\n", id, strerror(errno));
		return errno == EPERM ? COST_EXIT_FAILED : COST_EXIT_OPEN;
	}
	if (bpf_obj_get_info_by_fd(cp->fd, &info, &len)) {
		fprintf(stderr, "cost: reading program %u's info: %s\n", id, strerror(errno));
		return COST_EXIT_FAILED;
	}
	cp->type = cost_type_by_kernel(info.type);
	if (!cp->type) {
		char types[64];

		fprintf(stderr, "cost: program %u (%s) is not an %s program\n", id, info.name,
			cost_type_list(types, sizeof(types), false));
		return COST_EXIT_NO_XDP;
	}
	snprintf(cp->name, sizeof(cp->name), "%s", info.name);
	return 0;
}

int cost_prog_drain(struct cost_prog *cp)
{
	/* A program another process loaded has none here. */
	return cost_events_drain(&cp->events);
}

int cost_prog_figures(const struct cost_prog *cp, struct prog_static_figures *fig)
{
	const char *line = strstr(cp->log, "processed ");
	unsigned int insns;
	int err = prog_static_figures(cp->fd, fig);

	if (!err && !fig->verified_insns && line && sscanf(line, "processed %u insns", &insns) == 1)
		fig->verified_insns = insns;
	return err;
}

void cost_prog_close(struct cost_prog *cp)
{
	if (!cp->obj && cp->fd >= 0)
		close(cp->fd);
	cp->fd = -1;
	cost_events_close(&cp->events);
	bpf_object__close(cp->obj);
	cp->obj = NULL;
}
