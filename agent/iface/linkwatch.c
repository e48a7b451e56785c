// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Following every interface of the namespace: see linkwatch.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "iface/linkwatch.h"
#include "iface/xdp_query.h"
#include "userspace_util.h"

/*
 * Room for the events of a burst (each link created or deleted sends a few,
 * each taking a page or so of the buffer): what ip-monitor asks for, four
 * times over. The kernel doubles it.
 */
#define LINKWATCH_RCVBUF (4 << 20)

/* Ask for every link, with a sequence number of its own so its replies are known. */
static int dump_start(struct linkwatch *w)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
	} req = {
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg)),
		.nh.nlmsg_type = RTM_GETLINK,
		.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		.nh.nlmsg_seq = ++w->seq,
		.ifi.ifi_family = AF_UNSPEC,
	};

	/* Unconnected, a netlink socket sends to the kernel. */
	if (send(w->fd, &req, req.nh.nlmsg_len, 0) < 0)
		return -errno;
	w->dumping = true;
	w->redump = false;
	return 0;
}

/* A 32-bit attribute's value, if it holds one. */
static bool rta_s32(const struct rtattr *rta, int *value)
{
	if (RTA_PAYLOAD(rta) < sizeof(__s32))
		return false;
	memcpy(value, RTA_DATA(rta), sizeof(__s32));
	return true;
}

/* IFLA_INFO_KIND of @linkinfo, in @buf. */
static void link_kind(const struct rtattr *linkinfo, char *buf, size_t size)
{
	int len = RTA_PAYLOAD(linkinfo);
	const struct rtattr *rta;

	for (rta = RTA_DATA(linkinfo); RTA_OK(rta, len); rta = RTA_NEXT(rta, len))
		if (rta->rta_type == IFLA_INFO_KIND)
			snprintf(buf, size, "%.*s", (int)RTA_PAYLOAD(rta),
				 (const char *)RTA_DATA(rta));
}

/* An RTM_NEWLINK or RTM_DELLINK, from the dump or a notification alike. */
static void link_message(const struct nlmsghdr *nh, linkwatch_cb cb, void *ctx)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(nh);
	int len = nh->nlmsg_len - NLMSG_LENGTH(sizeof(*ifi));
	struct link_event ev = {
		.kind = nh->nlmsg_type == RTM_DELLINK ? LINKWATCH_GONE : LINKWATCH_PRESENT,
		.ifindex = ifi->ifi_index,
		.up = nh->nlmsg_type != RTM_DELLINK && (ifi->ifi_flags & IFF_UP),
		.new_nsid = -1,
	};
	const struct rtattr *rta;

	/* Other families speak of the link's part in something else: AF_BRIDGE of its port. */
	if (len < 0 || ifi->ifi_family != AF_UNSPEC)
		return;
	for (rta = IFLA_RTA(ifi); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		switch (rta->rta_type) {
		case IFLA_IFNAME:
			/* NUL-terminated by the kernel; bounded here all the same. */
			snprintf(ev.name, sizeof(ev.name), "%.*s", (int)RTA_PAYLOAD(rta),
				 (const char *)RTA_DATA(rta));
			break;
		case IFLA_NEW_NETNSID:
			ev.moved = rta_s32(rta, &ev.new_nsid);
			break;
		case IFLA_NEW_IFINDEX:
			rta_s32(rta, &ev.new_ifindex);
			break;
		case IFLA_LINKINFO:
			link_kind(rta, ev.link_kind, sizeof(ev.link_kind));
			break;
		case IFLA_XDP:
			ev.xdp.sz = sizeof(ev.xdp);
			xdp_query_attrs(rta, &ev.xdp);
			ev.xdp_said = true;
			break;
		}
	}
	cb(ctx, &ev);
}

/* The end of the dump: SYNCED if nothing was lost while it ran; else the next dump is due. */
static int dump_done(struct linkwatch *w, const struct nlmsghdr *nh, linkwatch_cb cb, void *ctx)
{
	struct link_event ev = { .kind = LINKWATCH_SYNCED };
	int err = 0;

	w->dumping = false;
	if (nh->nlmsg_len >= NLMSG_LENGTH(sizeof(err)))
		memcpy(&err, NLMSG_DATA(nh), sizeof(err));
	if (err < 0)
		return err;
	if (!w->redump)
		cb(ctx, &ev);
	return 0;
}

static int message(struct linkwatch *w, const struct nlmsghdr *nh, linkwatch_cb cb, void *ctx)
{
	/* Notifications carry the sequence and port of whoever made the change, never ours. */
	bool reply = w->dumping && nh->nlmsg_pid == w->portid && nh->nlmsg_seq == w->seq;
	const struct nlmsgerr *e = NLMSG_DATA(nh);

	/* The links changed while the dump ran: it may have missed one. */
	if (reply && (nh->nlmsg_flags & NLM_F_DUMP_INTR))
		w->redump = true;
	switch (nh->nlmsg_type) {
	case RTM_NEWLINK:
	case RTM_DELLINK:
		link_message(nh, cb, ctx);
		return 0;
	case NLMSG_DONE:
		return reply ? dump_done(w, nh, cb, ctx) : 0;
	case NLMSG_ERROR:
		if (!reply)
			return 0;
		if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
			return -EPROTO;
		/* No room for the first reply: the dump goes on as the socket drains, but late. */
		if (e->error == -ENOBUFS) {
			w->redump = true;
			return 0;
		}
		w->dumping = false;
		return e->error;
	}
	return 0;
}

/*
 * The messages left of the datagram read last, until @deadline_ns, each
 * counted in @took. 0, 1: the deadline came first, or -errno.
 */
static int messages(struct linkwatch *w, linkwatch_cb cb, void *ctx, __u64 deadline_ns,
		    int *took)
{
	while (w->off < w->len) {
		struct nlmsghdr *nh = (struct nlmsghdr *)(w->buf + w->off);
		int err;

		if (!NLMSG_OK(nh, (int)(w->len - w->off))) {
			w->off = w->len;
			break;
		}
		w->off += NLMSG_ALIGN(nh->nlmsg_len);
		if (w->off > w->len)
			w->off = w->len;
		err = message(w, nh, cb, ctx);
		if (err)
			return err;
		(*took)++;
		if (deadline_ns && w->off < w->len && fbf_monotonic_ns() >= deadline_ns)
			return 1;
	}
	return 0;
}

int linkwatch_read(struct linkwatch *w, linkwatch_cb cb, void *ctx, __u64 deadline_ns)
{
	struct link_event resync = { .kind = LINKWATCH_RESYNC };
	struct sockaddr_nl from;
	socklen_t fromlen;
	int err, took = 0;
	ssize_t n;

	for (;;) {
		err = messages(w, cb, ctx, deadline_ns, &took);
		if (err)
			return err;
		/* One message at least, however late: each read goes forward. */
		if (deadline_ns && took && fbf_monotonic_ns() >= deadline_ns)
			return 1;
		fromlen = sizeof(from);
		n = recvfrom(w->fd, w->buf, LINKWATCH_RECV_SIZE, MSG_TRUNC,
			     (struct sockaddr *)&from, &fromlen);
		/*
		 * Drained: the RESYNC and new dump linkwatch.h promises, if events
		 * were lost and no dump runs, whose replies may be stale too (a dump
		 * asked of a full socket would be held back, its first reply with it).
		 */
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (!w->redump || w->dumping)
				return 0;
			cb(ctx, &resync);
			err = dump_start(w);
			if (err)
				return err;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != ENOBUFS)
			return -errno;
		/* An overrun, or a message longer than any link's: either way, events lost. */
		if (n < 0 || n > LINKWATCH_RECV_SIZE) {
			w->redump = true;
			continue;
		}
		/* Only the kernel speaks on this socket. */
		if (from.nl_pid != 0)
			continue;
		w->len = n;
		w->off = 0;
	}
}

int linkwatch_open(struct linkwatch *w)
{
	struct sockaddr_nl self = { .nl_family = AF_NETLINK, .nl_groups = RTMGRP_LINK };
	socklen_t len = sizeof(self);
	int err, size = LINKWATCH_RCVBUF;

	*w = (struct linkwatch){
		.fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE),
	};
	if (w->fd < 0)
		return -errno;
	w->buf = malloc(LINKWATCH_RECV_SIZE);
	if (!w->buf) {
		linkwatch_close(w);
		return -ENOMEM;
	}
	/*
	 * SO_RCVBUFFORCE goes past net.core.rmem_max, with CAP_NET_ADMIN;
	 * without it, SO_RCVBUF gets what rmem_max allows. Smaller only means
	 * an overrun, and a dump, sooner.
	 */
	if (setsockopt(w->fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(w->fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	/* Subscribed by the bind: whatever changes from then on is told, dumped or both. */
	if (bind(w->fd, (struct sockaddr *)&self, sizeof(self)) ||
	    getsockname(w->fd, (struct sockaddr *)&self, &len))
		err = -errno;
	else
		err = dump_start(w);
	w->portid = self.nl_pid;
	if (err)
		linkwatch_close(w);
	return err;
}

void linkwatch_close(struct linkwatch *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	free(w->buf);
	w->buf = NULL;
	w->len = w->off = 0;
}
