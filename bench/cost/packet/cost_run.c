// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The cost tool's loader and runner, for any object with a program of a type
 * it measures (cost_type.h; bench/cost/cost.sh drives it):
 *
 *   cost_run run [-r ROUNDS] [-n REPEAT] [-k] [-p PROG] [-m MAPS] [-s SET] [-P PCAP]
 *            ARM=OBJECT...
 *   cost_run cpus [-r ROUNDS] [-n REPEAT] [-c COUNTS] [-k] [-p PROG] [-m MAPS] [-s SET]
 *            ARM=OBJECT...
 *   cost_run attach [-p PROG] [-m MAPS] [-s SET] [-C CHAIN] IFACE MODE OBJECT
 *   cost_run capture PCAP OUT
 *   cost_run type [-p PROG] OBJECT
 *   cost_run flood IFACE SECONDS PCAP
 *
 * run: each arm's program loaded side by side, its static figures once, then
 * round after round each arm in turn, starting from a different arm each round
 * so that none always runs first on a cold cache, runs every frame shape of
 * the corpus (cost_corpus.h; -k: the classifier's own shapes alone) through
 * BPF_PROG_TEST_RUN, held where its type needs it meanwhile (an XDP program in
 * the XDP dispatcher, cost_hold.h: else each call waits for two RCU grace
 * periods): the arms' samples of a round
 * come from runs well under a second apart (a turn took about 0.2 s on the
 * hosts here), under the same load, and pair round by round. The regression gate measures
 * fizzbuzzfib's builds with it too (bench/gate/gate.sh). ROUNDS 0 gives the
 * static figures alone: what a kernel booted under emulation, where timing
 * means nothing, is asked for. An arm named after a type's bare program
 * (xdp_pass) is the bare program the others are measured against: -p and -m
 * are for the others. Queues and rings
 * the programs send to are sized for one run and emptied after each, untimed,
 * and an array of them gets one per CPU (cost_events.h). Prints
 * "ARM<TAB>benchmark<TAB>measure<TAB>value" rows
 * (bench/gate/gate.py reads them): static figures, each shape's action (in
 * its first pass over the frame as built: a program that keeps state may
 * change its mind), one latency sample per shape and round, and the round's
 * sum as cost/all; and "#prog<TAB>ARM<TAB>NAME" for the program each arm
 * loaded, "#object<TAB>ARM<TAB>PATH" for the object it came from,
 * "#type<TAB>ARM<TAB>TYPE" and "#action<TAB>ARM<TAB>VALUE<TAB>NAME" for its
 * type and its actions' names, and after the
 * rounds a "#map" line for each event map and array of maps of each arm
 * (cost_events_print()): which path the runs sent to. -s sets global variables
 * before the load, -m fills maps after it (cost_state.h), -S ARM=... and
 * -M ARM=... for that arm alone, over -s and -m: "#filled" lines say
 * what MAPS filled, and after the rounds "#changed" lines what each map held
 * before and after them (cost_state_print()).
 *
 * A program that rewrites a frame (its first pass's data out differs from
 * the data in) would be fed its own output by test_run's repetitions, a frame
 * nobody sends: such a shape is timed one call per run instead, each on the
 * frame as built, and the call's own cost, bare XDP_PASS's single run less
 * its repeated run on the same frame in the same round, taken off; a
 * "#rewrites<TAB>ARM<TAB>SHAPE" line names it.
 *
 * -P PCAP: after the shapes, in each arm's turn, the capture's frames in
 * order, each once (cost_replay.h), for its rows cost/capture and
 * cost/capture/p50, p90, p99 and max, and after the rounds its "#capture-actions",
 * "#capture-rewrites" and "#capture-costliest" lines, and the capture's "#skipped" ones.
 *
 * cpus: the same arms and frames on 1, 2, 4, ... CPUs at once, up to every
 * CPU this process may use (-c: a comma-separated list of counts instead):
 * one thread pinned to each CPU, all released together on the same frame, a
 * step for each shape and arm (cost_cpus.h). Per round, CPU count and arm:
 * rows benchmark cost/cpus/N, measures latency (the kernel's ns per run, the
 * mean over the threads and the shapes), throughput (runs per second of all
 * N threads together) and overlap-percent (how long all N timed loops ran at
 * once, of the time any ran). Queues and rings are sized for N threads' runs
 * (an array's, one per CPU, for one thread's) and emptied, untimed, after
 * each step, which the threads wait for.
 *
 * An arm given as ARM:PROG=OBJECT loads program PROG of its object, whatever
 * -p says: two objects whose programs are named differently compare. Either
 * takes ARM=id:PROG_ID too: a program another process loaded and
 * keeps (an agent's, attached and draining its maps as it serves), measured
 * as it runs; its maps are its loader's, never sized, filled or emptied here,
 * so -m is refused for it and a queue it fills makes later sends cheap.
 *
 * attach: the program on IFACE in MODE, as its type attaches it (XDP: native
 * or skb, through a BPF link, which the kernel removes when this process ends
 * however it ends); says "attached" on stderr, then
 * until SIGINT, SIGTERM, SIGHUP or SIGQUIT empties its event maps as a reader
 * would (live_read()), detaches and last prints "#live<TAB>READ", the events
 * it read, if it has any such map. -C fills its prog arrays' slots as the
 * timed runs' are (cost_chain.h), so the flood runs the chain they measured.
 * MODE: XDP's native or skb; TC's ingress or egress (through tcx where the
 * kernel has it, else a clsact qdisc). A mode of another type is refused. A
 * clsact filter, unlike a tcx or XDP link, is no link: a cost_run ended by
 * SIGKILL leaves it attached (`tc filter del dev IFACE ingress` takes it away).
 *
 * type: the program's type, the arm of the bare program it is measured
 * against (whose object is ARM.bpf.o) and the modes the live part attaches it
 * in, as "TYPE<TAB>BARE_ARM<TAB>MODE..." (xdp xdp_pass native skb; tc tc_ok
 * ingress, as its section says); or the line and status of an object the
 * tool cannot measure, before anything is loaded.
 *
 * run -L FILE: each arm's line table, as its program was loaded (the JIT
 * addresses of its source lines, cost_lines.h), written to FILE before the
 * first run, for a profiler sampling the runs (bench/cost/cost.sh, LINES=1).
 *
 * capture: PCAP read and checked as run's -P reads it (its "#skipped" and
 * "#capture" lines), and the frames that run written to OUT, a pcap file the
 * live part floods, but those a veth of 1500 bytes' MTU cannot send (longer
 * than 1514 bytes, 1518 with a VLAN tag), which a line
 * "#unflooded<TAB>COUNT<TAB>FIRST<TAB>MAX<TAB>MAX_TAGGED" counts and names.
 *
 * flood: PCAP's frames (capture's OUT) out of IFACE for SECONDS, looping
 * (cost_flood.h); prints "SENT<TAB>REFUSED<TAB>SECONDS".
 */
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>

#include "cost_capture.h"
#include "cost_args.h"
#include "cost_corpus.h"
#include "cost_cpus.h"
#include "cost_exits.h"
#include "cost_flood.h"
#include "cost_hold.h"
#include "cost_lines.h"
#include "cost_object.h"
#include "cost_replay.h"
#include "cost_type.h"
#include "kernel_cases.h"
/* The chain family's (bench/cost/chain/): cost_run measures chains and dispatchers too. */
#include "chain/cost_chain.h"
#include "chain/cost_dispatch.h"
#include "chain/cost_tailcall.h"

#define MAX_ARMS 4
#define LIVE_PREFIX "id:"
/* CPU counts a cpus run may take: 1, 2, 4, ... to 2^31, and the CPUs' own count. */
#define MAX_COUNTS 33

struct arm {
	const char *name;
	const char *prog;	/* ARM:PROG=OBJECT's PROG: this arm's program, over -p's */
	const char *path;
	struct cost_prog cp;
	struct cost_chain *chain;	/* its chain: the entry is cp (cost_chain.h) */
	double all_ns, overlap_ns, span_ns;
	bool rewrites[COST_SHAPES_MAX];	/* its first pass changed the shape's frame */
	struct cost_replay replay;	/* -P: the capture's frames through it */
};

/* At most this many single calls time a shape the program rewrites (calls_time()). */
#define MAX_CALLS 10000

static const char *prog_name, *maps_file, *globals, *counts_list, *pcap_file, *lines_file;
/* -C: the slots CHAIN= fills, MAP[INDEX]=[OBJECT:]PROG ... (cost_chain.h). */
static const char *chain_spec;
/* -O OBJECT=MAPS: the state of a CHAIN slot's other object (CHAIN_MAPS=). */
static struct cost_arm_option chain_maps[COST_CHAIN_HOPS];
static int nr_chain_maps;

/* -M ARM=MAPS, -S ARM=NAME=VALUE,...: one arm's own, over -m's and -s's (a compare's side). */
static struct cost_arm_option arm_maps[MAX_ARMS], arm_globals[MAX_ARMS];
static int nr_arm_maps, nr_arm_globals;
static struct cost_capture capture;
/* cpus -P: the capture's frames the curve runs (those the kernel's test run takes), in order. */
static const void **curve_frames;
static __u32 *curve_lens;
static size_t nr_curve_frames;
static bool classifier_only;

static int usage(void)
{
	fprintf(stderr, "usage: cost_run run [-r ROUNDS] [-n REPEAT] [-k] [-p PROG] [-m MAPS] "
		"[-s NAME=VALUE,...] [-M ARM=MAPS] [-S ARM=NAME=VALUE,...] [-C CHAIN] "
		"[-O OBJECT=MAPS] [-P PCAP] [-L FILE] ARM=OBJECT|ARM=id:PROG_ID... (1 to %d arms)\n"
		"       cost_run cpus [-r ROUNDS] [-n REPEAT] [-c COUNT,...] [-k] [-p PROG] "
		"[-m MAPS] [-s NAME=VALUE,...] [-M ARM=MAPS] [-S ARM=NAME=VALUE,...] [-P PCAP] "
		"ARM=OBJECT|ARM=id:PROG_ID...\n"
		"       cost_run attach [-p PROG] [-m MAPS] [-s NAME=VALUE,...] [-C CHAIN] "
		"[-O OBJECT=MAPS] IFACE "
		"%s|%s OBJECT\n"
		"       cost_run type [-p PROG] OBJECT\n"
		"       cost_run capture PCAP OUT\n"
		"       cost_run flood IFACE SECONDS PCAP\n"
		"       cost_run tailcall [-r ROUNDS] [-n REPEAT]\n"
		"       cost_run dispatcher [-r ROUNDS] [-n REPEAT] [-p PROG] OBJECT PASS_OBJECT "
		"[OBJECT[:PROG]...]\n",
		MAX_ARMS, cost_type_xdp.modes,
		cost_type_tc.modes);
	return COST_EXIT_USAGE;
}

static int print_static_figures(const struct arm *arm)
{
	struct prog_static_figures fig;
	int err = cost_prog_figures(&arm->cp, &fig);

	if (err) {
		fprintf(stderr, "cost: %s: reading the program's info: %s\n", arm->name,
			strerror(-err));
		return COST_EXIT_FAILED;
	}
	printf("#prog\t%s\t%s\n", arm->name, arm->cp.name);
	printf("#object\t%s\t%s\n", arm->name, arm->path);
	printf("#type\t%s\t%s\n", arm->name, arm->cp.type->name);
	for (__u32 i = 0; i < arm->cp.type->nr_actions; i++)
		printf("#action\t%s\t%u\t%s\n", arm->name, arm->cp.type->actions[i].value,
		       arm->cp.type->actions[i].name);
	printf("%s\tcost/prog\tverified-instructions\t%u\n", arm->name, fig.verified_insns);
	printf("%s\tcost/prog\ttranslated-instructions\t%u\n", arm->name, fig.xlated_insns);
	printf("%s\tcost/prog\tjited-bytes\t%u\n", arm->name, fig.jited_bytes);
	return 0;
}

/* The ARM=OBJECT arguments into @arms: their count, or -1 after one line. */
static int parse_arms(int argc, char **argv, struct arm *arms)
{
	int nr_arms = argc - optind;

	if (nr_arms < 1 || nr_arms > MAX_ARMS) {
		usage();
		return -1;
	}
	for (int a = 0; a < nr_arms; a++) {
		char *arg = argv[optind + a], *eq = strchr(arg, '=');

		arms[a].cp.fd = -1;
		if (!eq || eq == arg || !eq[1]) {
			fprintf(stderr, "cost: '%s' is not ARM=OBJECT\n", arg);
			return -1;
		}
		*eq = '\0';
		arms[a].name = arg;
		arms[a].path = eq + 1;
		arms[a].prog = strchr(arg, ':');
		if (arms[a].prog)
			*(char *)arms[a].prog++ = '\0';
	}
	return nr_arms;
}

/* A live program's id from "id:N", 0 if @path names an object, -1 if N is not an id. */
static long long live_id(const char *path)
{
	const char *digits = path + strlen(LIVE_PREFIX);
	unsigned long long id;
	char *end;

	if (strncmp(path, LIVE_PREFIX, strlen(LIVE_PREFIX)))
		return 0;
	errno = 0;
	id = strtoull(digits, &end, 10);
	return *digits < '0' || *digits > '9' || *end || errno || !id || id > UINT32_MAX ?
	       -1 : (long long)id;
}

/* Each arm loaded (or found, by id), its event maps sized for @runs runs on each of @cpus CPUs. */
/*
 * The line tables of @arm's chain's hops after its entry, under the arm's name: a frame's
 * time in a hop is the arm's too, and each hop's functions are named apart (cost_lines.h).
 * The real chain's programs, by id: the cut copy's are not the ones sampled.
 */
static int write_hop_lines(FILE *f, const struct arm *arm)
{
	int err = 0;

	for (int h = 1; !err && arm->chain && h < arm->chain->nr_hops; h++) {
		int fd = bpf_prog_get_fd_by_id(arm->chain->hops[h].id);

		if (fd < 0)
			return -errno;
		err = cost_lines_print(f, arm->name, fd);
		close(fd);
	}
	return err;
}

/* -L: each measured arm's line table into lines_file (cost_lines.h), its chain's hops too. */
static int write_lines(const struct arm *arms, int nr_arms)
{
	FILE *f = fopen(lines_file, "w");
	int err = f ? 0 : -errno;

	for (int a = 0; !err && a < nr_arms; a++)
		if (!cost_type_is_bare(arms[a].name))
			err = cost_lines_print(f, arms[a].name, arms[a].cp.fd) ?:
			      write_hop_lines(f, &arms[a]);
	if (f && fclose(f) && !err)
		err = -errno;
	if (!err)
		return 0;
	fprintf(stderr, "cost: writing the programs' line tables to %s: %s\n", lines_file,
		strerror(-err));
	return COST_EXIT_FAILED;
}

static int load_arms(struct arm *arms, int nr_arms, __u32 runs, __u32 cpus)
{
	for (int a = 0; a < nr_arms; a++) {
		bool pass = cost_type_is_bare(arms[a].name);
		long long id = live_id(arms[a].path);
		const char *maps = cost_arm_value(arm_maps, nr_arm_maps, arms[a].name, maps_file);
		const char *set = cost_arm_value(arm_globals, nr_arm_globals, arms[a].name,
						 globals);
		int ret;

		if (id < 0) {
			fprintf(stderr, "cost: %s: not a program's id (bpftool prog list shows "
				"them)\n", arms[a].path);
			return COST_EXIT_USAGE;
		}
		if (id && (maps || set)) {
			fprintf(stderr, "cost: %s: MAPS fills an object's own maps, and SET its "
				"globals, not those of a program another process loaded\n",
				arms[a].path);
			return COST_EXIT_USAGE;
		}
		/* A program another process loaded is measured alone, as it runs. */
		arms[a].chain = id ? NULL : calloc(1, sizeof(*arms[a].chain));
		if (arms[a].chain) {
			arms[a].chain->object_maps = chain_maps;
			arms[a].chain->nr_object_maps = nr_chain_maps;
		}
		if (!id && !arms[a].chain)
			return COST_EXIT_FAILED;
		/* A chain of one where the object has no prog array: the program alone. */
		ret = id ? cost_prog_get(&arms[a].cp, id) :
		      cost_chain_load(arms[a].chain, &arms[a].cp, arms[a].path,
				      pass ? NULL : arms[a].prog ?: prog_name,
				      pass ? NULL : maps, pass ? NULL : set, runs, cpus,
				      pass ? NULL : chain_spec);
		ret = ret ?: print_static_figures(&arms[a]);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The shapes the kernel's test run refuses for @arm's type taken out, each
 * said in a "#refused<TAB>SHAPE<TAB>WHY" line: a TC program's frame becomes an
 * skb, and 6.18 refuses an IPv4 one shorter than its IP header (EINVAL), a
 * frame that an XDP program is handed as it is. The rest run as they would.
 */
static size_t drop_refused(struct arm *arm, struct cost_shape *shapes, size_t nr_shapes)
{
	size_t kept = 0;

	for (size_t i = 0; i < nr_shapes; i++) {
		__u32 action;
		double ns;
		int err = kernel_frame_run(arm->cp.fd, shapes[i].frame, shapes[i].len, 1, &ns,
					   &action);

		if (err == -EINVAL) {
			printf("#refused\t%s\tthe kernel's test run of a %s program refuses it "
			       "(EINVAL)\n", shapes[i].name, arm->cp.type->label);
			continue;
		}
		if (kept != i) {
			shapes[kept] = shapes[i];
			if (shapes[i].name == shapes[i].label)
				shapes[kept].name = shapes[kept].label;
		}
		kept++;
	}
	/* The run's sends, untimed: the rounds start with empty maps. */
	cost_prog_drain(&arm->cp);
	return kept;
}

/* After the runs: each arm's event maps, and the events read out of each. */
static void close_arms(struct arm *arms, int nr_arms, bool measured)
{
	for (int a = 0; a < nr_arms; a++) {
		if (measured)
			cost_events_print(&arms[a].cp.events, arms[a].name);
		if (arms[a].cp.obj)
			cost_state_print(&arms[a].cp.state, arms[a].cp.obj, arms[a].name, measured);
		if (arms[a].chain) {
			cost_chain_print_state(arms[a].chain, arms[a].name, measured);
			cost_chain_close(arms[a].chain);
		}
		free(arms[a].chain);
		cost_prog_close(&arms[a].cp);
	}
}

/*
 * A program that aborts every frame, or answers with no action of its type at
 * all, has not measured anything a user would run: the usual reason is
 * configuration it reads from a map that nobody filled.
 */
static int check_configured(const struct arm *arm, const __u32 *actions, size_t nr_shapes)
{
	for (size_t i = 0; i < nr_shapes; i++)
		if (arm->cp.type->answered(actions[i]))
			return 0;
	fprintf(stderr, "cost: %s (%s) aborted every frame shape: it reads configuration "
		"from a map nobody filled; give its entries with %s\n", arm->path,
		arm->cp.name, COST_ARG_MAPS);
	return COST_EXIT_UNCONFIGURED;
}

static int check_all_configured(const struct arm *arms, int nr_arms,
				__u32 (*actions)[COST_SHAPES_MAX], size_t nr_shapes)
{
	for (int a = 0; a < nr_arms; a++) {
		int ret = cost_type_is_bare(arms[a].name) ? 0 :
			  check_configured(&arms[a], actions[a], nr_shapes);

		if (ret)
			return ret;
	}
	return 0;
}

/* After a run: its sends emptied, untimed, or one line on why that failed. */
static int drain(struct arm *arm, const struct cost_shape *shape)
{
	int err = cost_prog_drain(&arm->cp);

	if (!err)
		return 0;
	fprintf(stderr, "cost: %s: %s: emptying its queues: %s\n", arm->name, shape->name,
		err == -EOVERFLOW ? "one filled in the run, which skews its timing" :
		strerror(-err));
	return COST_EXIT_FAILED;
}

/*
 * @arm held where its type needs it while it runs (an XDP program in the
 * dispatcher, cost_hold.h): the link's fd into @link (-1: nothing held), or
 * COST_EXIT_FAILED after one line.
 */
static int hold_arm(const struct arm *arm, int *link)
{
	*link = arm->cp.type->hold ? arm->cp.type->hold(arm->cp.fd) : -1;
	if (*link >= 0 || !arm->cp.type->hold)
		return 0;
	fprintf(stderr, "cost: %s: attaching it to a loopback of its own: %s\n", arm->name,
		strerror(-*link));
	return COST_EXIT_FAILED;
}

static void release_arm(int link)
{
	if (link >= 0)
		close(link);
}

/* The frames' own copies come back here: room for what a program may push on them. */
static __u8 frame_out[COST_JUMBO_LEN + 512];

/*
 * Each shape's first pass through @arm, one run on the frame as built: its
 * action, as a row, and whether the program rewrote the frame (the data out
 * differs from the data in), as a #rewrites line.
 */
static int first_pass(struct arm *arm, const struct cost_shape *shapes, size_t nr_shapes,
		      __u32 *actions, bool tell)
{
	for (size_t i = 0; i < nr_shapes; i++) {
		LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = shapes[i].frame,
			    .data_size_in = shapes[i].len, .data_out = frame_out,
			    .data_size_out = sizeof(frame_out), .repeat = 1);
		int ret;

		if (bpf_prog_test_run_opts(arm->cp.fd, &opts)) {
			fprintf(stderr, "cost: %s: %s: BPF_PROG_TEST_RUN: %s\n", arm->name,
				shapes[i].name, strerror(errno));
			return COST_EXIT_FAILED;
		}
		ret = drain(arm, &shapes[i]);
		if (ret)
			return ret;
		actions[i] = opts.retval;
		arm->rewrites[i] = opts.data_size_out != shapes[i].len ||
				   memcmp(frame_out, shapes[i].frame, shapes[i].len);
		if (tell)
			printf("%s\tcost/%s\taction\t%u\n", arm->name, shapes[i].name,
			       actions[i]);
		if (tell && arm->rewrites[i])
			printf("#rewrites\t%s\t%s\n", arm->name, shapes[i].name);
	}
	return 0;
}

/* The mean of the kernel's ns over @calls calls of one run each, every one on @s as built. */
static int calls_time(int fd, const struct cost_shape *s, int calls, double *ns)
{
	double sum = 0, one;
	__u32 action;

	for (int c = 0; c < calls; c++) {
		int err = kernel_frame_run(fd, s->frame, s->len, 1, &one, &action);

		if (err)
			return err;
		sum += one;
	}
	*ns = sum / calls;
	return 0;
}

/*
 * The bare program a call's own cost is read on, of @type, in two
 * instructions: its fd, or -errno. It answers as the type's bare arm does
 * (XDP_PASS, TC_ACT_OK: 0), and is held as the arms are.
 */
static int bare_load(const struct cost_type *type, int *link)
{
	int fd = cost_type_stub(type, cost_type_pass(type), 0);

	if (fd < 0)
		return fd;
	*link = type->hold ? type->hold(fd) : -1;
	if (*link >= 0 || !type->hold)
		return fd;
	close(fd);
	return *link;
}

/*
 * For each shape some arm rewrites, what one call of one run adds to the
 * kernel's time over a run within a repeated call (its timer's reading and
 * the loop's first pass), on a bare program, held as the arms are, into
 * @call_ns: a single-call timing less this is the run's own.
 */
static int call_costs(const struct arm *arms, int nr_arms, const struct cost_shape *shapes,
		      size_t nr_shapes, int calls, double *call_ns)
{
	int fd = -1, link = -1, err = 0;

	for (size_t i = 0; !err && i < nr_shapes; i++) {
		bool any = false;
		double single = 0, repeated = 0;
		__u32 action;

		for (int a = 0; a < nr_arms; a++)
			any |= arms[a].rewrites[i];
		if (!any)
			continue;
		if (fd < 0) {
			fd = bare_load(arms[0].cp.type, &link);
			err = fd < 0 ? fd : 0;
		}
		err = err ?: calls_time(fd, &shapes[i], calls, &single);
		err = err ?: kernel_frame_run(fd, shapes[i].frame, shapes[i].len, calls, &repeated,
					      &action);
		call_ns[i] = single - repeated;
	}
	release_arm(link);
	if (fd >= 0)
		close(fd);
	if (err)
		fprintf(stderr, "cost: a single run's own cost, on a bare program: %s\n",
			strerror(-err));
	return err ? COST_EXIT_FAILED : 0;
}

static int drain_arm(void *ctx)
{
	return cost_prog_drain(&((struct arm *)ctx)->cp);
}

/* The capture's frames through @arm, held already, in one round: its rows. */
static int replay_arm(struct arm *arm, int round, int repeat)
{
	size_t frame = 0;
	int err = cost_replay_round(&arm->replay, round, arm->name, arm->cp.fd, drain_arm, arm,
				    repeat, &frame);

	if (!err)
		return 0;
	fprintf(stderr, "cost: %s: PCAP frame %u: %s\n", arm->name,
		capture.frames[frame].index, err == -EOVERFLOW ?
		"an event map filled in the run, which skews its timing" : strerror(-err));
	return COST_EXIT_FAILED;
}

/*
 * Every shape through one arm in one round, on one CPU, then the capture's
 * frames if there is one: its rows. A shape the arm rewrites is timed one
 * call per run, less @call_ns.
 */
static int run_arm(struct arm *arm, int round, const struct cost_shape *shapes, size_t nr_shapes,
		   int repeat, const double *call_ns)
{
	int link, ret = hold_arm(arm, &link), calls = repeat < MAX_CALLS ? repeat : MAX_CALLS;

	if (ret)
		return ret;
	arm->all_ns = 0;
	for (size_t i = 0; !ret && i < nr_shapes; i++) {
		__u32 action;
		double ns;
		int err = arm->rewrites[i] ? calls_time(arm->cp.fd, &shapes[i], calls, &ns) :
			  kernel_frame_run(arm->cp.fd, shapes[i].frame, shapes[i].len, repeat,
					   &ns, &action);

		if (err) {
			fprintf(stderr, "cost: %s: %s: BPF_PROG_TEST_RUN: %s\n", arm->name,
				shapes[i].name, strerror(-err));
			ret = COST_EXIT_FAILED;
			break;
		}
		ret = drain(arm, &shapes[i]);
		if (ret)
			break;
		if (arm->rewrites[i])
			ns -= call_ns[i];
		arm->all_ns += ns;
		printf("%s\tcost/%s\tlatency\t%.0f\n", arm->name, shapes[i].name, ns);
	}
	if (!ret && pcap_file)
		ret = replay_arm(arm, round, repeat);
	release_arm(link);
	return ret;
}

/* -P: the capture read, its skipped frames told, and room for each arm's runs of it. */
static int replay_start(struct arm *arms, int nr_arms, int rounds)
{
	int ret = cost_capture_load(&capture, pcap_file);

	if (ret)
		return ret;
	cost_capture_print_skipped(&capture);
	for (int a = 0; a < nr_arms; a++) {
		if (cost_replay_init(&arms[a].replay, &capture, rounds)) {
			fprintf(stderr, "cost: PCAP %s: %zu frames: out of memory\n", pcap_file,
				capture.nr_frames);
			return COST_EXIT_FAILED;
		}
	}
	return 0;
}

/*
 * After the rounds: the frames the kernel's test run refused, as one more
 * "#skipped" line and the "#capture" line again with the frames that ran (the
 * arms are of one type, whose test run refuses the same frames); each arm's
 * actions, rewrites and costliest frames of the capture.
 */
static void replay_end(struct arm *arms, int nr_arms, int rounds, bool measured)
{
	const struct cost_replay *r = &arms[0].replay;
	const struct arm *base = NULL, *candidate = NULL;

	if (measured && r->nr_refused)
		printf("#skipped\trefused\t%zu\t%u\n#capture\t%zu\t%zu\n", r->nr_refused,
		       r->first_refused, capture.nr_read, capture.nr_frames - r->nr_refused);
	for (int a = 0; a < nr_arms; a++) {
		if (!strcmp(arms[a].name, "base"))
			base = &arms[a];
		else if (!strcmp(arms[a].name, "candidate"))
			candidate = &arms[a];
	}
	/* A compare's (cost.sh names its arms so): the frames the candidate decides anew. */
	if (measured && base && candidate)
		cost_replay_print_changed(&base->replay, &candidate->replay);
	for (int a = 0; a < nr_arms; a++) {
		if (measured)
			cost_replay_print(&arms[a].replay, arms[a].name, rounds);
		cost_replay_free(&arms[a].replay);
	}
	cost_capture_free(&capture);
}

static int run(int argc, char **argv, int rounds, int repeat)
{
	static struct cost_shape shapes[COST_SHAPES_MAX];
	size_t nr_shapes = cost_corpus_build(shapes, classifier_only);
	struct arm arms[MAX_ARMS] = {};
	int nr_arms = parse_arms(argc, argv, arms), ret;
	__u32 actions[MAX_ARMS][COST_SHAPES_MAX];
	double call_ns[COST_SHAPES_MAX] = {};

	if (nr_arms < 0)
		return COST_EXIT_USAGE;
	if (rounds < 0 || repeat < 1)
		return usage();
	ret = pcap_file && rounds ? replay_start(arms, nr_arms, rounds) : 0;
	if (ret)
		return ret;
	ret = rounds ? -cost_hold_start() : 0;
	if (ret) {
		fprintf(stderr, "cost: a network namespace of its own: %s\n", strerror(ret));
		ret = COST_EXIT_FAILED;
	}
	ret = ret ?: load_arms(arms, nr_arms, repeat, 1);
	if (!ret && lines_file)
		ret = write_lines(arms, nr_arms);
	if (!ret && rounds)
		nr_shapes = drop_refused(&arms[0], shapes, nr_shapes);
	/* The first passes: each arm's actions, an unconfigured program told before any round. */
	for (int a = 0; !ret && rounds && a < nr_arms; a++)
		ret = first_pass(&arms[a], shapes, nr_shapes, actions[a], true);
	if (!ret && rounds)
		ret = check_all_configured(arms, nr_arms, actions, nr_shapes);
	/* A chain's hops: which each shape takes, told before any round. */
	for (int a = 0; !ret && rounds && a < nr_arms; a++)
		if (arms[a].chain && cost_chain_is_chain(arms[a].chain))
			ret = cost_chain_trace(arms[a].chain, arms[a].name, shapes, nr_shapes);
	for (int round = 0; !ret && round < rounds; round++) {
		ret = call_costs(arms, nr_arms, shapes, nr_shapes,
				 repeat < MAX_CALLS ? repeat : MAX_CALLS, call_ns);
		for (int k = 0; !ret && k < nr_arms; k++) {
			int a = (round + k) % nr_arms;

			ret = run_arm(&arms[a], round, shapes, nr_shapes, repeat, call_ns);
			/* Its hops, each alone, in the same round as the whole chain. */
			if (!ret && arms[a].chain && cost_chain_is_chain(arms[a].chain))
				ret = cost_chain_round(arms[a].chain, arms[a].name, shapes,
						       nr_shapes, repeat, NULL);
		}
		for (int a = 0; !ret && a < nr_arms; a++)
			printf("%s\tcost/all\tlatency\t%.0f\n", arms[a].name, arms[a].all_ns);
		fflush(stdout);
	}
	if (pcap_file && rounds)
		replay_end(arms, nr_arms, rounds, !ret);
	close_arms(arms, nr_arms, !ret && rounds);
	return ret;
}

/*
 * The CPU counts to run on: -c's list, or 1, 2, 4, ... below @nr_cpus and
 * @nr_cpus itself. Their number, or -1 after one line.
 */
static int cpu_counts(int *counts, int nr_cpus)
{
	char *list, *tok, *save, *end;
	int n = 0;

	if (!counts_list) {
		for (long c = 1; c < nr_cpus; c *= 2)
			counts[n++] = c;
		counts[n++] = nr_cpus;
		return n;
	}
	list = strdup(counts_list);
	for (tok = list ? strtok_r(list, ",", &save) : NULL; tok && n < MAX_COUNTS;
	     tok = strtok_r(NULL, ",", &save)) {
		long c = strtol(tok, &end, 10);

		if (*end || c < 1 || c > nr_cpus) {
			fprintf(stderr, "cost: -c %s: each count is from 1 to the %d CPUs this "
				"process may use\n", counts_list, nr_cpus);
			n = -1;
			break;
		}
		counts[n++] = c;
	}
	free(list);
	if (!n)
		usage();
	return n ?: -1;
}

/*
 * Every shape on @n CPUs at once for one arm, held where its type needs it
 * meanwhile (an XDP program in the dispatcher, cost_hold.h: else the threads'
 * calls would queue on the dispatcher's lock,
 * their loops barely overlapping): its ns per run, overlap and span summed
 * over the shapes.
 */
/* One step of @work through @arm on @n CPUs, its figures added to the arm's. */
static int curve_step(struct cost_cpus *pool, int n, struct arm *arm,
		      const struct cost_cpus_work *work, const struct cost_shape *what,
		      struct cost_cpus_step *step)
{
	int err = cost_cpus_run(pool, n, arm->cp.fd, work, step);

	if (err) {
		fprintf(stderr, "cost: %s: %s on %d CPUs: BPF_PROG_TEST_RUN: %s\n", arm->name,
			what->name, n, strerror(-err));
		return COST_EXIT_FAILED;
	}
	arm->overlap_ns += step->overlap_ns;
	arm->span_ns += step->span_ns;
	return drain(arm, what);
}

/*
 * The curve's workload through @arm on @n CPUs: the capture's frames where
 * there is one (curve_frames), each on its first pass, one call of one run,
 * as its rows in the table are timed; else each shape in one call of @repeat
 * runs, but a shape the arm rewrites, which repeats would feed its own output:
 * calls of one run on the frame as built, less what such a call adds (@call_ns).
 */
static int cpus_arm(struct cost_cpus *pool, int n, struct arm *arm,
		    const struct cost_shape *shapes, size_t nr_shapes, int repeat, __u32 *actions,
		    const double *call_ns)
{
	int link, ret = hold_arm(arm, &link), calls = repeat < MAX_CALLS ? repeat : MAX_CALLS;
	static const struct cost_shape capture_shape = { .name = "the capture's frames" };
	struct cost_cpus_step step;

	if (ret)
		return ret;
	arm->all_ns = arm->overlap_ns = arm->span_ns = 0;
	if (nr_curve_frames) {
		struct cost_cpus_work work = {
			.frames = curve_frames, .lens = curve_lens, .nr = nr_curve_frames,
			.calls = (size_t)calls > nr_curve_frames ? calls : (int)nr_curve_frames,
			.repeat = 1,
		};

		ret = curve_step(pool, n, arm, &work, &capture_shape, &step);
		arm->all_ns = step.ns;
	}
	for (size_t i = 0; !ret && !nr_curve_frames && i < nr_shapes; i++) {
		const void *frame = shapes[i].frame;
		__u32 len = shapes[i].len;
		struct cost_cpus_work work = {
			.frames = &frame, .lens = &len, .nr = 1,
			.calls = arm->rewrites[i] ? calls : 1,
			.repeat = arm->rewrites[i] ? 1 : repeat,
		};

		ret = curve_step(pool, n, arm, &work, &shapes[i], &step);
		arm->all_ns += step.ns - (arm->rewrites[i] ? call_ns[i] : 0);
		actions[i] = step.action;
	}
	release_arm(link);
	return ret;
}

/* A chain's hops on the curve: the CPUs of the pool that run them, and their rows' prefix. */
struct hop_timer {
	struct cost_cpus *pool;
	int n;
	char prefix[32];
};

/* A hop round's run on @n CPUs at once, each thread one call of @repeat runs. */
static int hop_on_cpus(void *ctx, int fd, const struct cost_shape *shape, int repeat, double *ns)
{
	const struct hop_timer *t = ctx;
	const void *frame = shape->frame;
	__u32 len = shape->len;
	struct cost_cpus_work work = {
		.frames = &frame, .lens = &len, .nr = 1, .calls = 1, .repeat = repeat,
	};
	struct cost_cpus_step step;
	int err = cost_cpus_run(t->pool, t->n, fd, &work, &step);

	*ns = step.ns;
	return err;
}

/*
 * Each chain's hops on @n CPUs at once, as on one (cost_chain_round): rows ARM
 * cost/cpus/N/hop/PROG, cost/cpus/N/tail-call and cost/cpus/N/chain/hop-sum. On the
 * shapes only: a capture's frames on the curve take paths no trace read.
 */
static int cpus_hops(struct cost_cpus *pool, int n, struct arm *arms, int nr_arms,
		     const struct cost_shape *shapes, size_t nr_shapes, int repeat)
{
	struct hop_timer t = { .pool = pool, .n = n };
	struct cost_chain_timer timer = { .run = hop_on_cpus, .ctx = &t, .prefix = t.prefix };
	int ret = 0;

	snprintf(t.prefix, sizeof(t.prefix), "cost/cpus/%d/", n);
	for (int a = 0; !ret && !nr_curve_frames && a < nr_arms; a++)
		if (arms[a].chain && cost_chain_is_chain(arms[a].chain))
			ret = cost_chain_round(arms[a].chain, arms[a].name, shapes, nr_shapes,
					       repeat, &timer);
	return ret;
}

/* One round of every arm on @n CPUs at once, from a different arm each round: its rows. */
static int cpus_round(struct cost_cpus *pool, int n, int round, struct arm *arms, int nr_arms,
		      const struct cost_shape *shapes, size_t nr_shapes, int repeat,
		      __u32 (*actions)[COST_SHAPES_MAX], const double *call_ns)
{
	for (int k = 0; k < nr_arms; k++) {
		int a = (round + nr_arms + k) % nr_arms;
		int ret = cpus_arm(pool, n, &arms[a], shapes, nr_shapes, repeat, actions[a],
				   call_ns);

		if (ret)
			return ret;
	}
	for (int a = 0; round >= 0 && a < nr_arms; a++) {
		double ns = arms[a].all_ns / (nr_curve_frames ? 1 : nr_shapes);

		printf("%s\tcost/cpus/%d\tlatency\t%.2f\n", arms[a].name, n, ns);
		printf("%s\tcost/cpus/%d\tthroughput\t%.0f\n", arms[a].name, n,
		       ns > 0 ? n * 1e9 / ns : 0);
		printf("%s\tcost/cpus/%d\toverlap-percent\t%.1f\n", arms[a].name, n,
		       arms[a].span_ns > 0 ? arms[a].overlap_ns / arms[a].span_ns * 100 : 0);
	}
	fflush(stdout);
	return 0;
}

/*
 * cpus -P: the curve runs the capture's frames, those @arm's type's test run
 * takes (as the table's rows leave the rest out): "#curve<TAB>capture<TAB>N".
 */
static int curve_capture(const struct arm *arm)
{
	int ret = cost_capture_load(&capture, pcap_file);

	if (ret)
		return ret;
	curve_frames = calloc(capture.nr_frames, sizeof(*curve_frames));
	curve_lens = calloc(capture.nr_frames, sizeof(*curve_lens));
	if (!curve_frames || !curve_lens) {
		fprintf(stderr, "cost: PCAP %s: %zu frames: out of memory\n", pcap_file,
			capture.nr_frames);
		return COST_EXIT_FAILED;
	}
	for (size_t i = 0; i < capture.nr_frames; i++) {
		const __u8 *f = cost_capture_data(&capture, i);
		__u32 action;
		double ns;
		int err = kernel_frame_run(arm->cp.fd, f, capture.frames[i].len, 1, &ns, &action);

		if (err == -EINVAL)
			continue;
		if (err) {
			fprintf(stderr, "cost: %s: PCAP frame %u: BPF_PROG_TEST_RUN: %s\n",
				arm->name, capture.frames[i].index, strerror(-err));
			return COST_EXIT_FAILED;
		}
		curve_frames[nr_curve_frames] = f;
		curve_lens[nr_curve_frames++] = capture.frames[i].len;
	}
	printf("#curve\tcapture\t%zu\n", nr_curve_frames);
	return 0;
}

/*
 * The curve on the shapes: which each arm rewrites, from a first pass not
 * told again, and what one call of one run adds, read on a bare program:
 * "#curve<TAB>shapes<TAB>NAME,..." of the shapes some arm rewrites, or "-".
 */
static int curve_shapes(struct arm *arms, int nr_arms, const struct cost_shape *shapes,
			size_t nr_shapes, int repeat, __u32 (*actions)[COST_SHAPES_MAX],
			double *call_ns)
{
	bool any = false;
	int ret = 0;

	for (int a = 0; !ret && a < nr_arms; a++)
		ret = first_pass(&arms[a], shapes, nr_shapes, actions[a], false);
	ret = ret ?: call_costs(arms, nr_arms, shapes, nr_shapes,
				repeat < MAX_CALLS ? repeat : MAX_CALLS, call_ns);
	if (ret)
		return ret;
	printf("#curve\tshapes\t");
	for (size_t i = 0; i < nr_shapes; i++) {
		bool rewritten = false;

		for (int a = 0; a < nr_arms; a++)
			rewritten |= arms[a].rewrites[i];
		if (rewritten)
			printf("%s%s", any ? "," : "", shapes[i].name);
		any |= rewritten;
	}
	printf("%s\n", any ? "" : "-");
	return 0;
}

static int cpus(int argc, char **argv, int rounds, int repeat)
{
	static struct cost_shape shapes[COST_SHAPES_MAX];
	size_t nr_shapes = cost_corpus_build(shapes, classifier_only);
	struct arm arms[MAX_ARMS] = {};
	int nr_arms = parse_arms(argc, argv, arms), counts[MAX_COUNTS], nr_counts, nr_cpus;
	int most = 0, ret;
	struct cost_cpus *pool;
	__u32 actions[MAX_ARMS][COST_SHAPES_MAX];
	double call_ns[COST_SHAPES_MAX] = {};

	if (nr_arms < 0)
		return COST_EXIT_USAGE;
	if (rounds < 0 || repeat < 1)
		return usage();
	ret = -cost_cpus_start(&pool, &nr_cpus);
	if (ret) {
		fprintf(stderr, "cost: a thread on each CPU, in a network namespace of its own: "
			"%s\n", strerror(ret));
		return COST_EXIT_FAILED;
	}
	nr_counts = cpu_counts(counts, nr_cpus);
	if (nr_counts < 0) {
		cost_cpus_stop(pool);
		return COST_EXIT_USAGE;
	}
	for (int c = 0; c < nr_counts; c++)
		most = counts[c] > most ? counts[c] : most;
	/* Every thread's sends of one step, which are emptied before the next. */
	ret = load_arms(arms, nr_arms, repeat, most);
	if (!ret && rounds)
		nr_shapes = drop_refused(&arms[0], shapes, nr_shapes);
	if (!ret && rounds)
		ret = pcap_file ? curve_capture(&arms[0]) :
		      curve_shapes(arms, nr_arms, shapes, nr_shapes, repeat, actions, call_ns);
	/* A chain's hops, which each shape takes, for its hops on the curve (cpus_hops). */
	for (int a = 0; !ret && rounds && !nr_curve_frames && a < nr_arms; a++)
		if (arms[a].chain && cost_chain_is_chain(arms[a].chain))
			ret = cost_chain_trace(arms[a].chain, arms[a].name, shapes, nr_shapes);
	/*
	 * Round -1, not shown, warms what the first would find cold (caches, the
	 * program's pages), which would read as a CPU count's cost in its ratios.
	 */
	for (int round = rounds ? -1 : 0; !ret && round < rounds; round++) {
		for (int c = 0; !ret && c < nr_counts; c++) {
			ret = cpus_round(pool, counts[c], round, arms, nr_arms, shapes, nr_shapes,
					 repeat, actions, call_ns);
			if (!ret && round >= 0)
				ret = cpus_hops(pool, counts[c], arms, nr_arms, shapes, nr_shapes,
						repeat);
		}
		if (!ret && round < 0 && !nr_curve_frames)
			ret = check_all_configured(arms, nr_arms, actions, nr_shapes);
	}
	cost_cpus_stop(pool);
	free(curve_frames);
	free(curve_lens);
	if (pcap_file)
		cost_capture_free(&capture);
	close_arms(arms, nr_arms, !ret && rounds);
	return ret;
}

/* How long the live reader waits when it found nothing: an agent's wake-up is as late. */
#define LIVE_IDLE_NS 1000000

/*
 * The program's event maps emptied while it runs, in a loop that pauses only
 * when a pass read nothing: with no reader, a queue or ring is full within
 * milliseconds of a flood, and a send that fails costs less than one that
 * gets through. A map that still fills is what a reader this fast meets.
 * Until a signal of @set; 0, or COST_EXIT_FAILED after one line.
 */
static int live_read(struct cost_prog *cp, const sigset_t *set)
{
	const struct timespec idle = { .tv_nsec = LIVE_IDLE_NS }, busy = {};
	__u64 before;
	int err;

	do {
		before = cost_events_read(&cp->events);
		err = cost_prog_drain(cp);
		if (err && err != -EOVERFLOW) {
			fprintf(stderr, "cost: reading %s's events: %s\n", cp->name,
				strerror(-err));
			return COST_EXIT_FAILED;
		}
	} while (sigtimedwait(set, NULL, cost_events_read(&cp->events) == before ? &idle : &busy)
		 < 0);
	printf("#live\t%llu\n", (unsigned long long)cost_events_read(&cp->events));
	return 0;
}

static int attach(int argc, char **argv)
{
	struct cost_chain ch = { .cut.fd = -1, .pair_fd = -1, .pair_map_fd = -1, .bare_fd = -1,
				 .object_maps = chain_maps, .nr_object_maps = nr_chain_maps };
	struct cost_prog cp = {};
	struct cost_attached at = { .link_fd = -1 };
	struct bpf_prog_info info = {};
	__u32 info_len = sizeof(info);
	const char *iface, *mode, *path;
	unsigned int ifindex;
	int sig, ret;
	sigset_t set;

	if (argc - optind != 3)
		return usage();
	iface = argv[optind];
	mode = argv[optind + 1];
	path = argv[optind + 2];
	ifindex = if_nametoindex(iface);
	if (!ifindex) {
		fprintf(stderr, "cost: no interface %s: %s\n", iface, strerror(errno));
		return COST_EXIT_FAILED;
	}
	/* Taken before the link exists, so a signal can never end us with it half made. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	/*
	 * Runs: 0, the object's own sizes: a live run is read as it goes. CHAIN's slots
	 * filled as the timed runs fill them; its cut copy, loaded with it, stays unattached.
	 */
	ret = chain_spec ? cost_chain_load(&ch, &cp, path, prog_name, maps_file, globals, 0, 1,
					   chain_spec) :
			   cost_prog_load(&cp, path, prog_name, maps_file, globals, 0, 1);
	if (ret)
		goto out;
	if (!cost_type_takes_mode(cp.type, mode)) {
		/* "an XDP", "a TC": the label is an acronym, said letter by letter. */
		fprintf(stderr, "cost: %s is %s %s program: it attaches in mode %s, not %s\n",
			cp.name, strchr("AEFHILMNORSX", cp.type->label[0]) ? "an" : "a",
			cp.type->label, cp.type->modes, mode);
		ret = COST_EXIT_TYPE_OPTION;
		goto out;
	}
	ret = cp.type->attach(cp.prog, cp.fd, ifindex, mode, &at);
	if (ret) {
		fprintf(stderr, "cost: attaching %s to %s in %s mode: %s\n", path, iface, mode,
			strerror(-ret));
		ret = COST_EXIT_FAILED;
		goto out;
	}
	bpf_obj_get_info_by_fd(cp.fd, &info, &info_len);
	fprintf(stderr, "cost: attached %s (prog id %u) to %s %s\n",
		cp.name, info.id, iface, at.how);
	if (cp.events.nr) {
		ret = live_read(&cp, &set);
	} else {
		sigwait(&set, &sig);
		ret = 0;
	}
	cp.type->detach(&at);
out:
	cost_chain_close(&ch);
	cost_prog_close(&cp);
	return ret;
}

/* A VLAN tag's bytes: a tagged frame may be this much longer on the same MTU. */
#define VLAN_TAG_LEN 4

static int capture_cmd(int argc, char **argv)
{
	struct cost_capture_unsent unsent;
	int ret, err;

	if (argc - optind != 2)
		return usage();
	ret = cost_capture_load(&capture, argv[optind]);
	if (ret)
		return ret;
	cost_capture_print_skipped(&capture);
	err = cost_capture_write(&capture, argv[optind + 1], ETH_FRAME_LEN, &unsent);
	if (!err && unsent.count)
		printf("#unflooded\t%zu\t%u\t%d\t%d\n", unsent.count, unsent.first,
		       ETH_FRAME_LEN, ETH_FRAME_LEN + VLAN_TAG_LEN);
	if (err) {
		fprintf(stderr, "cost: writing %s: %s\n", argv[optind + 1], strerror(-err));
		ret = COST_EXIT_FAILED;
	}
	cost_capture_free(&capture);
	return ret;
}

static int flood_cmd(int argc, char **argv)
{
	struct cost_flood_counts counts;
	unsigned int ifindex;
	double seconds;
	int ret, err;

	if (argc - optind != 3)
		return usage();
	ifindex = if_nametoindex(argv[optind]);
	seconds = atof(argv[optind + 1]);
	if (!ifindex || seconds <= 0) {
		fprintf(stderr, "cost: flood: no interface %s, or %s is not a time in seconds\n",
			argv[optind], argv[optind + 1]);
		return COST_EXIT_USAGE;
	}
	ret = cost_capture_load(&capture, argv[optind + 2]);
	if (ret)
		return ret;
	err = cost_flood(&capture, ifindex, seconds, &counts);
	cost_capture_free(&capture);
	if (err) {
		fprintf(stderr, "cost: flooding %s with %s: %s\n", argv[optind],
			argv[optind + 2], strerror(-err));
		return COST_EXIT_FAILED;
	}
	printf("%llu\t%llu\t%.3f\n", counts.sent, counts.refused, counts.seconds);
	return 0;
}

static int type(int argc, char **argv)
{
	struct cost_prog cp = { .fd = -1 };
	const char *mode;
	int ret;

	if (argc - optind != 1)
		return usage();
	ret = cost_prog_open(&cp, argv[optind], prog_name);
	if (!ret) {
		mode = cp.type->mode_of ? cp.type->mode_of(cp.prog) : NULL;
		printf("%s\t%s\t", cp.type->name, cp.type->bare_arm);
		for (const char *m = mode ?: cp.type->modes; *m; m++)
			putchar(*m == '|' ? '\t' : *m);
		putchar('\n');
	}
	cost_prog_close(&cp);
	return ret;
}

int main(int argc, char **argv)
{
	int rounds = 10, repeat = 100000, opt;
	const char *cmd = argc > 1 ? argv[1] : "";

	optind = 2;
	while ((opt = getopt(argc, argv, "r:n:c:kp:m:s:M:S:P:L:C:O:")) != -1) {
		switch (opt) {
		case 'c': counts_list = optarg; break;
		case 'k': classifier_only = true; break;
		case 'r': rounds = atoi(optarg); break;
		case 'n': repeat = atoi(optarg); break;
		case 'p': prog_name = optarg; break;
		case 'm': maps_file = optarg; break;
		case 's': globals = optarg; break;
		case 'P': pcap_file = optarg; break;
		case 'L': lines_file = optarg; break;
		case 'C': chain_spec = *optarg ? optarg : NULL; break;
		case 'M':
			if (cost_arm_option(arm_maps, &nr_arm_maps, MAX_ARMS, optarg))
				return COST_EXIT_USAGE;
			break;
		case 'S':
			if (cost_arm_option(arm_globals, &nr_arm_globals, MAX_ARMS, optarg))
				return COST_EXIT_USAGE;
			break;
		case 'O':
			if (cost_arm_option(chain_maps, &nr_chain_maps, COST_CHAIN_HOPS, optarg))
				return COST_EXIT_USAGE;
			break;
		default: return usage();
		}
	}
	cost_object_init();
	if (!strcmp(cmd, "run"))
		return run(argc, argv, rounds, repeat);
	if (!strcmp(cmd, "cpus"))
		return cpus(argc, argv, rounds, repeat);
	if (!strcmp(cmd, "attach"))
		return attach(argc, argv);
	if (!strcmp(cmd, "capture"))
		return capture_cmd(argc, argv);
	if (!strcmp(cmd, "flood"))
		return flood_cmd(argc, argv);
	if (!strcmp(cmd, "type"))
		return type(argc, argv);
	if (!strcmp(cmd, "tailcall"))
		return optind == argc ? cost_tailcall(rounds, repeat) : usage();
	if (!strcmp(cmd, "dispatcher"))
		return argc - optind >= 2 ? cost_dispatch(argv[optind], prog_name,
							  argv[optind + 1], &argv[optind + 2],
							  argc - optind - 2, rounds, repeat) :
		       usage();
	return usage();
}
