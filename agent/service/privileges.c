// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Capabilities are read with the capget syscall rather than libcap: a few
 * bits are all the agent needs. Checking first turns what would be an EPERM
 * deep inside libbpf or libxdp into a message that names the capability.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <linux/seccomp.h>

#include "base/exit_codes.h"
#include "base/log.h"
#include "service/privileges.h"

/* Older headers lack the capabilities of 5.8. */
#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

/*
 * CAP_SYS_ADMIN implies CAP_BPF and CAP_PERFMON and is asked for by none of
 * these: without it the agent attaches through a BPF link of its own
 * instead of libxdp (attach.c), which finds programs on an interface by
 * their ids (BPF_PROG_GET_FD_BY_ID: CAP_SYS_ADMIN only).
 */
static const struct {
	int cap;
	const char *name;
	const char *why;
} cap_needs[] = {
	{ CAP_NET_ADMIN, "CAP_NET_ADMIN", "to attach XDP programs" },
	{ CAP_BPF, "CAP_BPF", "to load BPF programs" },
	{ CAP_PERFMON, "CAP_PERFMON", "to load the program (the verifier refuses it without)" },
};

/* The effective set, or NULL after saying why it cannot be read. */
static const struct __user_cap_data_struct *caps_effective(void)
{
	static struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };

	if (syscall(SYS_capget, &hdr, data)) {
		pr_err("cannot read the process capabilities: %s\n", strerror(errno));
		return NULL;
	}
	return data;
}

static bool cap_has(const struct __user_cap_data_struct *data, int cap)
{
	return data[CAP_TO_INDEX(cap)].effective & CAP_TO_MASK(cap);
}

bool privileges_sys_admin(void)
{
	const struct __user_cap_data_struct *data = caps_effective();

	return data && cap_has(data, CAP_SYS_ADMIN);
}

bool privileges_seccomp_filtered(void)
{
	char line[128];
	bool filtered = false;
	unsigned int mode;
	FILE *f;

	f = fopen("/proc/self/status", "re");
	if (!f)
		return false;
	while (!filtered && fgets(line, sizeof(line), f))
		filtered = sscanf(line, "Seccomp: %u", &mode) == 1 && mode == SECCOMP_MODE_FILTER;
	fclose(f);
	return filtered;
}

int privileges_check(void)
{
	const struct __user_cap_data_struct *data = caps_effective();
	size_t i;

	if (!data)
		return AGENT_EXIT_FAILURE;
	for (i = 0; i < sizeof(cap_needs) / sizeof(cap_needs[0]); i++) {
		int cap = cap_needs[i].cap;

		if (cap_has(data, cap) || (cap != CAP_NET_ADMIN && cap_has(data, CAP_SYS_ADMIN)))
			continue;
		/*
		 * No setcap hint: with these capabilities a non-root user still
		 * cannot write the lock in root's /run/fizzbuzzfib.
		 */
		pr_err("missing capability %s %s; run as root (sudo), or in a container "
		       "add it (--cap-add, securityContext)\n", cap_needs[i].name,
		       cap_needs[i].why);
		return AGENT_EXIT_NO_PRIVILEGE;
	}
	return 0;
}
