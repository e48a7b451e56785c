// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A chain of programs through prog arrays, hop by hop: see cost_chain.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cost_chain.h"
#include "cost_state.h"
#include "cost_exits.h"
#include "kernel_cases.h"

/*
 * The stubs' returns: slot S's stub returns MARK + S, which no program type
 * measured here names an action (XDP's are 0 to 4, TC's -1 to 8).
 */
#define MARK 0x7bf00000u

/* @name after the names in @buf so far (@len of @size bytes), comma separated. */
static void add_name(char *buf, size_t size, size_t *len, const char *name)
{
	if (*len < size)
		*len += snprintf(buf + *len, size - *len, "%s%s", *len ? ", " : "", name);
}

/* "a, b": the object's programs of the chain's type, for a line on stderr. */
static const char *typed_progs(struct bpf_object *obj, const struct cost_type *type, char *buf,
			       size_t size)
{
	struct bpf_program *p;
	size_t len = 0;

	buf[0] = '\0';
	bpf_object__for_each_program(p, obj)
		if (cost_type_of(p) == type)
			add_name(buf, size, &len, bpf_program__name(p));
	return len ? buf : "none";
}

/* "a, b": the object's prog arrays, for a line on stderr. */
static const char *prog_arrays(struct bpf_object *obj, char *buf, size_t size)
{
	struct bpf_map *map;
	size_t len = 0;

	buf[0] = '\0';
	bpf_object__for_each_map(map, obj)
		if (bpf_map__type(map) == BPF_MAP_TYPE_PROG_ARRAY)
			add_name(buf, size, &len, bpf_map__name(map));
	return len ? buf : "none";
}

/* The program a CHAIN slot names, of another object, loaded: its fd, or -(cost_exit status). */
static int other_prog(struct cost_chain *ch, const char *obj, const char *name)
{
	struct cost_prog *other = &ch->others[ch->nr_others];
	int ret;

	if (ch->nr_others == COST_CHAIN_HOPS - 1) {
		fprintf(stderr, "cost: CHAIN names more than %d objects' programs\n",
			COST_CHAIN_HOPS - 1);
		return -COST_EXIT_USAGE;
	}
	/* Its path kept with it: its state names it after the CHAIN words are gone. */
	ch->other_paths[ch->nr_others] = strdup(obj);
	if (!ch->other_paths[ch->nr_others])
		return -COST_EXIT_FAILED;
	ret = cost_prog_load(other, ch->other_paths[ch->nr_others], name,
			     cost_arm_value(ch->object_maps, ch->nr_object_maps, obj, NULL),
			     NULL, 0, 1);
	ch->nr_others++;
	if (ret)
		return ret == COST_EXIT_NO_PROG || ret == COST_EXIT_NO_XDP ?
		       -COST_EXIT_CHAIN_PROG : -ret;
	if (other->type != ch->type) {
		fprintf(stderr, "cost: CHAIN: %s in %s is a %s program, the chain's are %s: a tail "
			"call reaches only a program of its caller's type\n", name, obj,
			other->type->label, ch->type->label);
		return -COST_EXIT_CHAIN_TYPE;
	}
	return other->fd;
}

/* The program a CHAIN slot names in @cp's own object: its fd, or -(cost_exit status). */
static int own_prog(struct cost_chain *ch, struct cost_prog *cp, const char *path,
		    const char *name)
{
	struct bpf_program *p = bpf_object__find_program_by_name(cp->obj, name);
	char progs[512];

	if (!p) {
		fprintf(stderr, "cost: CHAIN: %s has no program %s; its %s programs: %s\n", path,
			name, ch->type->label, typed_progs(cp->obj, ch->type, progs,
							   sizeof(progs)));
		return -COST_EXIT_CHAIN_PROG;
	}
	if (cost_type_of(p) != ch->type) {
		fprintf(stderr, "cost: CHAIN: %s in %s is not of the chain's type, %s: a "
			"tail call reaches only a program of its caller's type; its %s programs: "
			"%s\n", name, path, ch->type->label, ch->type->label,
			typed_progs(cp->obj, ch->type, progs, sizeof(progs)));
		return -COST_EXIT_CHAIN_TYPE;
	}
	return bpf_program__fd(p);
}

/* One CHAIN word, MAP[INDEX]=[OBJECT:]PROG, into its slot: 0 or the cost_exit status. */
static int fill_slot(struct cost_chain *ch, struct cost_prog *cp, const char *path, char *word)
{
	char map_name[COST_PROG_NAME_LEN], *eq = strchr(word, '='), *colon, arrays[256];
	struct bpf_map *map;
	unsigned int index;
	int n = 0, fd;

	if (!eq || sscanf(word, "%63[^[][%u]%n", map_name, &index, &n) != 2 ||
	    word + n != eq || !eq[1]) {
		fprintf(stderr, "cost: CHAIN: '%s' is not MAP[INDEX]=PROG nor "
			"MAP[INDEX]=OBJECT:PROG\n", word);
		return COST_EXIT_USAGE;
	}
	map = bpf_object__find_map_by_name(cp->obj, map_name);
	if (!map || bpf_map__type(map) != BPF_MAP_TYPE_PROG_ARRAY) {
		fprintf(stderr, "cost: CHAIN: %s %s in %s; its prog arrays: %s\n", map_name,
			map ? "is not a prog array" : "is no map", path,
			prog_arrays(cp->obj, arrays, sizeof(arrays)));
		return COST_EXIT_CHAIN_SLOT;
	}
	if (index >= bpf_map__max_entries(map)) {
		fprintf(stderr, "cost: CHAIN: %s[%u] is past the end of %s, which holds %u slots "
			"(0 to %u)\n", map_name, index, map_name, bpf_map__max_entries(map),
			bpf_map__max_entries(map) - 1);
		return COST_EXIT_CHAIN_SLOT;
	}
	colon = strchr(eq + 1, ':');
	if (colon)
		*colon = '\0';
	fd = colon ? other_prog(ch, eq + 1, colon + 1) : own_prog(ch, cp, path, eq + 1);
	if (fd < 0)
		return -fd;
	if (bpf_map_update_elem(bpf_map__fd(map), &index, &fd, BPF_ANY)) {
		fprintf(stderr, "cost: CHAIN: %s[%u] refused %s: %s (a tail call reaches only a "
			"program of its caller's type and attach type)\n", map_name, index,
			colon ? colon + 1 : eq + 1, strerror(errno));
		return COST_EXIT_CHAIN_TYPE;
	}
	return 0;
}

/* Each CHAIN_MAPS object one that a slot loads: 0, or one line and COST_EXIT_USAGE. */
static int check_object_maps(const struct cost_chain *ch)
{
	for (int i = 0; i < ch->nr_object_maps; i++) {
		bool loaded = false;

		for (int k = 0; k < ch->nr_others; k++)
			loaded |= !strcmp(ch->others[k].state.object, ch->object_maps[i].arm);
		if (!loaded) {
			fprintf(stderr, "cost: CHAIN_MAPS: no CHAIN slot loads a program of %s: "
				"name it as MAP[INDEX]=%s:PROG, as written there\n",
				ch->object_maps[i].arm, ch->object_maps[i].arm);
			return COST_EXIT_USAGE;
		}
	}
	return 0;
}

static int fill_slots(struct cost_chain *ch, struct cost_prog *cp, const char *path,
		      const char *spec)
{
	char *copy = strdup(spec), *save, *word;
	int ret = copy ? 0 : COST_EXIT_FAILED;

	for (word = copy ? strtok_r(copy, " \t\n", &save) : NULL; word && !ret;
	     word = strtok_r(NULL, " \t\n", &save))
		ret = fill_slot(ch, cp, path, word);
	free(copy);
	return ret ?: check_object_maps(ch);
}

static __u32 prog_id(int fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.id;
}

/* The hop of program @id, its name and fd in the cut copy: its index, or -1. */
static int hop_of(struct cost_chain *ch, struct cost_prog *cp, __u32 id)
{
	struct bpf_program *p;
	int h;

	for (h = 0; h < ch->nr_hops; h++)
		if (ch->hops[h].id == id)
			return h;
	if (ch->nr_hops == COST_CHAIN_HOPS)
		return -1;
	bpf_object__for_each_program(p, cp->obj) {
		if (bpf_program__fd(p) < 0 || prog_id(bpf_program__fd(p)) != id)
			continue;
		snprintf(ch->hops[h].name, sizeof(ch->hops[h].name), "%s", bpf_program__name(p));
		/* Its copy in the cut object, whose slots hold stubs. */
		p = bpf_object__find_program_by_name(ch->cut.obj, bpf_program__name(p));
		ch->hops[h].fd = p ? bpf_program__fd(p) : -1;
		ch->hops[h].id = id;
		return ch->nr_hops++;
	}
	for (int o = 0; o < ch->nr_others; o++) {
		if (prog_id(ch->others[o].fd) != id)
			continue;
		/* Another object's program runs as it is: its own slots, if any, as loaded. */
		memcpy(ch->hops[h].name, ch->others[o].name, sizeof(ch->hops[h].name));
		ch->hops[h].fd = ch->others[o].fd;
		ch->hops[h].id = id;
		return ch->nr_hops++;
	}
	return -1;
}

/*
 * Every slot of the real chain's prog arrays (up to COST_CHAIN_SLOTS): the hop
 * it holds, and in the cut copy a stub that returns the slot's mark.
 */
static int cut_slots(struct cost_chain *ch, struct cost_prog *cp)
{
	enum bpf_attach_type attach = bpf_program__expected_attach_type(cp->prog);
	struct bpf_map *map;

	bpf_object__for_each_map(map, cp->obj) {
		struct bpf_map *cut_map = bpf_object__find_map_by_name(ch->cut.obj,
								      bpf_map__name(map));

		if (bpf_map__type(map) != BPF_MAP_TYPE_PROG_ARRAY)
			continue;
		for (__u32 i = 0; i < bpf_map__max_entries(map) && ch->nr_slots < COST_CHAIN_SLOTS;
		     i++) {
			struct cost_chain_slot *s = &ch->slots[ch->nr_slots];
			__u32 id;

			snprintf(s->map, sizeof(s->map), "%s", bpf_map__name(map));
			s->index = i;
			s->hop = bpf_map_lookup_elem(bpf_map__fd(map), &i, &id) ? -1 :
				 hop_of(ch, cp, id);
			s->stub_fd = cost_type_stub(ch->type, MARK + ch->nr_slots, attach);
			s->cut_fd = s->stub_fd;
			s->cut_map_fd = bpf_map__fd(cut_map);
			if (s->stub_fd < 0 || bpf_map_update_elem(bpf_map__fd(cut_map), &i,
								  &s->stub_fd, BPF_ANY)) {
				fprintf(stderr, "cost: a stub in %s[%u] of the chain cut hop by "
					"hop: %s\n", s->map, i, strerror(s->stub_fd < 0 ?
									 -s->stub_fd : errno));
				return COST_EXIT_FAILED;
			}
			ch->nr_slots++;
		}
	}
	return 0;
}

int cost_chain_tail_caller(const struct cost_type *type, int map_fd, __u32 index,
			   enum bpf_attach_type attach)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = BPF_REG_2,
		  .src_reg = BPF_PSEUDO_MAP_FD, .imm = map_fd },
		{},
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_3, .imm = index },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_tail_call },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = MARK - 1 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = attach);
	int fd = bpf_prog_load(type->prog_type, "cost_pair", "GPL", insns, 6, &opts);

	return fd < 0 ? -errno : fd;
}

/*
 * The tail call's own cost: a bare program, and one that tail-calls it
 * through a prog array of its own; checked to reach it. 0 or -errno.
 */
static int pair_load(struct cost_chain *ch, enum bpf_attach_type attach)
{
	__u32 zero = 0, pass = cost_type_pass(ch->type), action;
	__u8 frame[64] = {};
	double ns;
	int err;

	ch->bare_fd = cost_type_stub(ch->type, pass, attach);
	ch->pair_map_fd = bpf_map_create(BPF_MAP_TYPE_PROG_ARRAY, "cost_pair", 4, 4, 1, NULL);
	if (ch->bare_fd < 0 || ch->pair_map_fd < 0 ||
	    bpf_map_update_elem(ch->pair_map_fd, &zero, &ch->bare_fd, BPF_ANY))
		return -errno;
	ch->pair_fd = cost_chain_tail_caller(ch->type, ch->pair_map_fd, 0, attach);
	if (ch->pair_fd < 0)
		return ch->pair_fd;
	err = kernel_frame_run(ch->pair_fd, frame, sizeof(frame), 1, &ns, &action);
	return err ?: action == pass ? 0 : -ENOENT;
}

int cost_chain_load(struct cost_chain *ch, struct cost_prog *cp, const char *path,
		    const char *name, const char *maps, const char *set, __u32 runs, __u32 cpus,
		    const char *spec)
{
	const struct cost_arm_option *object_maps = ch->object_maps;
	int ret, nr_object_maps = ch->nr_object_maps;
	char arrays[256];

	memset(ch, 0, sizeof(*ch));
	ch->object_maps = object_maps;
	ch->nr_object_maps = nr_object_maps;
	ch->cut.fd = ch->bare_fd = ch->pair_fd = ch->pair_map_fd = -1;
	ret = cost_prog_load(cp, path, name, maps, set, runs, cpus);
	if (ret)
		return ret;
	ch->type = cp->type;
	ch->entry_fd = cp->fd;
	if (!strcmp(prog_arrays(cp->obj, arrays, sizeof(arrays)), "none")) {
		if (spec && *spec) {
			fprintf(stderr, "cost: CHAIN: %s has no prog array for its slots\n", path);
			return COST_EXIT_CHAIN_SLOT;
		}
		return 0;
	}
	ret = spec ? fill_slots(ch, cp, path, spec) : 0;
	if (ret)
		return ret;
	ret = cost_prog_load(&ch->cut, path, name, maps, set, runs, cpus);
	if (ret)
		return ret;
	ch->hops[0].id = prog_id(cp->fd);
	memcpy(ch->hops[0].name, cp->name, sizeof(ch->hops[0].name));
	ch->hops[0].fd = ch->cut.fd;
	ch->nr_hops = 1;
	ret = cut_slots(ch, cp);
	if (ret)
		return ret;
	ret = pair_load(ch, bpf_program__expected_attach_type(cp->prog));
	if (ret)
		fprintf(stderr, "cost: a tail call between two bare programs: %s\n",
			strerror(-ret));
	return ret ? COST_EXIT_FAILED : 0;
}

/* The slot a return of a cut hop names, or -1: the frame ended there. */
static int slot_of(const struct cost_chain *ch, __u32 retval)
{
	return retval >= MARK && retval < MARK + ch->nr_slots ? (int)(retval - MARK) : -1;
}

/* A loop: hop @from tail-calls @slot, whose program the frame passed already. */
static void tell_loop(const struct cost_chain *ch, const char *arm, const char *shape, int from,
		      int slot)
{
	fprintf(stderr, "cost: %s: %s: %s tail-calls %s[%u], back into %s: the kernel stops "
		"such a chain after %d tail calls, and the frame ends with what the last hop "
		"returns when its tail call fails; break the loop, or measure a hop of it alone "
		"with PROG=\n", arm, shape, ch->hops[from].name, ch->slots[slot].map,
		ch->slots[slot].index, ch->hops[ch->slots[slot].hop].name, COST_CHAIN_TAIL_CALLS);
}

/* @slot of the cut copy set to hold @fd, or emptied (-1): 0 or -errno. */
static int set_slot(struct cost_chain_slot *slot, int fd)
{
	int err = fd >= 0 ? bpf_map_update_elem(slot->cut_map_fd, &slot->index, &fd, BPF_ANY) :
			    bpf_map_delete_elem(slot->cut_map_fd, &slot->index);

	if (err && !(fd < 0 && errno == ENOENT))
		return -errno;
	slot->cut_fd = fd;
	return 0;
}

/* Every slot of the cut copy its stub, as the trace of a shape starts: 0 or -errno. */
static int stub_slots(struct cost_chain *ch)
{
	int err = 0;

	for (int s = 0; !err && s < ch->nr_slots; s++)
		if (ch->slots[s].cut_fd != ch->slots[s].stub_fd)
			err = set_slot(&ch->slots[s], ch->slots[s].stub_fd);
	return err;
}

/*
 * The verifier's and the JIT's figures of each hop some shape takes, as cost_run
 * prints the entry's (rows ARM cost/hop/PROG MEASURE), so that a compare judges
 * each hop's exactly and names the one that grew: 0, or one line and COST_EXIT_FAILED.
 */
static int print_hop_figures(const struct cost_chain *ch, const char *arm, size_t nr_shapes)
{
	bool reached[COST_CHAIN_HOPS] = {};
	struct prog_static_figures fig;

	for (size_t i = 0; i < nr_shapes; i++)
		for (int k = 0; k < ch->path_len[i]; k++)
			reached[ch->path[i][k]] = true;
	for (int h = 0; h < ch->nr_hops; h++) {
		int err = reached[h] ? prog_static_figures(ch->hops[h].fd, &fig) : 0;

		if (err) {
			fprintf(stderr, "cost: %s: reading hop %s's info: %s\n", arm,
				ch->hops[h].name, strerror(-err));
			return COST_EXIT_FAILED;
		}
		if (!reached[h])
			continue;
		printf("%s\tcost/hop/%s\tverified-instructions\t%u\n", arm, ch->hops[h].name,
		       fig.verified_insns);
		printf("%s\tcost/hop/%s\ttranslated-instructions\t%u\n", arm, ch->hops[h].name,
		       fig.xlated_insns);
		printf("%s\tcost/hop/%s\tjited-bytes\t%u\n", arm, ch->hops[h].name,
		       fig.jited_bytes);
	}
	return 0;
}

int cost_chain_trace(struct cost_chain *ch, const char *arm, const struct cost_shape *shapes,
		     size_t nr_shapes)
{
	size_t fell = 0;

	for (size_t i = 0; i < nr_shapes; i++) {
		int hop = 0, len = 0, slot, err = stub_slots(ch);
		__u32 action;
		double ns;

		ch->fell[i] = -1;
		while (!err) {
			err = kernel_frame_run(ch->hops[hop].fd, shapes[i].frame, shapes[i].len, 1,
					       &ns, &action);
			if (err) {
				fprintf(stderr, "cost: %s: %s through hop %s: BPF_PROG_TEST_RUN: "
					"%s\n", arm, shapes[i].name, ch->hops[hop].name,
					strerror(-err));
				return COST_EXIT_FAILED;
			}
			slot = slot_of(ch, action);
			/*
			 * An empty slot: the real chain's tail call fails and the hop goes
			 * on, to return or to tail-call another slot (a root that tries
			 * its slots in turn, as Katran's xdp_root does): so here, the slot
			 * emptied and the hop run again.
			 */
			if (slot >= 0 && ch->slots[slot].hop < 0 && ch->slots[slot].cut_fd >= 0) {
				if (ch->fell[i] < 0)
					ch->fell[i] = slot;
				err = set_slot(&ch->slots[slot], -1);
				continue;
			}
			ch->path[i][len++] = hop;
			if (slot < 0 || ch->slots[slot].hop < 0)
				break;
			ch->fell[i] = -1;
			hop = ch->slots[slot].hop;
			for (int k = 0; k < len; k++) {
				if (ch->path[i][k] != hop)
					continue;
				tell_loop(ch, arm, shapes[i].name, ch->path[i][len - 1], slot);
				return COST_EXIT_CHAIN_LOOP;
			}
		}
		if (err) {
			fprintf(stderr, "cost: %s: %s: a slot of the chain cut hop by hop: %s\n",
				arm, shapes[i].name, strerror(-err));
			return COST_EXIT_FAILED;
		}
		ch->path_len[i] = len;
		/* The action at the end: the real chain's, empty slots and all. */
		if (kernel_frame_run(ch->entry_fd, shapes[i].frame, shapes[i].len, 1, &ns,
				     &action))
			return COST_EXIT_FAILED;
		printf("#hops\t%s\t%s\t", arm, shapes[i].name);
		for (int k = 0; k < len; k++)
			printf("%s%s", k ? ">" : "", ch->hops[ch->path[i][k]].name);
		printf("\t%u\n", action);
		if (ch->fell[i] >= 0) {
			printf("#fell-through\t%s\t%s\t%s[%u]\n", arm, shapes[i].name,
			       ch->slots[ch->fell[i]].map, ch->slots[ch->fell[i]].index);
			fell++;
		}
	}
	if (fell < nr_shapes)
		return print_hop_figures(ch, arm, nr_shapes);
	fprintf(stderr, "cost: %s: every frame shape reaches an empty slot (%s[%u] first), "
		"so no chain runs: fill it with CHAIN=MAP[INDEX]=PROG\n", arm,
		ch->slots[ch->fell[0]].map, ch->slots[ch->fell[0]].index);
	return COST_EXIT_CHAIN_EMPTY;
}

/*
 * @fd held as its type needs while it runs, as the arms are (cost_hold.h): a
 * link's fd, -errno, or -1 where the type holds nothing.
 */
static int hold(const struct cost_chain *ch, int fd)
{
	return ch->type->hold ? ch->type->hold(fd) : -1;
}

/* One call of BPF_PROG_TEST_RUN on this CPU: the default timer's run. */
static int run_here(void *ctx, int fd, const struct cost_shape *shape, int repeat, double *ns)
{
	__u32 action;

	(void)ctx;
	return kernel_frame_run(fd, shape->frame, shape->len, repeat, ns, &action);
}

static const struct cost_chain_timer here = { .run = run_here, .prefix = "cost/" };

/* @fd's ns per run on each shape, @repeat runs a call, held, into @ns. */
static int time_shapes(const struct cost_chain *ch, int fd, const struct cost_shape *shapes,
		       size_t nr_shapes, int repeat, const struct cost_chain_timer *timer,
		       double *ns)
{
	int link = hold(ch, fd), err = 0;

	if (ch->type->hold && link < 0)
		return link;
	for (size_t i = 0; !err && i < nr_shapes; i++)
		err = timer->run(timer->ctx, fd, &shapes[i], repeat, &ns[i]);
	if (link >= 0)
		close(link);
	return err;
}

/*
 * The cut copy's slots set for a frame that takes @path, cut after its
 * first @k hops: a slot holds its real hop where that is one of hops 2 to
 * @k, else its stub; one the real chain leaves empty is empty here too, so
 * that a hop falls through it as it does there. 0 or -errno.
 */
static int cut_after(struct cost_chain *ch, const __u8 *path, int k)
{
	for (int s = 0; s < ch->nr_slots; s++) {
		struct cost_chain_slot *slot = &ch->slots[s];
		int fd = slot->hop < 0 ? -1 : slot->stub_fd, err;

		for (int j = 1; j < k; j++)
			if (slot->hop == path[j])
				fd = ch->hops[slot->hop].fd;
		if (fd == slot->cut_fd)
			continue;
		err = set_slot(slot, fd);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Each shape through the chain cut after each of its hops, into @cut[i][k - 1]: the last
 * cut runs every hop of the path in the copy, so that each hop's own ns is a difference of
 * two runs of the same loaded programs (a second load of a program can be placed and run
 * apart by a few percent: a 200 ns hop then moves the next one's figure by 10 ns).
 */
static int time_cuts(struct cost_chain *ch, const struct cost_shape *shapes, size_t nr_shapes,
		     int repeat, const struct cost_chain_timer *timer,
		     double (*cut)[COST_CHAIN_TAIL_CALLS + 1])
{
	int link = hold(ch, ch->hops[0].fd), err = 0;

	if (ch->type->hold && link < 0)
		return link;
	for (size_t i = 0; !err && i < nr_shapes; i++)
		for (int k = 1; !err && k <= ch->path_len[i]; k++)
			err = cut_after(ch, ch->path[i], k) ?:
			      timer->run(timer->ctx, ch->hops[0].fd, &shapes[i], repeat,
					 &cut[i][k - 1]);
	if (link >= 0)
		close(link);
	return err;
}

int cost_chain_round(struct cost_chain *ch, const char *arm, const struct cost_shape *shapes,
		     size_t nr_shapes, int repeat, const struct cost_chain_timer *timer)
{
	double bare[COST_SHAPES_MAX], pair[COST_SHAPES_MAX];
	double cut[COST_SHAPES_MAX][COST_CHAIN_TAIL_CALLS + 1];
	double own[COST_CHAIN_HOPS] = {}, tail = 0, sum = 0;
	int reached[COST_CHAIN_HOPS] = {}, err;
	const char *pre;

	timer = timer ?: &here;
	pre = timer->prefix;
	err = time_shapes(ch, ch->bare_fd, shapes, nr_shapes, repeat, timer, bare) ?:
	      time_shapes(ch, ch->pair_fd, shapes, nr_shapes, repeat, timer, pair) ?:
	      time_cuts(ch, shapes, nr_shapes, repeat, timer, cut);

	if (err) {
		fprintf(stderr, "cost: %s: the chain hop by hop: BPF_PROG_TEST_RUN: %s\n", arm,
			strerror(-err));
		return COST_EXIT_FAILED;
	}
	for (size_t i = 0; i < nr_shapes; i++) {
		int len = ch->path_len[i];
		double t = pair[i] - bare[i];

		tail += t;
		sum += bare[i];
		/*
		 * T(k), the chain cut after hop k, is the test run, hops 1 to k, the
		 * tail calls between them, and one into a stub; T(len) is the whole
		 * path in the cut copy. Hop 1's own: T(1) less the bare pair (the run,
		 * a tail call and two bare returns), or less the bare program where the
		 * frame ends in it; hop k's: T(k) - T(k-1), which adds hop k and the
		 * tail call into it, less a tail call; the last hop's: T(len) -
		 * T(len-1), the stub's tail call in T(len-1) standing for the one into
		 * it. The sum, against the object's own chain (its cost/all, timed
		 * with the shapes): a check by two loads of the chain, not one figure
		 * taken apart.
		 */
		for (int k = 1; k <= len; k++) {
			double at = cut[i][k - 1], mine;

			if (k == 1)
				mine = at - (len == 1 ? bare[i] : pair[i]);
			else
				mine = at - cut[i][k - 2] - (k < len ? t : 0);
			own[ch->path[i][k - 1]] += mine;
			reached[ch->path[i][k - 1]]++;
			sum += mine + (k > 1 ? t : 0);
		}
	}
	for (int h = 0; h < ch->nr_hops; h++)
		if (reached[h])
			printf("%s\t%shop/%s\tlatency\t%.2f\n", arm, pre, ch->hops[h].name,
			       own[h] / reached[h]);
	printf("%s\t%stail-call\tlatency\t%.2f\n", arm, pre, tail / nr_shapes);
	printf("%s\t%schain/hop-sum\tlatency\t%.0f\n", arm, pre, sum);
	return 0;
}

void cost_chain_print_state(struct cost_chain *ch, const char *arm, bool measured)
{
	for (int k = 0; k < ch->nr_others; k++)
		if (cost_arm_value(ch->object_maps, ch->nr_object_maps,
				   ch->others[k].state.object, NULL))
			cost_state_print(&ch->others[k].state, ch->others[k].obj, arm, measured);
}

void cost_chain_close(struct cost_chain *ch)
{
	for (int s = 0; s < ch->nr_slots; s++)
		if (ch->slots[s].stub_fd >= 0)
			close(ch->slots[s].stub_fd);
	ch->nr_slots = 0;
	for (int o = 0; o < ch->nr_others; o++) {
		cost_prog_close(&ch->others[o]);
		free(ch->other_paths[o]);
		ch->other_paths[o] = NULL;
	}
	ch->nr_others = 0;
	if (ch->cut.obj)
		cost_prog_close(&ch->cut);
	if (ch->pair_fd >= 0)
		close(ch->pair_fd);
	if (ch->pair_map_fd >= 0)
		close(ch->pair_map_fd);
	if (ch->bare_fd >= 0)
		close(ch->bare_fd);
	ch->pair_fd = ch->pair_map_fd = ch->bare_fd = -1;
}
