// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A capture's frames out of a veth, looping: see cost_flood.h. */
#define _GNU_SOURCE /* sendmmsg */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <sys/socket.h>

#include "cost_flood.h"
#include "userspace_util.h"

/* Frames a sendmmsg call takes: as rawflood's batch, one call's cost shared by many. */
#define BATCH 64

/*
 * The error a short sendmmsg kept on socket @fd, cleared: true for a refusal
 * (ENOBUFS), which is counted, else false, with any other error in *@err.
 */
static bool kept_refusal(int fd, int *err, unsigned long long *refused)
{
	int kept = 0;
	socklen_t len = sizeof(kept);

	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &kept, &len))
		kept = errno;
	if (kept == ENOBUFS) {
		(*refused)++;
		return true;
	}
	if (kept && kept != EAGAIN && kept != EINTR)
		*err = -kept;
	return false;
}

int cost_flood(const struct cost_capture *cap, unsigned int ifindex, double seconds,
	       struct cost_flood_counts *counts)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_ifindex = ifindex,
				   .sll_halen = ETH_ALEN };
	struct mmsghdr msgs[BATCH] = {};
	struct iovec iov[BATCH];
	size_t next = 0;
	double start, end;
	int fd, err = 0;

	memset(counts, 0, sizeof(*counts));
	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0)
		return -errno;
	start = fbf_monotonic_s();
	end = start + seconds;
	while (!err && fbf_monotonic_s() < end) {
		int n;

		/* The next BATCH frames of the capture, from where the last call stopped. */
		for (int i = 0; i < BATCH; i++) {
			size_t f = (next + i) % cap->nr_frames;

			iov[i] = (struct iovec){ .iov_base = (void *)cost_capture_data(cap, f),
						 .iov_len = cap->frames[f].len };
			msgs[i].msg_hdr = (struct msghdr){ .msg_name = &sll,
							   .msg_namelen = sizeof(sll),
							   .msg_iov = &iov[i], .msg_iovlen = 1 };
		}
		n = sendmmsg(fd, msgs, BATCH, 0);
		/*
		 * A frame refused after others of the batch went: the call says how
		 * many went, and keeps the refusal for the socket's next send, which
		 * would fail with it before sending anything: read (and clear) it here.
		 */
		if (n > 0 && n < BATCH && kept_refusal(fd, &err, &counts->refused))
			n++;
		if (n < 0 && errno == ENOBUFS) {
			/* The batch's first frame refused on the way out: on to the next. */
			counts->refused++;
			n = 1;
		} else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			continue;
		} else if (n < 0) {
			err = -errno;
		}
		if (err)
			break;
		counts->sent += n;
		next = (next + n) % cap->nr_frames;
	}
	counts->seconds = fbf_monotonic_s() - start;
	close(fd);
	return err;
}
