/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * rtnetlink's link messages, as both watchers read them: ifwatch (the one
 * interface the agent is attached to) and linkwatch (every interface).
 */
#ifndef AGENT_NL_LINK_H
#define AGENT_NL_LINK_H

#include <stdbool.h>
#include <net/if.h>
#include <linux/netlink.h>

/* What an RTM_NEWLINK or RTM_DELLINK says of its link. */
struct nl_link {
	unsigned char family;	/* AF_UNSPEC for the link itself; AF_BRIDGE for its bridge port */
	int ifindex;
	unsigned int flags;	/* IFF_* */
	char name[IF_NAMESIZE];	/* "" if the message had none */
	bool moved;		/* RTM_DELLINK: IFLA_NEW_NETNSID, it left for another namespace */
	int new_nsid;		/* that namespace, as this one names it; -1: none given */
	int new_ifindex;	/* its index there; 0: none given */
};

/*
 * A non-blocking, close-on-exec rtnetlink socket subscribed to link events
 * (RTMGRP_LINK). Returns the fd or -errno.
 */
int nl_link_events_open(void);

/* Read @nh, an RTM_NEWLINK or RTM_DELLINK, into @l. False if it is too short to be one. */
bool nl_link_parse(const struct nlmsghdr *nh, struct nl_link *l);

#endif /* AGENT_NL_LINK_H */
