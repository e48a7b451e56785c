// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A program inside libxdp's dispatcher, against the program alone: see cost_dispatch.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <xdp/libxdp.h>

#include "cost_dispatch.h"
#include "cost_exits.h"
#include "cost_object.h"
#include "cost_timing.h"

/* A slot's program: @prog (NULL: the first) of the object at @path. */
struct cost_slot {
	const char *path;
	const char *prog;
};

static const int counts[] = { 1, 2, 5, 10 };
#define NR_COUNTS (sizeof(counts) / sizeof(counts[0]))
#define MAX_SLOTS 10

/*
 * libxdp's own lines are kept out of the tool's one line; the first is told in
 * it, the cause (those after it say what libxdp did instead).
 */
static char libxdp_said[256];

static int keep_libxdp_line(enum libxdp_print_level level, const char *fmt, va_list args)
{
	if (getenv("FBF_COST_LIBXDP_LOG"))
		vfprintf(stderr, fmt, args);
	else if (level != LIBXDP_DEBUG && !*libxdp_said) {
		vsnprintf(libxdp_said, sizeof(libxdp_said), fmt, args);
		libxdp_said[strcspn(libxdp_said, "\n")] = '\0';
	}
	return 0;
}

static void close_progs(struct xdp_program **progs, int n)
{
	for (int i = 0; i < n; i++)
		xdp_program__close(progs[i]);
}

/*
 * @n programs opened for libxdp, slot by slot: 0, or one line on the one that failed and
 * COST_EXIT_OPEN.
 */
static int open_progs(struct xdp_program **progs, int n, const struct cost_slot *slots)
{
	for (int i = 0; i < n; i++) {
		DECLARE_LIBXDP_OPTS(xdp_program_opts, opts, .open_filename = slots[i].path,
				    .prog_name = slots[i].prog);
		long err;

		progs[i] = xdp_program__create(&opts);
		err = libxdp_get_error(progs[i]);
		if (err) {
			close_progs(progs, i);
			/* libxdp says ENOENT for a program the object lacks, as for no file. */
			if (err == -ENOENT && slots[i].prog && !access(slots[i].path, R_OK))
				fprintf(stderr, "cost: dispatcher: %s has no program %s: name one "
					"of its XDP programs after the colon\n", slots[i].path,
					slots[i].prog);
			else
				fprintf(stderr, "cost: dispatcher: opening %s: %s\n", slots[i].path,
					strerror((int)-err));
			return COST_EXIT_OPEN;
		}
	}
	return 0;
}

/*
 * Round by round, the dispatcher's fd @fd and the program alone, @alone_fd, so
 * that what the shared CPUs do meanwhile falls on both alike: the least of
 * each, @alone_ns the least over every call. 0 or -errno.
 */
static int time_pair(int fd, int alone_fd, int rounds, int repeat, double *ns,
		     double *alone_ns)
{
	double round;
	int err = 0;

	for (int r = 0; !err && r < rounds; r++) {
		err = cost_timing_min(fd, 1, repeat, &round);
		if (!err && (!r || round < *ns))
			*ns = round;
		err = err ?: cost_timing_min(alone_fd, 1, repeat, &round);
		if (!err && round < *alone_ns)
			*alone_ns = round;
	}
	return err;
}

/*
 * The programs of @slots in a dispatcher on @ifindex, its fd timed into @ns beside the
 * program alone, and with @order, the names in the order the dispatcher runs them (libxdp
 * orders them by run priority) as "slot" rows. The frame must pass every slot where
 * @must_pass (the bare programs' rows), else it goes where the programs send it. 0, or
 * one line and the cost_exit status.
 */
static int time_dispatcher(const struct cost_slot *slots, int n, int ifindex, int alone_fd,
			   int rounds, int repeat, bool must_pass, bool order, double *ns,
			   double *alone_ns)
{
	struct xdp_program *progs[MAX_SLOTS];
	struct xdp_multiprog *mp = NULL;
	int err = open_progs(progs, n, slots), ret = COST_EXIT_FAILED;

	if (err)
		return err;
	err = xdp_program__attach_multi(progs, n, ifindex, XDP_MODE_SKB, 0);
	if (!err) {
		mp = xdp_multiprog__get_from_ifindex(ifindex);
		err = (int)libxdp_get_error(mp);
		if (err)
			mp = NULL;
	}
	/* libxdp falls back to the one program alone where its dispatcher does not load. */
	if (err || xdp_multiprog__is_legacy(mp)) {
		fprintf(stderr, "cost: libxdp's dispatcher does not load on this kernel (%s): "
			"measure it in a guest, bench/cost/chain/chain_kernels.sh KERNELS\n",
			*libxdp_said ? libxdp_said : err ? strerror(-err) : "a program alone");
		ret = COST_EXIT_DISPATCHER;
	} else {
		int fd = xdp_program__fd(xdp_multiprog__main_prog(mp)), i = 0;

		err = must_pass ? cost_timing_check(fd, XDP_PASS) : 0;
		err = err ?: time_pair(fd, alone_fd, rounds, repeat, ns, alone_ns);
		if (err)
			fprintf(stderr, "cost: dispatcher with %d programs: "
				"BPF_PROG_TEST_RUN: %s\n", n,
				err == -ENOENT ? "it did not pass the frame" : strerror(-err));
		else
			ret = 0;
		for (struct xdp_program *p = NULL;
		     !ret && order && (p = xdp_multiprog__next_prog(p, mp)); i++)
			printf("slot\t%d\t%s\n", i, xdp_program__name(p));
	}
	if (mp) {
		xdp_multiprog__detach(mp);
		xdp_multiprog__close(mp);
	}
	close_progs(progs, n);
	return ret;
}

/*
 * The dispatcher with the program, @slots[0], and the others of @slots (@n in all) into
 * @all, and into @without[i] the same with slot i holding the bare XDP_PASS program
 * instead: its share is the difference. 0, or one line and the cost_exit status.
 */
static int time_named(struct cost_slot *slots, int n, const char *pass_path, int ifindex,
		      int alone_fd, int rounds, int repeat, double *all, double *without,
		      double *alone_ns)
{
	int ret = time_dispatcher(slots, n, ifindex, alone_fd, rounds, repeat, false, true, all,
				  alone_ns);

	for (int i = 0; !ret && i < n; i++) {
		struct cost_slot kept = slots[i];

		slots[i] = (struct cost_slot){ .path = pass_path };
		ret = time_dispatcher(slots, n, ifindex, alone_fd, rounds, repeat, false, false,
				      &without[i], alone_ns);
		slots[i] = kept;
	}
	return ret;
}

/* OBJECT or OBJECT:PROG into @slot, cut in @spec; a colon in a directory's name stays. */
static void parse_slot(char *spec, struct cost_slot *slot)
{
	char *colon = strrchr(spec, ':');

	*slot = (struct cost_slot){ .path = spec };
	if (colon && !strchr(colon, '/') && colon[1]) {
		*colon = '\0';
		slot->prog = colon + 1;
	}
}

/* The programs of @slots open for libxdp: 0, or one line and COST_EXIT_OPEN. */
static int check_slots(const struct cost_slot *slots, int n)
{
	struct xdp_program *progs[MAX_SLOTS];
	int err = open_progs(progs, n, slots);

	if (!err)
		close_progs(progs, n);
	return err;
}

int cost_dispatch(const char *path, const char *prog, const char *pass_path,
		  char *const *named, int nr_named, int rounds, int repeat)
{
	struct cost_slot measured = { .path = path, .prog = prog };
	struct cost_slot slots[MAX_SLOTS] = {}, bare[MAX_SLOTS];
	double alone_ns, ns[NR_COUNTS], all = 0, without[MAX_SLOTS];
	struct cost_prog alone;
	bool alone_timed;
	int ret, ifindex;

	if (nr_named > MAX_SLOTS - 1) {
		fprintf(stderr, "cost: dispatcher: %d programs named beside the one measured; "
			"libxdp's dispatcher has %d slots\n", nr_named, MAX_SLOTS);
		return COST_EXIT_USAGE;
	}
	libxdp_set_print(keep_libxdp_line);
	/* The programs named, opened once first: a wrong one is told before any is timed. */
	for (int i = 0; i < nr_named; i++)
		parse_slot(named[i], &slots[i + 1]);
	ret = nr_named ? check_slots(&slots[1], nr_named) : 0;
	ret = ret ?: cost_prog_load(&alone, path, prog, NULL, NULL, 0, 1);
	if (ret)
		return ret;
	/* A loopback of its own, so that no interface of the machine is touched. */
	if (unshare(CLONE_NEWNET) || !(ifindex = if_nametoindex("lo"))) {
		fprintf(stderr, "cost: dispatcher: a network namespace of its own: %s\n",
			strerror(errno));
		ret = COST_EXIT_FAILED;
	}
	if (!ret && (cost_timing_check(alone.fd, XDP_PASS) ||
		     cost_timing_min(alone.fd, rounds, repeat, &alone_ns))) {
		fprintf(stderr, "cost: dispatcher: %s alone does not pass an IPv4 UDP frame, so "
			"the slots after it would not run\n", alone.name);
		ret = COST_EXIT_FAILED;
	}
	alone_timed = !ret;
	/* The program first, bare XDP_PASS programs after it. */
	bare[0] = measured;
	for (int i = 1; i < MAX_SLOTS; i++)
		bare[i] = (struct cost_slot){ .path = pass_path };
	for (size_t i = 0; !ret && i < NR_COUNTS; i++)
		ret = time_dispatcher(bare, counts[i], ifindex, alone.fd, rounds, repeat, true,
				      false, &ns[i], &alone_ns);
	/* The program first again, then the programs named, as the user gave them. */
	slots[0] = measured;
	if (!ret && nr_named)
		ret = time_named(slots, nr_named + 1, pass_path, ifindex, alone.fd, rounds, repeat,
				 &all, without, &alone_ns);
	/* Each over the least the program alone took in any round: the rows once all ran. */
	if (alone_timed)
		printf("alone\t0\t%.2f\n", alone_ns);
	for (size_t i = 0; !ret && i < NR_COUNTS; i++)
		printf("dispatcher\t%d\t%.2f\t%.3f\n", counts[i], ns[i],
		       (ns[i] - alone_ns) / counts[i]);
	if (!ret && nr_named)
		printf("slots\t%d\t%.2f\t%.3f\n", nr_named + 1, all, all - alone_ns);
	for (int i = 0; !ret && i < nr_named + 1; i++)
		printf("share\t%s%s%s\t%.2f\n", slots[i].path, slots[i].prog ? ":" : "",
		       slots[i].prog ?: "", all - without[i]);
	cost_prog_close(&alone);
	return ret;
}
