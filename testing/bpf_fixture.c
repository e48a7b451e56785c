// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The XDP program under BPF_PROG_TEST_RUN: see bpf_fixture.h. */
#define _GNU_SOURCE /* sched_getcpu */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf_fixture.h"
#include "counter_fields.h"
#include "counters_read.h"

/* libbpf's warnings only, as TAP comments: its info lines are noise in a test log. */
static int print_libbpf_warning(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level != LIBBPF_WARN)
		return 0;
	fputs("# ", stderr);
	return vfprintf(stderr, fmt, ap);
}

/* The ring's reader takes one event per call: it stops ring_buffer__consume() after it. */
#define RING_TOOK_ONE (-EINTR)

static int ring_take_one(void *ctx, void *data, size_t size)
{
	struct bpf_fixture *fx = ctx;

	if (size != sizeof(*fx->popped))
		return -EPROTO;
	memcpy(fx->popped, data, size);
	return RING_TOOK_ONE;
}

int bpf_fixture_load(struct bpf_fixture *fx, enum fbf_transport transport, __u32 queue_size)
{
	return bpf_fixture_load_sampled(fx, transport, queue_size, FBF_SAMPLE_DEFAULT);
}

int bpf_fixture_stay_on_this_cpu(void)
{
	int cpu = sched_getcpu();
	cpu_set_t set;

	if (cpu < 0)
		return -errno;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

/* Load the program as @sample and @max_sources (0: no aggregation) ask. 0 or -errno. */
static int fixture_load(struct bpf_fixture *fx, enum fbf_transport transport, __u32 queue_size,
			__u32 sample, __u32 max_sources)
{
	__u32 map_id;
	int err;

	libbpf_set_print(print_libbpf_warning);
	memset(fx, 0, sizeof(*fx));
	fx->prog_fd = fx->events_fd = fx->counters_fd = -1;

	err = fbf_object_open(&fx->obj, transport);
	if (err)
		return err;
	err = fbf_object_set_sample(&fx->obj, sample) ?:
	      (max_sources ? fbf_object_set_aggregate(&fx->obj, max_sources) : 0) ?:
	      fbf_object_events_create(&fx->obj, queue_size, &map_id) ?:
	      bpf_object__load(fx->obj.obj) ?:
	      (max_sources ? source_reader_open(&fx->sources, &fx->obj, max_sources) : 0);
	if (err) {
		bpf_fixture_destroy(fx);
		return err;
	}
	fx->prog_fd = bpf_program__fd(fx->obj.prog);
	fx->events_fd = bpf_map__fd(fx->obj.events);
	fx->counters_fd = bpf_map__fd(fx->obj.counters);
	fx->capacity = queue_size;
	err = fbf_event_maps_open(&fx->maps, fx->events_fd, bpf_map__fd(fx->obj.events_spare)) ?:
	      bpf_fixture_stay_on_this_cpu();
	if (err || transport != FBF_TRANSPORT_RINGBUF)
		goto out;
	fx->capacity = fbf_ring_capacity(fbf_ring_bytes(queue_size));
	for (unsigned int i = 0; i < fx->maps.nr && !err; i++) {
		if (!fx->ring)
			fx->ring = ring_buffer__new(fx->maps.fds[i], ring_take_one, fx, NULL);
		else if (ring_buffer__add(fx->ring, fx->maps.fds[i], ring_take_one, fx))
			err = -errno;
		if (!fx->ring)
			err = -errno;
	}
out:
	if (err)
		bpf_fixture_destroy(fx);
	return err;
}

int bpf_fixture_load_sampled(struct bpf_fixture *fx, enum fbf_transport transport,
			     __u32 queue_size, __u32 sample)
{
	return fixture_load(fx, transport, queue_size, sample, 0);
}

int bpf_fixture_load_aggregated(struct bpf_fixture *fx, enum fbf_transport transport,
				__u32 max_sources)
{
	return fixture_load(fx, transport, FBF_DEFAULT_QUEUE_SIZE, FBF_SAMPLE_DEFAULT,
			    max_sources);
}

void bpf_fixture_destroy(struct bpf_fixture *fx)
{
	ring_buffer__free(fx->ring);
	fx->ring = NULL;
	fbf_event_maps_close(&fx->maps);
	source_reader_close(&fx->sources);
	fbf_object_close(&fx->obj);
	fx->prog_fd = fx->events_fd = fx->counters_fd = -1;
}

bool bpf_fixture_unavailable(int err)
{
	/*
	 * EPERM without root: not privileged; ENOSYS: no bpf syscall (or a seccomp
	 * filter). EPERM as root is a machine that refuses what the tests are for
	 * (lockdown, a seccomp filter, a lost capability): a failure, so that a
	 * run as root never reports those tests as passed or skipped. Not EACCES
	 * either: that is how the verifier rejects a program.
	 */
	return err == -ENOSYS || (err == -EPERM && geteuid() != 0);
}

int bpf_fixture_pop(struct bpf_fixture *fx, struct fbf_event *event)
{
	int n;

	if (!fx->ring) {
		for (unsigned int i = 0; i < fx->maps.nr; i++) {
			if (!bpf_map_lookup_and_delete_elem(fx->maps.fds[i], NULL, event))
				return 0;
			if (errno != ENOENT)
				return -errno;
		}
		return -ENOENT;
	}
	fx->popped = event;
	n = ring_buffer__consume(fx->ring);
	fx->popped = NULL;
	if (n == RING_TOOK_ONE)
		return 0;
	return n < 0 ? n : -ENOENT;
}

static int zero_counters(struct bpf_fixture *fx)
{
	int ncpus = libbpf_num_possible_cpus();
	struct fbf_counters *percpu;
	__u32 key = 0;
	int err = 0;

	if (ncpus < 0)
		return ncpus;
	percpu = calloc(ncpus, sizeof(*percpu));
	if (!percpu)
		return -ENOMEM;
	if (bpf_map_update_elem(fx->counters_fd, &key, percpu, BPF_ANY))
		err = -errno;
	free(percpu);
	return err;
}

int bpf_fixture_reset(struct bpf_fixture *fx)
{
	struct fbf_event event;
	int err;

	while (!(err = bpf_fixture_pop(fx, &event)))
		;
	if (err != -ENOENT)
		return err;
	/* Aggregated: both source maps emptied, the first counted into again. */
	for (int i = 0; fx->sources.keys && i < 2; i++) {
		long n = source_reader_take(&fx->sources);

		if (n < 0)
			return n;
	}
	return zero_counters(fx);
}

int bpf_fixture_run(struct bpf_fixture *fx, const void *frame, size_t len, int repeat,
		    void *out, __u32 *out_len, __u32 *retval)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = frame,
		.data_size_in = len,
		.data_out = out,
		.data_size_out = out ? *out_len : 0,
		.repeat = repeat,
	);
	int err;

	err = bpf_prog_test_run_opts(fx->prog_fd, &opts);
	if (err)
		return err;
	if (out)
		*out_len = opts.data_size_out;
	*retval = opts.retval;
	return 0;
}

int bpf_fixture_counters(struct bpf_fixture *fx, struct fbf_counters *sum)
{
	return fbf_counters_read(fx->counters_fd, sum);
}

int fbf_counters_diff(const struct fbf_counters *got, const struct fbf_counters *want,
		      char *msg, size_t size)
{
	size_t len = 0;
	int differ = 0;
	size_t i;

	if (size)
		msg[0] = '\0';
	for (i = 0; i < fbf_counter_nr_fields; i++) {
		__u64 g = fbf_counter_value(got, &fbf_counter_fields[i]);
		__u64 w = fbf_counter_value(want, &fbf_counter_fields[i]);

		if (g == w)
			continue;
		if (len < size)
			len += snprintf(msg + len, size - len, "%s%s: got %llu, want %llu",
					differ ? "; " : "", fbf_counter_fields[i].key,
					(unsigned long long)g, (unsigned long long)w);
		differ++;
	}
	return differ;
}
