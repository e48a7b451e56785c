// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Names follow Prometheus' conventions: one prefix, base units (seconds),
 * counters end in _total, metadata in _info, the interface as node_exporter
 * labels it, device; run time and count from BPF run-time statistics, as
 * ebpf_exporter exports them.
 */
#include "metrics/metrics.h"

#define PREFIX "fizzbuzzfib_"

static void header(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP " PREFIX "%s %s\n# TYPE " PREFIX "%s %s\n", name, help, name, type);
}

/* A family of one series, labelled with the interface alone. */
static void family(FILE *out, const char *name, const char *type, const char *help,
		   const char *dev, __u64 value)
{
	header(out, name, type, help);
	fprintf(out, PREFIX "%s{device=\"%s\"} %llu\n", name, dev, value);
}

/* The process metrics every Prometheus client library exports, under their usual names. */
static void process_format(FILE *out, const struct process_figures *p)
{
	fprintf(out, "# HELP process_cpu_seconds_total Total user and system CPU time spent "
		"in seconds.\n# TYPE process_cpu_seconds_total counter\n"
		"process_cpu_seconds_total %.2f\n", p->cpu_seconds);
	fprintf(out, "# HELP process_resident_memory_bytes Resident memory size in bytes.\n"
		"# TYPE process_resident_memory_bytes gauge\n"
		"process_resident_memory_bytes %llu\n", p->resident_bytes);
	fprintf(out, "# HELP process_virtual_memory_bytes Virtual memory size in bytes.\n"
		"# TYPE process_virtual_memory_bytes gauge\n"
		"process_virtual_memory_bytes %llu\n", p->virtual_bytes);
	fprintf(out, "# HELP process_open_fds Number of open file descriptors.\n"
		"# TYPE process_open_fds gauge\nprocess_open_fds %llu\n", p->open_fds);
	fprintf(out, "# HELP process_max_fds Maximum number of open file descriptors.\n"
		"# TYPE process_max_fds gauge\nprocess_max_fds %llu\n", p->max_fds);
	fprintf(out, "# HELP process_start_time_seconds Start time of the process since unix "
		"epoch in seconds.\n# TYPE process_start_time_seconds gauge\n"
		"process_start_time_seconds %.2f\n", p->start_time_seconds);
}

/*
 * --aggregate's figures: the per-class totals are classified_total's, and the last
 * interval's per class here. Never a series per source address: up to 65,536 an interval
 * by default and new ones with every address seen, the cardinality Prometheus' own
 * guidance warns against; the top sources are in the agent's output instead.
 */
static void aggregate_format(FILE *out, const struct metrics_snapshot *s)
{
	const struct fbf_counters *c = &s->counters;
	const struct aggregate_figures *f = &s->aggregate;
	const char *dev = s->src->device;
	int i;

	header(out, "aggregate_interval_seconds", "gauge",
	       "How often the per-source counts are taken under --aggregate; 0: events are "
	       "sent instead.");
	fprintf(out, PREFIX "aggregate_interval_seconds{device=\"%s\"} %g\n", dev,
		s->src->aggregate_interval_s);
	header(out, "aggregated_total", "counter",
	       "Frames counted by source in the kernel under --aggregate, by what became of "
	       "them: read by the agent, or not counted by source for want of room in the "
	       "full map (still counted by class).");
	fprintf(out, PREFIX "aggregated_total{device=\"%s\",result=\"read\"} %llu\n", dev,
		f->read);
	fprintf(out, PREFIX "aggregated_total{device=\"%s\",result=\"no_room\"} %llu\n", dev,
		c->no_room);
	family(out, "aggregated_pending", "gauge",
	       "Frames counted by source in the current interval, not yet read.", dev,
	       c->aggregated > f->read ? c->aggregated - f->read : 0);
	family(out, "aggregate_intervals_total", "counter", "Intervals taken under --aggregate.",
	       dev, f->intervals);
	family(out, "aggregate_last_sources", "gauge",
	       "Source addresses counted in the last interval.", dev, f->sources);
	header(out, "aggregate_last_packets", "gauge",
	       "Frames counted by source in the last interval, by class.");
	for (i = FBF_FIZZ; i < FBF_NR_CLASSES; i++)
		fprintf(out, PREFIX "aggregate_last_packets{device=\"%s\",class=\"%s\"} %llu\n",
			dev, fbf_class_key(i), f->packets[i]);
}

/*
 * Several interfaces: each one's share, device="" holding the interfaces gone, so that
 * each family adds up to its agent-wide total, whose device is --iface as given.
 */
static void ifaces_format(FILE *out, const struct metrics_snapshot *s)
{
	const struct ifset_share *sh = s->shares;
	int i, k;

	if (!s->nr_shares)
		return;
	header(out, "iface_packets_total", "counter",
	       "Frames the XDP program saw, by interface; device=\"\": interfaces gone. They add "
	       "up to packets_total.");
	for (i = 0; i < s->nr_shares; i++)
		fprintf(out, PREFIX "iface_packets_total{device=\"%s\"} %llu\n", sh[i].label,
			sh[i].c.packets);
	header(out, "iface_classified_total", "counter",
	       "IPv4 frames by the class of their source, by interface; they add up to "
	       "classified_total.");
	for (i = 0; i < s->nr_shares; i++)
		for (k = 0; k < FBF_NR_CLASSES; k++)
			fprintf(out, PREFIX "iface_classified_total{device=\"%s\",class=\"%s\"} "
				"%llu\n", sh[i].label, fbf_class_key(k), sh[i].c.by_class[k]);
	header(out, "iface_events_total", "counter",
	       "Events by interface: produced, and lost to a full queue or ring or to a "
	       "contended queue.");
	for (i = 0; i < s->nr_shares; i++) {
		fprintf(out, PREFIX "iface_events_total{device=\"%s\",result=\"produced\"} %llu\n",
			sh[i].label, fbf_events_produced(&sh[i].c));
		fprintf(out, PREFIX "iface_events_total{device=\"%s\",result=\"lost_full\"} %llu\n",
			sh[i].label, sh[i].c.queue_full);
		fprintf(out, PREFIX "iface_events_total{device=\"%s\",result=\"lost_busy\"} %llu\n",
			sh[i].label, sh[i].c.queue_busy);
	}
	family(out, "ifaces", "gauge", "Interfaces the agent serves now.", s->src->device,
	       s->nr_shares - 1);
	family(out, "ifaces_vanished_total", "counter",
	       "Interfaces selected that went away (deleted, or moved to another namespace) "
	       "between their link event and the attach.", s->src->device,
	       __atomic_load_n(&s->src->ifaces->vanished, __ATOMIC_RELAXED));
	family(out, "ifaces_lines_unsaid_total", "counter",
	       "Log lines about interfaces attached and gone not said, past the rate the log "
	       "takes; their accounts are said all the same.", s->src->device,
	       __atomic_load_n(&s->src->ifaces->unsaid, __ATOMIC_RELAXED));
	header(out, "iface_info", "gauge",
	       "Always 1: each interface served now, and the XDP mode its program got.");
	for (i = 0; i < s->nr_shares - 1; i++)
		fprintf(out, PREFIX "iface_info{device=\"%s\",mode=\"%s\"} 1\n", sh[i].label,
			sh[i].mode);
}

void metrics_format(FILE *out, const struct metrics_snapshot *s)
{
	const struct fbf_counters *c = &s->counters;
	__u64 cumulative = 0;
	const char *dev = s->src->device;
	int i;

	header(out, "build_info", "gauge",
	       "The agent's version, event transport and XDP mode: its interface's, or over "
	       "several the one asked (auto: each interface's in iface_info).");
	fprintf(out, PREFIX "build_info{version=\"%s\",transport=\"%s\",mode=\"%s\"} 1\n",
		s->version, s->src->transport, s->src->mode);
	header(out, "agent_info", "gauge",
	       "What this agent watches: its interface, event transport, XDP mode and "
	       "sampling (1 event in N sent).");
	fprintf(out, PREFIX "agent_info{device=\"%s\",transport=\"%s\",mode=\"%s\","
		"sample=\"%u\"} 1\n", dev, s->src->transport, s->src->mode, s->src->sample);
	process_format(out, &s->process);

	family(out, "packets_total", "counter", "Frames the XDP program saw.", dev, c->packets);
	family(out, "non_ipv4_total", "counter", "Frames that were not IPv4.", dev, c->non_ipv4);
	family(out, "malformed_total", "counter",
	       "IPv4 or VLAN frames cut short or with a bad header.", dev, c->malformed);

	header(out, "classified_total", "counter", "IPv4 frames by the class of their source.");
	for (i = 0; i < FBF_NR_CLASSES; i++)
		fprintf(out, PREFIX "classified_total{device=\"%s\",class=\"%s\"} %llu\n", dev,
			fbf_class_key(i), c->by_class[i]);

	header(out, "events_total", "counter",
	       "Events produced, by what became of them: read by the agent, or lost to a full "
	       "queue or ring, or to a contended queue.");
	fprintf(out, PREFIX "events_total{device=\"%s\",result=\"delivered\"} %llu\n", dev,
		s->delivered);
	fprintf(out, PREFIX "events_total{device=\"%s\",result=\"lost_full\"} %llu\n", dev,
		c->queue_full);
	fprintf(out, PREFIX "events_total{device=\"%s\",result=\"lost_busy\"} %llu\n", dev,
		c->queue_busy);
	/*
	 * A counter of its own, not a result of events_total: those are what
	 * became of the events produced, so that their sum stays the events
	 * sent and a share lost stays a share of them, sampled or not.
	 */
	family(out, "events_not_sampled_total", "counter",
	       "Events not sent, by design: 1 in N is, under --sample N.", dev, c->not_sampled);
	family(out, "events_queued", "gauge", "Events produced and not yet read or lost.", dev,
	       fbf_events_queued(c, s->delivered));
	header(out, "drain_gap_max_seconds", "gauge",
	       "The longest the agent went without reading events since it started, waits for "
	       "them aside: its timers' and link work's time.");
	fprintf(out, PREFIX "drain_gap_max_seconds{device=\"%s\"} %.6f\n", dev,
		s->drain_gap_max_ns / 1e9);

	ifaces_format(out, s);
	aggregate_format(out, s);

	/* Interval records under --aggregate, events otherwise: what each output took. */
	header(out, "sink_events_total", "counter",
	       "Records (events, or intervals under --aggregate) each output wrote whole or had "
	       "acknowledged, and those it lost: over its buffer, or failed writes.");
	for (i = 0; i < (int)s->nr_sinks; i++) {
		fprintf(out, PREFIX "sink_events_total{device=\"%s\",sink=\"%s\","
			"result=\"delivered\"} %llu\n", dev, s->sinks[i].name,
			s->sinks[i].delivered);
		fprintf(out, PREFIX "sink_events_total{device=\"%s\",sink=\"%s\",result=\"lost\"} "
			"%llu\n", dev, s->sinks[i].name, s->sinks[i].lost);
	}

	header(out, "sink_up", "gauge",
	       "1 while each output's last write succeeded, 0 while its writes fail (/readyz).");
	for (i = 0; i < (int)s->nr_sinks; i++)
		fprintf(out, PREFIX "sink_up{device=\"%s\",sink=\"%s\"} %d\n", dev,
			s->sinks[i].name, !s->sinks[i].write_err);
	family(out, "ifaces_unattached", "gauge",
	       "Interfaces selected and here that do not have the program: refused, or left "
	       "alone for want of a slot (/readyz).", dev, s->unattached);
	header(out, "loop_last_round_timestamp_seconds", "gauge",
	       "When the drain loop last went round, in seconds since the epoch: at least "
	       "every second while it is alive (/healthz).");
	fprintf(out, PREFIX "loop_last_round_timestamp_seconds{device=\"%s\"} %.3f\n", dev,
		s->round_time_seconds);

	header(out, "event_age_seconds", "histogram",
	       "How long events waited in the queue or ring before the agent read them.");
	for (i = 0; i < METRICS_AGE_BUCKETS; i++) {
		cumulative += s->ages.le[i];
		fprintf(out, PREFIX "event_age_seconds_bucket{device=\"%s\",le=\"%g\"} %llu\n", dev,
			metrics_age_bounds_ns[i] / 1e9, cumulative);
	}
	fprintf(out, PREFIX "event_age_seconds_bucket{device=\"%s\",le=\"+Inf\"} %llu\n", dev,
		s->ages.count);
	fprintf(out, PREFIX "event_age_seconds_sum{device=\"%s\"} %.9f\n", dev,
		s->ages.sum_ns / 1e9);
	fprintf(out, PREFIX "event_age_seconds_count{device=\"%s\"} %llu\n", dev, s->ages.count);

	/* BPF run-time statistics are on while they move; 0 until someone enables them. */
	if (!s->run_time_ns && !s->run_cnt)
		return;
	header(out, "prog_run_time_seconds_total", "counter",
	       "Time the XDP program ran, from BPF run-time statistics.");
	fprintf(out, PREFIX "prog_run_time_seconds_total{device=\"%s\"} %.9f\n", dev,
		s->run_time_ns / 1e9);
	family(out, "prog_run_count_total", "counter",
	       "Runs of the XDP program counted by BPF run-time statistics.", dev, s->run_cnt);
}
