// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The agent's reader over every CPU's event map (agent/transports/): each
 * read goes round the maps from where the last one ended, so every map is
 * read and none is kept waiting by a busier one; a read that takes fewer
 * than it may has found every map empty. On queue maps made as the agent
 * makes them, one per possible CPU and a spare, filled from here (a ring
 * cannot be written from userspace; the round is the same code for both).
 * Needs the privileges to make BPF maps; without them, every test is skipped.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <cmocka.h>

#include "event_maps.h"
#include "fizzbuzzfib.h"
#include "sinks/event_sink.h"
#include "transports/transport.h"

#define MAP_EVENTS 64
#define MAX_TAKEN 1024

/* What the transport delivered, in order: the event sink, as the test sees it. */
static __u32 taken[MAX_TAKEN];
static unsigned int nr_taken;

void event_sink_deliver(struct event_sink *s, const struct fbf_event *ev)
{
	(void)s;
	if (nr_taken < MAX_TAKEN)
		taken[nr_taken] = ev->saddr;
	nr_taken++;
}

struct maps {
	int events_fd;		/* the array of every CPU's queue */
	int spare_fd;
	struct fbf_event_maps m; /* each CPU's, then the spare: to fill them */
	struct transport t;
};

static int setup(void **state)
{
	static struct maps s;
	int err;

	nr_taken = 0;
	s.events_fd = fbf_event_maps_create("events", BPF_MAP_TYPE_QUEUE,
					    sizeof(struct fbf_event), MAP_EVENTS);
	s.spare_fd = bpf_map_create(BPF_MAP_TYPE_QUEUE, "events_spare", 0,
				    sizeof(struct fbf_event), MAP_EVENTS, NULL);
	if (s.events_fd < 0 || s.spare_fd < 0) {
		err = s.events_fd < 0 ? s.events_fd : -errno;
		fprintf(stderr, "# cannot make BPF maps here (%s): skipping; run as root\n",
			strerror(-err));
		*state = NULL;
		return 0;
	}
	err = fbf_event_maps_open(&s.m, s.events_fd, s.spare_fd) ?:
	      transport_open(&s.t, FBF_TRANSPORT_QUEUE, s.events_fd, s.spare_fd, NULL);
	assert_int_equal(err, 0);
	*state = &s;
	return 0;
}

static int teardown(void **state)
{
	struct maps *s = *state;

	if (!s)
		return 0;
	transport_close(&s->t);
	fbf_event_maps_close(&s->m);
	close(s->events_fd);
	close(s->spare_fd);
	return 0;
}

static struct maps *require_maps(void **state)
{
	if (!*state)
		skip();
	return *state;
}

/* Push @n events into map @i (a CPU's, or the spare last), their saddr @first on. */
static void push(struct maps *s, unsigned int i, __u32 first, unsigned int n)
{
	for (unsigned int k = 0; k < n; k++) {
		struct fbf_event ev = { .saddr = first + k, .class_id = FBF_FIZZ };

		assert_int_equal(bpf_map_update_elem(s->m.fds[i], NULL, &ev, BPF_ANY), 0);
	}
}

/* An event in each CPU's map and in the spare: one read takes them all, and says so. */
static void test_a_read_takes_every_cpus_map_and_the_spare(void **state)
{
	struct maps *s = require_maps(state);
	unsigned int i, nr = s->m.nr;

	assert_int_equal(nr, libbpf_num_possible_cpus() + 1);
	for (i = 0; i < nr; i++)
		push(s, i, 100 * i, 3);
	assert_int_equal(transport_read(&s->t, MAX_TAKEN), 3 * nr);
	/* Map by map, each in the order its events went in. */
	for (i = 0; i < 3 * nr; i++)
		assert_int_equal(taken[i], 100 * (i / 3) + i % 3);
	assert_int_equal(transport_read(&s->t, MAX_TAKEN), 0);
}

/*
 * CPU 0 has more than a read may take, the last map one event: the read
 * after the first, full one starts past CPU 0, so the lone event is taken
 * by the second read, not after CPU 0 is empty.
 */
static void test_a_busy_cpu_keeps_no_other_waiting(void **state)
{
	struct maps *s = require_maps(state);
	unsigned int max = 8, last = s->m.nr - 1;

	push(s, 0, 0, 5 * max);
	push(s, last, 1000, 1);
	assert_int_equal(transport_read(&s->t, max), max);
	assert_int_equal(transport_read(&s->t, max), max);
	for (unsigned int i = 0; i < 2 * max; i++)
		if (taken[i] == 1000)
			return;
	fail_msg("the last map's event waited past two reads");
}

/* Taking what is left: reads of fewer than the most come only once every map is empty. */
static void test_fewer_than_the_most_means_every_map_was_empty(void **state)
{
	struct maps *s = require_maps(state);
	unsigned int max = 8, total = 0;
	long n;

	for (unsigned int i = 0; i < s->m.nr; i++)
		push(s, i, 0, 3 + i);
	for (unsigned int i = 0; i < s->m.nr; i++)
		total += 3 + i;
	do {
		n = transport_read(&s->t, max);
		assert_true(n >= 0);
	} while (n == (long)max);
	assert_int_equal(nr_taken, total);
	assert_int_equal(transport_read(&s->t, max), 0);
}

/* Set CAP_SYS_ADMIN in the effective set, or clear it (it stays permitted). 0 or -errno. */
static int sys_admin_effective(bool on)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
	int i = CAP_TO_INDEX(CAP_SYS_ADMIN);

	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	if (!(data[i].permitted & CAP_TO_MASK(CAP_SYS_ADMIN)))
		return -EPERM;
	if (on)
		data[i].effective |= CAP_TO_MASK(CAP_SYS_ADMIN);
	else
		data[i].effective &= ~CAP_TO_MASK(CAP_SYS_ADMIN);
	return syscall(SYS_capset, &hdr, data) ? -errno : 0;
}

/*
 * The maker of the maps reads them without CAP_SYS_ADMIN, which turning a
 * map's id into an fd needs (BPF_MAP_GET_FD_BY_ID): the agent runs on
 * CAP_BPF, CAP_PERFMON and CAP_NET_ADMIN.
 */
static void test_the_maker_reads_them_without_cap_sys_admin(void **state)
{
	struct maps *s = require_maps(state);
	struct fbf_event_maps m;
	__u32 key = 0, id;
	int fd, by_id, err;

	assert_int_equal(bpf_map_lookup_elem(s->events_fd, &key, &id), 0);
	if (sys_admin_effective(false))
		skip();
	fd = bpf_map_get_fd_by_id(id);
	by_id = fd < 0 ? errno : 0;
	err = fbf_event_maps_open(&m, s->events_fd, s->spare_fd);
	assert_int_equal(sys_admin_effective(true), 0);
	if (fd >= 0)
		close(fd);
	/* By id it is refused, so what opened came from the maker's fds. */
	assert_int_equal(by_id, EPERM);
	assert_int_equal(err, 0);
	assert_int_equal(m.nr, s->m.nr);
	fbf_event_maps_close(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_a_read_takes_every_cpus_map_and_the_spare,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_busy_cpu_keeps_no_other_waiting, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_fewer_than_the_most_means_every_map_was_empty,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_the_maker_reads_them_without_cap_sys_admin,
						setup, teardown),
	};

	return cmocka_run_group_tests_name("transport", tests, NULL, NULL);
}
