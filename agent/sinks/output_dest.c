// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Where an --output writes: see output_dest.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "sinks/output_dest.h"
#include "sinks/output_kind.h"

/* Symbolic links followed to a file that does not exist yet, as open(O_CREAT) would. */
#define OUTPUT_DEST_LINKS_MAX 40

/*
 * A file that does not exist yet: its directory resolved (., .., links),
 * then its name, so that x, ./x and DIR/x are one; a dangling link is
 * followed to the file open() would create. As given if the directory
 * cannot be resolved: opening it fails anyway.
 */
static void file_path(const char *path, char *out, size_t size)
{
	char cur[PATH_MAX], link[PATH_MAX], dir[PATH_MAX];
	const char *slash, *name;
	unsigned int hops;
	ssize_t n;

	snprintf(cur, sizeof(cur), "%s", path);
	for (hops = 0; hops < OUTPUT_DEST_LINKS_MAX; hops++) {
		n = readlink(cur, link, sizeof(link) - 1);
		if (n < 0)
			break;
		link[n] = '\0';
		slash = strrchr(cur, '/');
		if (link[0] == '/' || !slash)
			snprintf(cur, sizeof(cur), "%s", link);
		else
			snprintf(cur + (slash + 1 - cur), sizeof(cur) - (slash + 1 - cur), "%s",
				 link);
	}
	slash = strrchr(cur, '/');
	name = slash ? slash + 1 : cur;
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == cur)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - cur), cur);
	if (!realpath(dir, link) ||
	    snprintf(out, size, "%s/%s", strcmp(link, "/") ? link : "", name) >= (int)size)
		snprintf(out, size, "%s", path);
}

void output_dest_get(const char *url, struct output_dest *d)
{
	struct stat st;

	memset(d, 0, sizeof(*d));
	d->kind = output_kind_of(url, &d->rest);
	if (d->kind == &output_stdout)
		/* Also the file or pipe it is: file:/dev/stdout, or a file it was sent to. */
		d->has_inode = !fstat(STDOUT_FILENO, &st);
	else if (d->kind == &output_file)
		d->has_inode = !stat(d->rest, &st);
	if (d->has_inode) {
		d->dev = st.st_dev;
		d->ino = st.st_ino;
	} else if (d->kind == &output_file) {
		file_path(d->rest, d->path, sizeof(d->path));
	} else {
		snprintf(d->path, sizeof(d->path), "%s", d->rest);
	}
}

bool output_dest_same(const struct output_dest *a, const struct output_dest *b)
{
	if (a->has_inode || b->has_inode)
		return a->has_inode && b->has_inode && a->dev == b->dev && a->ino == b->ino;
	if (a->kind != b->kind)
		return false;
	if (a->kind->same)
		return a->kind->same(a->rest, b->rest);
	return !strcmp(a->path, b->path);
}
