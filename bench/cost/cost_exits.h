/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The exit statuses of the cost tool (bench/cost/cost.sh and cost_run), one
 * per failure a user can cause, as docs/benchmarks.md lists them. 1 is left
 * for the one verdict a compare gives: a regression.
 */
#ifndef FBF_COST_EXITS_H
#define FBF_COST_EXITS_H

enum cost_exit {
	COST_EXIT_OK = 0,
	COST_EXIT_REGRESSION = 1,	/* cost-compare: the candidate costs more */
	COST_EXIT_USAGE = 2,		/* wrong arguments */
	COST_EXIT_OPEN = 3,		/* OBJ, MAPS or PCAP missing; OBJ not a BPF object */
	COST_EXIT_NO_XDP = 4,		/* no program of a type the tool measures in OBJ */
	COST_EXIT_SEVERAL = 5,		/* several XDP or TC programs and no PROG= */
	COST_EXIT_NO_PROG = 6,		/* no XDP or TC program named PROG */
	COST_EXIT_REFUSED = 7,		/* the verifier refused the program */
	COST_EXIT_MAPS = 8,		/* MAPS file wrong: syntax, map name, sizes */
	COST_EXIT_UNCONFIGURED = 9,	/* every frame aborted: maps it needs are empty */
	COST_EXIT_FAILED = 10,		/* the run itself failed: root, kernel, network */
	COST_EXIT_KERNEL = 11,		/* KERNELS: one not fetched, or one gave no figures */
	COST_EXIT_TYPE_OPTION = 12,	/* an option the program's type does not take */
	COST_EXIT_CAPTURE_FORMAT = 13,	/* PCAP is not a pcap or pcapng capture */
	COST_EXIT_CAPTURE_TRUNCATED = 14, /* PCAP was cut short */
	COST_EXIT_CAPTURE_EMPTY = 15,	/* PCAP holds no frame */
	COST_EXIT_CAPTURE_UNSEEN = 16,	/* none of PCAP's frames can run: cooked, too long */
	/* State (cost_state.h), from 20 */
	COST_EXIT_DUMP_SIZE = 20,	/* a MAPS dump's key or value is not its map's size */
	COST_EXIT_DUMP_MAP = 21,	/* a MAPS dump names a map the object lacks */
	COST_EXIT_NO_GLOBAL = 22,	/* SET names a global variable the object lacks */
	COST_EXIT_GLOBAL_FIT = 23,	/* SET's value does not fit its variable */
	/* Tracing programs (trace/), from 30 */
	COST_EXIT_NO_HOOK = 30,		/* the kernel lacks the function or tracepoint hooked */
	COST_EXIT_LSM = 31,		/* an LSM hook the kernel cannot take: bpf not an LSM */
	COST_EXIT_UPROBE = 32,		/* a uprobe's binary or function missing */
	COST_EXIT_WORKLOAD = 33,	/* WORKLOAD failed */
	COST_EXIT_NOT_FIRED = 34,	/* the workload ran no program at all */
	COST_EXIT_NO_TRIGGER = 35,	/* no built-in trigger fires the hook: WORKLOAD= */
	COST_EXIT_HOOK_KERNEL = 36,	/* the kernel lacks the kind of hook: kprobes, BTF */
	/* MAPS again, from 40 */
	COST_EXIT_DUMP_SEVERAL = 40,	/* a MAPS dump holds several maps' entries */
	COST_EXIT_NOT_MAP_OF_MAPS = 41,	/* MAPS's per-cpu names a map that is no map of maps */
	COST_EXIT_NO_INNER = 42,	/* a map of maps no inner map defined: object, MAPS */
	COST_EXIT_PER_CPU_FIT = 43,	/* per-cpu: the map of maps holds fewer maps than CPUs */
	/* Chains (cost_chain.h), from 50 */
	COST_EXIT_CHAIN_PROG = 50,	/* a CHAIN slot names a program its object lacks */
	COST_EXIT_CHAIN_TYPE = 51,	/* a CHAIN slot's program is of another type */
	COST_EXIT_CHAIN_SLOT = 52,	/* a CHAIN slot past its array's end, or not a prog array */
	COST_EXIT_CHAIN_LOOP = 53,	/* the chain tail-calls back into itself */
	COST_EXIT_CHAIN_EMPTY = 54,	/* every frame shape reaches an empty slot */
	COST_EXIT_DISPATCHER = 55,	/* libxdp's dispatcher does not load on this kernel */
	/* A path, XDP then TC on one veth (TC=, packet/cost_live_path.bash), from 56 */
	COST_EXIT_PATH_NO_TC = 56,	/* TC= names a program its object lacks */
	COST_EXIT_PATH_NOT_TC = 57,	/* TC='s program is no TC program, or attaches on egress */
	COST_EXIT_PATH_NO_XDP = 58,	/* TC= given, and OBJ's program is no XDP program */
	COST_EXIT_PATH_NO_LIVE = 59,	/* TC= given with no live part: FBF_COST_LIVE_ROUNDS=0 */
};

#endif /* FBF_COST_EXITS_H */
