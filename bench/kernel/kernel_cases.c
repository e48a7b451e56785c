// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The in-kernel benchmarks' frames and program figures: see kernel_cases.h. */
#include <errno.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>

#include "fizzbuzzfib.h"
#include "kernel_cases.h"

static const struct frame_l2 one_vlan = { .nr_tags = 1, .tpid = { ETH_P_8021Q } };

size_t kernel_cases_build(struct kernel_case *cases)
{
	/*
	 * Last octets of 233 and above: the longest walk for a classifier that
	 * loops over the Fibonacci sequence, as the original's v3 did (its
	 * regression was found on x.x.x.255), so such a regression shows here.
	 */
	static const struct {
		const char *name;
		__u32 saddr;
	} ipv4[] = {
		{ "ipv4-none", IPV4_ADDR(10, 0, 0, 253) },
		{ "ipv4-fizz", IPV4_ADDR(10, 0, 0, 254) },
		{ "ipv4-buzz", IPV4_ADDR(10, 0, 0, 255) },
		{ "ipv4-fizzbuzz", IPV4_ADDR(10, 0, 0, 245) },
		{ "ipv4-fibonacci", IPV4_ADDR(10, 0, 0, 233) },
	};
	struct frame_ipv4 vlan_ip = FRAME_IPV4(IPV4_ADDR(10, 0, 0, 254));
	size_t n = 0;

	for (size_t i = 0; i < sizeof(ipv4) / sizeof(ipv4[0]); i++, n++) {
		struct frame_ipv4 ip = FRAME_IPV4(ipv4[i].saddr);

		cases[n].name = ipv4[i].name;
		cases[n].len = frame_build_ipv4(cases[n].frame, FRAME_MAX_LEN, NULL, &ip);
		cases[n].pushes = fbf_classify(ipv4[i].saddr) != FBF_NONE;
	}

	cases[n].name = "vlan-ipv4-fizz";
	cases[n].len = frame_build_ipv4(cases[n].frame, FRAME_MAX_LEN, &one_vlan, &vlan_ip);
	cases[n++].pushes = true;

	cases[n].name = "ipv6";
	cases[n].len = frame_build_ipv6(cases[n].frame, FRAME_MAX_LEN, NULL);
	cases[n++].pushes = false;
	return n;
}

/*
 * The kernel truncates the mean to whole nanoseconds, a coarse step for
 * XDP_PASS's few ns, but timing the syscall here instead is worse: each test
 * run with repeat > 1 costs a fixed ~16 ms (an RCU grace period), which no
 * practical repeat amortises below a nanosecond.
 */
int kernel_frame_run(int prog_fd, const void *frame, size_t len, int repeat, double *ns,
		     __u32 *action)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame, .data_size_in = len,
		    .repeat = repeat);

	if (bpf_prog_test_run_opts(prog_fd, &opts))
		return -errno;
	*ns = opts.duration;
	*action = opts.retval;
	return 0;
}

int kernel_case_time(int prog_fd, const struct kernel_case *c, int repeat, double *ns)
{
	__u32 action = XDP_ABORTED;
	int err = kernel_frame_run(prog_fd, c->frame, c->len, repeat, ns, &action);

	if (err)
		return err;
	return action == XDP_PASS ? 0 : -EPROTO;
}

int prog_static_figures(int prog_fd, struct prog_static_figures *fig)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return -errno;
	fig->verified_insns = info.verified_insns;
	fig->xlated_insns = info.xlated_prog_len / sizeof(struct bpf_insn);
	fig->jited_bytes = info.jited_prog_len;
	return 0;
}
