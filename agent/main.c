// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * FizzBuzzFibonacci agent: attach the XDP classifier to the interfaces
 * --iface selects, one or many alike (iface/ifset.h), print the events it
 * sends, and on the way out detach first, drain the rest and account for
 * every packet and event.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/resource.h>

#include "fizzbuzzfib.h"
#include "loop/aggregate.h"
#include "iface/attach.h"
#include "counters_read.h"
#include "loop/drain.h"
#include "base/escape.h"
#include "base/exit_codes.h"
#include "iface/ifstate.h"
#include "iface/ifselect.h"
#include "iface/ifset.h"
#include "iface/leftover.h"
#include "base/log.h"
#include "metrics/metrics.h"
#include "options.h"
#include "service/privileges.h"
#include "service/service.h"
#include "service/signals.h"
#include "service/stdfds.h"
#include "outputs.h"
#include "loop/summary.h"
#include "userspace_util.h"
#include "transports/transport_memory.h"

/*
 * "queue N events" or "ring buffer B bytes (N events)", with @memory "per CPU
 * on C CPUs (kernel memory of all of them)" after it, then ", 1 event in S
 * sampled" if sampling: for the start line with @memory, and the service
 * manager's status without; or what --aggregate counts.
 */
static void transport_describe(const struct attach_spec *spec, const struct agent_options *opts,
			       bool memory, char *buf, size_t size)
{
	__u32 bytes = fbf_ring_bytes(spec->queue_size);
	struct transport_memory mem = {};
	char total[32], per_cpu[80] = "";
	int n;

	if (memory && !transport_memory(spec->transport, spec->queue_size, &mem)) {
		transport_memory_format(mem.total, total, sizeof(total));
		snprintf(per_cpu, sizeof(per_cpu), " per CPU on %d CPUs (%s)", mem.cpus, total);
	}
	if (spec->max_sources)
		n = snprintf(buf, size, "packets counted per source for up to %u source%s, "
			     "reported every %g s", spec->max_sources, plural_s(spec->max_sources),
			     opts->aggregate_ns / 1e9);
	else if (spec->transport != FBF_TRANSPORT_RINGBUF)
		n = snprintf(buf, size, "queue %u event%s%s", spec->queue_size,
			     plural_s(spec->queue_size), per_cpu);
	else
		n = snprintf(buf, size, "ring buffer %u bytes (%u events)%s", bytes,
			     fbf_ring_capacity(bytes), per_cpu);
	if (spec->sample > 1 && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - n, ", 1 event in %u sampled", spec->sample);
}

/* Returns the exit status the way the live loop ended calls for. */
static int report_end(enum drain_end end, const struct drain *d)
{
	switch (end) {
	case DRAIN_OUTPUT_CLOSED:
		pr_info("stdout was closed; stopping\n");
		return AGENT_EXIT_OK;
	case DRAIN_OUTPUT_ERROR:
		pr_err("cannot write events to stdout: %s; stopping\n",
		       strerror(event_sink_end_err(d->sink)));
		return AGENT_EXIT_FAILURE;
	case DRAIN_ERROR:
		pr_err("cannot read or wait for events from the %s: %s\n",
		       fbf_transport_name(d->transport), strerror(-d->pop_err));
		return AGENT_EXIT_FAILURE;
	default:
		return AGENT_EXIT_OK;
	}
}

/*
 * A stop during the drain says not to wait: the outputs get this long to write
 * what they hold (a file takes microseconds), the rest is lost.
 */
#define OUTPUT_TIMEOUT_ABANDONED_NS 200000000ULL

/* A backlog that takes noticeably long to drain (some 30 ms of pops at 3 M/s) is announced. */
#define DRAIN_ANNOUNCE_EVENTS 100000ULL

/* Say that the agent drains, how much, and how to cut it short: it may take seconds. */
static void announce_drain(const struct drain *d, int counters_fd)
{
	struct fbf_counters c;
	__u64 queued;

	if (fbf_counters_read(counters_fd, &c))
		return;
	queued = fbf_events_queued(&c, d->sink->delivered);
	if (queued < DRAIN_ANNOUNCE_EVENTS)
		return;
	pr_info("draining the %llu events left in the %s; stop again to leave them unread "
		"(the summary counts them as queued)\n", queued,
		fbf_transport_name(d->transport));
}

/*
 * The last drain, under --aggregate the last interval (@ag, or NULL), the
 * outputs' last writes within @output_timeout_ns, and the summary. Returns
 * 0 or an agent exit status after saying why.
 */
static int finish(struct drain *d, struct aggregate *ag, int counters_fd,
		  const struct summary_run *run, __u64 output_timeout_ns)
{
	char status[64 + ESCAPE_IFNAME_SIZE];
	struct fbf_counters c;
	int err, read_err;

	snprintf(status, sizeof(status), "detached from %s; reading the events left", run->iface);
	service_notify("STOPPING=1", status);
	/* Its swap waits out every run of the program still under way: the counts are final. */
	if (ag) {
		err = aggregate_report(ag, counters_fd, d->sink);
		if (err)
			return err;
	}
	announce_drain(d, counters_fd);
	err = drain_settle(d, counters_fd, &c, &read_err);
	if (err) {
		pr_err("cannot read the counters: %s\n", strerror(-err));
		return AGENT_EXIT_FAILURE;
	}
	if (read_err)
		pr_err("cannot read from the event %s: %s\n", fbf_transport_name(d->transport),
		       strerror(-read_err));
	if (d->abandoned && output_timeout_ns > OUTPUT_TIMEOUT_ABANDONED_NS)
		output_timeout_ns = OUTPUT_TIMEOUT_ABANDONED_NS;
	event_sink_stop(d->sink, fbf_monotonic_ns() + output_timeout_ns, d->stops, *d->stops);
	/* The summary still says what is left after a failed read. */
	err = summary_final(d, &c, run);
	return read_err ? AGENT_EXIT_FAILURE : err;
}

/* Everything the agent holds from start to exit, so each step of its life can be a function. */
struct agent {
	struct agent_options opts;
	char iface[ESCAPE_IFNAME_SIZE];		/* --iface as logs show it */
	char iface_json[ESCAPE_IFNAME_SIZE];	/* ... as JSON strings hold it */
	char iface_label[ESCAPE_IFNAME_SIZE];	/* ... as Prometheus labels hold it */
	struct timespec started;		/* CLOCK_REALTIME, for process_start_time_seconds */
	int metrics_fd;				/* listening, not yet served; -1: none */
	struct metrics_server *metrics;
	struct health health;			/* /healthz and /readyz */
	struct event_ages ages;
	struct attach_spec spec;
	struct attachment att;			/* the maps every interface's program shares */
	struct ifset set;			/* the interfaces --iface selects */
	unsigned int status_attached;		/* ... how many the manager was last told */
	struct aggregate ag;			/* --aggregate */
	bool aggregating;			/* ... and ag is open */
	char transport[128];			/* "queue 4096 events", for the status */
	struct summary_run run;
	struct event_sink sink;			/* where events go: --output */
	struct drain d;
	enum drain_end end;			/* why the live loop ended */
};

/* --detach: what dead agents left on every interface selected, the first this many. */
#define IFSELECT_DETACH_MAX 1024

static int leftovers_remove(const struct agent_options *opts)
{
	char shown[ESCAPE_IFNAME_SIZE];
	struct if_nameindex *all, *i;
	int n = 0, err, ret = 0;

	leftovers_sweep(opts->lock_dir, &opts->ifaces);
	all = if_nameindex();
	if (!all) {
		pr_err("cannot list the interfaces: %s\n", strerror(errno));
		return AGENT_EXIT_FAILURE;
	}
	for (i = all; i->if_index; i++) {
		if (!ifselect_match(&opts->ifaces, i->if_name) || ++n > IFSELECT_DETACH_MAX)
			continue;
		escape_log(shown, sizeof(shown), i->if_name);
		err = leftover_remove(opts->lock_dir, if_nametoindex(i->if_name), shown);
		ret = ret ?: err;
	}
	if (n > IFSELECT_DETACH_MAX)
		pr_warn("--iface matches %d interfaces; --detach looked at the first %d\n", n,
			IFSELECT_DETACH_MAX);
	if_freenameindex(all);
	return ret;
}

/*
 * Before anything is attached, so that a failure, a port in use or a NATS
 * server out of reach included, has nothing to undo; --detach needs only the
 * options, the interface, the privileges and signals.
 * Returns 0 or an exit status after saying why.
 */
static int agent_setup(struct agent *a, int argc, char **argv)
{
	struct agent_options *opts = &a->opts;
	bool out_closed;
	int ret;

	clock_gettime(CLOCK_REALTIME, &a->started);
	/* Before anything opens a file, or the lock file could become stdout. */
	if (stdfds_ensure(&out_closed))
		return AGENT_EXIT_FAILURE;
	options_parse(argc, argv, opts);
	/* Before the first log line: under --json each is an object. */
	log_setup(opts->verbose, opts->json);
	if (out_closed && outputs_has(opts, &output_stdout)) {
		pr_err("stdout is closed, so the events have nowhere to go; "
		       "redirect it (>/dev/null) or run with --quiet\n");
		return AGENT_EXIT_USAGE;
	}
	/* The names as given are for the kernel only; people and parsers get them escaped. */
	escape_log(a->iface, sizeof(a->iface), opts->iface_given);
	escape_json(a->iface_json, sizeof(a->iface_json), opts->iface_given);
	escape_label(a->iface_label, sizeof(a->iface_label), opts->iface_given);
	ret = opts->detach ? 0 : ifset_check(&opts->ifaces);
	if (ret)
		return ret;
	ret = privileges_check();
	if (ret)
		return ret;

	signals_setup(outputs_has(opts, &output_file));
	if (opts->detach)
		return 0;

	if (opts->metrics) {
		a->metrics_fd = metrics_listen(opts->metrics);
		if (a->metrics_fd < 0)
			return AGENT_EXIT_METRICS;
	}
	ret = outputs_open(&a->sink, opts, ifset_run_name(&opts->ifaces, a->iface_json),
			   fbf_monotonic_ns());
	if (ret)
		return ret;
	a->spec = (struct attach_spec){
		.mode = opts->mode,
		.transport = opts->transport,
		/* --aggregate sends no events: each CPU's map the least the kernel takes. */
		.queue_size = opts->aggregate_ns ? AGENT_QUEUE_SIZE_MIN : opts->queue_size,
		.sample = opts->sample,
		.max_sources = opts->aggregate_ns ? opts->max_sources : 0,
	};
	return 0;
}

/*
 * The maps once, then a copy of the program on every interface --iface
 * selects, as they come (iface/ifset.h). Returns 0 (serving however many
 * there are now, none included for patterns), or an exit status after
 * saying why.
 */
static int agent_attach(struct agent *a)
{
	__u32 slots = ifset_slots(&a->opts.ifaces, a->opts.max_ifaces);
	char line[sizeof(a->transport) + 80];
	struct rlimit nofile;
	int ret;

	/* Each interface's program holds a dozen descriptors for the maps, each scrape one more. */
	if (!getrlimit(RLIMIT_NOFILE, &nofile) && nofile.rlim_cur < nofile.rlim_max) {
		nofile.rlim_cur = nofile.rlim_max;
		setrlimit(RLIMIT_NOFILE, &nofile);
	}
	bpffs_ensure();
	ret = attachment_maps_open(&a->att, &a->spec, slots);
	if (ret)
		return ret;
	a->set = (struct ifset){
		.sel = &a->opts.ifaces,
		.spec = &a->spec,
		.lock_dir = a->opts.lock_dir,
		.maps = &a->att,
		.slots = slots,
		.caught_up = &a->d.caught_up,
		.json = a->opts.json,
		.account = summary_iface,
	};
	/* What no interface it selects leads to: a killed agent's, gone or renamed out. */
	leftovers_sweep(a->opts.lock_dir, &a->opts.ifaces);
	ret = ifset_open(&a->set);
	if (ret) {
		/* Some may have been taken before the failure: nothing stays attached. */
		ifset_detach(&a->set);
		return ret;
	}
	ifset_name_events(&a->set, &a->sink);
	a->run = (struct summary_run){
		.iface = a->iface,
		.iface_json = a->iface_json,
		.mode = ifset_mode_name(&a->set),
		.json = a->opts.json,
		.start_ns = fbf_monotonic_ns(),
	};
	transport_describe(&a->spec, &a->opts, true, line, sizeof(line));
	ifset_say_started(&a->set, a->iface, line);
	transport_describe(&a->spec, &a->opts, false, a->transport, sizeof(a->transport));
	return 0;
}

/*
 * For the service manager: the interfaces the agent serves, and how; with
 * READY=1 once attached (@ready), then each time the count changes. Returns 0.
 */
static int status_say(struct agent *a, bool ready)
{
	char status[192 + ESCAPE_IFNAME_SIZE];

	if (!ready && ifset_attached(&a->set) == a->status_attached)
		return 0;
	a->status_attached = ifset_attached(&a->set);
	ifset_status(&a->set, a->iface, a->transport, status, sizeof(status));
	service_notify(ready ? "READY=1" : NULL, status);
	return 0;
}

/* The loop came round: say so to /healthz, and what of the selection is not served. */
static void health_say(struct agent *a)
{
	char why[sizeof(a->health.why)];
	unsigned int n;

	if (a->metrics_fd < 0 && !a->metrics)
		return;
	n = ifset_unattached(&a->set, why, sizeof(why));
	health_beat(&a->health, n, !n && !ifset_attached(&a->set), why);
}

/* Attached: open the reader, serve metrics, tell the service manager. 0 or an exit status. */
static int agent_serve(struct agent *a)
{
	const struct agent_options *opts = &a->opts;
	struct drain *d = &a->d;
	int err;

	*d = (struct drain){
		.transport = a->spec.transport,
		.events_fd = bpf_map__fd(a->att.obj.events),
		.spare_fd = bpf_map__fd(a->att.obj.events_spare),
		.doorbell_fd = bpf_map__fd(a->att.obj.doorbell),
		.reader_asleep = a->att.obj.reader_asleep,
		.wake_fd = signals_wake_fd,
		.links_fd = ifset_fd(&a->set),
		.count = opts->count,
		.deadline_ns = opts->duration_ns ? a->run.start_ns + opts->duration_ns : 0,
		.stats_interval_ns = opts->stats_interval_ns,
		.next_stats_ns = a->run.start_ns + opts->stats_interval_ns,
		.aggregate_interval_ns = opts->aggregate_ns,
		.next_aggregate_ns = a->run.start_ns + opts->aggregate_ns,
		.stop = &signals_stop,
		.stops = &signals_stops,
		.stats = &signals_stats,
		.reopen = &signals_reopen,
		.sink = &a->sink,
		/* With metrics the loop comes round for /healthz too, however quiet. */
		.watchdog_interval_ns = opts->metrics ?
			health_interval_ns(service_watchdog_interval_ns()) :
			service_watchdog_interval_ns(),
	};
	a->sink.ages = opts->metrics ? &a->ages : NULL;
	err = drain_open(d);
	if (err) {
		pr_err("cannot read the event %s: %s\n", fbf_transport_name(d->transport),
		       strerror(-err));
		return AGENT_EXIT_FAILURE;
	}
	if (a->spec.max_sources) {
		err = aggregate_open(&a->ag, &a->att.obj, a->spec.max_sources, opts->top,
				     a->run.start_ns);
		if (err) {
			pr_err("cannot read the per-source counts: %s\n", strerror(-err));
			return AGENT_EXIT_FAILURE;
		}
		a->aggregating = true;
		a->run.aggregated_read = &a->ag.figures.read;
	}
	if (a->metrics_fd >= 0) {
		struct metrics_source src = {
			.device = a->iface_label,
			.transport = fbf_transport_name(d->transport),
			.mode = a->run.mode,
			.sample = opts->sample,
			.counters_fd = bpf_map__fd(a->att.obj.counters),
			.prog_fd = ifset_prog_fd(&a->set),
			.sinks = &a->sink,
			.start_time_seconds = a->started.tv_sec + a->started.tv_nsec / 1e9,
			.aggregate_interval_s = opts->aggregate_ns / 1e9,
			.aggregate = a->aggregating ? &a->ag.figures : NULL,
			.ifaces = ifset_shared(&a->set),
			.health = &a->health,
			.drain_gap_max_ns = &d->gap_max_ns,
		};

		health_say(a);
		a->metrics = metrics_serve(a->metrics_fd, opts->metrics, &src);
		a->metrics_fd = -1;
		if (!a->metrics)
			return AGENT_EXIT_METRICS;
		pr_info("metrics at http://%s/metrics\n", opts->metrics);
	}
	return status_say(a, true);
}

/* One slice of link work, and when the next is due if the socket does not say. */
static int links_follow(struct agent *a)
{
	int ret = ifset_follow(&a->set);

	a->d.links_due_ns = ifset_due_ns(&a->set);
	return ret ?: status_say(a, false);
}

/* Print events until a reason to stop. Returns the exit status that reason calls for. */
static int agent_run(struct agent *a)
{
	int ret = 0;

	for (;;) {
		health_say(a);
		a->end = drain_live(&a->d);
		if (a->end == DRAIN_WATCHDOG)
			service_notify("WATCHDOG=1", NULL);
		else if (a->end == DRAIN_STATS)
			ret = summary_running(&a->d, bpf_map__fd(a->att.obj.counters), &a->run);
		else if (a->end == DRAIN_AGGREGATE)
			ret = aggregate_report(&a->ag, bpf_map__fd(a->att.obj.counters),
					       &a->sink);
		else if (a->end == DRAIN_LINKS)
			ret = links_follow(a);
		else
			break;
		if (ret)
			return ret;
	}
	return report_end(a->end, &a->d);
}

/*
 * Detach first, so that the program starts no run that could add an event
 * after the last drain; then drain and account. Returns @ret, or the first
 * failure of these if @ret is 0.
 */
static int agent_stop(struct agent *a, int ret)
{
	int err;

	err = ifset_detach(&a->set);
	ret = ret ?: err;
	a->run.elapsed_ns = fbf_monotonic_ns() - a->run.start_ns;
	err = finish(&a->d, a->aggregating ? &a->ag : NULL, bpf_map__fd(a->att.obj.counters),
		     &a->run, a->opts.output_timeout_ns);
	ret = ret ?: err;
	ifset_account(&a->set);
	/* The last events printed can fail to reach stdout too: say so once. */
	err = event_sink_end_err(&a->sink);
	if (err && err != EPIPE && a->end != DRAIN_OUTPUT_ERROR) {
		pr_err("cannot write events to stdout: %s\n", strerror(err));
		if (!ret)
			ret = AGENT_EXIT_FAILURE;
	}
	return ret;
}

/* Release everything, however far the agent got. */
static void agent_cleanup(struct agent *a)
{
	/* The last scrape reads the maps: stop serving before they go. */
	metrics_stop(a->metrics);
	if (a->metrics_fd >= 0)
		close(a->metrics_fd);
	drain_close(&a->d);
	event_sink_free(&a->sink);
	if (a->aggregating)
		aggregate_close(&a->ag);
	/* Set up for ifset_open(), which makes it safe to close from its first line. */
	if (a->set.slots)
		ifset_close(&a->set);
	attachment_close(&a->att);
}

int main(int argc, char **argv)
{
	struct agent a = {
		.metrics_fd = -1,
		.health.lock = PTHREAD_MUTEX_INITIALIZER,
		.end = DRAIN_SIGNAL,
	};
	int ret;

	ret = agent_setup(&a, argc, argv);
	if (ret || a.opts.detach) {
		ret = ret ?: leftovers_remove(&a.opts);
		ifselect_free(&a.opts.ifaces);
		return ret;
	}
	ret = agent_attach(&a);
	if (!ret)
		ret = agent_stop(&a, agent_serve(&a) ?: agent_run(&a));
	agent_cleanup(&a);
	ifselect_free(&a.opts.ifaces);
	/*
	 * An output's writer still stuck in a write (counted lost already) must
	 * not meet the libraries' exit handlers: leave without them.
	 */
	if (event_sink_stuck(&a.sink))
		_exit(ret);
	return ret;
}
