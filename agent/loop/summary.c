// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <string.h>

#include "counter_fields.h"
#include "counters_read.h"
#include "base/exit_codes.h"
#include "base/log.h"
#include "loop/summary.h"
#include "userspace_util.h"

/* Append " key=value", or with @json ",\"key\":value", to @buf; the new length. */
static size_t put(char *buf, size_t len, size_t size, const char *key, __u64 v, bool json)
{
	if (len < size)
		len += snprintf(buf + len, size - len, json ? ",\"%s\":%llu" : " %s=%llu", key, v);
	return len;
}

/* Append the counters of @group, in the table's order. */
static size_t put_group(char *buf, size_t len, size_t size, const struct fbf_counters *c,
			enum fbf_counter_group group, bool json)
{
	size_t i;

	for (i = 0; i < fbf_counter_nr_fields; i++)
		if (fbf_counter_fields[i].group == group)
			len = put(buf, len, size, fbf_counter_fields[i].key,
				  fbf_counter_value(c, &fbf_counter_fields[i]), json);
	return len;
}

/* Append each output's records written whole (or acknowledged), lost, and its memory at most. */
static size_t put_sinks(char *buf, size_t len, size_t size, const struct event_sink *sink,
			bool json)
{
	static const char *const suffixes[] = { "delivered", "lost", "buffer_peak" };
	char key[32];
	unsigned int j;

	event_sink_for_each(k, sink) {
		const __u64 *values[] = { &k->figures.delivered, &k->figures.lost,
					  &k->figures.buffer_peak };

		for (j = 0; j < sizeof(values) / sizeof(values[0]); j++) {
			snprintf(key, sizeof(key), "%s_%s", k->name, suffixes[j]);
			len = put(buf, len, size, key, __atomic_load_n(values[j], __ATOMIC_RELAXED),
				  json);
		}
	}
	return len;
}

/*
 * Append the events; under --aggregate, then the frames read by source: the
 * counters' aggregated, less those still in the kernel's maps.
 */
static size_t put_events(char *buf, size_t len, size_t size, const struct fbf_counters *c,
			 __u64 delivered, const struct summary_run *run, bool json)
{
	len = put(buf, len, size, "produced", fbf_events_produced(c), json);
	len = put(buf, len, size, "delivered", delivered, json);
	len = put_group(buf, len, size, c, FBF_COUNTERS_LOSSES, json);
	len = put(buf, len, size, "queued", fbf_events_queued(c, delivered), json);
	if (run->aggregated_read)
		len = put(buf, len, size, "aggregated_read", *run->aggregated_read, json);
	return len;
}

/*
 * One account, in summary.h's form, the keys from counter_fields.h; queued is
 * fbf_events_queued(), the depth that a queue map cannot report itself.
 */
static void account_print(const char *kind, const struct fbf_counters *c,
			  const struct event_sink *sink, const struct summary_run *run,
			  __u64 elapsed_ns, bool json)
{
	__u64 delivered = sink->delivered;
	char line[2048];
	size_t len;

	/* In JSON, or running counters: one line each, so that a log reader sees each whole. */
	if (json || !strcmp(kind, "stats")) {
		if (json)
			len = snprintf(line, sizeof(line), "{\"type\":\"%s\",\"iface\":\"%s\","
				       "\"mode\":\"%s\",\"seconds\":%.3f", kind, run->iface_json,
				       run->mode, elapsed_ns / 1e9);
		else
			len = snprintf(line, sizeof(line), "seconds=%.2f", elapsed_ns / 1e9);
		len = put_group(line, len, sizeof(line), c, FBF_COUNTERS_FRAMES, json);
		len = put_group(line, len, sizeof(line), c, FBF_COUNTERS_CLASSES, json);
		len = put_events(line, len, sizeof(line), c, delivered, run, json);
		put_sinks(line, len, sizeof(line), sink, json);
		if (json)
			fprintf(stderr, "%s}\n", line);
		else
			pr_info("stats %s\n", line);
		return;
	}
	pr_info("%s iface=%s mode=%s seconds=%.2f\n", kind, run->iface, run->mode,
		elapsed_ns / 1e9);
	put_group(line, 0, sizeof(line), c, FBF_COUNTERS_FRAMES, false);
	pr_info("%s%s\n", kind, line);
	put_group(line, 0, sizeof(line), c, FBF_COUNTERS_CLASSES, false);
	pr_info("%s%s\n", kind, line);
	put_events(line, 0, sizeof(line), c, delivered, run, false);
	pr_info("%s%s\n", kind, line);
	if (sink->nr) {
		put_sinks(line, 0, sizeof(line), sink, false);
		pr_info("%s%s\n", kind, line);
	}
}

void summary_iface(const char *kind, const struct fbf_counters *c, const char *iface,
		   const char *iface_json, const char *mode, bool json)
{
	char line[1024];
	size_t len;

	len = snprintf(line, sizeof(line), json ? "{\"type\":\"%s\",\"iface\":\"%s\","
		       "\"mode\":\"%s\"" : "%s iface=%s mode=%s", kind, json ? iface_json : iface,
		       mode);
	len = put_group(line, len, sizeof(line), c, FBF_COUNTERS_FRAMES, json);
	len = put_group(line, len, sizeof(line), c, FBF_COUNTERS_CLASSES, json);
	len = put(line, len, sizeof(line), "produced", fbf_events_produced(c), json);
	put_group(line, len, sizeof(line), c, FBF_COUNTERS_LOSSES, json);
	if (json)
		fprintf(stderr, "%s}\n", line);
	else
		pr_info("%s\n", line);
}

/* Once the outputs are stopped: each took every record, and wrote it or lost it. */
static bool sinks_balance(const struct event_sink *sink)
{
	__u64 offered = event_sink_offered(sink), accounted;
	bool ok = true;

	event_sink_for_each(k, sink) {
		accounted = k->figures.delivered + k->figures.lost;
		if (accounted == offered)
			continue;
		pr_warn("output %s: %llu record%s given but %llu written or lost\n", k->name,
			offered, plural_s(offered), accounted);
		ok = false;
	}
	return ok;
}

int summary_running(const struct drain *d, int counters_fd, const struct summary_run *run)
{
	struct fbf_counters c;
	int err;

	err = fbf_counters_read(counters_fd, &c);
	if (err) {
		pr_err("cannot read the counters: %s\n", strerror(-err));
		return AGENT_EXIT_FAILURE;
	}
	account_print("stats", &c, d->sink, run, fbf_monotonic_ns() - run->start_ns, run->json);
	return 0;
}

int summary_final(const struct drain *d, const struct fbf_counters *c,
		  const struct summary_run *run)
{
	__u64 produced = fbf_events_produced(c);
	__u64 accounted = d->sink->delivered + fbf_events_lost(c);

	account_print("summary", c, d->sink, run, run->elapsed_ns, run->json);
	if (!sinks_balance(d->sink))
		return AGENT_EXIT_UNACCOUNTED;
	/* Detached and the maps taken once more: every frame counted by source was read. */
	if (run->aggregated_read && *run->aggregated_read != c->aggregated) {
		pr_warn("%llu frames counted by source but %llu read\n", c->aggregated,
			*run->aggregated_read);
		return AGENT_EXIT_UNACCOUNTED;
	}
	if (produced == accounted)
		return 0;
	if (d->abandoned && produced > accounted) {
		pr_warn("stopped during the drain: %llu event%s left unread, counted as queued\n",
			produced - accounted, plural_s(produced - accounted));
		return 0;
	}
	pr_warn("%llu event%s produced but %llu delivered or lost, %s by %llu\n", produced,
		plural_s(produced), accounted, produced > accounted ? "short" : "over",
		produced > accounted ? produced - accounted : accounted - produced);
	return AGENT_EXIT_UNACCOUNTED;
}
