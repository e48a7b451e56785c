// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * With patterns, the links are followed on a thread of their own: an
 * attach loads and verifies a program (tens of milliseconds on a loaded
 * host, more behind libxdp's dispatcher), a deleted interface waits out a
 * grace period, and a burst of pods brings hundreds of each. On the drain's
 * thread that was as long without reading events, and the scrapes waited
 * on the set's lock meanwhile. Here the drain's thread only hears, on an
 * eventfd, that the set changed (its status line, the outputs' names of a
 * member renamed) or that this thread ended on a failure.
 */
#include <errno.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "base/exit_codes.h"
#include "base/log.h"
#include "base/thread_name.h"
#include "iface/ifset.h"
#include "userspace_util.h"

static void tell(int fd)
{
	__u64 one = 1;

	/* Fails only when the count would overflow: then it is told already. */
	if (write(fd, &one, sizeof(one)) < 0)
		return;
}

/* How long poll() may wait, in ms: until ifset_links_due_ns(), rounded up; -1: no end. */
static int until_due(const struct ifset *s)
{
	__u64 due = ifset_links_due_ns(s), now = fbf_monotonic_ns();

	if (!due)
		return -1;
	return due <= now ? 0 : (int)((due - now + 999999) / 1000000);
}

static void *link_thread(void *arg)
{
	struct ifset *s = arg;
	struct pollfd p[2] = {
		{ .fd = s->watch.fd, .events = POLLIN },
		{ .fd = s->stop_fd, .events = POLLIN },
	};
	bool worked = false;
	int ret = 0, timeout;

	thread_name_self("links");
	for (;;) {
		timeout = until_due(s);
		/*
		 * Idle after work: what the attaches allocated on this thread's
		 * arena goes back, so that RSS follows the interfaces served, not
		 * the bursts seen.
		 */
		if (timeout < 0 && worked) {
			malloc_trim(0);
			worked = false;
		}
		if (poll(p, 2, timeout) < 0 && errno != EINTR) {
			pr_err("cannot wait for link events: %s\n", strerror(errno));
			ret = AGENT_EXIT_FAILURE;
			break;
		}
		if (p[1].revents)
			break;
		/* In slices, so that a stop is heard within one however long the burst. */
		ret = ifset_follow_until(s, fbf_monotonic_ns() + IFSET_FOLLOW_SLICE_NS);
		tell(s->changed_fd);
		worked = true;
		if (ret)
			break;
	}
	__atomic_store_n(&s->thread_end, ret, __ATOMIC_RELEASE);
	tell(s->changed_fd);
	return NULL;
}

int ifset_thread_start(struct ifset *s)
{
	sigset_t all, old;
	int err;

	if (s->one)
		return 0;
	s->changed_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	s->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (s->changed_fd < 0 || s->stop_fd < 0) {
		pr_err("cannot make the link thread's eventfds: %s\n", strerror(errno));
		return agent_exit_for_errno(-errno);
	}
	/* Signals are the drain's thread's: it sets the flags and wakes itself. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	s->threaded = true;
	err = pthread_create(&s->thread, NULL, link_thread, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		s->threaded = false;
		pr_err("cannot start the thread that follows the links: %s\n", strerror(err));
		return agent_exit_for_errno(-err);
	}
	return 0;
}

void ifset_thread_stop(struct ifset *s)
{
	if (s->threaded) {
		tell(s->stop_fd);
		pthread_join(s->thread, NULL);
		s->threaded = false;
	}
	if (s->changed_fd >= 0)
		close(s->changed_fd);
	if (s->stop_fd >= 0)
		close(s->stop_fd);
	s->changed_fd = s->stop_fd = -1;
}

int ifset_thread_sync(struct ifset *s)
{
	__u64 told;

	if (read(s->changed_fd, &told, sizeof(told)) < 0 && errno != EAGAIN)
		return AGENT_EXIT_FAILURE;
	return __atomic_load_n(&s->thread_end, __ATOMIC_ACQUIRE);
}
