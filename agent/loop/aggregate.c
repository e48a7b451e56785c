// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Once a second or so, not per packet: plain stdio, and a top list kept by
 * insertion, which costs one comparison for most sources once the list is full.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loop/aggregate.h"
#include "counters_read.h"
#include "base/exit_codes.h"
#include "base/log.h"
#include "sinks/event_sink.h"
#include "userspace_util.h"

int aggregate_open(struct aggregate *ag, const struct fbf_object *o, __u32 max_sources,
		   __u32 top, __u64 now_ns)
{
	int err = 0, i;

	memset(ag, 0, sizeof(*ag));
	ag->top = top;
	ag->last_take_ns = now_ns;
	for (i = 0; i < FBF_NR_CLASSES && top && !err; i++) {
		ag->best[i] = calloc(top, sizeof(*ag->best[i]));
		err = ag->best[i] ? 0 : -ENOMEM;
	}
	err = err ?: source_reader_open(&ag->reader, o, max_sources);
	if (err)
		aggregate_close(ag);
	return err;
}

/* More frames first; of two alike, the lower address, so that the order is the same each run. */
static bool ranks_above(const struct fbf_source_count *a, const struct fbf_source_count *b)
{
	return a->packets > b->packets || (a->packets == b->packets && a->saddr < b->saddr);
}

/* Put @sc in its class's top list if it belongs there. */
static void top_offer(struct aggregate *ag, __u32 class_id, const struct fbf_source_count *sc)
{
	struct fbf_source_count *best = ag->best[class_id];
	__u32 n = ag->nr_best[class_id], i;

	if (!ag->top || (n == ag->top && !ranks_above(sc, &best[n - 1])))
		return;
	if (n < ag->top)
		ag->nr_best[class_id] = ++n;
	for (i = n - 1; i > 0 && ranks_above(sc, &best[i - 1]); i--)
		best[i] = best[i - 1];
	best[i] = *sc;
}

static void print_text(FILE *out, const struct aggregate *ag, const char *end, double seconds,
		       __u64 sources, const __u64 *packets, __u64 no_room)
{
	char addr[FORMAT_IPV4_SIZE];
	__u32 c, i;

	fprintf(out, "interval end=%s seconds=%.3f sources=%llu", end, seconds, sources);
	for (c = FBF_FIZZ; c < FBF_NR_CLASSES; c++)
		fprintf(out, " %s=%llu", fbf_class_key(c), packets[c]);
	fprintf(out, " no_room=%llu\n", no_room);
	for (c = FBF_FIZZ; c < FBF_NR_CLASSES; c++)
		for (i = 0; i < ag->nr_best[c]; i++) {
			format_ipv4(ag->best[c][i].saddr, addr);
			fprintf(out, "top class=%s rank=%u saddr=%s packets=%llu\n",
				fbf_class_name(c), i + 1, addr, ag->best[c][i].packets);
		}
}

/* The members of the interval's JSON object, after its "{": each sink opens it its own way. */
static void print_json(FILE *out, const struct aggregate *ag, const char *end, double seconds,
		       __u64 sources, const __u64 *packets, __u64 no_room)
{
	char addr[FORMAT_IPV4_SIZE];
	__u32 c, i;

	fprintf(out, "\"type\":\"interval\",\"end\":\"%s\",\"seconds\":%.3f,\"sources\":%llu,"
	       "\"packets\":{", end, seconds, sources);
	for (c = FBF_FIZZ; c < FBF_NR_CLASSES; c++)
		fprintf(out, "%s\"%s\":%llu", c == FBF_FIZZ ? "" : ",", fbf_class_key(c),
			packets[c]);
	fprintf(out, "},\"no_room\":%llu,\"top\":{", no_room);
	for (c = FBF_FIZZ; c < FBF_NR_CLASSES; c++) {
		fprintf(out, "%s\"%s\":[", c == FBF_FIZZ ? "" : ",", fbf_class_key(c));
		for (i = 0; i < ag->nr_best[c]; i++) {
			format_ipv4(ag->best[c][i].saddr, addr);
			fprintf(out, "%s{\"saddr\":\"%s\",\"packets\":%llu}", i ? "," : "", addr,
				ag->best[c][i].packets);
		}
		fprintf(out, "]");
	}
	fprintf(out, "}}\n");
}

/* The interval's counts per source whole, for sinks that take them so: NULL if out of memory. */
static struct sink_counts *counts_make(const struct aggregate *ag, __u64 now, __u64 sources,
				       size_t *len)
{
	struct sink_counts *sc;

	*len = sizeof(*sc) + sources * sizeof(struct fbf_source_count);
	sc = malloc(*len);
	if (!sc)
		return NULL;
	*sc = (struct sink_counts){ .start_ns = ag->last_take_ns, .end_ns = now, .nr = sources };
	memcpy(sc + 1, ag->reader.counts, sources * sizeof(struct fbf_source_count));
	return sc;
}

/* The interval as text, JSON members and counts, to every sink; if memory runs out, lost. */
static void aggregate_send(const struct aggregate *ag, struct event_sink *sink, __u64 now,
			   __u64 sources, const __u64 *packets, __u64 no_room)
{
	char end[FORMAT_TIME_SIZE], *text = NULL, *json = NULL;
	double seconds = (now - ag->last_take_ns) / 1e9;
	struct sink_counts *counts = NULL;
	size_t text_len, json_len, counts_len = 0;
	FILE *t, *j;
	bool ok;

	if (!sink->nr)
		return;
	event_sink_for_each(k, sink)
		if (k->takes_counts && !counts)
			counts = counts_make(ag, now, sources, &counts_len);
	format_time(&sink->sinks[0].fmt, now, end);
	t = open_memstream(&text, &text_len);
	j = open_memstream(&json, &json_len);
	if (t)
		print_text(t, ag, end, seconds, sources, packets, no_room);
	if (j)
		print_json(j, ag, end, seconds, sources, packets, no_room);
	/* Each closed either way: a failure leaves its buffer NULL or unfinished. */
	ok = t && j;
	if (t && fclose(t))
		ok = false;
	if (j && fclose(j))
		ok = false;
	event_sink_record(sink, ok ? text : NULL, ok ? json : NULL, counts, counts_len);
	free(text);
	free(json);
	free(counts);
}

int aggregate_report(struct aggregate *ag, int counters_fd, struct event_sink *sink)
{
	__u64 packets[FBF_NR_CLASSES] = {}, read = 0, now, no_room;
	struct aggregate_figures *f = &ag->figures;
	struct fbf_counters c;
	long n, i;
	int err;
	__u32 k;

	n = source_reader_take(&ag->reader);
	now = fbf_monotonic_ns();
	if (n < 0) {
		pr_err("cannot read the per-source counts: %s\n", strerror(-n));
		return AGENT_EXIT_FAILURE;
	}
	/* After the swap: every no_room of the runs before it is in. */
	err = fbf_counters_read(counters_fd, &c);
	if (err) {
		pr_err("cannot read the counters: %s\n", strerror(-err));
		return AGENT_EXIT_FAILURE;
	}
	memset(ag->nr_best, 0, sizeof(ag->nr_best));
	for (i = 0; i < n; i++) {
		const struct fbf_source_count *sc = &ag->reader.counts[i];
		__u32 class_id = fbf_classify(sc->saddr);

		packets[class_id] += sc->packets;
		read += sc->packets;
		top_offer(ag, class_id, sc);
	}
	no_room = c.no_room - ag->no_room_seen;
	ag->no_room_seen = c.no_room;

	aggregate_send(ag, sink, now, n, packets, no_room);
	ag->last_take_ns = now;

	__atomic_store_n(&f->read, f->read + read, __ATOMIC_RELAXED);
	__atomic_store_n(&f->sources, (__u64)n, __ATOMIC_RELAXED);
	for (k = 0; k < FBF_NR_CLASSES; k++)
		__atomic_store_n(&f->packets[k], packets[k], __ATOMIC_RELAXED);
	__atomic_store_n(&f->intervals, f->intervals + 1, __ATOMIC_RELAXED);
	return 0;
}

void aggregate_close(struct aggregate *ag)
{
	int i;

	source_reader_close(&ag->reader);
	for (i = 0; i < FBF_NR_CLASSES; i++) {
		free(ag->best[i]);
		ag->best[i] = NULL;
	}
}
