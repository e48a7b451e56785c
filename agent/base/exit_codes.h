/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Exit statuses of the agent. Each failure a user can cause has its own, so
 * that scripts and tests can tell them apart without parsing messages.
 */
#ifndef AGENT_EXIT_CODES_H
#define AGENT_EXIT_CODES_H

#include <errno.h>

/*
 * The one list: name, status, what it means, what to do. The enum below,
 * --help, and the tables of docs/agent.md and the manual all come from it
 * (tools/exit_status.py writes the tables; `make test` checks them). `x`
 * marks a command or an option.
 */
#define AGENT_EXITS(X)									\
	X(OK, 0, "stopped as asked, summary printed", "")				\
	X(FAILURE, 1, "unexpected libbpf, libxdp or system failure",			\
	  "the message names it; rerun with `-v`")					\
	X(USAGE, 2, "bad usage or option value, or stdout closed without `--quiet`",	\
	  "the message names the option and what is allowed")				\
	X(NO_IFACE, 3, "no such interface in this network namespace",			\
	  "list them with `ip link`")							\
	X(NO_PRIVILEGE, 4,								\
	  "missing capability (CAP_NET_ADMIN, CAP_BPF, CAP_PERFMON) or the kernel refused", \
	  "run as root")								\
	X(NATIVE_UNSUPPORTED, 5, "`--mode native`: the driver has no native XDP, or "	\
	  "refuses it as configured (host offloads on virtio_net)",			\
	  "use `--mode skb` or auto; the message says what native mode needs")		\
	X(LOCKED, 6, "another agent holds the interface (its lock, or with another "	\
	  "`--lock-dir` the program it holds)", "stop it first")			\
	X(IFACE_GONE, 7, "the interface disappeared while attached", "")		\
	X(XDP_BUSY, 8, "an XDP program libxdp cannot share owns the interface, or an "	\
	  "xdp_fizzbuzzfib no agent recorded as its own",				\
	  "the message says how to remove it; see `xdp-loader status IFACE`")		\
	X(UNACCOUNTED, 9, "events unaccounted for: the summary does not balance "	\
	  "(produced != delivered + lost)", "report it; the warning says by how much")	\
	X(PROG_REPLACED, 10, "someone replaced or removed the agent's program while it "	\
	  "ran; what is attached now is left alone", "find out who with `ip link show IFACE`") \
	X(IFACE_MOVED, 11, "the interface moved to another network namespace",	\
	  "the message says where, and whether the program was detached there")	\
	X(METRICS, 12, "cannot serve `--metrics`: address in use or not on this host",	\
	  "use another port or address")							\
	X(LOCK_DIR, 13, "cannot use the lock directory: cannot create it (a missing "	\
	  "one is created), read-only, or its path too long; refused permission to "	\
	  "create or write it (not root): exit 4",					\
	  "name a writable one with `--lock-dir DIR`")					\
	X(OUTPUT, 14, "cannot open an `--output` at start: a file that cannot be "	\
	  "created, a NATS server that refuses the agent or a stream, or none "	\
	  "reached under `--nats-fail-fast`",						\
	  "the message names the output and why")

enum agent_exit {
#define AGENT_EXIT_ENUM(name, status, meaning, todo) AGENT_EXIT_##name = status,
	AGENT_EXITS(AGENT_EXIT_ENUM)
#undef AGENT_EXIT_ENUM
};

/* The exit status for a failed call's -errno: a refusal, or anything else. */
static inline int agent_exit_for_errno(int err)
{
	return err == -EPERM || err == -EACCES ? AGENT_EXIT_NO_PRIVILEGE : AGENT_EXIT_FAILURE;
}

#endif /* AGENT_EXIT_CODES_H */
