// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The cost tool's loader and runner, for any XDP object (bench/cost/cost.sh
 * drives it):
 *
 *   cost_run run [-r ROUNDS] [-n REPEAT] [-k] [-p PROG] [-m MAPS] ARM=OBJECT...
 *   cost_run attach [-p PROG] [-m MAPS] IFACE native|skb OBJECT
 *
 * run: each arm's program loaded side by side, its static figures once, then
 * round after round every frame shape of the corpus (cost_corpus.h; -k: the
 * classifier's own shapes alone) through BPF_PROG_TEST_RUN on every arm,
 * starting from a different arm each round so that none always runs first on
 * a cold cache: the arms' samples come from runs milliseconds apart, under the
 * same load, and pair round by round. The regression gate measures
 * fizzbuzzfib's builds with it too (bench/gate/gate.sh). ROUNDS 0 gives the
 * static figures alone: what a kernel booted under emulation, where timing
 * means nothing, is asked for. The arm named xdp_pass is the bare program the
 * others are measured against: -p and -m are for the others. Queues and rings
 * the programs send to are sized for one run and emptied after each, untimed
 * (cost_object.h). Prints "ARM<TAB>benchmark<TAB>measure<TAB>value" rows
 * (bench/gate/gate.py reads them): static figures, each shape's action (in
 * the first round: a program that keeps state may change its mind), one
 * latency sample per shape and round, and the round's sum as cost/all; and
 * "#prog<TAB>ARM<TAB>NAME" for the program each arm loaded.
 *
 * attach: the program on IFACE through a BPF link, which the kernel removes
 * when this process ends however it ends; says "attached" on stderr, then
 * waits for SIGINT or SIGTERM.
 */
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <linux/if_link.h>

#include "cost_corpus.h"
#include "cost_exits.h"
#include "cost_object.h"
#include "kernel_cases.h"

#define MAX_ARMS 4
#define PASS_ARM "xdp_pass"

struct arm {
	const char *name;
	const char *path;
	struct cost_prog cp;
	double all_ns;
};

static const char *prog_name, *maps_file;
static bool classifier_only;

static int usage(void)
{
	fprintf(stderr, "usage: cost_run run [-r ROUNDS] [-n REPEAT] [-k] [-p PROG] [-m MAPS] "
		"ARM=OBJECT... (1 to %d arms)\n"
		"       cost_run attach [-p PROG] [-m MAPS] IFACE native|skb OBJECT\n", MAX_ARMS);
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
	printf("#prog\t%s\t%s\n", arm->name, bpf_program__name(arm->cp.prog));
	printf("%s\tcost/prog\tverified-instructions\t%u\n", arm->name, fig.verified_insns);
	printf("%s\tcost/prog\ttranslated-instructions\t%u\n", arm->name, fig.xlated_insns);
	printf("%s\tcost/prog\tjited-bytes\t%u\n", arm->name, fig.jited_bytes);
	return 0;
}

/*
 * A program that aborts every frame, or answers with no XDP action at all,
 * has not measured anything a user would run: the usual reason is
 * configuration it reads from a map that nobody filled.
 */
static int check_configured(const struct arm *arm, const __u32 *actions, size_t nr_shapes)
{
	for (size_t i = 0; i < nr_shapes; i++)
		if (actions[i] != XDP_ABORTED && actions[i] <= XDP_REDIRECT)
			return 0;
	fprintf(stderr, "cost: %s (%s) aborted every frame shape: it reads configuration "
		"from a map nobody filled; give its entries with MAPS=FILE\n", arm->path,
		bpf_program__name(arm->cp.prog));
	return COST_EXIT_UNCONFIGURED;
}

static int run(int argc, char **argv, int rounds, int repeat)
{
	static struct cost_shape shapes[COST_SHAPES_MAX];
	size_t nr_shapes = cost_corpus_build(shapes, classifier_only);
	struct arm arms[MAX_ARMS] = {};
	int nr_arms = argc - optind, ret = COST_EXIT_FAILED;
	__u32 actions[MAX_ARMS][COST_SHAPES_MAX];

	if (nr_arms < 1 || nr_arms > MAX_ARMS || rounds < 0 || repeat < 1)
		return usage();
	for (int a = 0; a < nr_arms; a++) {
		char *arg = argv[optind + a], *eq = strchr(arg, '=');

		if (!eq || eq == arg || !eq[1]) {
			fprintf(stderr, "cost: '%s' is not ARM=OBJECT\n", arg);
			return COST_EXIT_USAGE;
		}
		*eq = '\0';
		arms[a].name = arg;
		arms[a].path = eq + 1;
	}
	for (int a = 0; a < nr_arms; a++) {
		bool pass = !strcmp(arms[a].name, PASS_ARM);

		ret = cost_prog_load(&arms[a].cp, arms[a].path, pass ? NULL : prog_name,
				     pass ? NULL : maps_file, repeat) ?:
		      print_static_figures(&arms[a]);
		if (ret)
			goto out;
	}
	for (int round = 0; round < rounds; round++) {
		for (int a = 0; a < nr_arms; a++)
			arms[a].all_ns = 0;
		for (size_t i = 0; i < nr_shapes; i++) {
			for (int k = 0; k < nr_arms; k++) {
				int a = (round + k) % nr_arms;
				struct arm *arm = &arms[a];
				__u32 action;
				double ns;
				int err = kernel_frame_run(arm->cp.fd, shapes[i].frame,
							   shapes[i].len, repeat, &ns, &action);

				if (err) {
					fprintf(stderr, "cost: %s: %s: BPF_PROG_TEST_RUN: %s\n",
						arm->name, shapes[i].name, strerror(-err));
					ret = COST_EXIT_FAILED;
					goto out;
				}
				err = cost_prog_drain(&arm->cp);
				if (err) {
					fprintf(stderr, "cost: %s: %s: emptying its queues: %s\n",
						arm->name, shapes[i].name, err == -EOVERFLOW ?
						"one filled in the run, which skews its timing" :
						strerror(-err));
					ret = COST_EXIT_FAILED;
					goto out;
				}
				arm->all_ns += ns;
				if (!round) {
					actions[a][i] = action;
					printf("%s\tcost/%s\taction\t%u\n", arm->name,
					       shapes[i].name, action);
				}
				printf("%s\tcost/%s\tlatency\t%.0f\n", arm->name, shapes[i].name,
				       ns);
			}
		}
		for (int a = 0; a < nr_arms; a++)
			printf("%s\tcost/all\tlatency\t%.0f\n", arms[a].name, arms[a].all_ns);
		if (round)
			continue;
		/* After the first round: an unconfigured program is told before the rest. */
		for (int a = 0; a < nr_arms; a++) {
			ret = strcmp(arms[a].name, PASS_ARM) ?
			      check_configured(&arms[a], actions[a], nr_shapes) : 0;
			if (ret)
				goto out;
		}
		fflush(stdout);
	}
	ret = 0;
out:
	for (int a = 0; a < nr_arms; a++)
		cost_prog_close(&arms[a].cp);
	return ret;
}

static int attach(int argc, char **argv)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts);
	struct cost_prog cp = {};
	struct bpf_prog_info info = {};
	__u32 info_len = sizeof(info);
	const char *iface, *mode, *path;
	unsigned int ifindex;
	int link_fd, sig, ret;
	sigset_t set;

	if (argc - optind != 3)
		return usage();
	iface = argv[optind];
	mode = argv[optind + 1];
	path = argv[optind + 2];
	if (!strcmp(mode, "native"))
		opts.flags = XDP_FLAGS_DRV_MODE;
	else if (!strcmp(mode, "skb"))
		opts.flags = XDP_FLAGS_SKB_MODE;
	else
		return usage();
	ifindex = if_nametoindex(iface);
	if (!ifindex) {
		fprintf(stderr, "cost: no interface %s: %s\n", iface, strerror(errno));
		return COST_EXIT_FAILED;
	}
	/* Taken before the link exists, so a signal can never end us with it half made. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	/* Events: 0, the object's own sizes; a live run is never drained. */
	ret = cost_prog_load(&cp, path, prog_name, maps_file, 0);
	if (ret)
		goto out;
	link_fd = bpf_link_create(cp.fd, ifindex, BPF_XDP, &opts);
	if (link_fd < 0) {
		fprintf(stderr, "cost: attaching %s to %s in %s mode: %s\n", path, iface, mode,
			strerror(errno));
		ret = COST_EXIT_FAILED;
		goto out;
	}
	bpf_obj_get_info_by_fd(cp.fd, &info, &info_len);
	fprintf(stderr, "cost: attached %s (prog id %u) to %s in %s mode\n",
		bpf_program__name(cp.prog), info.id, iface, mode);
	sigwait(&set, &sig);
	ret = 0;
out:
	cost_prog_close(&cp);
	return ret;
}

int main(int argc, char **argv)
{
	int rounds = 10, repeat = 100000, opt;
	const char *cmd = argc > 1 ? argv[1] : "";

	optind = 2;
	while ((opt = getopt(argc, argv, "r:n:kp:m:")) != -1) {
		switch (opt) {
		case 'k': classifier_only = true; break;
		case 'r': rounds = atoi(optarg); break;
		case 'n': repeat = atoi(optarg); break;
		case 'p': prog_name = optarg; break;
		case 'm': maps_file = optarg; break;
		default: return usage();
		}
	}
	cost_object_init();
	if (!strcmp(cmd, "run"))
		return run(argc, argv, rounds, repeat);
	if (!strcmp(cmd, "attach"))
		return attach(argc, argv);
	return usage();
}
