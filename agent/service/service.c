// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A failed notification is only logged at debug level: the agent's job does
 * not depend on it, and a unit whose manager misses READY=1 or WATCHDOG=1
 * fails visibly on its own.
 */
#include <string.h>
#include <systemd/sd-daemon.h>

#include "base/log.h"
#include "service/service.h"

void service_notify(const char *state, const char *status)
{
	int err;

	if (!state)
		err = sd_notifyf(0, "STATUS=%s", status);
	else if (status)
		err = sd_notifyf(0, "%s\nSTATUS=%s", state, status);
	else
		err = sd_notify(0, state);
	if (err < 0)
		pr_debug("cannot notify the service manager (%s): %s\n", state ?: "STATUS",
			 strerror(-err));
}

__u64 service_watchdog_interval_ns(void)
{
	uint64_t usec = 0;

	/* 0 (not asked for, or not for this process) or 1 with the interval. */
	if (sd_watchdog_enabled(0, &usec) <= 0)
		return 0;
	return usec * 1000 / 2;
}
