// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A capture's frames for the cost tool: see cost_capture.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <pcap/pcap.h>

#include "cost_capture.h"
#include "cost_exits.h"

static const char *const skip_names[COST_SKIP_NR] = {
	[COST_SKIP_LINK] = "link-type",
	[COST_SKIP_SNAPPED] = "snapped",
	[COST_SKIP_TOO_LONG] = "too-long",
};

/* libpcap says "truncated" for a file cut short, in its header or in a frame. */
static int read_error(const char *path, const char *why)
{
	bool cut = strstr(why, "truncated");

	fprintf(stderr, "cost: PCAP %s: %s: %s\n", path, why, cut ?
		"the capture was cut short: copy it again, or let tcpdump end with Ctrl-C" :
		"not a capture tcpdump or Wireshark wrote (pcap or pcapng)");
	return cut ? COST_EXIT_CAPTURE_TRUNCATED : COST_EXIT_CAPTURE_FORMAT;
}

static int add_frame(struct cost_capture *cap, size_t *cap_bytes, size_t *cap_frames,
		     const __u8 *bytes, __u32 len)
{
	size_t used = cap->nr_frames ? cap->frames[cap->nr_frames - 1].offset +
		      cap->frames[cap->nr_frames - 1].len : 0;

	if (used + len > *cap_bytes) {
		size_t n = (*cap_bytes ?: 1 << 20) * 2;
		__u8 *p = realloc(cap->data, n);

		if (!p)
			return -ENOMEM;
		cap->data = p;
		*cap_bytes = n;
	}
	if (cap->nr_frames == *cap_frames) {
		size_t n = (*cap_frames ?: 4096) * 2;
		struct cost_capture_frame *f = realloc(cap->frames, n * sizeof(*f));

		if (!f)
			return -ENOMEM;
		cap->frames = f;
		*cap_frames = n;
	}
	memcpy(cap->data + used, bytes, len);
	cap->frames[cap->nr_frames++] = (struct cost_capture_frame){
		.offset = used, .len = len, .index = cap->nr_read };
	return 0;
}

static void skip(struct cost_capture *cap, enum cost_capture_skip why)
{
	if (!cap->skipped[why]++)
		cap->first_skipped[why] = cap->nr_read;
}

/* The capture had frames, none of which a program can see: one line on how to capture. */
static int refuse_unseen(const struct cost_capture *cap)
{
	const char *link = pcap_datalink_val_to_name(cap->first_link[COST_SKIP_LINK]);

	if (cap->skipped[COST_SKIP_LINK])
		fprintf(stderr, "cost: PCAP %s: its frames (%zu read) are of link type %s%s, not "
			"Ethernet as an XDP program sees them: capture on one interface "
			"(tcpdump -i eth0 -w FILE), not on any\n", cap->path, cap->nr_read,
			link ?: "unknown",
			cap->first_link[COST_SKIP_LINK] == DLT_LINUX_SLL ||
			cap->first_link[COST_SKIP_LINK] == DLT_LINUX_SLL2 ?
			" (Linux cooked: tcpdump -i any)" : "");
	else
		fprintf(stderr, "cost: PCAP %s: none of its frames (%zu read) can run: each was "
			"cut short by the capture's snap length or is longer than the %d bytes "
			"test_run takes: capture whole frames (tcpdump -s 0) with GRO off on "
			"the interface (ethtool -K IFACE gro off)\n", cap->path, cap->nr_read,
			COST_CAPTURE_MAX_LEN);
	return COST_EXIT_CAPTURE_UNSEEN;
}

int cost_capture_load(struct cost_capture *cap, const char *path)
{
	char err[PCAP_ERRBUF_SIZE];
	size_t cap_bytes = 0, cap_frames = 0;
	struct pcap_pkthdr *hdr;
	const u_char *bytes;
	struct stat st;
	pcap_t *p;
	int link, ret = 0, r;

	memset(cap, 0, sizeof(*cap));
	cap->path = path;
	if (stat(path, &st) == 0 && st.st_size == 0) {
		fprintf(stderr, "cost: PCAP %s: the file is empty: capture some traffic into it "
			"(tcpdump -i IFACE -w FILE)\n", path);
		return COST_EXIT_CAPTURE_EMPTY;
	}
	p = pcap_open_offline(path, err);
	if (!p)
		return read_error(path, err);
	link = pcap_datalink(p);
	while (!ret && (r = pcap_next_ex(p, &hdr, &bytes)) == 1) {
		cap->nr_read++;
		if (link != DLT_EN10MB) {
			cap->first_link[COST_SKIP_LINK] = link;
			skip(cap, COST_SKIP_LINK);
		} else if (hdr->caplen < hdr->len) {
			skip(cap, COST_SKIP_SNAPPED);
		} else if (hdr->caplen > COST_CAPTURE_MAX_LEN) {
			skip(cap, COST_SKIP_TOO_LONG);
		} else if (add_frame(cap, &cap_bytes, &cap_frames, bytes, hdr->caplen)) {
			fprintf(stderr, "cost: PCAP %s: %zu frames: out of memory\n", path,
				cap->nr_read);
			ret = COST_EXIT_FAILED;
		}
	}
	if (!ret && r == PCAP_ERROR)
		ret = read_error(path, pcap_geterr(p));
	pcap_close(p);
	if (!ret && !cap->nr_read) {
		fprintf(stderr, "cost: PCAP %s: the capture holds no frame: capture some traffic "
			"into it (tcpdump -i IFACE -w FILE)\n", path);
		ret = COST_EXIT_CAPTURE_EMPTY;
	}
	if (!ret && !cap->nr_frames)
		ret = refuse_unseen(cap);
	if (ret)
		cost_capture_free(cap);
	return ret;
}

void cost_capture_print_skipped(const struct cost_capture *cap)
{
	for (int i = 0; i < COST_SKIP_NR; i++) {
		const char *link = i == COST_SKIP_LINK ?
				   pcap_datalink_val_to_name(cap->first_link[i]) : NULL;

		if (cap->skipped[i])
			printf("#skipped\t%s%s%s\t%zu\t%u\n", skip_names[i], link ? ":" : "",
			       link ?: "", cap->skipped[i], cap->first_skipped[i]);
	}
	printf("#capture\t%zu\t%zu\n", cap->nr_read, cap->nr_frames);
}

/* The transport's ports, or the ICMP type, after @l4 (at most @left bytes) as text. */
static const char *l4_text(__u8 proto, const __u8 *l4, size_t left, char *buf, size_t size)
{
	static const char *const names[256] = {
		[IPPROTO_TCP] = "TCP", [IPPROTO_UDP] = "UDP", [IPPROTO_ICMP] = "ICMP",
		[IPPROTO_ICMPV6] = "ICMPv6", [IPPROTO_SCTP] = "SCTP", [IPPROTO_GRE] = "GRE",
		[0] = "IPv6 hop-by-hop",
	};

	if (names[proto])
		snprintf(buf, size, "%s", names[proto]);
	else
		snprintf(buf, size, "IP proto %u", proto);
	if ((proto == IPPROTO_ICMP || proto == IPPROTO_ICMPV6) && left >= 1)
		snprintf(buf + strlen(buf), size - strlen(buf), " type %u", l4[0]);
	return buf;
}

static bool has_ports(__u8 proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP || proto == IPPROTO_SCTP;
}

void cost_capture_summary(const struct cost_capture *cap, size_t i, char *buf, size_t size)
{
	const __u8 *f = cost_capture_data(cap, i);
	size_t len = cap->frames[i].len, off = 2 * ETH_ALEN;
	char src[INET6_ADDRSTRLEN] = "?", dst[INET6_ADDRSTRLEN] = "?", l4[32], vlan[24] = "";
	const char *open = "", *close = "";
	const __u8 *l4p = NULL;
	__u16 proto = 0;
	__u8 ipproto = 0;
	int tags = 0;

	while (off + 2 <= len) {
		proto = f[off] << 8 | f[off + 1];
		off += 2;
		if ((proto != ETH_P_8021Q && proto != ETH_P_8021AD) || off + 2 > len)
			break;
		if (!tags++)
			snprintf(vlan, sizeof(vlan), "vlan %u ",
				 (f[off] << 8 | f[off + 1]) & 0xfff);
		off += 2;
	}
	if (proto == ETH_P_IP && off + 20 <= len) {
		inet_ntop(AF_INET, f + off + 12, src, sizeof(src));
		inet_ntop(AF_INET, f + off + 16, dst, sizeof(dst));
		ipproto = f[off + 9];
		l4p = f + off + (f[off] & 0xf) * 4;
	} else if (proto == ETH_P_IPV6 && off + 40 <= len) {
		inet_ntop(AF_INET6, f + off + 8, src, sizeof(src));
		inet_ntop(AF_INET6, f + off + 24, dst, sizeof(dst));
		ipproto = f[off + 6];
		l4p = f + off + 40;
	}
	if (!l4p) {
		snprintf(buf, size, "%s%s len %zu", vlan, proto == ETH_P_ARP ? "ARP" :
			 proto ? "ethertype" : "runt", len);
		if (proto && proto != ETH_P_ARP)
			snprintf(buf + strlen(buf), size - strlen(buf), " 0x%04x", proto);
		return;
	}
	if (l4p > f + len)
		l4p = f + len;
	if (proto == ETH_P_IPV6) {
		open = "[";
		close = "]";
	}
	l4_text(ipproto, l4p, f + len - l4p, l4, sizeof(l4));
	/* An IPv6 address before its port in brackets, as in a URL: [fd00::1]:80. */
	if (has_ports(ipproto) && l4p + 4 <= f + len)
		snprintf(buf, size, "%s%s %s%s%s:%u > %s%s%s:%u len %zu", vlan, l4, open, src,
			 close, l4p[0] << 8 | l4p[1], open, dst, close, l4p[2] << 8 | l4p[3],
			 len);
	else
		snprintf(buf, size, "%s%s %s > %s len %zu", vlan, l4, src, dst, len);
}

/* A VLAN tag's bytes, which the kernel's uapi headers do not name. */
#define VLAN_HLEN 4

/* Whether frame @f of @len bytes carries a VLAN tag (802.1Q or 802.1ad) after its MACs. */
static bool vlan_tagged(const __u8 *f, __u32 len)
{
	__u16 proto = len >= ETH_HLEN ? f[2 * ETH_ALEN] << 8 | f[2 * ETH_ALEN + 1] : 0;

	return proto == ETH_P_8021Q || proto == ETH_P_8021AD;
}

int cost_capture_write(const struct cost_capture *cap, const char *path, __u32 max_len,
		       struct cost_capture_unsent *unsent)
{
	pcap_t *p = pcap_open_dead(DLT_EN10MB, COST_CAPTURE_MAX_LEN);
	pcap_dumper_t *d = p ? pcap_dump_open(p, path) : NULL;
	int ret = 0;

	memset(unsent, 0, sizeof(*unsent));
	if (!d) {
		ret = p ? -EIO : -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < cap->nr_frames; i++) {
		__u32 len = cap->frames[i].len;
		struct pcap_pkthdr hdr = { .caplen = len, .len = len };

		if (len > max_len + (vlan_tagged(cost_capture_data(cap, i), len) ? VLAN_HLEN : 0)) {
			if (!unsent->count++)
				unsent->first = cap->frames[i].index;
			continue;
		}
		pcap_dump((u_char *)d, &hdr, cost_capture_data(cap, i));
	}
	if (pcap_dump_flush(d))
		ret = -EIO;
	pcap_dump_close(d);
out:
	if (p)
		pcap_close(p);
	return ret;
}

void cost_capture_free(struct cost_capture *cap)
{
	free(cap->data);
	free(cap->frames);
	cap->data = NULL;
	cap->frames = NULL;
	cap->nr_frames = 0;
}
