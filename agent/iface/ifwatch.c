// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Watching the interface while attached: see ifwatch.h. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <poll.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/socket.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/net_namespace.h>
#include <linux/rtnetlink.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "base/log.h"
#include "iface/ifwatch.h"
#include "iface/nl_link.h"
#include "iface/xdp_mode.h"
#include "userspace_util.h"

/* The id of the program attached to @ifindex in @mode, 0 for none. */
static int attached_id(int ifindex, enum xdp_attach_mode mode, __u32 *id)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);

	if (bpf_xdp_query(ifindex, 0, &q))
		return -errno;
	*id = mode == XDP_MODE_SKB ? q.skb_prog_id :
	      mode == XDP_MODE_HW ? q.hw_prog_id : q.drv_prog_id;
	return 0;
}

int ifwatch_start(struct ifwatch *w, int ifindex, enum xdp_attach_mode mode, __u32 own_id)
{
	int err;

	*w = (struct ifwatch){
		.ifindex = ifindex,
		.mode = mode,
		.own_id = own_id,
		.nl_fd = -1,
		.new_nsid = -1,
	};
	/* Whatever fails here, the interface's disappearance is still seen. */
	err = attached_id(ifindex, mode, &w->prog_id);
	w->nl_fd = nl_link_events_open();
	if (err)
		return err;
	return w->nl_fd < 0 ? w->nl_fd : 0;
}

/* An RTM_DELLINK of ours: the interface left, and perhaps says where to. */
static void note_move(struct ifwatch *w, const struct nlmsghdr *nh)
{
	struct nl_link l;

	if (!nl_link_parse(nh, &l) || l.ifindex != w->ifindex)
		return;
	w->left = true;
	if (l.moved)
		w->new_nsid = l.new_nsid;
	if (l.new_ifindex)
		w->new_ifindex = l.new_ifindex;
}

/* Read every pending link event; keep only what says our interface moved. */
static void link_events_read(struct ifwatch *w)
{
	char buf[8192] __attribute__((aligned(__alignof__(struct nlmsghdr))));
	struct nlmsghdr *nh;
	ssize_t n;

	if (w->nl_fd < 0)
		return;
	/* ENOBUFS (events lost to an overrun) is not fatal: the next read goes on. */
	while ((n = recv(w->nl_fd, buf, sizeof(buf), 0)) > 0 || (n < 0 && errno == ENOBUFS)) {
		for (nh = (struct nlmsghdr *)buf; n > 0 && NLMSG_OK(nh, n); nh = NLMSG_NEXT(nh, n))
			if (nh->nlmsg_type == RTM_DELLINK)
				note_move(w, nh);
	}
}

/*
 * A device that has left the namespace is sure to be followed by its
 * RTM_DELLINK: the bound only guards against a message lost to an overrun.
 * A program gone from a device still listed waits this long to see whether
 * the device is being deleted, or the program was replaced.
 */
#define DELLINK_WAIT_NS (10 * 1000000000ULL)
#define LEAVING_WAIT_NS 1000000000ULL

static bool iface_listed(const struct ifwatch *w)
{
	char name[IF_NAMESIZE];

	return if_indextoname(w->ifindex, name) || errno != ENXIO;
}

/*
 * The kernel detaches a deleted device's program and unlists a device
 * leaving the namespace, waits for an RCU grace period or two, and only
 * then sends the RTM_DELLINK that says it left and where to. Wait for it:
 * up to LEAVING_WAIT_NS while the device is still listed, then, however
 * slow the machine, until it comes (DELLINK_WAIT_NS at most).
 */
static void dellink_wait(struct ifwatch *w)
{
	struct pollfd pfd = { .fd = w->nl_fd, .events = POLLIN };
	__u64 start = fbf_monotonic_ns(), waited;

	while (!w->left && w->nl_fd >= 0) {
		waited = fbf_monotonic_ns() - start;
		if (waited >= (iface_listed(w) ? LEAVING_WAIT_NS : DELLINK_WAIT_NS))
			break;
		poll(&pfd, 1, 10);
		link_events_read(w);
	}
}

/*
 * Whether the libxdp dispatcher now on the interface runs the agent's
 * program: another program loaded or unloaded beside it makes libxdp build
 * a new dispatcher, link the same component programs into it and swap it
 * in atomically, so ours is either in the new one or was removed.
 */
static bool dispatcher_runs_own(const struct ifwatch *w)
{
	struct xdp_multiprog *mp;
	struct xdp_program *p;
	bool found = false;

	/* A dispatcher whose pins libxdp cannot read is not ours; its warning says nothing more. */
	log_hold();
	mp = xdp_multiprog__get_from_ifindex(w->ifindex);
	log_release(false);
	if (libxdp_get_error(mp))
		return false;
	if (!xdp_multiprog__is_legacy(mp))
		for (p = xdp_multiprog__next_prog(NULL, mp); p && !found;
		     p = xdp_multiprog__next_prog(p, mp))
			found = xdp_program__id(p) == w->own_id;
	xdp_multiprog__close(mp);
	return found;
}

enum ifwatch_state ifwatch_check(struct ifwatch *w)
{
	__u32 id;

	link_events_read(w);
	if (!iface_listed(w)) {
		dellink_wait(w);
		return w->new_nsid >= 0 ? IFWATCH_MOVED : IFWATCH_GONE;
	}
	/* An error here (a race with a delete) is judged at the next check. */
	if (!w->prog_id || attached_id(w->ifindex, w->mode, &id) || id == w->prog_id)
		return IFWATCH_OK;
	if (id && w->own_id != w->prog_id && dispatcher_runs_own(w)) {
		w->prog_id = id;
		return IFWATCH_OK;
	}
	/* A device being deleted loses its program before it leaves the namespace. */
	dellink_wait(w);
	if (w->left)
		return w->new_nsid >= 0 ? IFWATCH_MOVED : IFWATCH_GONE;
	return IFWATCH_REPLACED;
}

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
	int sock, len, nsid = -1;
	ssize_t n;

	sock = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (sock < 0)
		return -1;
	if (send(sock, &req, sizeof(req), 0) == sizeof(req) &&
	    (n = recv(sock, buf, sizeof(buf), 0)) > 0 && NLMSG_OK(nh, n) &&
	    nh->nlmsg_type == RTM_NEWNSID) {
		len = nh->nlmsg_len - NLMSG_SPACE(sizeof(struct rtgenmsg));
		rta = (struct rtattr *)((char *)NLMSG_DATA(nh) + NLMSG_ALIGN(sizeof(struct rtgenmsg)));
		for (; RTA_OK(rta, len); rta = RTA_NEXT(rta, len))
			if (rta->rta_type == NETNSA_NSID)
				memcpy(&nsid, RTA_DATA(rta), sizeof(nsid));
	}
	close(sock);
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

	snprintf(name, size, "nsid %d", nsid);
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

int ifwatch_detach_moved(const struct ifwatch *w, int prog_fd, char *where, size_t size)
{
	/* Detach only the program the agent attached: libbpf's XDP_FLAGS_REPLACE. */
	LIBBPF_OPTS(bpf_xdp_attach_opts, opts, .old_prog_fd = prog_fd);
	int self, there, err;

	snprintf(where, size, "nsid %d", w->new_nsid);
	if (w->new_nsid < 0 || w->new_ifindex <= 0)
		return -ENOENT;
	self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self < 0)
		return -errno;
	there = netns_open(w->new_nsid, where, size);
	if (there < 0) {
		close(self);
		return -ENOENT;
	}
	err = setns(there, CLONE_NEWNET) ? -errno : 0;
	if (!err) {
		err = bpf_xdp_detach(w->new_ifindex, xdp_mode_flags(w->mode), &opts) ? -errno : 0;
		/* Back home; the agent's own files and maps do not depend on it. */
		if (setns(self, CLONE_NEWNET) && !err)
			err = -errno;
	}
	close(there);
	close(self);
	return err;
}

void ifwatch_stop(struct ifwatch *w)
{
	if (w->nl_fd >= 0)
		close(w->nl_fd);
	w->nl_fd = -1;
}
