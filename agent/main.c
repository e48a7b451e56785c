// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * FizzBuzzFibonacci agent: attach the XDP classifier to an interface, print
 * the events it queues, and on the way out detach first, drain the rest and
 * account for every packet and event.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>

#include "fizzbuzzfib.h"
#include "attach.h"
#include "drain.h"
#include "exit_codes.h"
#include "lock.h"
#include "log.h"
#include "options.h"
#include "privileges.h"
#include "summary.h"

static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int signo)
{
	stop_requested = signo;
}

/* No SA_RESTART: a signal must cut the idle sleep short. */
static void signals_setup(void)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* A closed stdout shows up as EPIPE and stops the agent cleanly. */
	signal(SIGPIPE, SIG_IGN);
}

/* Returns the exit status the way the live loop ended calls for. */
static int report_end(enum drain_end end, const struct drain *d, struct attachment *att)
{
	switch (end) {
	case DRAIN_SIGNAL:
	case DRAIN_DEADLINE:
	case DRAIN_COUNT:
		return AGENT_EXIT_OK;
	case DRAIN_OUTPUT_CLOSED:
		fprintf(stderr, "agent: stdout was closed; stopping\n");
		return AGENT_EXIT_OK;
	case DRAIN_OUTPUT_ERROR:
		fprintf(stderr, "agent: cannot write events to stdout: %s; stopping\n",
			strerror(d->out_err));
		return AGENT_EXIT_FAILURE;
	case DRAIN_IFACE_GONE:
		fprintf(stderr, "agent: interface %s (ifindex %d) disappeared, and %s with it\n",
			att->iface, att->ifindex, FBF_PROG_NAME);
		attachment_forget_iface(att);
		return AGENT_EXIT_IFACE_GONE;
	case DRAIN_ERROR:
	default:
		fprintf(stderr, "agent: cannot pop from the event queue: %s\n",
			strerror(-d->pop_err));
		return AGENT_EXIT_FAILURE;
	}
}

int main(int argc, char **argv)
{
	struct attachment att = {};
	struct agent_options opts;
	struct summary_run run;
	struct iface_lock lock;
	enum drain_end end;
	struct drain d;
	__u64 start_ns;
	int ifindex, ret, err;

	options_parse(argc, argv, &opts);
	log_setup(opts.verbose);

	ifindex = if_nametoindex(opts.iface);
	if (!ifindex) {
		fprintf(stderr, "agent: no interface '%s' in this network namespace; list them "
			"with 'ip link'\n", opts.iface);
		return AGENT_EXIT_NO_IFACE;
	}
	ret = privileges_check();
	if (ret)
		return ret;

	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	signals_setup();

	ret = iface_lock(&lock, ifindex, opts.iface);
	if (ret)
		return ret;

	bpffs_ensure();
	ret = stale_remove(ifindex, opts.iface, &lock);
	if (ret)
		goto cleanup;
	ret = attachment_attach(&att, ifindex, opts.iface, opts.mode, opts.queue_size, &lock);
	if (ret)
		goto cleanup;
	start_ns = monotonic_ns();
	fprintf(stderr, "agent: attached %s to %s (%s mode, %s), queue %u events; "
		"stop with Ctrl-C\n", FBF_PROG_NAME, opts.iface, mode_name(att.mode),
		att.dispatcher ? "libxdp dispatcher" : "no dispatcher", opts.queue_size);

	d = (struct drain){
		.events_fd = attachment_events_fd(&att),
		.ifindex = ifindex,
		.json = opts.json,
		.quiet = opts.quiet,
		.count = opts.count,
		.deadline_ns = opts.duration_ns ? start_ns + opts.duration_ns : 0,
		.stop = &stop_requested,
	};
	end = drain_live(&d);
	ret = report_end(end, &d, &att);

	/* Detached, the program starts no run that could add an event after the drain. */
	err = attachment_detach(&att);
	if (err && !ret)
		ret = err;
	run = (struct summary_run){
		.iface = opts.iface,
		.mode = mode_name(att.mode),
		.elapsed_ns = monotonic_ns() - start_ns,
	};
	err = summary_final(&d, attachment_counters_fd(&att), &run);
	if (err && !ret)
		ret = err;
	/* The last events printed can fail to reach stdout too: say so once. */
	if (d.out_err && d.out_err != EPIPE && end != DRAIN_OUTPUT_ERROR) {
		fprintf(stderr, "agent: cannot write events to stdout: %s\n", strerror(d.out_err));
		if (!ret)
			ret = AGENT_EXIT_FAILURE;
	}

cleanup:
	attachment_close(&att);
	iface_unlock(&lock);
	return ret;
}
