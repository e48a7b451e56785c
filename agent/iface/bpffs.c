// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* libxdp keeps its dispatcher's state in bpffs: see ifstate.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <xdp/libxdp.h>

#include "iface/ifstate.h"
#include "base/log.h"
#include "service/privileges.h"

void bpffs_ensure(void)
{
	/* Where libxdp looks: its variable, else its default. */
	const char *dir = getenv(XDP_BPFFS_ENVVAR) ?: "/sys/fs/bpf";
	struct statfs fs;

	/* Without CAP_SYS_ADMIN the agent attaches through a link, without libxdp. */
	if (!privileges_sys_admin())
		return;
	if (!statfs(dir, &fs) && fs.f_type == BPF_FS_MAGIC)
		return;
	if (!mount("bpf", dir, "bpf", 0, NULL)) {
		pr_info("mounted bpffs at %s for libxdp's dispatcher\n", dir);
		return;
	}
	pr_warn("no bpffs at %s and mounting one failed (%s); libxdp will attach "
		"without its dispatcher, so no other XDP program can share the interface; "
		"mount it with 'mount -t bpf bpf %s'\n", dir, strerror(errno), dir);
}
