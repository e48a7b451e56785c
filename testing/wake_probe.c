// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wake_probe IFACE EVENTS_FILE COUNT MIN_GAP_US MAX_GAP_US SEED [HANG_S]:
 * send COUNT single IPv4 frames over an AF_PACKET socket on IFACE, each from
 * its own Fibonacci source address, and wait for each in EVENTS_FILE, the
 * --json output of an agent on the other end, before sending the next after
 * a gap drawn between MIN_GAP_US and MAX_GAP_US (log-uniform, and one in ten
 * back-to-back, unless the two are equal). An event that has not arrived
 * HANG_S seconds (default 30) after its frame is a lost wake-up: exit 1.
 * Otherwise prints how many events, how many came after a gap longer than
 * the agent's quiet spell, and their age_ns (classification to the agent's
 * read) at p50, p99 and the maximum. Only ever run on a test veth pair.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <sys/socket.h>

#include "frames.h"
#include "userspace_util.h"

/*
 * The agent's quiet spell is shorter than this (agent/loop/drain.h): gaps
 * past it wake a sleeper.
 */
#define QUIET_SPELL_US 2000
#define LINE_MAX_LEN 512

static void sleep_us(double us)
{
	struct timespec ts = { .tv_sec = us / 1e6, .tv_nsec = fmod(us, 1e6) * 1e3 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* The next gap: log-uniform over [min, max], back-to-back one time in ten. */
static double next_gap_us(double min, double max)
{
	if (min == max)
		return min;
	if (rand() % 10 == 0)
		return 0;
	if (min < 1)
		min = 1;
	return exp(log(min) + (log(max) - log(min)) * (rand() / (double)RAND_MAX));
}

/* The agent's next whole line from @f, waiting for it until @deadline_ns; 0 or -ETIMEDOUT. */
static int next_line(FILE *f, char *line, __u64 deadline_ns)
{
	size_t len = 0;

	for (;;) {
		if (fgets(line + len, LINE_MAX_LEN - len, f)) {
			len = strlen(line);
			if (len && line[len - 1] == '\n')
				return 0;
			continue; /* part of a line: the agent is writing the rest */
		}
		clearerr(f);
		if (fbf_monotonic_ns() > deadline_ns)
			return -ETIMEDOUT;
		sleep_us(20);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct sockaddr_ll to = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_IP) };
	unsigned char frame[FRAME_MAX_LEN];
	char line[LINE_MAX_LEN], want[64], *age;
	unsigned long count, i, after_quiet = 0;
	double min_gap, max_gap, gap, hang_s;
	__u64 *ages, deadline;
	size_t len;
	FILE *events;
	int fd;

	if (argc < 7 || argc > 8) {
		fprintf(stderr, "usage: wake_probe IFACE EVENTS_FILE COUNT MIN_GAP_US MAX_GAP_US "
			"SEED [HANG_S]\n");
		return 2;
	}
	count = strtoul(argv[3], NULL, 0);
	min_gap = strtod(argv[4], NULL);
	max_gap = strtod(argv[5], NULL);
	srand(strtoul(argv[6], NULL, 0));
	hang_s = argc == 8 ? strtod(argv[7], NULL) : 30;
	to.sll_ifindex = if_nametoindex(argv[1]);
	events = fopen(argv[2], "r");
	ages = calloc(count ? count : 1, sizeof(*ages));
	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (!to.sll_ifindex || !events || !ages || fd < 0 || count > 65536 || min_gap > max_gap) {
		fprintf(stderr, "wake_probe: %s, %s: %s (COUNT at most 65536, MIN_GAP_US <= "
			"MAX_GAP_US)\n", argv[1], argv[2], strerror(errno));
		return 2;
	}
	fseek(events, 0, SEEK_END);

	for (i = 0; i < count; i++) {
		/* 10.x.y.1: its own address, and the 1 makes it Fibonacci. */
		__u32 saddr = IPV4_ADDR(10, i >> 8, i & 0xff, 1);
		struct frame_ipv4 ip = FRAME_IPV4(saddr);

		gap = next_gap_us(min_gap, max_gap);
		after_quiet += gap > QUIET_SPELL_US;
		sleep_us(gap);
		len = frame_build_ipv4(frame, sizeof(frame), NULL, &ip);
		if (sendto(fd, frame, len, 0, (struct sockaddr *)&to, sizeof(to)) != (ssize_t)len) {
			fprintf(stderr, "wake_probe: sending frame %lu: %s\n", i, strerror(errno));
			return 2;
		}
		snprintf(want, sizeof(want), "{\"saddr\":\"10.%lu.%lu.1\",", i >> 8, i & 0xff);
		deadline = fbf_monotonic_ns() + hang_s * 1e9;
		do {
			if (next_line(events, line, deadline)) {
				fprintf(stderr, "wake_probe: event %lu (10.%lu.%lu.1) not printed "
					"%.0f s after its frame, %.0f us after the one before: "
					"a lost wake-up\n", i, i >> 8, i & 0xff, hang_s, gap);
				return 1;
			}
		} while (strncmp(line, want, strlen(want)));
		age = strstr(line, "\"age_ns\":");
		ages[i] = age ? strtoull(age + strlen("\"age_ns\":"), NULL, 10) : 0;
	}

	qsort(ages, count, sizeof(*ages), cmp_u64);
	printf("events %lu after_quiet_spell %lu age_p50_ns %llu age_p99_ns %llu age_max_ns %llu\n",
	       count, after_quiet, count ? ages[count / 2] : 0ULL,
	       count ? ages[count * 99 / 100] : 0ULL, count ? ages[count - 1] : 0ULL);
	return 0;
}
