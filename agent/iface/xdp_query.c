// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* One interface's XDP programs: see xdp_query.h. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "iface/rtnl_once.h"
#include "iface/xdp_query.h"

/* A reply: the link's message with its attributes; the stats are left out. */
#define XDP_QUERY_REPLY_SIZE 16384

static __u32 rta_u32(const struct rtattr *rta)
{
	__u32 v = 0;

	if (RTA_PAYLOAD(rta) >= sizeof(v))
		memcpy(&v, RTA_DATA(rta), sizeof(v));
	return v;
}

void xdp_query_attrs(const struct rtattr *xdp, struct bpf_xdp_query_opts *q)
{
	int len = RTA_PAYLOAD(xdp);
	const struct rtattr *rta;

	for (rta = RTA_DATA(xdp); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		switch (rta->rta_type) {
		case IFLA_XDP_ATTACHED:
			q->attach_mode = *(const __u8 *)RTA_DATA(rta);
			break;
		case IFLA_XDP_PROG_ID:
			q->prog_id = rta_u32(rta);
			break;
		case IFLA_XDP_DRV_PROG_ID:
			q->drv_prog_id = rta_u32(rta);
			break;
		case IFLA_XDP_SKB_PROG_ID:
			q->skb_prog_id = rta_u32(rta);
			break;
		case IFLA_XDP_HW_PROG_ID:
			q->hw_prog_id = rta_u32(rta);
			break;
		}
	}
}

/* The reply in @buf, @n bytes: 0, or -errno (the kernel's, or -EPROTO). */
static int reply_parse(const char *buf, ssize_t n, int ifindex, struct bpf_xdp_query_opts *q)
{
	const struct nlmsghdr *nh = (const void *)buf;
	const struct ifinfomsg *ifi;
	const struct rtattr *rta;
	int len;

	if (!NLMSG_OK(nh, n))
		return -EPROTO;
	if (nh->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = NLMSG_DATA(nh);

		return e->error ? e->error : -EPROTO;
	}
	ifi = NLMSG_DATA(nh);
	len = nh->nlmsg_len - NLMSG_LENGTH(sizeof(*ifi));
	if (nh->nlmsg_type != RTM_NEWLINK || len < 0 || ifi->ifi_index != ifindex)
		return -EPROTO;
	for (rta = IFLA_RTA(ifi); RTA_OK(rta, len); rta = RTA_NEXT(rta, len))
		if (rta->rta_type == IFLA_XDP)
			xdp_query_attrs(rta, q);
	return 0;
}

int xdp_query(int ifindex, struct bpf_xdp_query_opts *q)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
		struct rtattr ext;
		__u32 ext_mask;
	} req = {
		.nh.nlmsg_len = sizeof(req),
		.nh.nlmsg_type = RTM_GETLINK,
		.nh.nlmsg_flags = NLM_F_REQUEST,
		.ifi.ifi_family = AF_UNSPEC,
		.ifi.ifi_index = ifindex,
		.ext.rta_type = IFLA_EXT_MASK,
		.ext.rta_len = RTA_LENGTH(sizeof(__u32)),
		.ext_mask = RTEXT_FILTER_SKIP_STATS,
	};
	char buf[XDP_QUERY_REPLY_SIZE] __attribute__((aligned(__alignof__(struct nlmsghdr))));
	ssize_t n;

	q->attach_mode = XDP_ATTACHED_NONE;
	q->prog_id = q->drv_prog_id = q->skb_prog_id = q->hw_prog_id = 0;
	n = rtnl_once(&req, sizeof(req), buf, sizeof(buf));
	return n < 0 ? (int)n : reply_parse(buf, n, ifindex, q);
}
