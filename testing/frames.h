/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Test frames for the XDP program: Ethernet with any number of VLAN tags,
 * then IPv4 (every field the parser looks at settable), IPv6 or ARP. Each
 * builder writes one frame into a caller buffer and returns its length, or 0
 * if the buffer is too small. A truncated frame is a complete one handed over
 * with a shorter length.
 */
#ifndef FRAMES_H
#define FRAMES_H

#include <stddef.h>
#include <linux/types.h>

/* An IPv4 address in host byte order, written as its dotted quad. */
#define IPV4_ADDR(a, b, c, d) \
	((__u32)(a) << 24 | (__u32)(b) << 16 | (__u32)(c) << 8 | (__u32)(d))

#define FRAME_MAX_VLAN_TAGS 4

/* Large enough for every frame the builders make. */
#define FRAME_MAX_LEN 256

#define FRAME_ETH_HLEN 14
#define FRAME_VLAN_HLEN 4
#define FRAME_IPV4_HLEN 20
#define FRAME_PAYLOAD_LEN 16

/* The link layer: VLAN tags, outermost first. A NULL struct frame_l2 means untagged. */
struct frame_l2 {
	unsigned int nr_tags;
	__u16 tpid[FRAME_MAX_VLAN_TAGS];	/* ETH_P_8021Q or ETH_P_8021AD */
};

struct frame_ipv4 {
	__u8 version;		/* 4 for a valid header */
	__u8 ihl;		/* header length in 32-bit words, as written in the header */
	__u8 options_len;	/* option bytes written after the fixed header */
	__u32 saddr;		/* host byte order */
	__u8 protocol;		/* 0: no transport header; IPPROTO_TCP or IPPROTO_UDP: one */
	__u16 payload_len;	/* bytes after the transport header; 0: FRAME_PAYLOAD_LEN */
};

/* A valid IPv4 header without options from @saddr (host byte order). */
#define FRAME_IPV4(addr) ((struct frame_ipv4){ .version = 4, .ihl = 5, .saddr = (addr) })

/* Length of the Ethernet header and tags, i.e. the offset of the network header. */
size_t frame_l2_len(const struct frame_l2 *l2);

/* The Ethernet header and tags only, ending with @ethertype. */
size_t frame_build_eth(void *buf, size_t size, const struct frame_l2 *l2, __u16 ethertype);

/*
 * Ethernet, tags, IPv4 header with ip->options_len option bytes, a TCP (SYN
 * to port 80) or UDP (to port 53) header if ip->protocol asks for one, then
 * the payload.
 */
size_t frame_build_ipv4(void *buf, size_t size, const struct frame_l2 *l2,
			const struct frame_ipv4 *ip);

/* Ethernet, tags, an IPv6 header from 2001:db8::1 and a short payload. */
size_t frame_build_ipv6(void *buf, size_t size, const struct frame_l2 *l2);

/* Ethernet, tags, an ARP request for 192.0.2.1 from 192.0.2.2. */
size_t frame_build_arp(void *buf, size_t size, const struct frame_l2 *l2);

#endif /* FRAMES_H */
