/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Talking to the service manager, when there is one: readiness, status,
 * stopping and the watchdog, through libsystemd's sd_notify(). Outside a
 * Type=notify unit (no $NOTIFY_SOCKET) every call does nothing.
 */
#ifndef AGENT_SERVICE_H
#define AGENT_SERVICE_H

#include <linux/types.h>

/*
 * Tell the manager @state ("READY=1": attached and reading, metrics served
 * if asked for; "STOPPING=1": the last drain begins; "WATCHDOG=1": the drain
 * loop is alive) with STATUS=@status, what the agent does now, unless NULL;
 * a NULL @state says the status alone, when it changes.
 */
void service_notify(const char *state, const char *status);

/*
 * How often to tell the manager the agent is alive (half its WatchdogSec=,
 * as sd_watchdog_enabled(3) advises), in ns; 0 if it wants no such word.
 */
__u64 service_watchdog_interval_ns(void);

#endif /* AGENT_SERVICE_H */
