// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The sinks the command line asks for: see outputs.h. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/types.h>

#include "base/escape.h"
#include "base/exit_codes.h"
#include "base/log.h"
#include "options.h"
#include "outputs.h"
#include "sinks/event_sink.h"
#include "sinks/output_kind.h"

bool outputs_has(const struct agent_options *opts, const struct output_kind *kind)
{
	const char *rest;
	unsigned int i;

	if (!opts->nr_outputs)
		return kind == &output_stdout && !opts->quiet;
	for (i = 0; i < opts->nr_outputs; i++)
		if (output_kind_of(opts->outputs[i], &rest) == kind)
			return true;
	return false;
}

int outputs_open(struct event_sink *s, const struct agent_options *opts, const char *iface_json,
		 __u64 start_ns)
{
	char host[256], host_json[ESCAPE_IFNAME_SIZE * 4], run_id[FORMAT_ENVELOPE_MAX];
	const struct output_open_args args = {
		.rotate_bytes = opts->output_rotate_bytes,
		.keep = opts->output_keep,
		.nats_stream = opts->nats_stream,
		.nats_replicas = opts->nats_replicas,
		.nats_creds = opts->nats_creds,
		.nats_ca = opts->nats_ca,
		.nats_fail_fast = opts->nats_fail_fast,
		.run_id = run_id,
		/* Several interfaces: their sources counted together, ingressInterface 0. */
		.ifindex = opts->iface ? if_nametoindex(opts->iface) : 0,
	};
	const struct output_kind *kind;
	const char *url, *rest;
	unsigned int i, n;
	struct sink *k;
	int ret, err;

	if (gethostname(host, sizeof(host)))
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = '\0';
	escape_json(host_json, sizeof(host_json), host);
	event_sink_init(s, host_json, iface_json);
	/* Unique to this run, so that a restarted agent's message ids are new ones. */
	snprintf(run_id, sizeof(run_id), "%s.%s.%llx.%d", host_json, iface_json ?: "ifaces",
		 start_ns, getpid());

	n = opts->nr_outputs ? opts->nr_outputs : !opts->quiet;
	for (i = 0; i < n; i++) {
		url = opts->nr_outputs ? opts->outputs[i] : "stdout";
		kind = output_kind_of(url, &rest);
		/* Never NULL: options_parse() allows at most EVENT_SINK_MAX outputs. */
		k = event_sink_add(s);
		ret = kind->open(k, rest, &args);
		if (ret) {
			if (k->ops && k->ops->close)
				k->ops->close(k);
			return ret;
		}
		err = event_sink_start(s, k, kind->name, kind->off_host || opts->json,
				       kind->off_host, opts->output_buffer);
		if (err) {
			pr_err("cannot start the writer of --output %s: %s\n", kind->name,
			       strerror(-err));
			return AGENT_EXIT_FAILURE;
		}
	}
	return 0;
}
