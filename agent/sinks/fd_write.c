// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A chunk's lines onto a file descriptor: see fd_write.h. */
#define _GNU_SOURCE /* memrchr */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "sinks/fd_write.h"
#include "sinks/sink.h"

/* The end of the next piece from @from: the last line that fits in PIPE_BUF, or one line. */
static size_t piece_end(const struct sink_chunk *c, size_t from)
{
	const char *start = c->data + from, *nl;
	size_t max = c->len - from;

	if (max <= PIPE_BUF)
		return c->len;
	nl = memrchr(start, '\n', PIPE_BUF);
	if (nl)
		return nl + 1 - c->data;
	/* A line longer than PIPE_BUF goes whole. */
	nl = memchr(start + PIPE_BUF, '\n', max - PIPE_BUF);
	return nl ? (size_t)(nl + 1 - c->data) : c->len;
}

int fd_write_upto(struct sink *s, struct sink_chunk *c, size_t upto, int fd, bool atomic_pieces)
{
	size_t done = c->done, end;
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	ssize_t n;

	while (done < upto) {
		if (sink_given_up(s))
			return -ECANCELED;
		end = atomic_pieces ? piece_end(c, done) : upto;
		n = write(fd, c->data + done, end - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			/* Someone made it non-blocking: wait as a blocking write would. */
			poll(&pfd, 1, -1);
			continue;
		}
		if (n < 0)
			return -errno;
		done += n;
		sink_progress(s, c, done);
	}
	return 0;
}
