// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <signal.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <linux/types.h>

#include "service/signals.h"

volatile sig_atomic_t signals_stop;
volatile sig_atomic_t signals_stops;
volatile sig_atomic_t signals_stats;
volatile sig_atomic_t signals_reopen;
int signals_wake_fd = -1;

/* Set once by signals_setup(), before any handler is installed. */
static volatile sig_atomic_t reopen_on_hup;

static void on_signal(int signo)
{
	__u64 one = 1;
	int saved = errno;

	if (signo == SIGUSR1) {
		signals_stats = signo;
	} else if (signo == SIGHUP && reopen_on_hup) {
		signals_reopen = signo;
	} else {
		signals_stop = signo;
		signals_stops++;
	}
	/* EAGAIN only if the counter is full, when a wake-up is pending already. */
	if (signals_wake_fd >= 0)
		(void)!write(signals_wake_fd, &one, sizeof(one));
	errno = saved;
}

/*
 * A program left attached by a dropped SSH session (SIGHUP) would go on
 * classifying for nobody. Not the signals of a fault in the agent itself
 * (SIGSEGV and the like): returning from those would fault again.
 * SA_RESTART: the loop's own calls go on instead of failing with EINTR; its
 * sleeps (epoll_wait, ppoll) end on a signal whatever the flag says, and the
 * eventfd wakes them when another thread took it. The outputs' writer
 * threads block every signal, so a write stalled on a slow reader never
 * holds one up.
 */
void signals_setup(bool hup_reopens)
{
	static const int stops[] = {
		SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGALRM, SIGUSR2, SIGIO, SIGPROF, SIGVTALRM,
		SIGXCPU, SIGXFSZ, SIGPWR, SIGSTKFLT,
	};
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
	size_t i;
	int sig;

	reopen_on_hup = hup_reopens;
	signals_wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(stops) / sizeof(stops[0]); i++)
		sigaction(stops[i], &sa, NULL);
	for (sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		sigaction(sig, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}
