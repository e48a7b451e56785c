// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* XDP programs, as the cost tool measures them: see cost_type.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <linux/if_link.h>

#include "cost_hold.h"
#include "cost_type.h"

static const struct cost_action xdp_actions[] = {
	{ XDP_ABORTED, "XDP_ABORTED" },
	{ XDP_DROP, "XDP_DROP" },
	{ XDP_PASS, "XDP_PASS" },
	{ XDP_TX, "XDP_TX" },
	{ XDP_REDIRECT, "XDP_REDIRECT" },
};

/* Aborting every frame, or answering with no XDP action at all, is not what a user runs. */
static bool xdp_answered(__u32 action)
{
	return action != XDP_ABORTED && action <= XDP_REDIRECT;
}

/* A BPF link, which the kernel removes when this process ends however it ends. */
static int xdp_attach(const struct bpf_program *prog, int prog_fd, unsigned int ifindex,
		      const char *mode, struct cost_attached *at)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts);

	(void)prog;
	if (!strcmp(mode, "native"))
		opts.flags = XDP_FLAGS_DRV_MODE;
	else if (!strcmp(mode, "skb"))
		opts.flags = XDP_FLAGS_SKB_MODE;
	else
		return -EINVAL;
	at->ifindex = ifindex;
	at->link_fd = bpf_link_create(prog_fd, ifindex, BPF_XDP, &opts);
	if (at->link_fd < 0)
		return -errno;
	snprintf(at->how, sizeof(at->how), "in %s mode", mode);
	return 0;
}

const struct cost_type cost_type_xdp = {
	.name = "xdp",
	.label = "XDP",
	.sections = "SEC(\"xdp\")",
	.prog_type = BPF_PROG_TYPE_XDP,
	.bare_arm = "xdp_pass",
	.actions = xdp_actions,
	.nr_actions = sizeof(xdp_actions) / sizeof(xdp_actions[0]),
	.answered = xdp_answered,
	.hold = cost_hold,
	.attach = xdp_attach,
	.detach = cost_type_unlink,
	.modes = "native|skb",
};
