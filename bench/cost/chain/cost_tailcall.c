// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The tail call's own cost, in chains of bare programs: see cost_tailcall.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "cost_chain.h"
#include "cost_exits.h"
#include "cost_tailcall.h"
#include "cost_timing.h"
#include "cost_type.h"

static const int lengths[] = { 1, 2, 8, 32 };
#define MAX_LEN 32

struct tail_chain {
	int map_fd, entry_fd;
	int fds[MAX_LEN];	/* the slots' programs: callers, then the bare one */
};

static void chain_close(struct tail_chain *c, int len)
{
	for (int i = 0; i < len; i++)
		if (c->fds[i] >= 0)
			close(c->fds[i]);
	if (c->entry_fd >= 0)
		close(c->entry_fd);
	if (c->map_fd >= 0)
		close(c->map_fd);
}

/*
 * @len tail calls: the entry calls slot 0, slot i's program slot i + 1, and the
 * last slot holds the bare program. 0 or -errno.
 */
static int chain_load(struct tail_chain *c, int len, int bare_fd)
{
	const struct cost_type *type = &cost_type_xdp;

	memset(c->fds, -1, sizeof(c->fds));
	c->entry_fd = -1;
	c->map_fd = bpf_map_create(BPF_MAP_TYPE_PROG_ARRAY, "cost_tailcall", 4, 4, len, NULL);
	if (c->map_fd < 0)
		return -errno;
	for (int i = len - 1; i >= 0; i--) {
		__u32 slot = i;
		int fd = i == len - 1 ? bare_fd : cost_chain_tail_caller(type, c->map_fd, i + 1, 0);

		if (fd < 0)
			return fd;
		if (i < len - 1)
			c->fds[i] = fd;
		if (bpf_map_update_elem(c->map_fd, &slot, &fd, BPF_ANY))
			return -errno;
	}
	c->entry_fd = cost_chain_tail_caller(type, c->map_fd, 0, 0);
	return c->entry_fd < 0 ? c->entry_fd : 0;
}

int cost_tailcall(int rounds, int repeat)
{
	enum { NR = sizeof(lengths) / sizeof(lengths[0]) };
	int bare_fd = cost_type_stub(&cost_type_xdp, cost_type_pass(&cost_type_xdp), 0);
	struct tail_chain chains[NR];
	double least[NR + 1], ns;
	int loaded = 0, err;

	err = bare_fd < 0 ? bare_fd : 0;
	for (; !err && loaded < NR; loaded++)
		err = chain_load(&chains[loaded], lengths[loaded], bare_fd);
	/* Each chain must reach the bare program: a failed tail call returns a mark. */
	for (int i = 0; !err && i < NR; i++)
		err = cost_timing_check(chains[i].entry_fd, cost_type_pass(&cost_type_xdp));
	/*
	 * Round by round, each program once, so that what the shared CPUs do
	 * meanwhile falls on all of them alike; the least of each.
	 */
	for (int r = 0; !err && r < rounds; r++)
		for (int i = 0; !err && i <= NR; i++) {
			err = cost_timing_min(i ? chains[i - 1].entry_fd : bare_fd, 1, repeat, &ns);
			if (!r || ns < least[i])
				least[i] = ns;
		}
	if (!err)
		printf("bare\t0\t%.2f\n", least[0]);
	for (int i = 0; !err && i < NR; i++)
		printf("tail-calls\t%d\t%.2f\t%.3f\n", lengths[i], least[i + 1],
		       (least[i + 1] - least[0]) / lengths[i]);
	for (int i = 0; i < loaded; i++)
		chain_close(&chains[i], lengths[i]);
	if (bare_fd >= 0)
		close(bare_fd);
	if (err)
		fprintf(stderr, "cost: tail calls between bare programs: %s\n",
			err == -ENOENT ? "a chain did not reach its bare program" : strerror(-err));
	return err ? COST_EXIT_FAILED : 0;
}
