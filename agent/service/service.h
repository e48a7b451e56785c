/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Talking to the service manager, when there is one: readiness, status,
 * stopping and the watchdog, through libsystemd's sd_notify(). Outside a
 * Type=notify unit (no $NOTIFY_SOCKET) every call does nothing.
 */
#ifndef AGENT_SERVICE_H
#define AGENT_SERVICE_H

#include <linux/types.h>

/* Attached and reading (metrics served, if asked for): READY=1 with @status. */
void service_ready(const char *status);

/* What the agent does now, when it changes: STATUS=@status. */
void service_status(const char *status);

/* The last drain begins: STOPPING=1 with @status. */
void service_stopping(const char *status);

/*
 * How often to tell the manager the agent is alive (half its WatchdogSec=,
 * as sd_watchdog_enabled(3) advises), in ns; 0 if it wants no such word.
 */
__u64 service_watchdog_interval_ns(void);

/* WATCHDOG=1: the drain loop is alive. */
void service_watchdog(void);

#endif /* AGENT_SERVICE_H */
