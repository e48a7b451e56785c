/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The packet family's program types, each one file of packet/
 * (cost_type_xdp.c) behind this seam: which programs of an object are of the
 * type, the bare program they are measured against, the names of their
 * actions, what a test run needs held meanwhile, and how the live part
 * attaches one to a veth. A test run hands every type the same context, the
 * frame as data_in. Programs that see no frame are another hook family's,
 * with a folder of its own (trace/: attached at their hooks, fired by a
 * workload); bench/cost/cost.sh asks `cost_trace family` which family
 * measures an object.
 */
#ifndef FBF_COST_TYPE_H
#define FBF_COST_TYPE_H

#include <stdbool.h>
#include <bpf/libbpf.h>
#include <linux/types.h>

/* A program attached by the live part: what its type's detach() needs. */
struct cost_attached {
	int link_fd;
	unsigned int ifindex;
	int hook;		/* the type's own: TC's clsact hook, where not through a link */
	__u32 handle, priority;	/* TC's filter on that hook, for its detach alone */
	bool hook_ours;		/* TC: the clsact qdisc is this process's, not someone else's */
	char how[48];		/* for the "attached" line: "in native mode" */
};

/* An action a program of the type returns, and its name. */
struct cost_action {
	__u32 value;
	const char *name;
};

struct cost_type {
	const char *name;		/* "xdp": cost_run's #type lines, cost.sh's bare arm */
	const char *label;		/* "XDP": as messages name the type */
	const char *sections;		/* "SEC(\"xdp\")": the sections a program of it is in */
	enum bpf_prog_type prog_type;
	const char *bare_arm;		/* the arm of the bare program: its object is ARM.bpf.o */
	const struct cost_action *actions;
	__u32 nr_actions;
	/* A real answer to a frame: not an abort nor a value the type has no name for. */
	bool (*answered)(__u32 action);
	/*
	 * Whether @prog is of the type, giving it the type where libbpf left it
	 * without one; NULL: by prog_type.
	 */
	bool (*claims)(struct bpf_program *prog);
	/* Held while test runs of @prog_fd go on: a link's fd, or -errno; NULL: nothing. */
	int (*hold)(int prog_fd);
	/*
	 * The live part: @prog of the loaded object on @ifindex, in @mode (a
	 * word of the command line: "native" or "skb" for XDP, one of modes,
	 * which the caller checked). 0 or -errno.
	 */
	int (*attach)(const struct bpf_program *prog, int prog_fd, unsigned int ifindex,
		      const char *mode, struct cost_attached *at);
	void (*detach)(struct cost_attached *at);
	const char *modes;		/* the modes attach() takes, for a usage line */
	/* The mode the live part attaches @prog in, as its section says; NULL: each of modes. */
	const char *(*mode_of)(const struct bpf_program *prog);
};

extern const struct cost_type cost_type_xdp, cost_type_tc;

/*
 * The type of @prog, or NULL if the tool measures no program of its type. A
 * program in a section of the type that this libbpf does not know yet (libbpf
 * 1.1: SEC("tcx/ingress")) is given the type here, before the object loads.
 */
const struct cost_type *cost_type_of(struct bpf_program *prog);

/* The type whose programs have kernel type @type, or NULL. */
const struct cost_type *cost_type_by_kernel(enum bpf_prog_type type);

/* A detach() for a program attached through a BPF link: the link closed. */
void cost_type_unlink(struct cost_attached *at);

/* Whether @mode is one of @type's modes ("native" of "native|skb"). */
bool cost_type_takes_mode(const struct cost_type *type, const char *mode);

/* Whether @arm names a type's bare program (its bare_arm). */
bool cost_type_is_bare(const char *arm);

/*
 * Every type as a user reads them in an error, "XDP or TC" (@sections:
 * "SEC(\"xdp\") or ..."), into @buf of @size bytes: @buf.
 */
const char *cost_type_list(char *buf, size_t size, bool sections);

/* The action @type's bare program answers: XDP_PASS, TC_ACT_OK. */
__u32 cost_type_pass(const struct cost_type *type);

/*
 * A program of @type in two instructions that returns @retval, loaded for
 * @attach (a tail call reaches only a program of its caller's attach type
 * on 6.17 and later): its fd, or -errno.
 */
int cost_type_stub(const struct cost_type *type, __u32 retval, enum bpf_attach_type attach);

#endif /* FBF_COST_TYPE_H */
