// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* One IPv4 UDP frame's test runs: see cost_timing.h. */
#include <errno.h>
#include <netinet/in.h>

#include "cost_timing.h"
#include "frames.h"
#include "kernel_cases.h"

static __u8 frame[FRAME_MAX_LEN];
static size_t frame_len;

static void build(void)
{
	struct frame_ipv4 ip = FRAME_IPV4(0xc0000202);

	if (frame_len)
		return;
	ip.protocol = IPPROTO_UDP;
	frame_len = frame_build_ipv4(frame, sizeof(frame), NULL, &ip);
}

int cost_timing_min(int fd, int rounds, int repeat, double *ns)
{
	__u32 action;
	double round;

	build();
	for (int r = 0; r < rounds; r++) {
		int err = kernel_frame_run(fd, frame, frame_len, repeat, &round, &action);

		if (err)
			return err;
		if (!r || round < *ns)
			*ns = round;
	}
	return 0;
}

int cost_timing_check(int fd, __u32 action)
{
	__u32 got;
	double ns;
	int err;

	build();
	err = kernel_frame_run(fd, frame, frame_len, 1, &ns, &got);
	return err ?: got == action ? 0 : -ENOENT;
}
