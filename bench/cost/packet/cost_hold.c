// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A program held in the XDP dispatcher: see cost_hold.h. */
#define _GNU_SOURCE /* unshare, CLONE_NEWNET */
#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <bpf/bpf.h>
#include <linux/if_link.h>

#include "cost_hold.h"

int cost_hold_start(void)
{
	return unshare(CLONE_NEWNET) ? -errno : 0;
}

int cost_hold(int prog_fd)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts, .flags = XDP_FLAGS_SKB_MODE);
	unsigned int lo = if_nametoindex("lo");
	int fd;

	if (!lo)
		return -errno;
	fd = bpf_link_create(prog_fd, lo, BPF_XDP, &opts);
	return fd < 0 ? -errno : fd;
}
