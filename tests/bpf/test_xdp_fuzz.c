// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Differential fuzzing of the XDP program against the reference model in
 * ref_parser.c, through BPF_PROG_TEST_RUN. First a sweep of every frame
 * shape cut at every length and of every IHL and version, then seeded random
 * frames: random bytes, random bytes behind chosen ethertypes, and valid
 * frames of every shape with bit flips, truncation, VLAN tags pushed and
 * popped, IHL and version edits.
 *
 * For speed, frames run in batches: the return value and the frame as the
 * program left it are checked after every run, the queue and the counters at
 * the end of each batch (events in order, counters as totals). A batch that
 * disagrees is run again one frame at a time from empty maps, which names the
 * first frame at fault. A third group fuzzes the program under --aggregate:
 * the counts per source, taken after each batch, against the model's, with
 * source maps of AGG_SOURCES that random addresses fill at once (no_room).
 *
 *   FBF_FUZZ_FRAMES=N   frames to run (default 200000; `make fuzz` runs more)
 *   FBF_FUZZ_SEED=S     replay a run: the seed is printed at the start
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <cmocka.h>

#include "bpf_fixture.h"
#include "fizzbuzzfib.h"
#include "frames.h"
#include "program_loaded.h"
#include "ref_parser.h"
#include "transport_groups.h"
#include "userspace_util.h"

#define FUZZ_DEFAULT_FRAMES 200000
#define FRAME_MIN 14
#define FRAME_MAX 1514
/* Batches of random size up to BATCH_MAX: some overflow the queue (or ring), some do not. */
#define BATCH_MAX 2048
/* 32 events in a queue; a ring for 32 is a page, 170 events of 24 bytes with 4 KiB pages. */
#define QUEUE_SIZE 32
/* The aggregated program's source maps: most batches hold more sources. */
#define AGG_SOURCES 64
/* Mismatches described in full; the rest are only counted. */
#define REPORT_MAX 5

struct fuzz_frame {
	__u64 index;
	size_t len;
	__u8 data[FRAME_MAX];
};

struct fuzz_stats {
	__u64 frames;
	__u64 by_outcome[3];
	__u64 events;
	__u64 queue_full;
	__u64 aggregated;	/* --aggregate: counted per source */
	__u64 no_room;		/* ... or not, the map full */
	__u64 mismatches;
};

struct fuzz {
	struct bpf_fixture fx;
	int load_err;
	__u64 seed;
	__u64 rng;
	__u64 sweep_next;	/* index into the sweep; past its end, random frames */
	struct fbf_counters want;	/* totals since the last reset */
	bool aggregate;			/* the program counts per source, sends no event */
	struct fbf_source_count want_sources[AGG_SOURCES]; /* since the last take */
	size_t nr_want_sources;
	struct fuzz_stats stats;
	struct fuzz_frame batch[BATCH_MAX];
	struct fbf_event want_events[BATCH_MAX];
};

static __u64 rng_next(struct fuzz *f)
{
	return fbf_splitmix64(&f->rng);
}

/* Uniform enough in [lo, hi] for the small ranges used here. */
static size_t rng_range(struct fuzz *f, size_t lo, size_t hi)
{
	return lo + rng_next(f) % (hi - lo + 1);
}

static void rng_fill(struct fuzz *f, __u8 *p, size_t len)
{
	__u64 r = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		if (!(i & 7))
			r = rng_next(f);
		p[i] = r >> (8 * (i & 7));
	}
}

static void put_be16(__u8 *p, __u16 v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

/* ---- frames of every shape ---- */

enum shape_payload {
	PAYLOAD_IPV4,
	PAYLOAD_IPV4_OPT4,
	PAYLOAD_IPV4_OPT40,
	PAYLOAD_IPV6,
	PAYLOAD_ARP,
	NR_PAYLOADS,
};

/* Tag combinations: 0..3 tags, each 802.1Q or 802.1ad (bit i of @tpid_bits picks tag i). */
#define SHAPE_MAX_TAGS 3
#define NR_L2_SHAPES (1 + 2 + 4 + 8)

static void shape_l2(unsigned int l2_shape, struct frame_l2 *l2)
{
	unsigned int nr_tags = 0, first = 0, i;

	while (l2_shape >= first + (1U << nr_tags)) {
		first += 1U << nr_tags;
		nr_tags++;
	}
	l2->nr_tags = nr_tags;
	for (i = 0; i < nr_tags; i++)
		l2->tpid[i] = ((l2_shape - first) >> i) & 1 ? ETH_P_8021AD : ETH_P_8021Q;
}

/* Build a valid frame; returns its length and the offset of its network header. */
static size_t build_shape(__u8 *buf, const struct frame_l2 *l2, enum shape_payload payload,
			  __u32 saddr, size_t *l3)
{
	struct frame_ipv4 ip = FRAME_IPV4(saddr);

	*l3 = frame_l2_len(l2);
	switch (payload) {
	case PAYLOAD_IPV4_OPT4:
		ip.options_len = 4;
		ip.ihl = 6;
		break;
	case PAYLOAD_IPV4_OPT40:
		ip.options_len = 40;
		ip.ihl = 15;
		break;
	case PAYLOAD_IPV6:
		return frame_build_ipv6(buf, FRAME_MAX, l2);
	case PAYLOAD_ARP:
		return frame_build_arp(buf, FRAME_MAX, l2);
	default:
		break;
	}
	return frame_build_ipv4(buf, FRAME_MAX, l2, &ip);
}

/*
 * The sweep, frame @i of it: every shape cut at every length from 14 bytes
 * to whole, then every IHL and version on the untagged and double-tagged
 * IPv4 header with 40 bytes of options. Returns 0 past its end.
 */
static size_t sweep_frame(struct fuzz *f, __u64 i, __u8 *buf)
{
	unsigned int shape, nr_shapes = NR_L2_SHAPES * NR_PAYLOADS;
	struct frame_l2 l2;
	size_t len, l3;

	for (shape = 0; shape < nr_shapes; shape++) {
		shape_l2(shape / NR_PAYLOADS, &l2);
		/* The length does not depend on the address: draw one only for the frame used. */
		len = build_shape(buf, &l2, shape % NR_PAYLOADS, 0, &l3);
		if (i <= len - FRAME_MIN) {
			build_shape(buf, &l2, shape % NR_PAYLOADS, rng_next(f), &l3);
			return FRAME_MIN + i;
		}
		i -= len - FRAME_MIN + 1;
	}
	if (i < 2 * 256) {
		shape_l2(i < 256 ? 0 : 1 + 2 + 1, &l2);	/* untagged, or 802.1ad + 802.1Q */
		len = build_shape(buf, &l2, PAYLOAD_IPV4_OPT40, rng_next(f), &l3);
		buf[l3] = i & 0xff;	/* version in the high nibble, IHL in the low one */
		return len;
	}
	return 0;
}

/* ---- mutations ---- */

static size_t mutate_bit_flips(struct fuzz *f, __u8 *buf, size_t len)
{
	size_t n = rng_range(f, 1, 8), i, off;

	for (i = 0; i < n; i++) {
		/* Mostly in the headers, where a flip changes what the parser sees. */
		off = rng_range(f, 0, rng_next(f) & 1 ? len - 1 : (len < 64 ? len : 64) - 1);
		buf[off] ^= 1U << rng_range(f, 0, 7);
	}
	return len;
}

static size_t mutate_truncate(struct fuzz *f, __u8 *buf, size_t len)
{
	(void)buf;
	return rng_range(f, FRAME_MIN, len);
}

/* Insert a tag right after the MAC addresses: another layer of VLAN stacking. */
static size_t mutate_push_tag(struct fuzz *f, __u8 *buf, size_t len, size_t *l3)
{
	static const __u16 tpids[] = { ETH_P_8021Q, ETH_P_8021AD, ETH_P_8021Q, 0x9100 };

	if (len + FRAME_VLAN_HLEN > FRAME_MAX)
		return len;
	memmove(buf + 12 + FRAME_VLAN_HLEN, buf + 12, len - 12);
	put_be16(buf + 12, tpids[rng_range(f, 0, 3)]);
	put_be16(buf + 14, rng_next(f) & 0xfff);
	*l3 += FRAME_VLAN_HLEN;
	return len + FRAME_VLAN_HLEN;
}

static size_t mutate_pop_tag(__u8 *buf, size_t len, size_t *l3)
{
	if (*l3 < FRAME_ETH_HLEN + FRAME_VLAN_HLEN || len < *l3)
		return len;
	memmove(buf + 12, buf + 12 + FRAME_VLAN_HLEN, len - 12 - FRAME_VLAN_HLEN);
	*l3 -= FRAME_VLAN_HLEN;
	return len - FRAME_VLAN_HLEN;
}

static size_t mutate_ip_byte0(struct fuzz *f, __u8 *buf, size_t len, size_t l3, bool version)
{
	if (l3 >= len)
		return len;
	if (version)
		buf[l3] = (buf[l3] & 0x0f) | rng_range(f, 0, 15) << 4;
	else
		buf[l3] = (buf[l3] & 0xf0) | rng_range(f, 0, 15);
	return len;
}

/* Random bytes behind ethertypes the parser acts on, so random data reaches IPv4 parsing. */
static size_t random_behind_ethertypes(struct fuzz *f, __u8 *buf)
{
	static const __u16 types[] = { ETH_P_IP, ETH_P_IP, ETH_P_8021Q, ETH_P_8021AD,
				       ETH_P_IPV6, ETH_P_ARP };
	size_t len = rng_range(f, FRAME_MIN, rng_next(f) & 1 ? 80 : FRAME_MAX), off;

	rng_fill(f, buf, len);
	for (off = 12; off + 2 <= len && off <= 12 + 3 * FRAME_VLAN_HLEN; off += FRAME_VLAN_HLEN) {
		__u16 type = types[rng_range(f, 0, 5)];

		put_be16(buf + off, type);
		if (type != ETH_P_8021Q && type != ETH_P_8021AD) {
			/* Half the time a version-4 header of a plausible length. */
			if (type == ETH_P_IP && off + 2 < len && rng_next(f) & 1)
				buf[off + 2] = 0x40 | rng_range(f, 5, 15);
			break;
		}
	}
	return len;
}

static size_t random_mutated_shape(struct fuzz *f, __u8 *buf)
{
	struct frame_l2 l2;
	size_t len, l3, pad, n, i;

	/* 0..3 tags equally often: tag combinations would make 3-tag frames the most common. */
	n = rng_range(f, 0, SHAPE_MAX_TAGS);
	shape_l2((1U << n) - 1 + rng_range(f, 0, (1U << n) - 1), &l2);
	len = build_shape(buf, &l2, rng_range(f, 0, NR_PAYLOADS - 1), rng_next(f), &l3);
	if (rng_next(f) & 1) {
		pad = rng_range(f, 0, FRAME_MAX - len);
		rng_fill(f, buf + len, pad);
		len += pad;
	}
	n = rng_range(f, 0, 3);
	for (i = 0; i < n; i++) {
		switch (rng_range(f, 0, 6)) {
		case 0:
			len = mutate_bit_flips(f, buf, len);
			break;
		case 1:
			len = mutate_truncate(f, buf, len);
			break;
		case 2:
			len = mutate_push_tag(f, buf, len, &l3);
			break;
		case 3:
			len = mutate_pop_tag(buf, len, &l3);
			break;
		case 4:
			len = mutate_ip_byte0(f, buf, len, l3, false);
			break;
		case 5:
			len = mutate_ip_byte0(f, buf, len, l3, true);
			break;
		default:
			break;	/* unchanged: valid frames stay common */
		}
	}
	return len;
}

static size_t next_frame(struct fuzz *f, __u8 *buf)
{
	size_t len = f->sweep_next != ~0ULL ? sweep_frame(f, f->sweep_next, buf) : 0;

	if (len) {
		f->sweep_next++;
		return len;
	}
	f->sweep_next = ~0ULL;
	switch (rng_range(f, 0, 4)) {
	case 0:
		len = rng_range(f, FRAME_MIN, FRAME_MAX);
		rng_fill(f, buf, len);
		return len;
	case 1:
		return random_behind_ethertypes(f, buf);
	default:
		return random_mutated_shape(f, buf);
	}
}

/* ---- running and comparing ---- */

static void dump_frame(const struct fuzz *f, const struct fuzz_frame *fr, const char *why)
{
	struct ref_verdict v;
	size_t i;

	ref_parse(fr->data, fr->len, &v);
	fprintf(stderr, "# MISMATCH seed %#llx frame %llu (%zu bytes): %s\n",
		f->seed, fr->index, fr->len, why);
	fprintf(stderr, "#   reference: %s", ref_outcome_name(v.outcome));
	if (v.outcome == REF_IPV4)
		fprintf(stderr, " saddr %u.%u.%u.%u class %s%s", v.saddr >> 24,
			(v.saddr >> 16) & 0xff, (v.saddr >> 8) & 0xff, v.saddr & 0xff,
			fbf_class_name(v.class_id), v.push ? ", pushed" : "");
	fprintf(stderr, "\n#   frame:");
	for (i = 0; i < fr->len; i++)
		fprintf(stderr, "%s%02x", i % 32 ? "" : "\n#     ", fr->data[i]);
	fprintf(stderr, "\n#   replay: FBF_FUZZ_SEED=%#llx FBF_FUZZ_FRAMES=%llu\n",
		f->seed, fr->index + 1);
}

static void mismatch(struct fuzz *f, const struct fuzz_frame *fr, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	if (f->stats.mismatches++ >= REPORT_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	dump_frame(f, fr, why);
}

/* Run one frame: it must pass, unchanged. Returns false on a failure already reported. */
static bool run_one(struct fuzz *f, const struct fuzz_frame *fr)
{
	__u8 out[FRAME_MAX];
	__u32 out_len = sizeof(out), retval = ~0U;
	int err;

	err = bpf_fixture_run(&f->fx, fr->data, fr->len, 1, out, &out_len, &retval);
	if (err)
		fail_msg("BPF_PROG_TEST_RUN on frame %llu: %s", fr->index, strerror(-err));
	if (retval != XDP_PASS) {
		mismatch(f, fr, "returned %u, want XDP_PASS", retval);
		return false;
	}
	if (out_len != fr->len || memcmp(out, fr->data, fr->len)) {
		mismatch(f, fr, "frame changed by the program");
		return false;
	}
	return true;
}

/*
 * Pop the queue empty and compare with @want (@n events, in order), with
 * timestamps in [t0, t1] and never going back. NULL on a match, else why.
 */
static const char *check_queue(struct fuzz *f, const struct fbf_event *want, size_t n,
			       __u64 t0, __u64 t1, char *why, size_t size)
{
	struct fbf_event ev;
	__u64 prev = t0;
	size_t got = 0;
	int err;

	while (!(err = bpf_fixture_pop(&f->fx, &ev))) {
		if (got >= n) {
			snprintf(why, size, "event %zu (saddr %#x class %u) pushed, want %zu",
				 got, ev.saddr, ev.class_id, n);
			goto empty_queue;
		}
		if (ev.saddr != want[got].saddr || ev.class_id != want[got].class_id) {
			snprintf(why, size, "event %zu is saddr %#x class %u, want %#x class %u",
				 got, ev.saddr, ev.class_id, want[got].saddr, want[got].class_id);
			goto empty_queue;
		}
		/* Unstamped (0), or stamped in order within the run (FBF_STAMP_EVERY). */
		if (ev.ktime_ns && (ev.ktime_ns < prev || ev.ktime_ns > t1)) {
			snprintf(why, size, "event %zu ktime_ns %llu outside [%llu, %llu]", got,
				 (unsigned long long)ev.ktime_ns, (unsigned long long)prev,
				 (unsigned long long)t1);
			goto empty_queue;
		}
		prev = ev.ktime_ns ?: prev;
		got++;
	}
	if (err != -ENOENT)
		fail_msg("popping an event: %s", strerror(-err));
	if (got != n) {
		snprintf(why, size, "%zu events in the queue, want %zu", got, n);
		return why;
	}
	return NULL;
empty_queue:
	/* The next batch starts from an empty queue. */
	while (!bpf_fixture_pop(&f->fx, &ev))
		;
	return why;
}

static const char *check_counters(struct fuzz *f, char *why, size_t size)
{
	struct fbf_counters got;
	int err;

	err = bpf_fixture_counters(&f->fx, &got);
	if (err)
		fail_msg("reading the counters: %s", strerror(-err));
	return fbf_counters_diff(&got, &f->want, why, size) ? why : NULL;
}

static void reset_maps(struct fuzz *f)
{
	int err = bpf_fixture_reset(&f->fx);

	if (err)
		fail_msg("resetting the maps: %s", strerror(-err));
	memset(&f->want, 0, sizeof(f->want));
	f->nr_want_sources = 0;
}

/*
 * The model of one frame: true if it makes an event; under --aggregate, a
 * classified frame is counted for its source instead while the map has
 * room for it (a source already in it always has), else as no_room.
 */
static bool model_frame(struct fuzz *f, const struct ref_verdict *v, bool queue_room)
{
	size_t i;

	if (!ref_account(v, NULL, f->aggregate || queue_room, &f->want) || !f->aggregate)
		return !f->aggregate && v->push && queue_room;
	for (i = 0; i < f->nr_want_sources; i++)
		if (f->want_sources[i].saddr == v->saddr)
			break;
	if (i == AGG_SOURCES) {
		f->want.no_room++;
		f->stats.no_room++;
		return false;
	}
	if (i == f->nr_want_sources)
		f->want_sources[f->nr_want_sources++] = (struct fbf_source_count){ v->saddr, 0 };
	f->want_sources[i].packets++;
	f->want.aggregated++;
	f->stats.aggregated++;
	return false;
}

/* Under --aggregate: take the counts and compare with the model's. NULL on a match. */
static const char *check_sources(struct fuzz *f, char *why, size_t size)
{
	const struct source_reader *r = &f->fx.sources;
	long n, i;
	size_t k;

	if (!f->aggregate)
		return NULL;
	n = source_reader_take(&f->fx.sources);
	if (n < 0)
		fail_msg("taking the source counts: %s", strerror(-n));
	if ((size_t)n != f->nr_want_sources) {
		snprintf(why, size, "%ld sources counted, want %zu", n, f->nr_want_sources);
		return why;
	}
	for (i = 0; i < n; i++) {
		for (k = 0; k < f->nr_want_sources; k++)
			if (f->want_sources[k].saddr == r->counts[i].saddr)
				break;
		if (k == f->nr_want_sources || f->want_sources[k].packets != r->counts[i].packets) {
			snprintf(why, size, "source %#x counted %llu times, want %llu",
				 r->counts[i].saddr, r->counts[i].packets,
				 k == f->nr_want_sources ? 0ULL : f->want_sources[k].packets);
			return why;
		}
	}
	return NULL;
}

/* The batch disagreed somewhere: run it again frame by frame to find where. */
static void bisect_batch(struct fuzz *f, size_t n, const char *batch_why)
{
	__u64 before = f->stats.mismatches;
	char why[512];
	size_t i;

	for (i = 0; i < n; i++) {
		const struct fuzz_frame *fr = &f->batch[i];
		struct fbf_event want_ev;
		struct ref_verdict v;
		__u64 t0, t1;
		bool pushed;

		reset_maps(f);
		ref_parse(fr->data, fr->len, &v);
		pushed = model_frame(f, &v, true);
		want_ev = (struct fbf_event){ .saddr = v.saddr, .class_id = v.class_id };
		t0 = fbf_monotonic_ns();
		if (!run_one(f, fr))
			continue;
		t1 = fbf_monotonic_ns();
		if (check_queue(f, &want_ev, pushed, t0, t1, why, sizeof(why)) ||
		    check_sources(f, why, sizeof(why)) || check_counters(f, why, sizeof(why)))
			mismatch(f, fr, "%s", why);
	}
	if (f->stats.mismatches == before)
		mismatch(f, &f->batch[0], "batch of %zu from here: %s; every frame alone agrees",
			 n, batch_why);
	reset_maps(f);
}

static void run_batch(struct fuzz *f, size_t n)
{
	size_t i, nr_events = 0;
	const char *bad;
	char why[512];
	__u64 t0, t1;

	for (i = 0; i < n; i++) {
		struct fuzz_frame *fr = &f->batch[i];
		struct ref_verdict v;

		fr->index = f->stats.frames++;
		fr->len = next_frame(f, fr->data);
		ref_parse(fr->data, fr->len, &v);
		f->stats.by_outcome[v.outcome]++;
		/* The queue is empty at the start of a batch and nothing pops during one. */
		if (model_frame(f, &v, nr_events < f->fx.capacity))
			f->want_events[nr_events++] = (struct fbf_event){
				.saddr = v.saddr,
				.class_id = v.class_id,
			};
		else if (v.push && !f->aggregate)
			f->stats.queue_full++;
	}
	f->stats.events += nr_events;

	t0 = fbf_monotonic_ns();
	for (i = 0; i < n; i++)
		run_one(f, &f->batch[i]);
	t1 = fbf_monotonic_ns();

	bad = check_queue(f, f->want_events, nr_events, t0, t1, why, sizeof(why));
	if (!bad)
		bad = check_sources(f, why, sizeof(why));
	if (!bad)
		bad = check_counters(f, why, sizeof(why));
	/* Each batch's sources from an empty map: the take emptied both. */
	f->nr_want_sources = 0;
	if (bad)
		bisect_batch(f, n, bad);
}

static __u64 env_u64(const char *name, __u64 fallback)
{
	const char *s = getenv(name);
	char *end;
	__u64 v;

	if (!s || !*s)
		return fallback;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		fail_msg("%s='%s': not a number", name, s);
	return v;
}

static void test_differential(void **state)
{
	struct fuzz *f = *state;
	__u64 frames, start, elapsed;

	require_program_loaded(f->load_err);
	frames = env_u64("FBF_FUZZ_FRAMES", FUZZ_DEFAULT_FRAMES);
	f->seed = env_u64("FBF_FUZZ_SEED", fbf_monotonic_ns() ^ ((__u64)getpid() << 32));
	f->rng = f->seed;
	fprintf(stderr, "# seed %#llx (replay with FBF_FUZZ_SEED=%#llx)\n",
		f->seed, f->seed);

	reset_maps(f);
	start = fbf_monotonic_ns();
	while (f->stats.frames < frames) {
		__u64 left = frames - f->stats.frames;
		size_t n = rng_range(f, 1, BATCH_MAX);

		run_batch(f, n < left ? n : left);
	}
	elapsed = fbf_monotonic_ns() - start;

	fprintf(stderr, "# %llu frames in %.2f s: %.0f frames/s; %llu"
		" mismatches\n", f->stats.frames, elapsed / 1e9,
		f->stats.frames / (elapsed / 1e9), f->stats.mismatches);
	fprintf(stderr, "# outcomes: ipv4 %llu (events %llu, queue_full %llu, aggregated %llu, "
		"no_room %llu), non_ipv4 %llu, malformed %llu\n", f->stats.by_outcome[REF_IPV4],
		f->stats.events, f->stats.queue_full, f->stats.aggregated, f->stats.no_room,
		f->stats.by_outcome[REF_NON_IPV4], f->stats.by_outcome[REF_MALFORMED]);
	assert_int_equal(f->stats.mismatches, 0);
}

/* The transport the group being run fuzzes; and whether it fuzzes --aggregate. */
static enum fbf_transport suite_transport;
static bool suite_aggregate;

static int suite_setup(void **state)
{
	struct fuzz *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	f->aggregate = suite_aggregate;
	if (f->aggregate)
		f->load_err = bpf_fixture_load_aggregated(&f->fx, suite_transport, AGG_SOURCES);
	else
		f->load_err = bpf_fixture_load(&f->fx, suite_transport, QUEUE_SIZE);
	program_load_note(f->load_err);
	*state = f;
	return 0;
}

static int suite_teardown(void **state)
{
	struct fuzz *f = *state;

	bpf_fixture_destroy(&f->fx);
	free(f);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_differential),
	};

	int failed;

	failed = run_groups_per_transport("xdp_fuzz", tests, sizeof(tests) / sizeof(tests[0]),
					  suite_setup, suite_teardown, &suite_transport);
	/* The transport does not matter to aggregation: the queue's object. */
	suite_transport = FBF_TRANSPORT_QUEUE;
	suite_aggregate = true;
	return failed + cmocka_run_group_tests_name("xdp_fuzz aggregate", tests, suite_setup,
						    suite_teardown);
}
