// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* rtnetlink's link messages: see nl_link.h. */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "iface/nl_link.h"

int nl_link_events_open(void)
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

/* A 32-bit attribute's value, if it holds one. */
static bool rta_s32(const struct rtattr *rta, int *value)
{
	if (RTA_PAYLOAD(rta) < sizeof(__s32))
		return false;
	memcpy(value, RTA_DATA(rta), sizeof(__s32));
	return true;
}

bool nl_link_parse(const struct nlmsghdr *nh, struct nl_link *l)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(nh);
	int len = nh->nlmsg_len - NLMSG_LENGTH(sizeof(*ifi));
	const struct rtattr *rta;
	size_t n;

	if (len < 0)
		return false;
	*l = (struct nl_link){
		.family = ifi->ifi_family,
		.ifindex = ifi->ifi_index,
		.flags = ifi->ifi_flags,
		.new_nsid = -1,
	};
	for (rta = IFLA_RTA(ifi); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		switch (rta->rta_type) {
		case IFLA_IFNAME:
			/* NUL-terminated by the kernel; bounded here all the same. */
			n = strnlen(RTA_DATA(rta), RTA_PAYLOAD(rta));
			if (n >= sizeof(l->name))
				n = sizeof(l->name) - 1;
			memcpy(l->name, RTA_DATA(rta), n);
			l->name[n] = '\0';
			break;
		case IFLA_NEW_NETNSID:
			l->moved = rta_s32(rta, &l->new_nsid);
			break;
		case IFLA_NEW_IFINDEX:
			rta_s32(rta, &l->new_ifindex);
			break;
		}
	}
	return true;
}
