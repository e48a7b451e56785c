// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "service/stdfds.h"

static int reopen_if_closed(int fd, bool *closed)
{
	int got;

	*closed = fcntl(fd, F_GETFD) < 0 && errno == EBADF;
	if (!*closed)
		return 0;
	/* The lowest free fd, which is @fd: those below it are open by now. */
	got = open("/dev/null", O_RDWR);
	if (got < 0)
		return -errno;
	if (got != fd) {
		close(got);
		return -EBADF;
	}
	return 0;
}

int stdfds_ensure(bool *out_closed)
{
	bool closed;

	return reopen_if_closed(STDIN_FILENO, &closed) ?:
	       reopen_if_closed(STDOUT_FILENO, out_closed) ?:
	       reopen_if_closed(STDERR_FILENO, &closed);
}
