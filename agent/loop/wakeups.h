/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What wakes the drain loop besides its own timer: the program's doorbell
 * (rung only while the loop has said it sleeps), link events (linkwatch.h)
 * and signals (an eventfd the handler writes). One epoll set for all.
 */
#ifndef AGENT_WAKEUPS_H
#define AGENT_WAKEUPS_H

#include "ring_reader.h"

enum wakeup {
	WAKEUP_DOORBELL = 1,
	WAKEUP_LINK = 2,
	WAKEUP_SIGNAL = 4,
};

struct wakeups {
	int epoll_fd;
	int wake_fd;
	struct ring_reader doorbell;
};

/* @wake_fd and @nl_fd may be -1: none. 0 or -errno. */
int wakeups_open(struct wakeups *w, int doorbell_fd, int wake_fd, int nl_fd);

/*
 * Sleep until something wakes the loop or @timeout_ns have passed (-1: no
 * timeout; a plain epoll_wait then, so an idle agent has no timer at all).
 * Returns the enum wakeup bits of what came, 0 if nothing did (time up, or
 * a signal whose flag the loop reads), or -errno. Doorbells and signals are
 * taken; link events are left for linkwatch to read.
 */
int wakeups_wait(struct wakeups *w, long long timeout_ns);

/* Safe on one that failed to open. */
void wakeups_close(struct wakeups *w);

#endif /* AGENT_WAKEUPS_H */
