// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Test frame builders. Addresses come from the documentation ranges
 * (RFC 5737, RFC 3849, locally administered MACs): nothing here is meant to
 * leave the test.
 */
#include <endian.h>
#include <string.h>
#include <linux/if_arp.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>

#include "frames.h"

/* RFC 3692 "use for experimentation": the payload is not a real transport header. */
#define FRAME_IP_PROTO_TEST 253
/* RFC 8200: nothing follows the IPv6 header but the payload bytes. */
#define FRAME_IPV6_NO_NEXT_HEADER 59
/* The transport headers' ports: an ephemeral source, well-known destinations. */
#define FRAME_SPORT 40000
#define FRAME_TCP_DPORT 80
#define FRAME_UDP_DPORT 53
/* VLAN IDs of the tags, outermost first: arbitrary but recognisable in a dump. */
#define FRAME_FIRST_VID 100

static const __u8 frame_dst_mac[ETH_ALEN] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 };
static const __u8 frame_src_mac[ETH_ALEN] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
static const char frame_payload[FRAME_PAYLOAD_LEN] = "fizzbuzzfib-test";

static void put_be16(__u8 *p, __u16 v)
{
	v = htobe16(v);
	memcpy(p, &v, sizeof(v));
}

static void put_be32(__u8 *p, __u32 v)
{
	v = htobe32(v);
	memcpy(p, &v, sizeof(v));
}

/* RFC 1071 Internet checksum, in network byte order, ready to store. */
static __u16 inet_csum(const __u8 *p, size_t len)
{
	__u32 sum = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (__u32)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (__u32)p[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htobe16((__u16)~sum);
}

size_t frame_l2_len(const struct frame_l2 *l2)
{
	return FRAME_ETH_HLEN + (l2 ? l2->nr_tags * FRAME_VLAN_HLEN : 0);
}

size_t frame_build_eth(void *buf, size_t size, const struct frame_l2 *l2, __u16 ethertype)
{
	unsigned int nr_tags = l2 ? l2->nr_tags : 0;
	size_t len = frame_l2_len(l2);
	__u8 *p = buf;
	unsigned int i;

	if (nr_tags > FRAME_MAX_VLAN_TAGS || len > size)
		return 0;

	memcpy(p, frame_dst_mac, ETH_ALEN);
	memcpy(p + ETH_ALEN, frame_src_mac, ETH_ALEN);
	p += 2 * ETH_ALEN;
	/* Each tag is the TPID announcing it, then its TCI; the last TPID slot is the ethertype. */
	for (i = 0; i < nr_tags; i++) {
		put_be16(p, l2->tpid[i]);
		put_be16(p + 2, FRAME_FIRST_VID + i);
		p += FRAME_VLAN_HLEN;
	}
	put_be16(p, ethertype);
	return len;
}

/* A TCP or UDP header for @protocol at @p, or nothing: its length. Checksums left 0. */
static size_t put_l4(__u8 *p, __u8 protocol, size_t payload_len)
{
	if (protocol == IPPROTO_TCP) {
		struct tcphdr th = { .doff = sizeof(th) / 4, .syn = 1, .window = htobe16(64240) };

		th.source = htobe16(FRAME_SPORT);
		th.dest = htobe16(FRAME_TCP_DPORT);
		memcpy(p, &th, sizeof(th));
		return sizeof(th);
	}
	if (protocol == IPPROTO_UDP) {
		struct udphdr uh = { .len = htobe16(sizeof(uh) + payload_len) };

		uh.source = htobe16(FRAME_SPORT);
		uh.dest = htobe16(FRAME_UDP_DPORT);
		memcpy(p, &uh, sizeof(uh));
		return sizeof(uh);
	}
	return 0;
}

static size_t l4_len(__u8 protocol)
{
	return protocol == IPPROTO_TCP ? sizeof(struct tcphdr) :
	       protocol == IPPROTO_UDP ? sizeof(struct udphdr) : 0;
}

size_t frame_build_ipv4(void *buf, size_t size, const struct frame_l2 *l2,
			const struct frame_ipv4 *ip)
{
	size_t hdr_len = FRAME_IPV4_HLEN + ip->options_len;
	size_t payload_len = ip->payload_len ?: FRAME_PAYLOAD_LEN;
	size_t body_len = l4_len(ip->protocol) + payload_len;
	size_t off = frame_build_eth(buf, size, l2, ETH_P_IP);
	struct iphdr iph = {};
	__u8 *p = buf;

	if (!off || off + hdr_len + body_len > size)
		return 0;
	p += off;

	iph.version = ip->version;
	iph.ihl = ip->ihl;
	iph.tot_len = htobe16(hdr_len + body_len);
	iph.id = htobe16(1);
	iph.ttl = 64;
	iph.protocol = ip->protocol ?: FRAME_IP_PROTO_TEST;
	iph.saddr = htobe32(ip->saddr);
	iph.daddr = htobe32(IPV4_ADDR(192, 0, 2, 1));
	memcpy(p, &iph, sizeof(iph));
	memset(p + sizeof(iph), IPOPT_NOOP, ip->options_len);
	/* Over the header as written, which need not be what IHL claims. */
	iph.check = inet_csum(p, hdr_len);
	memcpy(p + offsetof(struct iphdr, check), &iph.check, sizeof(iph.check));

	p += hdr_len;
	p += put_l4(p, ip->protocol, payload_len);
	/* The payload's pattern, repeated as far as a large frame needs. */
	for (size_t i = 0; i < payload_len; i += FRAME_PAYLOAD_LEN)
		memcpy(p + i, frame_payload, payload_len - i < FRAME_PAYLOAD_LEN ?
		       payload_len - i : FRAME_PAYLOAD_LEN);
	return off + hdr_len + body_len;
}

size_t frame_build_ipv6(void *buf, size_t size, const struct frame_l2 *l2)
{
	size_t off = frame_build_eth(buf, size, l2, ETH_P_IPV6);
	struct ipv6hdr ip6h = {};
	__u8 *p = buf;

	if (!off || off + sizeof(ip6h) + FRAME_PAYLOAD_LEN > size)
		return 0;
	p += off;

	ip6h.version = 6;
	ip6h.payload_len = htobe16(FRAME_PAYLOAD_LEN);
	ip6h.nexthdr = FRAME_IPV6_NO_NEXT_HEADER;
	ip6h.hop_limit = 64;
	/* 2001:db8::1 to 2001:db8::2 */
	ip6h.saddr.s6_addr[0] = ip6h.daddr.s6_addr[0] = 0x20;
	ip6h.saddr.s6_addr[1] = ip6h.daddr.s6_addr[1] = 0x01;
	ip6h.saddr.s6_addr[2] = ip6h.daddr.s6_addr[2] = 0x0d;
	ip6h.saddr.s6_addr[3] = ip6h.daddr.s6_addr[3] = 0xb8;
	ip6h.saddr.s6_addr[15] = 1;
	ip6h.daddr.s6_addr[15] = 2;
	memcpy(p, &ip6h, sizeof(ip6h));

	memcpy(p + sizeof(ip6h), frame_payload, FRAME_PAYLOAD_LEN);
	return off + sizeof(ip6h) + FRAME_PAYLOAD_LEN;
}

size_t frame_build_arp(void *buf, size_t size, const struct frame_l2 *l2)
{
	/* struct arphdr, then sender MAC and IPv4 address, target MAC and IPv4 address. */
	size_t arp_len = sizeof(struct arphdr) + 2 * (ETH_ALEN + 4);
	size_t off = frame_build_eth(buf, size, l2, ETH_P_ARP);
	struct arphdr arph = {};
	__u8 *p = buf;

	if (!off || off + arp_len > size)
		return 0;
	p += off;

	arph.ar_hrd = htobe16(ARPHRD_ETHER);
	arph.ar_pro = htobe16(ETH_P_IP);
	arph.ar_hln = ETH_ALEN;
	arph.ar_pln = 4;
	arph.ar_op = htobe16(ARPOP_REQUEST);
	memcpy(p, &arph, sizeof(arph));
	p += sizeof(arph);

	memcpy(p, frame_src_mac, ETH_ALEN);
	put_be32(p + ETH_ALEN, IPV4_ADDR(192, 0, 2, 2));
	p += ETH_ALEN + 4;
	memset(p, 0, ETH_ALEN);
	put_be32(p + ETH_ALEN, IPV4_ADDR(192, 0, 2, 1));
	return off + arp_len;
}
