// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Events as NDJSON lines in a file (--output file:PATH), each naming the
 * host, the interface and its number.
 *
 * Opened for appending: when logrotate's copytruncate empties the file
 * under the agent, the next write goes to its new end, not past a hole of
 * NUL bytes. Rotated by size (--output-rotate-bytes) by close, rename and
 * reopen, PATH.1 the newest old file, so that a tailer that follows the
 * name misses nothing; and reopened on SIGHUP for logrotate's create mode.
 */
#define _GNU_SOURCE /* memrchr */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "base/escape.h"
#include "base/exit_codes.h"
#include "base/log.h"
#include "sinks/fd_write.h"
#include "sinks/output_kind.h"
#include "sinks/sink.h"

struct file_sink {
	char path[PATH_MAX];
	int fd;
	__u64 rotate_bytes;	/* 0: never */
	__u32 keep;		/* old files kept on rotation */
	bool failing;		/* said that writes fail; say when they work again */
};

static int file_open_fd(struct file_sink *f)
{
	f->fd = open(f->path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
	return f->fd < 0 ? -errno : 0;
}

/* PATH.N of @f. */
static void old_name(const struct file_sink *f, __u32 n, char *buf, size_t size)
{
	snprintf(buf, size, "%s.%u", f->path, n);
}

/* PATH to PATH.1, PATH.1 to PATH.2, ..., the oldest beyond --output-keep gone; a new PATH. */
static int file_rotate(struct file_sink *f)
{
	char from[PATH_MAX + 16], to[PATH_MAX + 16];
	__u32 n;

	close(f->fd);
	f->fd = -1;
	if (!f->keep) {
		unlink(f->path);
	} else {
		for (n = f->keep - 1; n >= 1; n--) {
			old_name(f, n, from, sizeof(from));
			old_name(f, n + 1, to, sizeof(to));
			rename(from, to);
		}
		old_name(f, 1, to, sizeof(to));
		rename(f->path, to);
	}
	return file_open_fd(f);
}

/*
 * Where the write that is due now ends: the whole rest of @c, or, where the
 * file would pass --output-rotate-bytes, the last whole line that fits (0:
 * none fits, rotate first). A file that is empty takes at least one line,
 * however long.
 */
static size_t file_write_end(const struct file_sink *f, const struct sink_chunk *c)
{
	size_t room, rest = c->len - c->done;
	const char *nl;
	struct stat st;

	if (!f->rotate_bytes || fstat(f->fd, &st) || (__u64)st.st_size + rest <= f->rotate_bytes)
		return c->len;
	room = (__u64)st.st_size < f->rotate_bytes ? f->rotate_bytes - st.st_size : 0;
	nl = room ? memrchr(c->data + c->done, '\n', room < rest ? room : rest) : NULL;
	if (nl)
		return nl + 1 - c->data;
	if (st.st_size > 0)
		return 0;
	nl = memchr(c->data + c->done, '\n', rest);
	return nl ? (size_t)(nl + 1 - c->data) : c->len;
}

/* Open if need be, write, rotating wherever the file would pass its size. 0 or -errno. */
static int file_write_chunk(struct sink *s, struct file_sink *f, struct sink_chunk *c)
{
	size_t end, partial;
	const char *nl;
	struct stat st;
	int err = 0;

	if (f->fd < 0) {
		err = file_open_fd(f);
		if (err)
			return err;
	}
	while (!err && c->done < c->len) {
		end = file_write_end(f, c);
		if (end > c->done)
			err = fd_write_upto(s, c, end, f->fd, false);
		if (!err && c->done < c->len)
			err = file_rotate(f);
	}
	if (!err || !c->done)
		return err;
	/*
	 * The failed write left part of a line at the file's end: take it back,
	 * from the end as it is now (copytruncate may have emptied the file).
	 */
	nl = memrchr(c->data, '\n', c->done);
	partial = c->done - (nl ? (size_t)(nl + 1 - c->data) : 0);
	if (partial && !fstat(f->fd, &st) && (size_t)st.st_size >= partial)
		(void)!ftruncate(f->fd, st.st_size - partial);
	return err;
}

static int file_write(struct sink *s, struct sink_chunk *c)
{
	struct file_sink *f = s->priv;
	char shown[PATH_MAX];
	int err;

	err = file_write_chunk(s, f, c);
	if (err == -ECANCELED)
		return err; /* the stop gave up waiting: no failure of the file's */
	/* Once per outage, not per chunk: a full disk fails every write. */
	if (err != 0 && !f->failing) {
		escape_log(shown, sizeof(shown), f->path);
		pr_warn("output %s: cannot write to %s: %s; what it cannot take is counted lost, "
			"and it tries again\n", s->name, shown, strerror(-err));
	} else if (!err && f->failing) {
		escape_log(shown, sizeof(shown), f->path);
		pr_info("output %s: writing to %s again\n", s->name, shown);
	}
	f->failing = err != 0;
	return err;
}

static int file_reopen(struct sink *s)
{
	struct file_sink *f = s->priv;

	if (f->fd >= 0)
		close(f->fd);
	return file_open_fd(f);
}

static void file_close(struct sink *s)
{
	struct file_sink *f = s->priv;

	if (f->fd >= 0)
		close(f->fd);
	free(f);
	s->priv = NULL;
}

static const struct sink_ops file_ops = {
	.write = file_write,
	.reopen = file_reopen,
	.close = file_close,
};

static int file_open(struct sink *s, const char *path, const struct output_open_args *a)
{
	struct file_sink *f = calloc(1, sizeof(*f));
	char shown[PATH_MAX];
	int err;

	escape_log(shown, sizeof(shown), path);
	if (!f) {
		pr_err("cannot open --output file:%s: %s\n", shown, strerror(ENOMEM));
		return AGENT_EXIT_FAILURE;
	}
	snprintf(f->path, sizeof(f->path), "%s", path);
	f->rotate_bytes = a->rotate_bytes;
	f->keep = a->keep;
	s->ops = &file_ops;
	s->priv = f;
	s->target = path;
	err = file_open_fd(f);
	if (err) {
		pr_err("cannot open --output file:%s: %s; name a file in a directory the agent "
		       "can write\n", shown, strerror(-err));
		return AGENT_EXIT_OUTPUT;
	}
	return 0;
}

const struct output_kind output_file = {
	.name = "file", .prefix = "file:", .usage = "file:PATH", .help = "file:PATH (NDJSON lines)",
	.options_set = "how a file --output writes", .off_host = true, .open = file_open,
};
