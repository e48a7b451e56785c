/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Signals as the agent takes them: every one whose default would end it
 * asks it to stop (detach, drain, summary), SIGUSR1 for the running
 * counters; each also wakes a loop asleep in epoll through an eventfd. The
 * handlers only set these flags; the drain loop reads them.
 */
#ifndef AGENT_SIGNALS_H
#define AGENT_SIGNALS_H

#include <signal.h>
#include <stdbool.h>

/* The last stop signal's number; 0 while none came. */
extern volatile sig_atomic_t signals_stop;
/* Stop signals so far: one during the last drain cuts it short. */
extern volatile sig_atomic_t signals_stops;
/* Set by SIGUSR1: running counters now. The loop clears it. */
extern volatile sig_atomic_t signals_stats;
/* Set by SIGHUP where it reopens the output files. The loop clears it. */
extern volatile sig_atomic_t signals_reopen;
/* Readable after every signal, so that a loop asleep in epoll_wait wakes for it; -1: none. */
extern int signals_wake_fd;

/*
 * Install the handlers and make signals_wake_fd; SIGPIPE is ignored (EPIPE
 * ends the run). With @hup_reopens (a file output), SIGHUP reopens the
 * files, as logrotate's postrotate asks, instead of stopping the agent.
 */
void signals_setup(bool hup_reopens);

#endif /* AGENT_SIGNALS_H */
