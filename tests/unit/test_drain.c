// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The drain's stop (agent/loop/drain.c): once the program is detached,
 * drain_settle() empties every CPU's event map and the spare, and the
 * summary balances exactly: every event the counters say was produced is
 * delivered or counted lost. One the counters count and no map holds is
 * waited for a moment, then reported short, never passed over. On queue maps
 * and a counters map made as the agent makes them, filled from here as the
 * program would have left them. Needs the privileges to make BPF maps;
 * without them, every test is skipped.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <cmocka.h>

#include "base/exit_codes.h"
#include "event_maps.h"
#include "fizzbuzzfib.h"
#include "loop/drain.h"
#include "loop/summary.h"
#include "sinks/event_sink.h"

#define MAP_EVENTS 256

struct stop {
	int events_fd, spare_fd, counters_fd;
	struct fbf_event_maps m;	/* each CPU's map, then the spare: to fill them */
	struct event_sink sink;		/* no outputs: it counts what it is given */
	volatile sig_atomic_t stops;
	struct drain d;
	struct summary_run run;
};

static int setup(void **state)
{
	static struct stop s;
	int err;

	memset(&s, 0, sizeof(s));
	s.events_fd = fbf_event_maps_create("events", BPF_MAP_TYPE_QUEUE,
					    sizeof(struct fbf_event), MAP_EVENTS);
	s.spare_fd = bpf_map_create(BPF_MAP_TYPE_QUEUE, "events_spare", 0,
				    sizeof(struct fbf_event), MAP_EVENTS, NULL);
	s.counters_fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "counters", sizeof(__u32),
				       sizeof(struct fbf_counters), 1, NULL);
	if (s.events_fd < 0 || s.spare_fd < 0 || s.counters_fd < 0) {
		err = s.events_fd < 0 ? s.events_fd : -errno;
		fprintf(stderr, "# cannot make BPF maps here (%s): skipping; run as root\n",
			strerror(-err));
		*state = NULL;
		return 0;
	}
	event_sink_init(&s.sink, "host", "test0");
	s.d = (struct drain){ .transport = FBF_TRANSPORT_QUEUE, .events_fd = s.events_fd,
			      .spare_fd = s.spare_fd, .sink = &s.sink, .stops = &s.stops };
	s.run = (struct summary_run){ .iface = "test0", .iface_json = "test0", .mode = "skb" };
	err = fbf_event_maps_open(&s.m, s.events_fd, s.spare_fd) ?:
	      transport_open(&s.d.t, FBF_TRANSPORT_QUEUE, s.events_fd, s.spare_fd, &s.sink);
	assert_int_equal(err, 0);
	*state = &s;
	return 0;
}

static int teardown(void **state)
{
	struct stop *s = *state;

	if (!s)
		return 0;
	transport_close(&s->d.t);
	event_sink_free(&s->sink);
	fbf_event_maps_close(&s->m);
	close(s->events_fd);
	close(s->spare_fd);
	close(s->counters_fd);
	return 0;
}

static struct stop *require_maps(void **state)
{
	if (!*state)
		skip();
	return *state;
}

/*
 * What the program left: @held[i] events in map i (a CPU's, the spare
 * last), and counters that say each CPU produced them (the spare's on CPU 0)
 * and @more besides, and lost @lost[cpu] more to a full map.
 */
static void leave(struct stop *s, const unsigned int *held, const unsigned int *lost, __u64 more)
{
	unsigned int i, k, ncpus = s->m.nr - 1, spare = s->m.nr - 1;
	struct fbf_counters *c = calloc(ncpus, sizeof(*c));
	__u32 key = 0;

	assert_non_null(c);
	for (i = 0; i < s->m.nr; i++)
		for (k = 0; k < held[i]; k++) {
			struct fbf_event ev = { .saddr = 1000 * i + k, .class_id = FBF_FIZZ };

			assert_int_equal(bpf_map_update_elem(s->m.fds[i], NULL, &ev, BPF_ANY), 0);
		}
	for (i = 0; i < ncpus; i++) {
		c[i].queue_full = lost[i];
		c[i].by_class[FBF_FIZZ] = held[i] + lost[i] + (i ? 0 : held[spare] + more);
		c[i].packets = c[i].by_class[FBF_FIZZ];
	}
	assert_int_equal(bpf_map_update_elem(s->counters_fd, &key, c, BPF_ANY), 0);
	free(c);
}

/* Whether every map is empty. */
static bool maps_empty(struct stop *s)
{
	struct fbf_event ev;
	unsigned int i;

	for (i = 0; i < s->m.nr; i++)
		if (!bpf_map_lookup_and_delete_elem(s->m.fds[i], NULL, &ev) || errno != ENOENT)
			return false;
	return true;
}

/* Each CPU's map holds a different number, the spare some, each CPU lost a few: all taken. */
static void test_the_stop_empties_every_map_and_balances(void **state)
{
	struct stop *s = require_maps(state);
	unsigned int *held = calloc(s->m.nr, sizeof(*held)), *lost = calloc(s->m.nr, sizeof(*lost));
	unsigned int i, total = 0;
	struct fbf_counters c;
	int read_err;

	assert_true(held && lost);
	for (i = 0; i < s->m.nr; i++) {
		held[i] = 3 * (i + 1);
		lost[i] = i;
		total += held[i];
	}
	leave(s, held, lost, 0);
	assert_int_equal(drain_settle(&s->d, s->counters_fd, &c, &read_err), 0);
	assert_int_equal(read_err, 0);
	assert_false(s->d.abandoned);
	assert_int_equal(s->sink.delivered, total);
	assert_true(maps_empty(s));
	assert_int_equal(fbf_events_produced(&c), s->sink.delivered + fbf_events_lost(&c));
	assert_int_equal(summary_final(&s->d, &c, &s->run), 0);
	free(held);
	free(lost);
}

/*
 * The counters count one event more than the maps hold (a run of the
 * program that never sent it): the stop takes all there are, waits its
 * moment, and the summary says the account is short.
 */
static void test_an_event_never_sent_is_reported_short(void **state)
{
	struct stop *s = require_maps(state);
	unsigned int *held = calloc(s->m.nr, sizeof(*held)), *lost = calloc(s->m.nr, sizeof(*lost));
	struct fbf_counters c;
	int read_err;

	assert_true(held && lost);
	held[0] = 5;
	leave(s, held, lost, 1);
	assert_int_equal(drain_settle(&s->d, s->counters_fd, &c, &read_err), 0);
	assert_int_equal(read_err, 0);
	assert_int_equal(s->sink.delivered, 5);
	assert_int_equal(fbf_events_produced(&c), 6);
	assert_int_equal(summary_final(&s->d, &c, &s->run), AGENT_EXIT_UNACCOUNTED);
	free(held);
	free(lost);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_the_stop_empties_every_map_and_balances,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_an_event_never_sent_is_reported_short,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
