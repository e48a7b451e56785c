// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Detaching the program from an interface that moved to another namespace: see moved.h. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/net_namespace.h>
#include <linux/rtnetlink.h>
#include <bpf/libbpf.h>

#include "iface/moved.h"
#include "iface/rtnl_once.h"
#include "iface/xdp_mode.h"

/* The nsid this namespace gives the namespace of @fd: RTM_GETNSID, as ip-netns does. */
static int nsid_of(int fd)
{
	struct {
		struct nlmsghdr nh;
		struct rtgenmsg g;
		char pad[NLMSG_ALIGN(sizeof(struct rtgenmsg)) - sizeof(struct rtgenmsg)];
		struct rtattr rta;
		__u32 fd;
	} req = {
		.nh.nlmsg_len = sizeof(req),
		.nh.nlmsg_type = RTM_GETNSID,
		.nh.nlmsg_flags = NLM_F_REQUEST,
		.g.rtgen_family = AF_UNSPEC,
		.rta.rta_type = NETNSA_FD,
		.rta.rta_len = RTA_LENGTH(sizeof(__u32)),
		.fd = fd,
	};
	char buf[1024] __attribute__((aligned(__alignof__(struct nlmsghdr))));
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	struct rtattr *rta;
	ssize_t n = rtnl_once(&req, sizeof(req), buf, sizeof(buf));
	int len, nsid = -1;

	if (n > 0 && NLMSG_OK(nh, n) && nh->nlmsg_type == RTM_NEWNSID) {
		len = nh->nlmsg_len - NLMSG_SPACE(sizeof(struct rtgenmsg));
		rta = (struct rtattr *)((char *)NLMSG_DATA(nh) +
					NLMSG_ALIGN(sizeof(struct rtgenmsg)));
		for (; RTA_OK(rta, len); rta = RTA_NEXT(rta, len))
			if (rta->rta_type == NETNSA_NSID)
				memcpy(&nsid, RTA_DATA(rta), sizeof(nsid));
	}
	return nsid;
}

/* Open @path if it is the namespace this one calls @nsid; say so by returning its fd. */
static int open_if_nsid(const char *path, int nsid)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0 && nsid_of(fd) != nsid) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * An fd of the namespace this one calls @nsid: among those ip-netns named
 * (whose name goes to @name), then those of any process.
 */
static int netns_open(int nsid, char *name, size_t size)
{
	char path[PATH_MAX];
	struct dirent *e;
	int fd = -1;
	DIR *dir;

	dir = opendir("/run/netns");
	while (dir && fd < 0 && (e = readdir(dir))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/run/netns/%s", e->d_name);
		fd = open_if_nsid(path, nsid);
		if (fd >= 0)
			snprintf(name, size, "%s", e->d_name);
	}
	if (dir)
		closedir(dir);
	dir = opendir("/proc");
	while (dir && fd < 0 && (e = readdir(dir))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/ns/net", e->d_name);
		fd = open_if_nsid(path, nsid);
	}
	if (dir)
		closedir(dir);
	return fd;
}

int moved_detach(int nsid, int ifindex, enum xdp_attach_mode mode, int prog_fd, char *where,
		 size_t size)
{
	/* Detach only the program the agent attached: libbpf's XDP_FLAGS_REPLACE. */
	LIBBPF_OPTS(bpf_xdp_attach_opts, opts, .old_prog_fd = prog_fd);
	int self, there, err;

	snprintf(where, size, "nsid %d", nsid);
	if (nsid < 0 || ifindex <= 0 || prog_fd < 0)
		return -ENOENT;
	self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self < 0)
		return -errno;
	there = netns_open(nsid, where, size);
	if (there < 0) {
		close(self);
		return -ENOENT;
	}
	err = setns(there, CLONE_NEWNET) ? -errno : 0;
	if (!err) {
		err = bpf_xdp_detach(ifindex, xdp_mode_flags(mode), &opts) ? -errno : 0;
		/* Back home; the agent's own files and maps do not depend on it. */
		if (setns(self, CLONE_NEWNET) && !err)
			err = -errno;
	}
	close(there);
	close(self);
	return err;
}
