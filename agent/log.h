/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Routing of libbpf and libxdp messages to stderr through one level filter. */
#ifndef AGENT_LOG_H
#define AGENT_LOG_H

#include <stdbool.h>

/* Show library warnings, and info and debug output only if @verbose. */
void log_setup(bool verbose);

/*
 * Hold library warnings instead of printing them (unless verbose), until
 * log_release() prints them (@show) or drops them.
 */
void log_hold(void);
void log_release(bool show);

#endif /* AGENT_LOG_H */
