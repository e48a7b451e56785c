// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The sinks the command line asks for: see outputs.h. */
#include <errno.h>
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

bool outputs_has(const struct agent_options *opts, enum output_kind kind)
{
	const char *rest;
	unsigned int i;

	if (!opts->nr_outputs)
		return kind == OUTPUT_STDOUT && !opts->quiet;
	for (i = 0; i < opts->nr_outputs; i++)
		if (output_url_kind(opts->outputs[i], &rest) == kind)
			return true;
	return false;
}

/* Open one output into @k: 0, or an exit status after one line. */
static int output_open(struct sink *k, const char *url, const struct agent_options *opts,
		       const char *run_id, const char **kind)
{
	static unsigned int nats_outputs;
	char stream[288];
	const struct sink_nats_options nats = {
		.stream = stream,
		.replicas = opts->nats_replicas,
		.creds = opts->nats_creds,
		.ca = opts->nats_ca,
		.run_id = run_id,
	};
	const char *rest;

	switch (output_url_kind(url, &rest)) {
	case OUTPUT_FILE:
		*kind = "file";
		return sink_file_open(k, rest, opts->output_rotate_bytes, opts->output_keep);
	case OUTPUT_NATS:
		*kind = "nats";
		/* A stream per NATS output, should each need one: NAME, NAME_2, ... */
		if (++nats_outputs == 1)
			snprintf(stream, sizeof(stream), "%s", opts->nats_stream);
		else
			snprintf(stream, sizeof(stream), "%s_%u", opts->nats_stream, nats_outputs);
		return sink_nats_open(k, rest, &nats);
	case OUTPUT_IPFIX:
		*kind = "ipfix";
		/* Several interfaces: their sources counted together, ingressInterface 0. */
		return sink_ipfix_open(k, rest, opts->iface ? if_nametoindex(opts->iface) : 0);
	case OUTPUT_STDOUT:
	default:
		*kind = "stdout";
		return sink_stdout_open(k);
	}
}

int outputs_open(struct event_sink *s, const struct agent_options *opts, const char *iface_json,
		 __u64 start_ns)
{
	char host[256], host_json[ESCAPE_IFNAME_SIZE * 4], run_id[FORMAT_ENVELOPE_MAX];
	const char *url, *kind, *rest;
	unsigned int i, n;
	struct sink *k;
	bool off_host;
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
		k = event_sink_add(s);
		ret = output_open(k, url, opts, run_id, &kind);
		if (ret)
			return ret;
		off_host = output_url_kind(url, &rest) != OUTPUT_STDOUT;
		err = event_sink_start(s, k, kind, off_host || opts->json, off_host,
				       opts->output_buffer);
		if (err) {
			pr_err("cannot start the writer of --output %s: %s\n", kind, strerror(-err));
			return AGENT_EXIT_FAILURE;
		}
	}
	return 0;
}
