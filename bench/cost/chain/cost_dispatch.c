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
#include <linux/bpf.h>
#include <xdp/libxdp.h>

#include "cost_dispatch.h"
#include "cost_exits.h"
#include "cost_object.h"
#include "cost_timing.h"

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

/* @n programs, @path's @prog first, opened for libxdp: 0 or -errno. */
static int open_progs(struct xdp_program **progs, int n, const char *path, const char *prog,
		      const char *pass_path)
{
	for (int i = 0; i < n; i++) {
		DECLARE_LIBXDP_OPTS(xdp_program_opts, opts, .open_filename = i ? pass_path : path,
				    .prog_name = i ? NULL : prog);
		long err;

		progs[i] = xdp_program__create(&opts);
		err = libxdp_get_error(progs[i]);
		if (err) {
			close_progs(progs, i);
			return (int)err;
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
 * @n programs in a dispatcher on @ifindex, its fd timed into @ns beside the
 * program alone: 0, or one line and the cost_exit status.
 */
static int time_dispatcher(int n, int ifindex, const char *path, const char *prog,
			   const char *pass_path, int alone_fd, int rounds, int repeat,
			   double *ns, double *alone_ns)
{
	struct xdp_program *progs[MAX_SLOTS];
	struct xdp_multiprog *mp = NULL;
	int err = open_progs(progs, n, path, prog, pass_path), ret = COST_EXIT_FAILED;

	if (err) {
		fprintf(stderr, "cost: dispatcher: opening %s: %s\n", n > 1 ? pass_path : path,
			strerror(-err));
		return COST_EXIT_OPEN;
	}
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
		int fd = xdp_program__fd(xdp_multiprog__main_prog(mp));

		err = cost_timing_check(fd, XDP_PASS) ?:
		      time_pair(fd, alone_fd, rounds, repeat, ns, alone_ns);
		if (err)
			fprintf(stderr, "cost: dispatcher with %d programs: "
				"BPF_PROG_TEST_RUN: %s\n", n,
				err == -ENOENT ? "it did not pass the frame" : strerror(-err));
		else
			ret = 0;
	}
	if (mp) {
		xdp_multiprog__detach(mp);
		xdp_multiprog__close(mp);
	}
	close_progs(progs, n);
	return ret;
}

int cost_dispatch(const char *path, const char *prog, const char *pass_path, int rounds,
		  int repeat)
{
	double alone_ns, ns[NR_COUNTS];
	struct cost_prog alone;
	bool alone_timed;
	int ret, ifindex;

	libxdp_set_print(keep_libxdp_line);
	ret = cost_prog_load(&alone, path, prog, NULL, NULL, 0, 1);
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
	for (size_t i = 0; !ret && i < NR_COUNTS; i++)
		ret = time_dispatcher(counts[i], ifindex, path, prog, pass_path, alone.fd, rounds,
				      repeat, &ns[i], &alone_ns);
	/* Each over the least the program alone took in any round: the rows once all ran. */
	if (alone_timed)
		printf("alone\t0\t%.2f\n", alone_ns);
	for (size_t i = 0; !ret && i < NR_COUNTS; i++)
		printf("dispatcher\t%d\t%.2f\t%.3f\n", counts[i], ns[i],
		       (ns[i] - alone_ns) / counts[i]);
	cost_prog_close(&alone);
	return ret;
}
