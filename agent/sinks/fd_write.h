/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Writing a chunk's whole lines to a file descriptor: what stdout and file sinks share. */
#ifndef AGENT_FD_WRITE_H
#define AGENT_FD_WRITE_H

#include <stdbool.h>

struct sink;
struct sink_chunk;

/*
 * Write @c's bytes up to @upto (the end of a line: its end, or a file's
 * rotation point) to @fd, reporting progress to @s as it goes. With
 * @atomic_pieces (a pipe or a socket), in pieces of at most PIPE_BUF bytes
 * that end with a line where lines allow: such a write is all or nothing,
 * so a reader that stalls holds no half line of a piece counted lost. 0 or
 * -errno.
 */
int fd_write_upto(struct sink *s, struct sink_chunk *c, size_t upto, int fd, bool atomic_pieces);

#endif /* AGENT_FD_WRITE_H */
