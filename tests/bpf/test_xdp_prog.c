// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The XDP program under BPF_PROG_TEST_RUN: one frame per test, then the
 * return value, the frame as the program left it, the whole queue and every
 * counter; each CPU's own event map; then 1-in-N sampling (--sample),
 * counted exactly per CPU. Every test runs on both transports, the queue maps
 * and the ring buffers. Needs the privileges to load BPF programs; without
 * them, every test is skipped.
 */
#define _GNU_SOURCE /* sched_getcpu, sched_setaffinity */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <cmocka.h>

#include "bpf_fixture.h"
#include "fizzbuzzfib.h"
#include "frames.h"
#include "program_loaded.h"
#include "ref_parser.h"
#include "ring_reader.h"
#include "transport_groups.h"
#include "userspace_util.h"

/*
 * The small queue for the queue-full tests, and how many pushes go past its
 * end. A ring for as many events is one page, which holds more (capacity).
 */
#define SMALL_QUEUE_SIZE 8
#define OVERFLOW 5

/*
 * 192.0.2.16 + 3840 * i is FizzBuzz for every i a full ring needs: 3840 is a
 * multiple of 15, and of 256, so the last octet stays 16, not Fibonacci.
 */
#define FIZZBUZZ_BASE IPV4_ADDR(192, 0, 2, 16)
#define FIZZBUZZ_STEP (15 * 256)

/* The sampled programs send 1 event in SAMPLE (--sample 16). */
#define SAMPLE 16

struct suite {
	struct bpf_fixture fx;		/* the default queue size */
	struct bpf_fixture small;	/* SMALL_QUEUE_SIZE events, small.capacity in a ring */
	struct bpf_fixture sampled;	/* 1 event in SAMPLE, the default queue size */
	struct bpf_fixture sampled_small; /* 1 event in SAMPLE, SMALL_QUEUE_SIZE events */
	int load_err;
};

/* The transport the group being run tests. */
static enum fbf_transport suite_transport;

static const struct frame_l2 vlan_8021q = { .nr_tags = 1, .tpid = { ETH_P_8021Q } };
static const struct frame_l2 vlan_8021ad_8021q = {
	.nr_tags = 2,
	.tpid = { ETH_P_8021AD, ETH_P_8021Q },
};
static const struct frame_l2 vlan_three_tags = {
	.nr_tags = 3,
	.tpid = { ETH_P_8021AD, ETH_P_8021Q, ETH_P_8021Q },
};

/* Skip when BPF cannot be used here; fail when the program itself does not load. */
static struct suite *require_program(void **state)
{
	struct suite *s = *state;

	require_program_loaded(s->load_err);
	return s;
}

static void run_frames(struct bpf_fixture *fx, const void *frame, size_t len, int repeat)
{
	__u8 out[FRAME_MAX_LEN];
	__u32 out_len = sizeof(out);
	__u32 retval = ~0U;
	int err;

	assert_true(len > 0);
	err = bpf_fixture_run(fx, frame, len, repeat, out, &out_len, &retval);
	if (err)
		fail_msg("BPF_PROG_TEST_RUN: %s", strerror(-err));
	assert_int_equal(retval, XDP_PASS);
	/* The program only observes: the frame comes out as it went in. */
	assert_int_equal(out_len, len);
	assert_memory_equal(out, frame, len);
}

static void run_frame(struct bpf_fixture *fx, const void *frame, size_t len)
{
	run_frames(fx, frame, len, 1);
}

/*
 * Pop the oldest event: it must be @saddr, @class, and unstamped (0) or
 * stamped within [@not_before, @not_after]. Its time, 0 if none.
 */
static __u64 pop_checked(struct bpf_fixture *fx, __u32 saddr, enum fbf_class class,
			 __u64 not_before, __u64 not_after)
{
	struct fbf_event event;
	int err;

	err = bpf_fixture_pop(fx, &event);
	if (err)
		fail_msg("popping an event: %s", strerror(-err));
	assert_int_equal(event.saddr, saddr);
	assert_int_equal(event.class_id, class);
	if (event.ktime_ns)
		assert_in_range(event.ktime_ns, not_before, not_after);
	return event.ktime_ns;
}

/* The same, and the time the next event's must not precede. */
static __u64 assert_popped(struct bpf_fixture *fx, __u32 saddr, enum fbf_class class,
			   __u64 not_before, __u64 not_after)
{
	return pop_checked(fx, saddr, class, not_before, not_after) ?: not_before;
}

static void assert_queue_empty(struct bpf_fixture *fx)
{
	struct fbf_event event;
	int err;

	err = bpf_fixture_pop(fx, &event);
	if (!err)
		fail_msg("unexpected event in the queue: %u.%u.%u.%u %s", event.saddr >> 24,
			 (event.saddr >> 16) & 0xff, (event.saddr >> 8) & 0xff, event.saddr & 0xff,
			 fbf_class_name(event.class_id));
	assert_int_equal(err, -ENOENT);
}

static void assert_counters(struct bpf_fixture *fx, const struct fbf_counters *want)
{
	struct fbf_counters got;
	char diff[512];
	int err;

	err = bpf_fixture_counters(fx, &got);
	if (err)
		fail_msg("reading the counters: %s", strerror(-err));
	if (fbf_counters_diff(&got, want, diff, sizeof(diff)))
		fail_msg("counters differ: %s", diff);
}

/* One frame that is classified and pushed: exactly one event, one packet, one class. */
static void check_pushed(void **state, const void *frame, size_t len, __u32 saddr,
			 enum fbf_class class)
{
	struct suite *s = require_program(state);
	struct fbf_counters want = { .packets = 1 };
	__u64 before, after;

	want.by_class[class] = 1;
	before = fbf_monotonic_ns();
	run_frame(&s->fx, frame, len);
	after = fbf_monotonic_ns();
	/* The first event on a CPU is stamped. */
	assert_true(pop_checked(&s->fx, saddr, class, before, after) != 0);
	assert_queue_empty(&s->fx);
	assert_counters(&s->fx, &want);
}

/* One frame that pushes nothing and is counted as @want says. */
static void check_not_pushed(void **state, const void *frame, size_t len,
			     const struct fbf_counters *want)
{
	struct suite *s = require_program(state);

	run_frame(&s->fx, frame, len);
	assert_queue_empty(&s->fx);
	assert_counters(&s->fx, want);
}

static void check_ipv4_pushed(void **state, const struct frame_l2 *l2, __u32 saddr,
			      enum fbf_class class)
{
	__u8 frame[FRAME_MAX_LEN];
	size_t len = frame_build_ipv4(frame, sizeof(frame), l2, &FRAME_IPV4(saddr));

	check_pushed(state, frame, len, saddr, class);
}

static void test_ipv4_fizz_is_queued(void **state)
{
	check_ipv4_pushed(state, NULL, IPV4_ADDR(192, 0, 2, 4), FBF_FIZZ);
}

static void test_ipv4_buzz_is_queued(void **state)
{
	check_ipv4_pushed(state, NULL, IPV4_ADDR(192, 0, 2, 6), FBF_BUZZ);
}

static void test_ipv4_fizzbuzz_is_queued(void **state)
{
	check_ipv4_pushed(state, NULL, IPV4_ADDR(192, 0, 2, 16), FBF_FIZZBUZZ);
}

static void test_ipv4_fibonacci_is_queued(void **state)
{
	check_ipv4_pushed(state, NULL, IPV4_ADDR(10, 0, 0, 233), FBF_FIBONACCI);
}

static void test_ipv4_none_is_counted_not_queued(void **state)
{
	__u8 frame[FRAME_MAX_LEN];
	size_t len = frame_build_ipv4(frame, sizeof(frame), NULL,
				      &FRAME_IPV4(IPV4_ADDR(10, 1, 2, 4)));
	struct fbf_counters want = { .packets = 1, .by_class[FBF_NONE] = 1 };

	check_not_pushed(state, frame, len, &want);
}

static void test_vlan_8021q_ipv4_is_queued(void **state)
{
	check_ipv4_pushed(state, &vlan_8021q, IPV4_ADDR(192, 0, 2, 7), FBF_FIZZ);
}

static void test_double_vlan_8021ad_8021q_ipv4_is_queued(void **state)
{
	check_ipv4_pushed(state, &vlan_8021ad_8021q, IPV4_ADDR(192, 0, 2, 11), FBF_BUZZ);
}

/* The parser stops after two tags; the Fizz address inside is never read. */
static void test_three_vlan_tags_are_non_ipv4(void **state)
{
	__u8 frame[FRAME_MAX_LEN];
	size_t len = frame_build_ipv4(frame, sizeof(frame), &vlan_three_tags,
				      &FRAME_IPV4(IPV4_ADDR(192, 0, 2, 4)));
	struct fbf_counters want = { .packets = 1, .non_ipv4 = 1 };

	check_not_pushed(state, frame, len, &want);
}

static void test_ipv6_is_non_ipv4(void **state)
{
	__u8 frame[FRAME_MAX_LEN];
	size_t len = frame_build_ipv6(frame, sizeof(frame), NULL);
	struct fbf_counters want = { .packets = 1, .non_ipv4 = 1 };

	check_not_pushed(state, frame, len, &want);
}

static void test_arp_is_non_ipv4(void **state)
{
	__u8 frame[FRAME_MAX_LEN];
	size_t len = frame_build_arp(frame, sizeof(frame), NULL);
	struct fbf_counters want = { .packets = 1, .non_ipv4 = 1 };

	check_not_pushed(state, frame, len, &want);
}

/* 14 bytes is the shortest frame BPF_PROG_TEST_RUN accepts for XDP. */
static void test_ethernet_only_with_ipv4_ethertype_is_malformed(void **state)
{
	__u8 frame[FRAME_MAX_LEN];
	size_t len = frame_build_eth(frame, sizeof(frame), NULL, ETH_P_IP);
	struct fbf_counters want = { .packets = 1, .malformed = 1 };

	assert_int_equal(len, FRAME_ETH_HLEN);
	check_not_pushed(state, frame, len, &want);
}

/* An IPv4 frame behind @l2 cut to its first @cut bytes: malformed, nothing pushed. */
static void check_cut_short(void **state, const struct frame_l2 *l2, size_t cut)
{
	__u8 frame[FRAME_MAX_LEN];
	size_t len = frame_build_ipv4(frame, sizeof(frame), l2,
				      &FRAME_IPV4(IPV4_ADDR(192, 0, 2, 4)));
	struct fbf_counters want = { .packets = 1, .malformed = 1 };

	assert_true(len > cut);
	check_not_pushed(state, frame, cut, &want);
}

static void test_truncated_ipv4_header_is_malformed(void **state)
{
	check_cut_short(state, NULL, FRAME_ETH_HLEN + FRAME_IPV4_HLEN - 1);
}

static void test_truncated_vlan_tag_is_malformed(void **state)
{
	check_cut_short(state, &vlan_8021q, FRAME_ETH_HLEN + FRAME_VLAN_HLEN / 2);
}

static void test_truncated_inner_vlan_tag_is_malformed(void **state)
{
	check_cut_short(state, &vlan_8021ad_8021q,
			FRAME_ETH_HLEN + FRAME_VLAN_HLEN + FRAME_VLAN_HLEN / 2);
}

/* Run an IPv4 frame that must count as malformed, on top of the counts in *want. */
static void assert_ipv4_malformed(struct bpf_fixture *fx, const struct frame_ipv4 *ip,
				  struct fbf_counters *want)
{
	__u8 frame[FRAME_MAX_LEN];
	size_t len = frame_build_ipv4(frame, sizeof(frame), NULL, ip);

	run_frame(fx, frame, len);
	want->packets++;
	want->malformed++;
	assert_queue_empty(fx);
	assert_counters(fx, want);
}

/* Each IHL from 0 to 4 in a frame long enough for a full header: still malformed. */
static void test_ihl_below_5_is_malformed(void **state)
{
	struct suite *s = require_program(state);
	struct fbf_counters want = {};
	__u8 ihl;

	for (ihl = 0; ihl < 5; ihl++) {
		struct frame_ipv4 ip = FRAME_IPV4(IPV4_ADDR(192, 0, 2, 4));

		ip.ihl = ihl;
		assert_ipv4_malformed(&s->fx, &ip, &want);
	}
}

/* An IPv4 ethertype with another version in the header, IPv6's among them. */
static void test_ip_version_not_4_is_malformed(void **state)
{
	static const __u8 versions[] = { 0, 5, 6, 15 };
	struct suite *s = require_program(state);
	struct fbf_counters want = {};
	size_t i;

	for (i = 0; i < sizeof(versions); i++) {
		struct frame_ipv4 ip = FRAME_IPV4(IPV4_ADDR(192, 0, 2, 4));

		ip.version = versions[i];
		assert_ipv4_malformed(&s->fx, &ip, &want);
	}
}

static void test_ipv4_options_cut_off_are_malformed(void **state)
{
	struct frame_ipv4 ip = { .version = 4, .ihl = 6, .options_len = 4,
				 .saddr = IPV4_ADDR(192, 0, 2, 4) };
	struct fbf_counters want = { .packets = 1, .malformed = 1 };
	__u8 frame[FRAME_MAX_LEN];
	size_t len = frame_build_ipv4(frame, sizeof(frame), NULL, &ip);

	assert_true(len > 0);
	/* The fixed header is complete, half of the options are not there. */
	check_not_pushed(state, frame, FRAME_ETH_HLEN + FRAME_IPV4_HLEN + 2, &want);
}

static void test_ipv4_options_complete_are_queued(void **state)
{
	struct frame_ipv4 ip = { .version = 4, .ihl = 6, .options_len = 4,
				 .saddr = IPV4_ADDR(192, 0, 2, 4) };
	__u8 frame[FRAME_MAX_LEN];
	size_t len = frame_build_ipv4(frame, sizeof(frame), NULL, &ip);

	check_pushed(state, frame, len, ip.saddr, FBF_FIZZ);
}

/* The longest header IPv4 allows: 40 bytes of options. */
static void test_ipv4_ihl_15_is_queued(void **state)
{
	struct frame_ipv4 ip = { .version = 4, .ihl = 15, .options_len = 40,
				 .saddr = IPV4_ADDR(192, 0, 2, 6) };
	__u8 frame[FRAME_MAX_LEN];
	size_t len = frame_build_ipv4(frame, sizeof(frame), &vlan_8021ad_8021q, &ip);

	check_pushed(state, frame, len, ip.saddr, FBF_BUZZ);
}

static __u32 fizzbuzz_addr(unsigned int i)
{
	return FIZZBUZZ_BASE + FIZZBUZZ_STEP * i;
}

static void run_fizzbuzz_frame(struct bpf_fixture *fx, unsigned int i)
{
	__u8 frame[FRAME_MAX_LEN];
	size_t len = frame_build_ipv4(frame, sizeof(frame), NULL, &FRAME_IPV4(fizzbuzz_addr(i)));

	run_frame(fx, frame, len);
}

/*
 * Five runs more than the queue (or ring) holds, all of one address in one
 * BPF_PROG_TEST_RUN (@distinct false) or each of a new address: five pushes
 * fail and each is counted; the ones that fit stay in it, oldest first.
 */
static void check_overflow(void **state, bool distinct)
{
	struct suite *s = require_program(state);
	__u32 full = s->small.capacity, i;
	struct fbf_counters want = {
		.packets = full + OVERFLOW,
		.by_class[FBF_FIZZBUZZ] = full + OVERFLOW,
		.queue_full = OVERFLOW,
	};
	__u8 frame[FRAME_MAX_LEN];
	__u64 before, after, prev;
	size_t len;

	before = fbf_monotonic_ns();
	if (distinct) {
		for (i = 0; i < full + OVERFLOW; i++)
			run_fizzbuzz_frame(&s->small, i);
	} else {
		len = frame_build_ipv4(frame, sizeof(frame), NULL,
				       &FRAME_IPV4(fizzbuzz_addr(0)));
		run_frames(&s->small, frame, len, full + OVERFLOW);
	}
	after = fbf_monotonic_ns();

	assert_counters(&s->small, &want);
	prev = before;
	for (i = 0; i < full; i++)
		prev = assert_popped(&s->small, fizzbuzz_addr(distinct ? i : 0), FBF_FIZZBUZZ,
				     prev, after);
	assert_queue_empty(&s->small);
}

static void test_full_queue_counts_each_lost_event(void **state)
{
	check_overflow(state, false);
}

/* Push flag 0: a full queue keeps its oldest events and loses the new ones. */
static void test_full_queue_keeps_oldest_events_in_order(void **state)
{
	check_overflow(state, true);
}

/* Popping one event from a full queue makes room for exactly the next push. */
static void test_full_queue_accepts_push_after_pop(void **state)
{
	struct suite *s = require_program(state);
	__u32 full = s->small.capacity;
	struct fbf_counters want = {
		.packets = full + 2,
		.by_class[FBF_FIZZBUZZ] = full + 2,
		.queue_full = 1,
	};
	__u64 before, after, prev;
	unsigned int i;

	before = fbf_monotonic_ns();
	/* Fill the queue, and one more that is lost. */
	for (i = 0; i <= full; i++)
		run_fizzbuzz_frame(&s->small, i);
	prev = assert_popped(&s->small, fizzbuzz_addr(0), FBF_FIZZBUZZ, before, fbf_monotonic_ns());
	run_fizzbuzz_frame(&s->small, full + 1);
	after = fbf_monotonic_ns();

	assert_counters(&s->small, &want);
	for (i = 1; i < full; i++)
		prev = assert_popped(&s->small, fizzbuzz_addr(i), FBF_FIZZBUZZ, prev, after);
	assert_popped(&s->small, fizzbuzz_addr(full + 1), FBF_FIZZBUZZ, prev, after);
	assert_queue_empty(&s->small);
}

/* ---- one map per CPU ---- */

/*
 * Two CPUs this thread may run on, the first and the last; false if it has
 * one only. Each is tried: the fixture pinned the thread to one, and every
 * online CPU is open to it again.
 */
static bool two_cpus(int *a, int *b)
{
	int cpu, ncpus = libbpf_num_possible_cpus();
	cpu_set_t one;

	*a = *b = -1;
	for (cpu = 0; cpu < ncpus && cpu < CPU_SETSIZE; cpu++) {
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			continue; /* offline, or not in our cpuset */
		if (*a < 0)
			*a = cpu;
		else
			*b = cpu;
	}
	return *b >= 0;
}

/*
 * Two CPUs for a test, in *@a and *@b, and in @old the affinity to restore;
 * on a host with one, the test is skipped, saying @why.
 */
static void require_two_cpus(cpu_set_t *old, int *a, int *b, const char *why)
{
	assert_int_equal(sched_getaffinity(0, sizeof(*old), old), 0);
	if (two_cpus(a, b))
		return;
	assert_int_equal(sched_setaffinity(0, sizeof(*old), old), 0);
	fprintf(stderr, "# SKIP: one CPU here, %s\n", why);
	skip();
}

static void run_on_cpu(struct bpf_fixture *fx, int cpu, const void *frame, size_t len,
		       int repeat)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	run_frames(fx, frame, len, repeat);
}

/* Take an event from CPU @cpu's map alone: 0, or -ENOENT if it has none. */
static int take_from_cpu(struct bpf_fixture *fx, int cpu, struct fbf_event *ev)
{
	struct ring_reader r;
	const void *rec;
	__u32 len;
	int err;

	assert_in_range(cpu, 0, fx->maps.nr - 2); /* the last is the spare */
	if (suite_transport != FBF_TRANSPORT_RINGBUF)
		return bpf_map_lookup_and_delete_elem(fx->maps.fds[cpu], NULL, ev) ? -errno : 0;
	assert_int_equal(ring_reader_open(&r, fx->maps.fds[cpu]), 0);
	rec = ring_reader_next(&r, &len);
	err = rec ? 0 : -ENOENT;
	if (rec) {
		assert_int_equal(len, sizeof(*ev));
		memcpy(ev, rec, sizeof(*ev));
	}
	ring_reader_release(&r);
	ring_reader_close(&r);
	return err;
}

/* CPU @cpu's map holds exactly @n events of @saddr, which are taken. */
static void assert_cpu_holds(struct bpf_fixture *fx, int cpu, __u32 n, __u32 saddr)
{
	struct fbf_event ev;
	__u32 i;

	for (i = 0; i < n; i++) {
		if (take_from_cpu(fx, cpu, &ev))
			fail_msg("CPU %d's map: %u events, want %u", cpu, i, n);
		assert_int_equal(ev.saddr, saddr);
	}
	assert_int_equal(take_from_cpu(fx, cpu, &ev), -ENOENT);
}

/* CPU @cpu's counters of @fx. */
static void cpu_counters(struct bpf_fixture *fx, int cpu, struct fbf_counters *c)
{
	int ncpus = libbpf_num_possible_cpus();
	struct fbf_counters *percpu;
	__u32 key = 0;

	percpu = calloc(ncpus, sizeof(*percpu));
	assert_non_null(percpu);
	assert_int_equal(bpf_map_lookup_elem(fx->counters_fd, &key, percpu), 0);
	*c = percpu[cpu];
	free(percpu);
}

/*
 * A frame on each of two CPUs: each event goes to its own CPU's map, and
 * the fixture's reader, which goes round every map as the agent does, gets
 * both. On one CPU, there is nothing to tell apart: skipped.
 */
static void test_each_cpu_sends_to_its_own_map(void **state)
{
	struct suite *s = require_program(state);
	__u32 fizz = IPV4_ADDR(10, 0, 0, 3), buzz = IPV4_ADDR(10, 0, 0, 10);
	__u8 frame_a[FRAME_MAX_LEN], frame_b[FRAME_MAX_LEN];
	size_t len_a = frame_build_ipv4(frame_a, sizeof(frame_a), NULL, &FRAME_IPV4(fizz));
	size_t len_b = frame_build_ipv4(frame_b, sizeof(frame_b), NULL, &FRAME_IPV4(buzz));
	struct fbf_event ev;
	cpu_set_t old;
	int a, b;

	require_two_cpus(&old, &a, &b, "nothing to tell apart");
	run_on_cpu(&s->fx, a, frame_a, len_a, 1);
	run_on_cpu(&s->fx, b, frame_b, len_b, 1);
	assert_int_equal(sched_setaffinity(0, sizeof(old), &old), 0);
	assert_cpu_holds(&s->fx, a, 1, fizz);
	assert_cpu_holds(&s->fx, b, 1, buzz);

	run_on_cpu(&s->fx, a, frame_a, len_a, 1);
	run_on_cpu(&s->fx, b, frame_b, len_b, 1);
	assert_int_equal(sched_setaffinity(0, sizeof(old), &old), 0);
	assert_int_equal(bpf_fixture_pop(&s->fx, &ev), 0);
	assert_int_equal(ev.saddr, fizz);
	assert_int_equal(bpf_fixture_pop(&s->fx, &ev), 0);
	assert_int_equal(ev.saddr, buzz);
	assert_queue_empty(&s->fx);
}

/*
 * One CPU fills its map and goes past it; another sends one event: the
 * first loses OVERFLOW events, counted in its own counters, and the second
 * loses none, its event in its own map: --queue-size is per CPU.
 */
static void test_a_full_cpu_map_loses_there_only(void **state)
{
	struct suite *s = require_program(state);
	__u32 full = s->small.capacity, addr = fizzbuzz_addr(0);
	__u8 frame[FRAME_MAX_LEN];
	size_t len = frame_build_ipv4(frame, sizeof(frame), NULL, &FRAME_IPV4(addr));
	struct fbf_counters c;
	cpu_set_t old;
	int a, b;

	require_two_cpus(&old, &a, &b, "no other map to stay free");
	run_on_cpu(&s->small, a, frame, len, full + OVERFLOW);
	run_on_cpu(&s->small, b, frame, len, 1);
	assert_int_equal(sched_setaffinity(0, sizeof(old), &old), 0);

	cpu_counters(&s->small, a, &c);
	assert_int_equal(c.packets, full + OVERFLOW);
	assert_int_equal(c.queue_full, OVERFLOW);
	cpu_counters(&s->small, b, &c);
	assert_int_equal(c.packets, 1);
	assert_int_equal(c.queue_full, 0);
	assert_cpu_holds(&s->small, a, full, addr);
	assert_cpu_holds(&s->small, b, 1, addr);
}

/* ---- the event's time ---- */

static void pin_to_this_cpu(cpu_set_t *old);

/*
 * 2 * FBF_STAMP_EVERY + 1 FizzBuzz frames in one BPF_PROG_TEST_RUN, on one CPU:
 * the events 0, 64 and 128 carry their time, in order, and no other does;
 * then, with the reader asleep, the next event carries it too, and the
 * program clears the flag as it rings, so the one after does not.
 */
static void test_one_event_in_64_and_the_first_after_sleep_are_stamped(void **state)
{
	struct suite *s = require_program(state);
	__u32 n = 2 * FBF_STAMP_EVERY + 1, i, addr = fizzbuzz_addr(0);
	__u8 frame[FRAME_MAX_LEN];
	size_t len = frame_build_ipv4(frame, sizeof(frame), NULL, &FRAME_IPV4(addr));
	__u64 before, after, t, prev;
	cpu_set_t old;

	if (!s->fx.obj.reader_asleep)
		assert_int_equal(fbf_object_reader_map(&s->fx.obj), 0);
	pin_to_this_cpu(&old);
	before = prev = fbf_monotonic_ns();
	run_frames(&s->fx, frame, len, n);
	after = fbf_monotonic_ns();
	for (i = 0; i < n; i++) {
		t = pop_checked(&s->fx, addr, FBF_FIZZBUZZ, prev, after);
		if ((i % FBF_STAMP_EVERY == 0) != (t != 0))
			fail_msg("event %u: time %llu", i, (unsigned long long)t);
		prev = t ?: prev;
	}
	assert_queue_empty(&s->fx);

	*s->fx.obj.reader_asleep = 1;
	before = fbf_monotonic_ns();
	run_frame(&s->fx, frame, len);
	run_frame(&s->fx, frame, len);
	after = fbf_monotonic_ns();
	assert_int_equal(sched_setaffinity(0, sizeof(old), &old), 0);
	assert_int_equal(*s->fx.obj.reader_asleep, 0);
	assert_true(pop_checked(&s->fx, addr, FBF_FIZZBUZZ, before, after) != 0);
	assert_int_equal(pop_checked(&s->fx, addr, FBF_FIZZBUZZ, before, after), 0);
	assert_queue_empty(&s->fx);
}

/* ---- 1-in-N sampling ---- */

/* @fx's counters on each CPU: exactly one CPU ran the program, and it has all of them. */
static void assert_one_cpu_has(struct bpf_fixture *fx, const struct fbf_counters *want)
{
	int ncpus = libbpf_num_possible_cpus(), cpu, ran = -1;
	struct fbf_counters *percpu;
	char diff[512];
	__u32 key = 0;

	assert_true(ncpus > 0);
	percpu = calloc(ncpus, sizeof(*percpu));
	assert_non_null(percpu);
	if (bpf_map_lookup_elem(fx->counters_fd, &key, percpu))
		fail_msg("reading the per-CPU counters: %s", strerror(errno));
	for (cpu = 0; cpu < ncpus; cpu++) {
		if (!percpu[cpu].packets)
			continue;
		if (ran >= 0)
			fail_msg("CPUs %d and %d both ran one BPF_PROG_TEST_RUN", ran, cpu);
		ran = cpu;
	}
	assert_true(ran >= 0);
	if (fbf_counters_diff(&percpu[ran], want, diff, sizeof(diff)))
		fail_msg("CPU %d's counters differ: %s", ran, diff);
	free(percpu);
}

/*
 * The countdown is per CPU: pin this thread to the CPU it is on, so that
 * several BPF_PROG_TEST_RUNs all run there; @old keeps what to restore.
 */
static void pin_to_this_cpu(cpu_set_t *old)
{
	int cpu = sched_getcpu();
	cpu_set_t one;

	assert_true(cpu >= 0);
	assert_int_equal(sched_getaffinity(0, sizeof(*old), old), 0);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
}

/* Pop exactly @n events of @saddr, @class, then find the queue empty. */
static void assert_popped_n(struct bpf_fixture *fx, __u32 n, __u32 saddr, enum fbf_class class,
			    __u64 not_before, __u64 not_after)
{
	__u64 prev = not_before;
	__u32 i;

	for (i = 0; i < n; i++)
		prev = assert_popped(fx, saddr, class, prev, not_after);
	assert_queue_empty(fx);
}

/*
 * K * SAMPLE Fizz frames in one BPF_PROG_TEST_RUN, so on one CPU: exactly K
 * events, K * (SAMPLE - 1) not sampled, on that CPU, and the identities exact:
 * produced + not_sampled = the classes, produced = delivered + lost.
 */
static void test_sample_16_sends_exactly_1_in_16(void **state)
{
	struct suite *s = require_program(state);
	__u32 saddr = IPV4_ADDR(192, 0, 2, 4), k = 256;
	struct fbf_counters want = {
		.packets = k * SAMPLE,
		.by_class[FBF_FIZZ] = k * SAMPLE,
		.not_sampled = k * (SAMPLE - 1),
	};
	__u8 frame[FRAME_MAX_LEN];
	size_t len = frame_build_ipv4(frame, sizeof(frame), NULL, &FRAME_IPV4(saddr));
	__u64 before, after;

	assert_true(k <= s->sampled.capacity);
	before = fbf_monotonic_ns();
	run_frames(&s->sampled, frame, len, k * SAMPLE);
	after = fbf_monotonic_ns();

	assert_one_cpu_has(&s->sampled, &want);
	assert_int_equal(fbf_events_produced(&want), k);
	assert_popped_n(&s->sampled, k, saddr, FBF_FIZZ, before, after);
}

/* Whatever the countdown stands at, any K * SAMPLE events in a row on one CPU send K. */
static void test_sample_16_is_exact_from_any_phase(void **state)
{
	struct suite *s = require_program(state);
	__u32 saddr = IPV4_ADDR(10, 0, 0, 233), k = 64, lead = 7;
	struct fbf_counters want = {
		.packets = lead + k * SAMPLE,
		.by_class[FBF_FIBONACCI] = lead + k * SAMPLE,
		/* The lead's first event is sent, its other six are not. */
		.not_sampled = lead - 1 + k * (SAMPLE - 1),
	};
	__u8 frame[FRAME_MAX_LEN];
	size_t len = frame_build_ipv4(frame, sizeof(frame), NULL, &FRAME_IPV4(saddr));
	__u64 before, after;
	cpu_set_t old;

	pin_to_this_cpu(&old);
	before = fbf_monotonic_ns();
	run_frames(&s->sampled, frame, len, lead);
	assert_popped_n(&s->sampled, 1, saddr, FBF_FIBONACCI, before, fbf_monotonic_ns());
	run_frames(&s->sampled, frame, len, k * SAMPLE);
	after = fbf_monotonic_ns();
	sched_setaffinity(0, sizeof(old), &old);
	assert_one_cpu_has(&s->sampled, &want);
	assert_popped_n(&s->sampled, k, saddr, FBF_FIBONACCI, before, after);
}

/* A sampled event that finds the queue full is lost and counted, as any other. */
static void test_sample_16_counts_events_lost_to_a_full_queue(void **state)
{
	struct suite *s = require_program(state);
	__u32 full = s->sampled_small.capacity, k = full + OVERFLOW;
	__u32 saddr = fizzbuzz_addr(0);
	struct fbf_counters want = {
		.packets = k * SAMPLE,
		.by_class[FBF_FIZZBUZZ] = k * SAMPLE,
		.not_sampled = k * (SAMPLE - 1),
		.queue_full = OVERFLOW,
	};
	__u8 frame[FRAME_MAX_LEN];
	size_t len = frame_build_ipv4(frame, sizeof(frame), NULL, &FRAME_IPV4(saddr));
	__u64 before, after;

	before = fbf_monotonic_ns();
	run_frames(&s->sampled_small, frame, len, k * SAMPLE);
	after = fbf_monotonic_ns();
	assert_one_cpu_has(&s->sampled_small, &want);
	/* produced = delivered + lost: the queue holds the rest. */
	assert_int_equal(fbf_events_produced(&want), full + fbf_events_lost(&want));
	assert_popped_n(&s->sampled_small, full, saddr, FBF_FIZZBUZZ, before, after);
}

/*
 * Frames of every outcome, one run each on one CPU, against the reference
 * model: a none, a non-IPv4 or a malformed frame is no candidate and leaves
 * the countdown alone; the events sent are the model's, in order.
 */
static void test_sample_16_matches_the_reference_model(void **state)
{
	static const __u32 addrs[] = {
		IPV4_ADDR(10, 1, 2, 4),		/* none */
		IPV4_ADDR(192, 0, 2, 4),	/* Fizz */
		IPV4_ADDR(192, 0, 2, 6),	/* Buzz */
		0,				/* an ARP frame */
		IPV4_ADDR(192, 0, 2, 16),	/* FizzBuzz */
		IPV4_ADDR(10, 0, 0, 233),	/* Fibonacci */
		IPV4_ADDR(10, 1, 2, 7),		/* none */
	};
	struct suite *s = require_program(state);
	struct ref_sampling smp = { .every = SAMPLE };
	struct fbf_event want_ev[64];
	struct fbf_counters want = {};
	__u32 nr_want = 0, i;
	__u64 before, after;
	cpu_set_t old;

	/* Every run on one CPU, as the model has it. */
	pin_to_this_cpu(&old);
	before = fbf_monotonic_ns();
	for (i = 0; i < 50 * sizeof(addrs) / sizeof(addrs[0]); i++) {
		__u32 saddr = addrs[i % (sizeof(addrs) / sizeof(addrs[0]))];
		__u8 frame[FRAME_MAX_LEN];
		struct ref_verdict v;
		size_t len;

		len = saddr ? frame_build_ipv4(frame, sizeof(frame), NULL, &FRAME_IPV4(saddr)) :
			      frame_build_arp(frame, sizeof(frame), NULL);
		run_frame(&s->sampled, frame, len);
		ref_parse(frame, len, &v);
		if (ref_account(&v, &smp, true, &want)) {
			assert_true(nr_want < sizeof(want_ev) / sizeof(want_ev[0]));
			want_ev[nr_want++] = (struct fbf_event){ .saddr = v.saddr,
								 .class_id = v.class_id };
		}
	}
	after = fbf_monotonic_ns();
	sched_setaffinity(0, sizeof(old), &old);

	assert_true(want.not_sampled > 0 && nr_want > 1);
	assert_one_cpu_has(&s->sampled, &want);
	for (i = 0; i < nr_want; i++)
		before = assert_popped(&s->sampled, want_ev[i].saddr, want_ev[i].class_id, before,
				       after);
	assert_queue_empty(&s->sampled);
}

/* The default, 1 in 1: every event is sent and not_sampled stays 0, as before sampling. */
static void test_sample_1_sends_every_event(void **state)
{
	struct suite *s = require_program(state);
	__u32 saddr = IPV4_ADDR(192, 0, 2, 6), n = SAMPLE * 4;
	struct fbf_counters want = { .packets = n, .by_class[FBF_BUZZ] = n };
	__u8 frame[FRAME_MAX_LEN];
	size_t len = frame_build_ipv4(frame, sizeof(frame), NULL, &FRAME_IPV4(saddr));
	__u64 before, after;

	before = fbf_monotonic_ns();
	run_frames(&s->fx, frame, len, n);
	after = fbf_monotonic_ns();
	assert_one_cpu_has(&s->fx, &want);
	assert_popped_n(&s->fx, n, saddr, FBF_BUZZ, before, after);
}

static int suite_setup(void **state)
{
	struct suite *s = calloc(1, sizeof(*s));

	if (!s)
		return -1;
	s->load_err = bpf_fixture_load(&s->fx, suite_transport, FBF_DEFAULT_QUEUE_SIZE);
	if (!s->load_err)
		s->load_err = bpf_fixture_load(&s->small, suite_transport, SMALL_QUEUE_SIZE);
	if (!s->load_err)
		s->load_err = bpf_fixture_load_sampled(&s->sampled, suite_transport,
						       FBF_DEFAULT_QUEUE_SIZE, SAMPLE);
	if (!s->load_err)
		s->load_err = bpf_fixture_load_sampled(&s->sampled_small, suite_transport,
						       SMALL_QUEUE_SIZE, SAMPLE);
	program_load_note(s->load_err);
	*state = s;
	return 0;
}

static int suite_teardown(void **state)
{
	struct suite *s = *state;

	bpf_fixture_destroy(&s->fx);
	bpf_fixture_destroy(&s->small);
	bpf_fixture_destroy(&s->sampled);
	bpf_fixture_destroy(&s->sampled_small);
	free(s);
	return 0;
}

/* Each test starts from an empty queue and zero counters. */
static int reset_maps(void **state)
{
	struct suite *s = *state;
	int err;

	if (s->load_err)
		return 0; /* the test skips or fails in require_program() */
	err = bpf_fixture_reset(&s->fx) ?: bpf_fixture_reset(&s->small) ?:
	      bpf_fixture_reset(&s->sampled) ?: bpf_fixture_reset(&s->sampled_small);
	if (err)
		fprintf(stderr, "# resetting the maps: %s\n", strerror(-err));
	return err;
}

#define xdp_test(fn) cmocka_unit_test_setup(fn, reset_maps)

int main(void)
{
	const struct CMUnitTest tests[] = {
		xdp_test(test_ipv4_fizz_is_queued),
		xdp_test(test_ipv4_buzz_is_queued),
		xdp_test(test_ipv4_fizzbuzz_is_queued),
		xdp_test(test_ipv4_fibonacci_is_queued),
		xdp_test(test_ipv4_none_is_counted_not_queued),
		xdp_test(test_vlan_8021q_ipv4_is_queued),
		xdp_test(test_double_vlan_8021ad_8021q_ipv4_is_queued),
		xdp_test(test_three_vlan_tags_are_non_ipv4),
		xdp_test(test_ipv6_is_non_ipv4),
		xdp_test(test_arp_is_non_ipv4),
		xdp_test(test_ethernet_only_with_ipv4_ethertype_is_malformed),
		xdp_test(test_truncated_ipv4_header_is_malformed),
		xdp_test(test_truncated_vlan_tag_is_malformed),
		xdp_test(test_truncated_inner_vlan_tag_is_malformed),
		xdp_test(test_ihl_below_5_is_malformed),
		xdp_test(test_ip_version_not_4_is_malformed),
		xdp_test(test_ipv4_options_cut_off_are_malformed),
		xdp_test(test_ipv4_options_complete_are_queued),
		xdp_test(test_ipv4_ihl_15_is_queued),
		xdp_test(test_full_queue_counts_each_lost_event),
		xdp_test(test_full_queue_keeps_oldest_events_in_order),
		xdp_test(test_full_queue_accepts_push_after_pop),
		xdp_test(test_each_cpu_sends_to_its_own_map),
		xdp_test(test_a_full_cpu_map_loses_there_only),
		xdp_test(test_sample_16_sends_exactly_1_in_16),
		xdp_test(test_sample_16_is_exact_from_any_phase),
		xdp_test(test_sample_16_counts_events_lost_to_a_full_queue),
		xdp_test(test_sample_16_matches_the_reference_model),
		xdp_test(test_sample_1_sends_every_event),
		xdp_test(test_one_event_in_64_and_the_first_after_sleep_are_stamped),
	};

	return run_groups_per_transport("xdp_prog", tests, sizeof(tests) / sizeof(tests[0]),
					suite_setup, suite_teardown, &suite_transport);
}
