/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The sinks the command line asks for (--output, --quiet), opened before anything attaches. */
#ifndef AGENT_OUTPUTS_H
#define AGENT_OUTPUTS_H

#include <stdbool.h>

#include "sinks/output_kind.h"

struct agent_options;
struct event_sink;

/* Whether one of the outputs is of @kind (stdout: also with no --output, unless --quiet). */
bool outputs_has(const struct agent_options *opts, const struct output_kind *kind);

/*
 * Open and start every output into @s, whose lines that leave the host
 * name this host and @iface_json. 0, or an exit status after one line.
 */
int outputs_open(struct event_sink *s, const struct agent_options *opts, const char *iface_json,
		 __u64 start_ns);

#endif /* AGENT_OUTPUTS_H */
