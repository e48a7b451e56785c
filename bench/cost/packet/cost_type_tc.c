// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * TC programs (sched_cls), as the cost tool measures them: see cost_type.h.
 * A test run hands one the frame as an skb's data (the kernel's own
 * bpf_prog_test_run_skb), as it does an XDP program; the live part attaches
 * it on the hook its section names through tcx where the kernel has it (6.6)
 * and a clsact qdisc where not.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <linux/pkt_cls.h>

#include "cost_type.h"

/* enum bpf_attach_type's tcx hooks (6.6), which the 6.1 headers here lack. */
#define COST_BPF_TCX_INGRESS 46
#define COST_BPF_TCX_EGRESS 47

static const struct cost_action tc_actions[] = {
	{ (__u32)TC_ACT_UNSPEC, "TC_ACT_UNSPEC" },
	{ TC_ACT_OK, "TC_ACT_OK" },
	{ TC_ACT_RECLASSIFY, "TC_ACT_RECLASSIFY" },
	{ TC_ACT_SHOT, "TC_ACT_SHOT" },
	{ TC_ACT_PIPE, "TC_ACT_PIPE" },
	{ TC_ACT_STOLEN, "TC_ACT_STOLEN" },
	{ TC_ACT_QUEUED, "TC_ACT_QUEUED" },
	{ TC_ACT_REPEAT, "TC_ACT_REPEAT" },
	{ TC_ACT_REDIRECT, "TC_ACT_REDIRECT" },
	{ TC_ACT_TRAP, "TC_ACT_TRAP" },
};
#define NR_TC_ACTIONS (sizeof(tc_actions) / sizeof(tc_actions[0]))

/* The sections libbpf 1.3 added for TC, which libbpf 1.1 leaves without a type. */
static const char *const newer_sections[] = { "tcx/ingress", "tcx/egress", "tc/ingress",
					      "tc/egress" };

/* TC has no abort: any action it names is an answer; a value it does not name is none. */
static bool tc_answered(__u32 action)
{
	for (size_t i = 0; i < NR_TC_ACTIONS; i++)
		if (tc_actions[i].value == action)
			return true;
	return false;
}

static bool tc_claims(struct bpf_program *prog)
{
	const char *sec = bpf_program__section_name(prog);

	if (bpf_program__type(prog) == BPF_PROG_TYPE_SCHED_CLS)
		return true;
	if (bpf_program__type(prog) != BPF_PROG_TYPE_UNSPEC)
		return false;
	for (size_t i = 0; i < sizeof(newer_sections) / sizeof(newer_sections[0]); i++)
		if (!strcmp(sec, newer_sections[i]))
			return !bpf_program__set_type(prog, BPF_PROG_TYPE_SCHED_CLS);
	return false;
}

/* Egress where the section says so ("tcx/egress", "tc/egress"); ingress otherwise. */
static const char *tc_mode_of(const struct bpf_program *prog)
{
	const char *sec = bpf_program__section_name(prog);
	size_t len = strlen(sec);

	return len >= strlen("/egress") && !strcmp(sec + len - strlen("/egress"), "/egress") ?
	       "egress" : "ingress";
}

/* FBF_COST_TC_NO_TCX=1: a clsact qdisc even where the kernel has tcx, as before 6.6. */
static bool no_tcx(void)
{
	const char *v = getenv("FBF_COST_TC_NO_TCX");

	return v && !strcmp(v, "1");
}

/*
 * Through tcx (a BPF link, gone with this process) where the kernel has it;
 * where it does not (before 6.6 the attach type is unknown: EINVAL), or
 * FBF_COST_TC_NO_TCX=1 says to take the older path on a kernel that has it, a
 * clsact qdisc's filter, which detach() takes away alone: the qdisc too only
 * where this process made it, for another's may hold filters of its own.
 */
static int tc_attach(const struct bpf_program *prog, int prog_fd, unsigned int ifindex,
		     const char *mode, struct cost_attached *at)
{
	bool egress = !strcmp(mode, "egress");
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = egress ? BPF_TC_EGRESS : BPF_TC_INGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .prog_fd = prog_fd);
	int err;

	(void)prog;
	if (!egress && strcmp(mode, "ingress"))
		return -EINVAL;
	at->ifindex = ifindex;
	at->hook = 0;
	if (!no_tcx()) {
		at->link_fd = bpf_link_create(prog_fd, ifindex, egress ? COST_BPF_TCX_EGRESS :
					      COST_BPF_TCX_INGRESS, NULL);
		if (at->link_fd >= 0) {
			snprintf(at->how, sizeof(at->how), "through tcx on %s", mode);
			return 0;
		}
		if (errno != EINVAL)
			return -errno;
	}
	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST)
		return err;
	at->hook_ours = !err;
	err = bpf_tc_attach(&hook, &opts);
	if (err) {
		if (at->hook_ours) {
			hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
			bpf_tc_hook_destroy(&hook);
		}
		return err;
	}
	at->hook = hook.attach_point;
	at->handle = opts.handle;
	at->priority = opts.priority;
	snprintf(at->how, sizeof(at->how), "through a clsact qdisc on %s", mode);
	return 0;
}

static void tc_detach(struct cost_attached *at)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = at->ifindex, .attach_point = at->hook);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = at->handle, .priority = at->priority);

	cost_type_unlink(at);
	if (!at->hook)
		return;
	bpf_tc_detach(&hook, &opts);
	if (at->hook_ours) {
		hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
		bpf_tc_hook_destroy(&hook);
	}
	at->hook = 0;
}

const struct cost_type cost_type_tc = {
	.name = "tc",
	.label = "TC",
	.sections = "SEC(\"tc\"), \"classifier\", \"tcx/ingress\" or \"tcx/egress\"",
	.prog_type = BPF_PROG_TYPE_SCHED_CLS,
	.bare_arm = "tc_ok",
	.actions = tc_actions,
	.nr_actions = NR_TC_ACTIONS,
	.answered = tc_answered,
	.claims = tc_claims,
	.attach = tc_attach,
	.detach = tc_detach,
	.modes = "ingress|egress",
	.mode_of = tc_mode_of,
};
