// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Capabilities are read with the capget syscall rather than libcap: two
 * bits are all the agent needs. Checking first turns what would be an EPERM
 * deep inside libxdp into a message that names the capability.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/capability.h>

#include "base/exit_codes.h"
#include "base/log.h"
#include "service/privileges.h"

/*
 * CAP_SYS_ADMIN implies CAP_BPF and CAP_PERFMON (loading the program, and
 * libxdp's dispatcher, which runs it as an freplace extension), and no
 * narrower capability will do: libxdp reads the programs attached to an
 * interface with BPF_PROG_GET_FD_BY_ID, which only CAP_SYS_ADMIN may call,
 * and without it the agent could attach but not detach.
 */
static const struct {
	int cap;
	const char *name;
	const char *why;
} cap_needs[] = {
	{ CAP_NET_ADMIN, "CAP_NET_ADMIN", "to attach XDP programs" },
	{ CAP_SYS_ADMIN, "CAP_SYS_ADMIN", "to load BPF programs and find them on the interface" },
};

int privileges_check(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
	size_t i;

	if (syscall(SYS_capget, &hdr, data)) {
		pr_err("cannot read the process capabilities: %s\n", strerror(errno));
		return AGENT_EXIT_FAILURE;
	}

	for (i = 0; i < sizeof(cap_needs) / sizeof(cap_needs[0]); i++) {
		int cap = cap_needs[i].cap;

		if (data[CAP_TO_INDEX(cap)].effective & CAP_TO_MASK(cap))
			continue;
		/*
		 * No setcap hint: with these two capabilities a non-root user still
		 * cannot write the lock in root's /run/fizzbuzzfib.
		 */
		pr_err("missing capability %s %s; run as root (sudo), or in a container "
		       "add it (--cap-add, securityContext)\n", cap_needs[i].name,
		       cap_needs[i].why);
		return AGENT_EXIT_NO_PRIVILEGE;
	}
	return 0;
}
