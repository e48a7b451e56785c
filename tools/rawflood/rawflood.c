// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rawflood IFACE SECONDS SADDR_FIRST SADDR_COUNT DADDR [FRAMES]: send IPv4
 * frames from SADDR_COUNT consecutive source addresses, in turn, to DADDR
 * over an AF_PACKET socket on IFACE, as fast as one core can, for SECONDS or
 * until FRAMES are sent (then FRAMES / SADDR_COUNT from each source, the
 * remainder from the first ones: what the NIC checks count on). The
 * destination MAC is nobody's, so the receiving stack drops the frames right after XDP has seen
 * them: no replies, and the receiver's CPU goes to the XDP program. Prints
 * the frames sent on stdout. For the flood test in tests/stress/stress.sh and
 * the NIC checks (testing/vm/vm-nics); only ever run on a veth pair in a test
 * namespace or on a tap device a test made.
 *
 * FBF_RAWFLOOD_EGRESS=1: through the stack's egress path instead (the qdisc,
 * TC egress) for a TC egress program to see the frames; a frame that path
 * refuses (a program's TC_ACT_SHOT: ENOBUFS) counts as sent, and is told on
 * stderr.
 */
#define _GNU_SOURCE /* sendmmsg */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/ip.h>
#include <sys/socket.h>

#include "userspace_util.h"

#define BATCH 64
#define FRAME_LEN 60	/* the Ethernet minimum: the cheapest frame to send */
/* RFC 3692 "use for experimentation": no transport header follows. */
#define IP_PROTO_TEST 253

static void build_frame(unsigned char *f, __u32 saddr, __u32 daddr)
{
	static const unsigned char dst[ETH_ALEN] = { 0x02, 0xde, 0xad, 0x00, 0x00, 0x01 };
	static const unsigned char src[ETH_ALEN] = { 0x02, 0xde, 0xad, 0x00, 0x00, 0x02 };
	struct iphdr ip = {
		.version = 4,
		.ihl = 5,
		.tot_len = htons(FRAME_LEN - ETH_HLEN),
		.ttl = 1,
		.protocol = IP_PROTO_TEST,
		.saddr = htonl(saddr),
		.daddr = htonl(daddr),
	};
	__u16 proto = htons(ETH_P_IP);

	memset(f, 0, FRAME_LEN);
	memcpy(f, dst, ETH_ALEN);
	memcpy(f + ETH_ALEN, src, ETH_ALEN);
	memcpy(f + 2 * ETH_ALEN, &proto, sizeof(proto));
	memcpy(f + ETH_HLEN, &ip, sizeof(ip));
}

int main(int argc, char **argv)
{
	static unsigned char batch[BATCH][FRAME_LEN];
	struct mmsghdr msgs[BATCH] = {};
	struct iovec iov[BATCH];
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_halen = ETH_ALEN };
	unsigned long long sent = 0, refused = 0;
	const char *egress_env = getenv("FBF_RAWFLOOD_EGRESS");
	bool egress = egress_env && !strcmp(egress_env, "1");
	struct in_addr first, daddr;
	double seconds, start, end, elapsed;
	unsigned long long frames = 0;
	unsigned long count;
	int fd, one = 1, i, n;

	if (argc == 7)
		frames = strtoull(argv[6], NULL, 10);
	if (argc < 6 || argc > 7 || (argc == 7 && !frames) ||
	    !(sll.sll_ifindex = if_nametoindex(argv[1])) ||
	    (seconds = atof(argv[2])) <= 0 || inet_pton(AF_INET, argv[3], &first) != 1 ||
	    !(count = strtoul(argv[4], NULL, 10)) || inet_pton(AF_INET, argv[5], &daddr) != 1) {
		fprintf(stderr, "usage: rawflood IFACE SECONDS SADDR_FIRST SADDR_COUNT DADDR "
			"[FRAMES]\n");
		return 2;
	}
	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0) {
		fprintf(stderr, "rawflood: AF_PACKET socket: %s; run as root\n", strerror(errno));
		return 1;
	}
	/* Straight to the driver: the qdisc would only add a lock and drops. */
	if (!egress)
		setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));

	for (i = 0; i < BATCH; i++) {
		iov[i] = (struct iovec){ .iov_base = batch[i], .iov_len = FRAME_LEN };
		msgs[i].msg_hdr = (struct msghdr){
			.msg_name = &sll,
			.msg_namelen = sizeof(sll),
			.msg_iov = &iov[i],
			.msg_iovlen = 1,
		};
	}

	start = fbf_monotonic_s();
	end = start + seconds;
	while (fbf_monotonic_s() < end && (!frames || sent < frames)) {
		/* From the first frame not sent, so that the sources take turns exactly. */
		for (i = 0; i < BATCH; i++)
			build_frame(batch[i], ntohl(first.s_addr) + (sent + i) % count,
				    ntohl(daddr.s_addr));
		n = sendmmsg(fd, msgs, frames && frames - sent < BATCH ? frames - sent : BATCH, 0);
		if (n < 0) {
			/* The batch's first frame refused on the way out: on to the next. */
			if (egress && errno == ENOBUFS) {
				sent++;
				refused++;
				continue;
			}
			if (errno == ENOBUFS || errno == EAGAIN || errno == EINTR)
				continue;
			fprintf(stderr, "rawflood: sendmmsg: %s\n", strerror(errno));
			return 1;
		}
		sent += n;
	}
	printf("%llu\n", sent);
	elapsed = fbf_monotonic_s() - start;
	fprintf(stderr, "rawflood: %llu frames in %.1f s: %.0f frames/s\n", sent, elapsed,
		sent / elapsed);
	if (egress)
		fprintf(stderr, "rawflood: %llu refused on the way out\n", refused);
	close(fd);
	return 0;
}
