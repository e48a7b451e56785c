/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A chain of programs through prog arrays, beside the program type
 * (cost_type.h) as one more seam: the program measured is the chain's entry,
 * and a single program is a chain of one (an object without a prog array),
 * loaded and measured as before. A chain's slots are as the object fills
 * them (.values), and as CHAIN= says: "MAP[INDEX]=PROG" (a program of the
 * same object) or "MAP[INDEX]=OBJECT:PROG" (of another, loaded here), space
 * separated.
 *
 * Hop by hop: the kernel's bpf_stats give the whole chain's time to its
 * entry, so the chain is cut after each hop, in a second copy of the object
 * (its own maps, filled as the first) whose slots hold stubs that return a
 * mark each, outside any action. Which hops a shape takes is read with every
 * slot a stub: a hop that returns slot S's mark goes on, in the real chain,
 * to the program S holds; where S is empty the real tail call fails and the
 * hop goes on, so it runs again with S emptied in the copy (as the slots the
 * real chain leaves empty are in the runs below).
 * Then, in the same rounds as the whole chain, each shape runs through the
 * copy cut after each of its hops (its hops so far real, the slot after them
 * a stub; after the last, its whole path in the copy): T(k). A hop's own ns
 * is T(k) - T(k-1) less a tail call, hop 1's T(1) less the bare pair below,
 * and the last's T(len) - T(len - 1), the stub's tail call there standing for
 * the real one. So each hop is measured where it runs, after the hops before
 * it, and always as a difference of runs of the same loaded programs: a
 * second load of a program can run a few percent apart from the first (its
 * code placed elsewhere), which a 200 ns hop would put into the next hop's
 * figure. What the hops and tail calls add up to is the chain as the copy
 * ran it; the check sets that against the object's own chain (the entry's
 * runs in the same round), a second load of it. The
 * tail call's own cost: a bare program that tail-calls a bare program, less
 * the bare program alone. What a hop's tail call costs beyond the bare pair's
 * (it restores more registers) is in that hop's own ns. Each shape's runs
 * repeat on its own output, as the whole chain's do.
 */
#ifndef FBF_COST_CHAIN_H
#define FBF_COST_CHAIN_H

#include <stdbool.h>
#include <linux/types.h>

#include "cost_args.h"
#include "cost_corpus.h"
#include "cost_object.h"

/* The programs a chain may hold, its entry among them. */
#define COST_CHAIN_HOPS 16
/* The slots traced, over all the object's prog arrays: the first of each array up to this. */
#define COST_CHAIN_SLOTS 64
/* The kernel's limit: a chain stops after this many tail calls (MAX_TAIL_CALL_CNT). */
#define COST_CHAIN_TAIL_CALLS 33

struct cost_chain_hop {
	char name[COST_PROG_NAME_LEN];
	__u32 id;		/* its id in the real chain */
	int fd;			/* the same program in the cut copy (or another object's) */
};

struct cost_chain_slot {
	char map[COST_PROG_NAME_LEN];
	__u32 index;
	int hop;		/* the hop the real chain holds there; -1: empty */
	int stub_fd;
	int cut_map_fd, cut_fd;	/* its array in the cut copy, and what it holds there now */
};

struct cost_chain {
	const struct cost_type *type;
	/* CHAIN_MAPS: OBJECT=MAPS, the state of another object's program (set before load). */
	const struct cost_arm_option *object_maps;
	int nr_object_maps;
	int entry_fd;			/* the real chain's entry */
	struct cost_prog cut;		/* the object again, every slot a stub */
	struct cost_prog others[COST_CHAIN_HOPS];	/* CHAIN's OBJECT:PROG */
	char *other_paths[COST_CHAIN_HOPS];		/* their OBJECTs, as written */
	int nr_others;
	struct cost_chain_hop hops[COST_CHAIN_HOPS];	/* hops[0]: the entry */
	int nr_hops;
	struct cost_chain_slot slots[COST_CHAIN_SLOTS];
	int nr_slots;			/* 0: a chain of one */
	int bare_fd, pair_fd, pair_map_fd;	/* the tail call's own cost */
	/* Each shape's hops in order, and the slot it fell through at (-1: none). */
	__u8 path[COST_SHAPES_MAX][COST_CHAIN_TAIL_CALLS + 1];
	int path_len[COST_SHAPES_MAX], fell[COST_SHAPES_MAX];
};

/*
 * @cp's object, loaded, with the slots @spec names filled (NULL: none), each
 * other object's program in the state @ch->object_maps gives that object, and,
 * if it has a prog array, its copy cut at every slot loaded from @path as @cp
 * was (@name, @maps, @set, @runs, @cpus: cost_prog_load()). 0, or one line
 * and the cost_exit status.
 */
int cost_chain_load(struct cost_chain *ch, struct cost_prog *cp, const char *path,
		    const char *name, const char *maps, const char *set, __u32 runs, __u32 cpus,
		    const char *spec);

/* Whether @ch has more than its entry to measure: a prog array. */
static inline bool cost_chain_is_chain(const struct cost_chain *ch)
{
	return ch->nr_slots > 0;
}

/*
 * The hops each shape takes, "#hops<TAB>ARM<TAB>SHAPE<TAB>HOP>HOP...<TAB>ACTION", and
 * "#fell-through<TAB>ARM<TAB>SHAPE<TAB>MAP[INDEX]" where it reaches an empty slot:
 * 0, or one line and the cost_exit status (a loop; every shape falling through).
 */
int cost_chain_trace(struct cost_chain *ch, const char *arm, const struct cost_shape *shapes,
		     size_t nr_shapes);

/*
 * How a round of the hops runs program @fd on @shape, @repeat runs a call, into @ns (the
 * mean per run): 0 or -errno. The rows it gives are named PREFIX/hop/PROG and so on.
 */
struct cost_chain_timer {
	int (*run)(void *ctx, int fd, const struct cost_shape *shape, int repeat, double *ns);
	void *ctx;
	const char *prefix;
};

/*
 * One round of the hops, each shape @repeat runs a call: rows ARM cost/hop/PROG
 * (each hop's own ns, the mean over the shapes that reach it), cost/tail-call,
 * and cost/chain/hop-sum (what the hops and tail calls add up to over the
 * shapes, to set against the same round's cost/all). @timer NULL: on this CPU,
 * the rows as named; else as @timer runs them (on N CPUs at once, say), the rows
 * under its prefix (cost/cpus/N/hop/PROG ...). 0, or one line and
 * COST_EXIT_FAILED.
 */
int cost_chain_round(struct cost_chain *ch, const char *arm, const struct cost_shape *shapes,
		     size_t nr_shapes, int repeat, const struct cost_chain_timer *timer);

/* Each other object's state as cost_state_print() gives it, under @arm, where MAPS filled it. */
void cost_chain_print_state(struct cost_chain *ch, const char *arm, bool measured);

void cost_chain_close(struct cost_chain *ch);

/*
 * A program of @type that tail-calls slot @index of prog array @map_fd (ld_imm64
 * of the map's fd, r3 = @index, bpf_tail_call: a constant key, which the kernel
 * turns into a direct jump from 5.5) and returns a mark where that fails, so that
 * a failed tail call is seen: its fd, or -errno.
 */
int cost_chain_tail_caller(const struct cost_type *type, int map_fd, __u32 index,
			   enum bpf_attach_type attach);

#endif /* FBF_COST_CHAIN_H */
