/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Following every network interface of the namespace as it comes and goes:
 * an rtnetlink socket subscribed to link events first, then a dump of every
 * link asked on it, so that nothing happens unseen between the two.
 */
#ifndef AGENT_LINKWATCH_H
#define AGENT_LINKWATCH_H

#include <stdbool.h>
#include <net/if.h>
#include <linux/types.h>
#include <bpf/libbpf.h>

enum linkwatch_kind {
	/* A link exists now (RTM_NEWLINK, or listed by the dump): new, changed, renamed. */
	LINKWATCH_PRESENT,
	/* RTM_DELLINK: deleted, or moved to another namespace. */
	LINKWATCH_GONE,
	/*
	 * The dump ended: every link that exists was reported PRESENT since
	 * the last LINKWATCH_RESYNC; a link the caller knows and was not
	 * reported since is gone.
	 */
	LINKWATCH_SYNCED,
	/* Events were lost (linkwatch_read()): a new dump starts; a LINKWATCH_SYNCED ends it. */
	LINKWATCH_RESYNC,
};

struct link_event {
	enum linkwatch_kind kind;
	int ifindex;
	char name[IF_NAMESIZE];	/* PRESENT and GONE */
	bool up;		/* PRESENT: IFF_UP */
	bool moved;		/* GONE: it left for another network namespace (IFLA_NEW_NETNSID) */
	int new_nsid;		/* ... that namespace, as this one names it; -1: none given */
	int new_ifindex;	/* ... its index there; 0: none given */
	char link_kind[16];	/* PRESENT: its IFLA_INFO_KIND ("veth"); "" if none said */
	bool xdp_said;		/* PRESENT: its XDP programs as the message was made: */
	struct bpf_xdp_query_opts xdp;
};

typedef void (*linkwatch_cb)(void *ctx, const struct link_event *ev);

/* The kernel fills a dump reply as far as the reader's buffer goes, up to 32 KiB. */
#define LINKWATCH_RECV_SIZE 32768

struct linkwatch {
	int fd;			/* -1: closed */
	__u32 portid;		/* the socket's netlink address: dump replies come to it */
	__u32 seq;		/* of the last dump asked for */
	bool dumping;		/* its replies are still coming */
	bool redump;		/* events were lost: dump again once drained, and no dump runs */
	/*
	 * The datagram read last, kept while messages of it are left (a dump's
	 * reply holds dozens): a read cut short by its deadline goes on there.
	 */
	char *buf;		/* [LINKWATCH_RECV_SIZE] */
	__u32 len;		/* bytes in buf */
	__u32 off;		/* the next message's */
};

/*
 * Subscribe to link events (RTMGRP_LINK), then ask for the dump: a
 * non-blocking, close-on-exec socket with a large receive buffer. 0 or -errno.
 */
int linkwatch_open(struct linkwatch *w);

/*
 * Read what is pending without blocking and call @cb for each event, in
 * order, until nothing is, or CLOCK_MONOTONIC passes @deadline_ns (0: no
 * deadline; looked at after each message, so one event's work may pass
 * it, and one is taken however late);
 * the dump's links come as PRESENT, then SYNCED. Lost events (ENOBUFS,
 * or a dump the kernel marks NLM_F_DUMP_INTR: links changed while it ran)
 * give cb(RESYNC) and a new dump, once the events queued before are read and
 * any dump under way has ended (the kernel refuses a second with EBUSY), so
 * that none of those stale ones comes after the RESYNC. Returns 0 once
 * nothing is pending, 1 if the deadline came first (linkwatch_pending()),
 * or -errno on a real failure (the dump refused: the error it came back with).
 */
int linkwatch_read(struct linkwatch *w, linkwatch_cb cb, void *ctx, __u64 deadline_ns);

/* Messages of a datagram already read are left: the socket's readiness does not say so. */
static inline bool linkwatch_pending(const struct linkwatch *w)
{
	return w->off < w->len;
}


void linkwatch_close(struct linkwatch *w);

#endif /* AGENT_LINKWATCH_H */
