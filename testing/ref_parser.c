// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The reference model of xdp/fizzbuzzfib.bpf.c. The rules, in order:
 *
 *   1. Fewer than 14 bytes: malformed (no Ethernet header).
 *   2. The ethertype is at offset 12. While it is 0x8100 or 0x88a8 and fewer
 *      than two tags were read, a 4-byte tag follows whose last two bytes are
 *      the next ethertype; a tag cut short is malformed.
 *   3. The ethertype after that is not 0x0800 (a third tag included):
 *      non-IPv4.
 *   4. IPv4 at offset L: fewer than 20 bytes left, version != 4 or IHL < 5,
 *      or fewer than IHL * 4 bytes left: malformed.
 *   5. Otherwise the source address (offset L + 12, big endian) is
 *      classified; every class but none pushes an event, or under 1-in-N
 *      sampling one in N of them on each CPU (struct ref_sampling).
 *
 * Every frame passes (XDP_PASS) and counts in packets, and in exactly one of
 * non_ipv4, malformed or by_class[class].
 */
#include <linux/bpf.h>

#include "ref_parser.h"

#define ETH_HDR_LEN	14
#define ETHERTYPE_OFF	12
#define VLAN_TAG_LEN	4
#define MAX_VLAN_TAGS	2
#define IPV4_MIN_LEN	20
#define IPV4_SADDR_OFF	12

static __u32 get_be16(const __u8 *p)
{
	return (__u32)p[0] << 8 | p[1];
}

static __u32 get_be32(const __u8 *p)
{
	return (__u32)p[0] << 24 | (__u32)p[1] << 16 | (__u32)p[2] << 8 | p[3];
}

static bool is_vlan_tpid(__u32 ethertype)
{
	return ethertype == 0x8100 || ethertype == 0x88a8;
}

bool ref_is_fibonacci(unsigned int octet)
{
	unsigned int a = 0, b = 1, next;

	while (a < 256) {
		if (a == octet)
			return true;
		next = a + b;
		a = b;
		b = next;
	}
	return false;
}

enum fbf_class ref_classify(__u32 saddr)
{
	bool fizz = saddr % 3 == 0, buzz = saddr % 5 == 0;

	if (ref_is_fibonacci(saddr % 256))
		return FBF_FIBONACCI;
	if (fizz && buzz)
		return FBF_FIZZBUZZ;
	return fizz ? FBF_FIZZ : buzz ? FBF_BUZZ : FBF_NONE;
}

void ref_parse(const void *frame, size_t len, struct ref_verdict *v)
{
	const __u8 *p = frame;
	size_t l3, ihl_bytes;
	__u32 ethertype;
	int tags = 0;

	*v = (struct ref_verdict){ .retval = XDP_PASS, .outcome = REF_MALFORMED };

	if (len < ETH_HDR_LEN)
		return;
	ethertype = get_be16(p + ETHERTYPE_OFF);
	l3 = ETH_HDR_LEN;
	while (is_vlan_tpid(ethertype) && tags < MAX_VLAN_TAGS) {
		if (len < l3 + VLAN_TAG_LEN)
			return;
		ethertype = get_be16(p + l3 + 2);
		l3 += VLAN_TAG_LEN;
		tags++;
	}

	if (ethertype != 0x0800) {
		v->outcome = REF_NON_IPV4;
		return;
	}

	if (len < l3 + IPV4_MIN_LEN)
		return;
	if (p[l3] >> 4 != 4)
		return;
	ihl_bytes = (p[l3] & 0x0f) * 4;
	if (ihl_bytes < IPV4_MIN_LEN || len < l3 + ihl_bytes)
		return;

	v->outcome = REF_IPV4;
	v->saddr = get_be32(p + l3 + IPV4_SADDR_OFF);
	v->class_id = ref_classify(v->saddr);
	v->push = v->class_id != FBF_NONE;
}

bool ref_account(const struct ref_verdict *v, struct ref_sampling *smp, bool queue_room,
		 struct fbf_counters *c)
{
	c->packets++;
	switch (v->outcome) {
	case REF_NON_IPV4:
		c->non_ipv4++;
		return false;
	case REF_MALFORMED:
		c->malformed++;
		return false;
	case REF_IPV4:
		break;
	}
	c->by_class[v->class_id]++;
	if (!v->push)
		return false;
	if (smp && smp->candidates++ % smp->every != 0) {
		c->not_sampled++;
		return false;
	}
	if (!queue_room) {
		c->queue_full++;
		return false;
	}
	return true;
}

const char *ref_outcome_name(enum ref_outcome outcome)
{
	switch (outcome) {
	case REF_IPV4:
		return "ipv4";
	case REF_NON_IPV4:
		return "non_ipv4";
	case REF_MALFORMED:
		return "malformed";
	}
	return "invalid";
}
