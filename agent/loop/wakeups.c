// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The drain loop's polls are shorter than epoll's millisecond timeouts can
 * say, so a timed wait is a ppoll() on the epoll set and then a look at what
 * is ready; an endless one is epoll_wait().
 */
#define _GNU_SOURCE /* ppoll */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <linux/types.h>

#include "loop/wakeups.h"

static int epoll_add(int epoll_fd, int fd, enum wakeup what)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = what };

	return epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

int wakeups_open(struct wakeups *w, int doorbell_fd, int wake_fd, int nl_fd)
{
	int err;

	memset(w, 0, sizeof(*w));
	w->wake_fd = wake_fd;
	w->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (w->epoll_fd < 0)
		return -errno;
	err = ring_reader_open(&w->doorbell, doorbell_fd) ?:
	      epoll_add(w->epoll_fd, doorbell_fd, WAKEUP_DOORBELL);
	if (!err && wake_fd >= 0)
		err = epoll_add(w->epoll_fd, wake_fd, WAKEUP_SIGNAL);
	if (!err && nl_fd >= 0)
		err = epoll_add(w->epoll_fd, nl_fd, WAKEUP_LINK);
	return err;
}

int wakeups_wait(struct wakeups *w, long long timeout_ns)
{
	struct pollfd pfd = { .fd = w->epoll_fd, .events = POLLIN };
	struct epoll_event events[3];
	struct timespec ts;
	__u64 signals;
	int i, n, what = 0;

	if (timeout_ns < 0) {
		n = epoll_wait(w->epoll_fd, events, 3, -1);
	} else {
		ts.tv_sec = timeout_ns / 1000000000LL;
		ts.tv_nsec = timeout_ns % 1000000000LL;
		n = ppoll(&pfd, 1, &ts, NULL);
		if (n > 0)
			n = epoll_wait(w->epoll_fd, events, 3, 0);
	}
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (i = 0; i < n; i++) {
		what |= events[i].data.u32;
		if (events[i].data.u32 == WAKEUP_DOORBELL)
			ring_reader_skip_all(&w->doorbell); /* rung: that is all it says */
		else if (events[i].data.u32 == WAKEUP_SIGNAL &&
			 read(w->wake_fd, &signals, sizeof(signals)) < 0)
			continue; /* only to wake up: the handler set the flag the loop reads */
	}
	return what;
}

void wakeups_close(struct wakeups *w)
{
	ring_reader_close(&w->doorbell);
	if (w->epoll_fd > 0)
		close(w->epoll_fd);
	w->epoll_fd = -1;
}
