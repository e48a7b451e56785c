// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The cost tool's frame shapes: see cost_corpus.h. */
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/udp.h>

#include "cost_corpus.h"
#include "kernel_cases.h"

static const struct frame_l2 two_vlans = { .nr_tags = 2, .tpid = { ETH_P_8021AD, ETH_P_8021Q } };

static void add_ipv4(struct cost_shape *s, const char *name, const struct frame_l2 *l2,
		     struct frame_ipv4 ip)
{
	s->name = name;
	s->len = frame_build_ipv4(s->frame, sizeof(s->frame), l2, &ip);
}

/*
 * The classifier's own shapes named by what they are, for authors of other
 * programs: an IPv4 header alone from its source ("ipv4-src-10.0.0.253"),
 * behind a VLAN tag ("vlan-ipv4-src-..."); the others' names say it already.
 */
static void describe(struct cost_shape *s)
{
	size_t l3 = FRAME_ETH_HLEN;
	const char *vlan = "";
	char src[INET_ADDRSTRLEN];
	__u16 proto;

	memcpy(&proto, s->frame + 12, sizeof(proto));
	if (ntohs(proto) == ETH_P_8021Q) {
		vlan = "vlan-";
		l3 += 4;
		memcpy(&proto, s->frame + 16, sizeof(proto));
	}
	if (ntohs(proto) != ETH_P_IP || !inet_ntop(AF_INET, s->frame + l3 + 12, src, sizeof(src)))
		return;
	snprintf(s->label, sizeof(s->label), "%sipv4-src-%s", vlan, src);
	s->name = s->label;
}

size_t cost_corpus_build(struct cost_shape *shapes, bool classifier_only)
{
	struct kernel_case cases[KERNEL_CASES_MAX];
	struct frame_ipv4 ip = FRAME_IPV4(IPV4_ADDR(10, 0, 0, 254));
	size_t nr_cases = kernel_cases_build(cases), n = 0;

	if (!classifier_only) {
		ip.protocol = IPPROTO_TCP;
		add_ipv4(&shapes[n++], "ipv4-tcp", NULL, ip);
		ip.protocol = IPPROTO_UDP;
		add_ipv4(&shapes[n++], "ipv4-udp", NULL, ip);
	}
	/* The classifier's own: IPv4 sources of every class, one VLAN tag, IPv6. */
	for (size_t i = 0; i < nr_cases; i++, n++) {
		shapes[n].name = cases[i].name;
		memcpy(shapes[n].frame, cases[i].frame, cases[i].len);
		shapes[n].len = cases[i].len;
		if (!classifier_only)
			describe(&shapes[n]);
	}
	if (classifier_only)
		return n;
	ip.protocol = 0;
	add_ipv4(&shapes[n++], "qinq-ipv4", &two_vlans, ip);
	shapes[n].name = "arp";
	shapes[n].len = frame_build_arp(shapes[n].frame, sizeof(shapes[n].frame), NULL);
	n++;
	/* Ethernet and half an IPv4 header: a parser must stop at the frame's end. */
	add_ipv4(&shapes[n], "truncated", NULL, ip);
	shapes[n++].len = FRAME_ETH_HLEN + FRAME_IPV4_HLEN / 2;
	ip.protocol = IPPROTO_UDP;
	ip.payload_len = COST_JUMBO_LEN - FRAME_ETH_HLEN - FRAME_IPV4_HLEN -
			 sizeof(struct udphdr);
	add_ipv4(&shapes[n++], "ipv4-udp-jumbo", NULL, ip);
	return n;
}
