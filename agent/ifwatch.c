// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Watching the interface while attached: see ifwatch.h. */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/socket.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "ifwatch.h"

static __u32 mode_flags(enum xdp_attach_mode mode)
{
	return mode == XDP_MODE_SKB ? XDP_FLAGS_SKB_MODE :
	       mode == XDP_MODE_HW ? XDP_FLAGS_HW_MODE : XDP_FLAGS_DRV_MODE;
}

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

static int link_events_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = RTMGRP_LINK };
	int fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -errno;
	}
	return fd;
}

int ifwatch_start(struct ifwatch *w, int ifindex, enum xdp_attach_mode mode)
{
	int err;

	*w = (struct ifwatch){ .ifindex = ifindex, .mode = mode, .nl_fd = -1, .new_nsid = -1 };
	/* Whatever fails here, the interface's disappearance is still seen. */
	err = attached_id(ifindex, mode, &w->prog_id);
	w->nl_fd = link_events_open();
	if (err)
		return err;
	return w->nl_fd < 0 ? w->nl_fd : 0;
}

/* An RTM_DELLINK of ours that says where the interface went. */
static void note_move(struct ifwatch *w, const struct nlmsghdr *nh)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(nh);
	int len = nh->nlmsg_len - NLMSG_LENGTH(sizeof(*ifi));
	const struct rtattr *rta;

	if (len < 0 || ifi->ifi_index != w->ifindex)
		return;
	for (rta = IFLA_RTA(ifi); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		if (rta->rta_type == IFLA_NEW_NETNSID && RTA_PAYLOAD(rta) >= sizeof(__s32))
			memcpy(&w->new_nsid, RTA_DATA(rta), sizeof(__s32));
		else if (rta->rta_type == IFLA_NEW_IFINDEX && RTA_PAYLOAD(rta) >= sizeof(__s32))
			memcpy(&w->new_ifindex, RTA_DATA(rta), sizeof(__s32));
	}
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

enum ifwatch_state ifwatch_check(struct ifwatch *w)
{
	char name[IF_NAMESIZE];
	__u32 id;

	link_events_read(w);
	if (!if_indextoname(w->ifindex, name) && errno == ENXIO) {
		/* A late event is still queued if the device left since the read. */
		link_events_read(w);
		return w->new_nsid >= 0 ? IFWATCH_MOVED : IFWATCH_GONE;
	}
	/* An error here (a race with a delete) is judged at the next check. */
	if (w->prog_id && !attached_id(w->ifindex, w->mode, &id) && id != w->prog_id)
		return IFWATCH_REPLACED;
	return IFWATCH_OK;
}

static void put_attr(struct nlmsghdr *nh, unsigned short type, const void *data, int len)
{
	struct rtattr *rta = (struct rtattr *)((char *)nh + NLMSG_ALIGN(nh->nlmsg_len));

	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(rta), data, len);
	nh->nlmsg_len = NLMSG_ALIGN(nh->nlmsg_len) + RTA_ALIGN(rta->rta_len);
}

/* Send @nh and wait for the kernel's acknowledgement: 0 or its -errno. */
static int rtnl_request(struct nlmsghdr *nh)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	char buf[4096] __attribute__((aligned(__alignof__(struct nlmsghdr))));
	struct nlmsghdr *reply = (struct nlmsghdr *)buf;
	struct timeval timeout = { .tv_sec = 5 };
	int fd, err;
	ssize_t n;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
	if (sendto(fd, nh, nh->nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		err = -errno;
		goto out;
	}
	n = recv(fd, buf, sizeof(buf), 0);
	if (n < 0)
		err = -errno;
	else if (!NLMSG_OK(reply, n) || reply->nlmsg_type != NLMSG_ERROR)
		err = -EPROTO;
	else
		err = ((struct nlmsgerr *)NLMSG_DATA(reply))->error;
out:
	close(fd);
	return err;
}

int ifwatch_detach_moved(const struct ifwatch *w, int prog_fd)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
		char attrs[128];
	} req = {
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg)),
		.nh.nlmsg_type = RTM_SETLINK,
		.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
		.ifi.ifi_family = AF_UNSPEC,
		.ifi.ifi_index = w->new_ifindex,
	};
	/* Detach (fd -1), but only the program the agent attached (XDP_FLAGS_REPLACE). */
	__u32 flags = mode_flags(w->mode) | XDP_FLAGS_REPLACE;
	__s32 nsid = w->new_nsid, none = -1, expected = prog_fd;
	struct rtattr *xdp;

	if (w->new_nsid < 0 || w->new_ifindex <= 0)
		return -ENOENT;
	put_attr(&req.nh, IFLA_TARGET_NETNSID, &nsid, sizeof(nsid));
	xdp = (struct rtattr *)((char *)&req.nh + NLMSG_ALIGN(req.nh.nlmsg_len));
	put_attr(&req.nh, IFLA_XDP | NLA_F_NESTED, NULL, 0);
	put_attr(&req.nh, IFLA_XDP_FD, &none, sizeof(none));
	put_attr(&req.nh, IFLA_XDP_FLAGS, &flags, sizeof(flags));
	put_attr(&req.nh, IFLA_XDP_EXPECTED_FD, &expected, sizeof(expected));
	xdp->rta_len = (char *)&req.nh + req.nh.nlmsg_len - (char *)xdp;
	return rtnl_request(&req.nh);
}

void ifwatch_stop(struct ifwatch *w)
{
	if (w->nl_fd >= 0)
		close(w->nl_fd);
	w->nl_fd = -1;
}
