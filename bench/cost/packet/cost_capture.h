/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The cost tool's other workload beside the synthetic frame shapes
 * (cost_corpus.h): a capture of real traffic (pcap or pcapng, read with
 * libpcap), whose frames run in the capture's order, each once per round, so
 * that a program that keeps state sees it grow as it would in production.
 *
 * A frame the program could never see as captured is counted by why and
 * left out, never dropped unsaid: one of a link type other than Ethernet (a
 * Linux cooked capture from tcpdump -i any has no Ethernet header), one cut
 * short by the capture's snap length, and one longer than BPF_PROG_TEST_RUN
 * hands a program (COST_CAPTURE_MAX_LEN: a GRO'd frame captured on a real
 * interface).
 */
#ifndef FBF_COST_CAPTURE_H
#define FBF_COST_CAPTURE_H

#include <stddef.h>
#include <linux/types.h>

#include "cost_corpus.h"

/* The longest frame test_run takes on 4 kB pages, the corpus's jumbo frame's bound. */
#define COST_CAPTURE_MAX_LEN COST_JUMBO_LEN
/* The one-line summary of a frame: protocol, addresses, ports, length. */
#define COST_SUMMARY_LEN 128

enum cost_capture_skip {
	COST_SKIP_LINK,		/* not Ethernet: the program sees no such frame */
	COST_SKIP_SNAPPED,	/* captured shorter than it was on the wire */
	COST_SKIP_TOO_LONG,	/* longer than test_run hands a program */
	COST_SKIP_NR,
};

struct cost_capture_frame {
	size_t offset;		/* into the capture's data */
	__u32 len;
	__u32 index;		/* its place in the capture, from 1, as Wireshark numbers it */
};

struct cost_capture {
	const char *path;
	__u8 *data;
	struct cost_capture_frame *frames;
	size_t nr_frames;	/* the frames that run */
	size_t nr_read;		/* every frame in the file */
	size_t skipped[COST_SKIP_NR];
	__u32 first_skipped[COST_SKIP_NR];	/* the first such frame's index */
	int first_link[COST_SKIP_NR];		/* COST_SKIP_LINK: the first link type met */
};

/*
 * Read every frame of the capture at @path into @cap: 0, or one line on
 * stderr and the cost_exit status that says what is wrong with the file (not
 * a capture, cut short, empty, or no frame of it a program can see).
 */
int cost_capture_load(struct cost_capture *cap, const char *path);

static inline const __u8 *cost_capture_data(const struct cost_capture *cap, size_t i)
{
	return cap->data + cap->frames[i].offset;
}

/* What was left out and why, as "#skipped<TAB>WHY<TAB>COUNT<TAB>FIRST" lines on stdout. */
void cost_capture_print_skipped(const struct cost_capture *cap);

/* One line on frame @i: "TCP 10.0.0.1:80 > 10.0.0.2:5555 len 66" and the like. */
void cost_capture_summary(const struct cost_capture *cap, size_t i, char *buf, size_t size);

/* What cost_capture_write() left out: frames too long for the link it is for. */
struct cost_capture_unsent {
	size_t count;
	__u32 first;		/* the first such frame's index in the capture */
};

/*
 * The frames that run, in order, as a pcap file at @path, but those longer than
 * @max_len, or @max_len and a VLAN tag's 4 bytes for a tagged frame (the live
 * part floods it, and a veth sends no frame past its MTU, an AF_PACKET socket
 * a tagged one 4 bytes past it): 0 or -errno; what was left out into @unsent.
 */
int cost_capture_write(const struct cost_capture *cap, const char *path, __u32 max_len,
		       struct cost_capture_unsent *unsent);

void cost_capture_free(struct cost_capture *cap);

#endif /* FBF_COST_CAPTURE_H */
