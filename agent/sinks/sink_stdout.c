// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Events on stdout, text or JSON lines (today's output, the default sink).
 * stdout is the agent's own channel: when its reader goes away or a write
 * fails, the run ends (exit status 0 for a closed pipe, 1 otherwise), after
 * counting what did not reach it.
 */
#include <errno.h>
#include <unistd.h>
#include <sys/stat.h>

#include "base/exit_codes.h"
#include "sinks/fd_write.h"
#include "sinks/output_kind.h"
#include "sinks/sink.h"

/* stdout is a pipe or a socket: one process has one stdout. */
static bool stdout_atomic_pieces;

static int stdout_write(struct sink *s, struct sink_chunk *c)
{
	int err;

	/* After a failure, nothing more: the run is ending, and each try would fail again. */
	if (sink_end_err(s))
		return -sink_end_err(s);
	err = fd_write_upto(s, c, c->len, STDOUT_FILENO, stdout_atomic_pieces);
	/* Not a stop that gave up waiting: that ends the run already. */
	if (err && err != -ECANCELED)
		sink_end_run(s, -err);
	return err;
}

static const struct sink_ops stdout_ops = {
	.write = stdout_write,
};

static int stdout_open(struct sink *s, const char *rest, const struct output_open_args *a)
{
	struct stat st;

	(void)rest;
	(void)a;
	stdout_atomic_pieces = !fstat(STDOUT_FILENO, &st) && (S_ISFIFO(st.st_mode) ||
								  S_ISSOCK(st.st_mode));
	s->ops = &stdout_ops;
	s->target = "stdout";
	return 0;
}

const struct output_kind output_stdout = {
	.name = "stdout", .prefix = "stdout", .alias = "-", .bare = true,
	.usage = "stdout", .help = "stdout (or -)", .open = stdout_open,
};
