// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * FizzBuzzFibonacci agent: attach the XDP classifier to an interface, print
 * the events it sends, and on the way out detach first, drain the rest and
 * account for every packet and event.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/eventfd.h>
#include <bpf/bpf.h>

#include "fizzbuzzfib.h"
#include "attach.h"
#include "counters_read.h"
#include "drain.h"
#include "escape.h"
#include "exit_codes.h"
#include "ifstate.h"
#include "ifwatch.h"
#include "lock.h"
#include "log.h"
#include "metrics.h"
#include "options.h"
#include "privileges.h"
#include "service.h"
#include "stdfds.h"
#include "xdp_mode.h"
#include "summary.h"
#include "userspace_util.h"

static volatile sig_atomic_t stop_requested;
/* Stop signals so far: one during the last drain cuts it short. */
static volatile sig_atomic_t stop_signals;
static volatile sig_atomic_t stats_requested;
/* Written on every signal, so that a loop asleep in epoll_wait wakes up for it. */
static int signal_wake_fd = -1;

static void signal_wake(void)
{
	__u64 one = 1;
	int saved = errno;

	/* EAGAIN only if the counter is full, when a wake-up is pending already. */
	if (signal_wake_fd >= 0)
		(void)!write(signal_wake_fd, &one, sizeof(one));
	errno = saved;
}

static void on_stop_signal(int signo)
{
	stop_requested = signo;
	stop_signals++;
	signal_wake();
}

static void on_stats_signal(int signo)
{
	stats_requested = signo;
	signal_wake();
}

/*
 * Every signal whose default action would end the agent goes through the
 * same detach, drain and summary as Ctrl-C: a program left attached by a
 * dropped SSH session (SIGHUP) would go on classifying for nobody. Not the
 * signals of a fault in the agent itself (SIGSEGV and the like): returning
 * from those would fault again. SA_RESTART: a write to a slow stdout goes on
 * instead of failing with EINTR and losing the lines; the loop's sleeps
 * (epoll_wait, ppoll) end on a signal whatever the flag says, and the
 * eventfd wakes them when another thread took it.
 */
static void signals_setup(void)
{
	static const int stop_signals[] = {
		SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGALRM, SIGUSR2, SIGIO, SIGPROF, SIGVTALRM,
		SIGXCPU, SIGXFSZ, SIGPWR, SIGSTKFLT,
	};
	struct sigaction sa = { .sa_handler = on_stop_signal, .sa_flags = SA_RESTART };
	size_t i;
	int sig;

	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		sigaction(stop_signals[i], &sa, NULL);
	for (sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		sigaction(sig, &sa, NULL);
	sa.sa_handler = on_stats_signal;
	sigaction(SIGUSR1, &sa, NULL);
	/* A closed stdout shows up as EPIPE and stops the agent cleanly. */
	signal(SIGPIPE, SIG_IGN);
}

/* "queue N events" or "ring buffer B bytes (N events)", for the start line. */
static void transport_describe(const struct attach_spec *spec, char *buf, size_t size)
{
	__u32 bytes;

	if (spec->transport != FBF_TRANSPORT_RINGBUF) {
		snprintf(buf, size, "queue %u events", spec->queue_size);
		return;
	}
	bytes = fbf_ring_bytes(spec->queue_size);
	snprintf(buf, size, "ring buffer %u bytes (%u events)", bytes, fbf_ring_capacity(bytes));
}

/* The interface left for another namespace with the program: take it off over there. */
static int report_moved(struct attachment *att, const struct ifwatch *watch)
{
	char where[128];
	int fd, err;

	fd = bpf_prog_get_fd_by_id(watch->prog_id);
	err = fd < 0 ? -errno : ifwatch_detach_moved(watch, fd, where, sizeof(where));
	if (fd < 0)
		snprintf(where, sizeof(where), "nsid %d", watch->new_nsid);
	else
		close(fd);
	attachment_forget_iface(att);
	if (!err) {
		pr_warn("interface %s moved to network namespace %s; %s detached "
			"from it there\n", att->iface, where, FBF_PROG_NAME);
		return AGENT_EXIT_IFACE_MOVED;
	}
	pr_warn("interface %s moved to network namespace %s with %s attached, "
		"and detaching it there failed: %s; remove it with 'ip -n NAMESPACE link set dev "
		"%s xdp off'\n", att->iface, where, FBF_PROG_NAME, strerror(-err), att->iface);
	return AGENT_EXIT_IFACE_MOVED;
}

/* Returns the exit status the way the live loop ended calls for. */
static int report_end(enum drain_end end, const struct drain *d, struct attachment *att,
		      const struct ifwatch *watch)
{
	switch (end) {
	case DRAIN_SIGNAL:
	case DRAIN_DEADLINE:
	case DRAIN_COUNT:
	case DRAIN_STATS:
	case DRAIN_WATCHDOG:
		return AGENT_EXIT_OK;
	case DRAIN_OUTPUT_CLOSED:
		pr_info("stdout was closed; stopping\n");
		return AGENT_EXIT_OK;
	case DRAIN_OUTPUT_ERROR:
		pr_err("cannot write events to stdout: %s; stopping\n",
		       strerror(d->sink.out.err));
		return AGENT_EXIT_FAILURE;
	case DRAIN_IFACE_GONE:
		pr_err("interface %s (ifindex %d) disappeared, and %s with it\n",
		       att->iface, att->ifindex, FBF_PROG_NAME);
		attachment_forget_iface(att);
		return AGENT_EXIT_IFACE_GONE;
	case DRAIN_IFACE_MOVED:
		return report_moved(att, watch);
	case DRAIN_PROG_REPLACED:
		pr_err("someone replaced or removed %s on %s; stopping, and leaving "
		       "what is attached now alone\n", FBF_PROG_NAME, att->iface);
		attachment_forget_iface(att);
		return AGENT_EXIT_PROG_REPLACED;
	case DRAIN_ERROR:
	default:
		pr_err("cannot read or wait for events from the %s: %s\n",
		       fbf_transport_name(d->transport), strerror(-d->pop_err));
		return AGENT_EXIT_FAILURE;
	}
}

/* A backlog that takes noticeably long to drain (some 30 ms of pops at 3 M/s) is announced. */
#define DRAIN_ANNOUNCE_EVENTS 100000ULL

/* Say that the agent drains, how much, and how to cut it short: it may take seconds. */
static void announce_drain(const struct drain *d, int counters_fd)
{
	struct fbf_counters c;
	__u64 produced, accounted;

	if (fbf_counters_read(counters_fd, &c))
		return;
	produced = fbf_events_produced(&c);
	accounted = d->sink.delivered + fbf_events_lost(&c);
	if (produced < accounted + DRAIN_ANNOUNCE_EVENTS)
		return;
	pr_info("draining the %llu events left in the %s; stop again to leave them unread "
		"(the summary counts them as queued)\n", produced - accounted,
		fbf_transport_name(d->transport));
}

/* The last drain and the summary. Returns 0 or an agent exit status after saying why. */
static int finish(struct drain *d, int counters_fd, const struct summary_run *run)
{
	char status[64 + ESCAPE_IFNAME_SIZE];
	struct fbf_counters c;
	int err, read_err;

	snprintf(status, sizeof(status), "detached from %s; reading the events left", run->iface);
	service_stopping(status);
	announce_drain(d, counters_fd);
	err = drain_settle(d, counters_fd, &c, &read_err);
	if (err) {
		pr_err("cannot read the counters: %s\n", strerror(-err));
		return AGENT_EXIT_FAILURE;
	}
	if (read_err)
		pr_err("cannot read from the event %s: %s\n", fbf_transport_name(d->transport),
		       strerror(-read_err));
	/* The summary still says what is left after a failed read. */
	err = summary_final(d, &c, run);
	return read_err ? AGENT_EXIT_FAILURE : err;
}

int main(int argc, char **argv)
{
	struct attachment att = {};
	struct ifwatch watch = { .nl_fd = -1 };
	struct metrics_server *metrics = NULL;
	struct event_ages ages = {};
	int metrics_fd = -1;
	struct agent_options opts;
	struct stdfds_closed closed;
	struct summary_run run;
	struct iface_lock lock;
	enum drain_end end = DRAIN_SIGNAL;
	struct attach_spec spec;
	struct drain d = {};
	char iface[ESCAPE_IFNAME_SIZE], iface_json[ESCAPE_IFNAME_SIZE];
	char iface_label[ESCAPE_IFNAME_SIZE];
	char transport[96], status[192 + ESCAPE_IFNAME_SIZE];
	struct timespec started;
	bool stale_removed = false;
	int ifindex, ret, err;

	/* For process_start_time_seconds: counters reset when the agent restarts. */
	clock_gettime(CLOCK_REALTIME, &started);
	/* Before anything opens a file, or the lock file could become stdout. */
	if (stdfds_ensure(&closed))
		return AGENT_EXIT_FAILURE;
	options_parse(argc, argv, &opts);
	if (closed.out && !opts.quiet) {
		pr_err("stdout is closed, so the events have nowhere to go; "
		       "redirect it (>/dev/null) or run with --quiet\n");
		return AGENT_EXIT_USAGE;
	}
	log_setup(opts.verbose, opts.json);

	/* The name as given is for the kernel only; people and parsers get it escaped. */
	escape_log(iface, sizeof(iface), opts.iface);
	escape_json(iface_json, sizeof(iface_json), opts.iface);
	escape_label(iface_label, sizeof(iface_label), opts.iface);
	ifindex = if_nametoindex(opts.iface);
	if (!ifindex) {
		pr_err("no interface '%s' in this network namespace; list them "
		       "with 'ip link'\n", iface);
		return AGENT_EXIT_NO_IFACE;
	}
	ret = privileges_check();
	if (ret)
		return ret;

	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	signal_wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	signals_setup();

	/* Before anything is attached: a port in use is a start-up error, nothing to undo. */
	if (opts.metrics) {
		metrics_fd = metrics_listen(opts.metrics);
		if (metrics_fd < 0)
			return AGENT_EXIT_METRICS;
	}
	spec = (struct attach_spec){
		.mode = opts.mode,
		.transport = opts.transport,
		.queue_size = opts.queue_size,
	};
	ret = iface_lock_take(&lock, opts.lock_dir, ifindex, iface);
	if (ret)
		goto cleanup;

	bpffs_ensure();
	ret = stale_remove(ifindex, iface, &lock);
	if (ret)
		goto cleanup;
	stale_removed = true;
	ret = attachment_attach(&att, ifindex, iface, &spec, &lock);
	if (ret)
		goto cleanup;
	run = (struct summary_run){
		.iface = iface,
		.iface_json = iface_json,
		.mode = xdp_mode_name(att.mode),
		.start_ns = fbf_monotonic_ns(),
	};
	err = ifwatch_start(&watch, ifindex, att.mode);
	if (err)
		pr_warn("cannot watch %s for a replaced program or a move "
			"to another namespace: %s\n", iface, strerror(-err));
	transport_describe(&spec, transport, sizeof(transport));
	pr_info("attached %s (prog id %u) to %s (%s mode, %s), %s; stop with Ctrl-C\n",
		FBF_PROG_NAME, xdp_program__id(att.prog), iface, xdp_mode_name(att.mode),
		att.dispatcher ? "libxdp dispatcher" : "no dispatcher", transport);
	ifstate_warn_down(opts.iface, iface);

	d = (struct drain){
		.transport = spec.transport,
		.events_fd = attachment_events_fd(&att),
		.doorbell_fd = attachment_doorbell_fd(&att),
		.reader_asleep = att.obj.reader_asleep,
		.wake_fd = signal_wake_fd,
		.watch = &watch,
		.count = opts.count,
		.deadline_ns = opts.duration_ns ? run.start_ns + opts.duration_ns : 0,
		.stats_interval_ns = opts.stats_interval_ns,
		.next_stats_ns = run.start_ns + opts.stats_interval_ns,
		.stop = &stop_requested,
		.stops = &stop_signals,
		.stats = &stats_requested,
		.watchdog_interval_ns = service_watchdog_interval_ns(),
		.sink.ages = opts.metrics ? &ages : NULL,
	};
	output_init(&d.sink.out, opts.json, opts.quiet);
	err = drain_open(&d);
	if (err) {
		pr_err("cannot read the event %s: %s\n", fbf_transport_name(spec.transport),
		       strerror(-err));
		ret = AGENT_EXIT_FAILURE;
	}
	if (!ret && metrics_fd >= 0) {
		struct metrics_source src = {
			.device = iface_label,
			.transport = fbf_transport_name(spec.transport),
			.mode = run.mode,
			.counters_fd = attachment_counters_fd(&att),
			.prog_fd = attachment_prog_fd(&att),
			.delivered = &d.sink.delivered,
			.start_time_seconds = started.tv_sec + started.tv_nsec / 1e9,
			.ages = &ages,
		};

		metrics = metrics_serve(metrics_fd, opts.metrics, &src);
		metrics_fd = -1;
		if (metrics)
			pr_info("metrics at http://%s/metrics\n", opts.metrics);
		else
			ret = AGENT_EXIT_METRICS;
	}
	if (!ret) {
		snprintf(status, sizeof(status), "%s (prog id %u) on %s, %s mode, %s", FBF_PROG_NAME,
			 xdp_program__id(att.prog), iface, run.mode, transport);
		service_ready(status);
	}
	while (!ret) {
		end = drain_live(&d);
		if (end == DRAIN_WATCHDOG)
			service_watchdog();
		else if (end == DRAIN_STATS)
			ret = summary_running(&d, attachment_counters_fd(&att), &run);
		else
			break;
	}
	if (!ret)
		ret = report_end(end, &d, &att, &watch);

	/* Detached, the program starts no run that could add an event after the drain. */
	err = attachment_detach(&att);
	if (err && !ret)
		ret = err;
	run.elapsed_ns = fbf_monotonic_ns() - run.start_ns;
	err = finish(&d, attachment_counters_fd(&att), &run);
	if (err && !ret)
		ret = err;
	/* The last events printed can fail to reach stdout too: say so once. */
	if (d.sink.out.err && d.sink.out.err != EPIPE && end != DRAIN_OUTPUT_ERROR) {
		pr_err("cannot write events to stdout: %s\n", strerror(d.sink.out.err));
		if (!ret)
			ret = AGENT_EXIT_FAILURE;
	}

cleanup:
	/* The last scrape reads the maps: stop serving before they go. */
	metrics_stop(metrics);
	if (metrics_fd >= 0)
		close(metrics_fd);
	drain_close(&d);
	ifwatch_stop(&watch);
	attachment_close(&att);
	/* Its record names nothing attached any more: leave no file behind. */
	if (stale_removed && !att.attached)
		iface_lock_drop(&lock);
	else
		iface_lock_release(&lock);
	return ret;
}
