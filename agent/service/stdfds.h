/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Standard file descriptors that are closed when the agent starts. */
#ifndef AGENT_STDFDS_H
#define AGENT_STDFDS_H

#include <stdbool.h>

/*
 * Open /dev/null on each of fds 0, 1 and 2 that is closed, and say whether
 * stdout was (*@out_closed). Call it before anything opens a file: the first
 * file opened takes the lowest free fd, and a lock file on fd 1 would receive
 * the events. Returns 0 or -errno if /dev/null cannot be opened.
 */
int stdfds_ensure(bool *out_closed);

#endif /* AGENT_STDFDS_H */
