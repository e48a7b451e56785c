// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The descriptors libxdp 1.3.1 leaves open: see libxdp_fds.h. */
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iface/libxdp_fds.h"

#define WORD_BITS (sizeof(unsigned long) * CHAR_BIT)

/* Each open descriptor number to @each, as /proc/self/fd lists them. */
static void fds_each(void (*each)(int fd, void *ctx), void *ctx)
{
	struct dirent *e;
	DIR *dir;
	int self;

	dir = opendir("/proc/self/fd");
	if (!dir)
		return;
	self = dirfd(dir);
	while ((e = readdir(dir)))
		if (e->d_name[0] != '.' && atoi(e->d_name) != self)
			each(atoi(e->d_name), ctx);
	closedir(dir);
}

static void fd_highest(int fd, void *ctx)
{
	int *max = ctx;

	if (fd >= *max)
		*max = fd + 1;
}

static void fd_note(int fd, void *ctx)
{
	struct fd_fence *f = ctx;

	/* One opened since the count is above it: new, as it is. */
	if (fd < f->max)
		f->open[fd / WORD_BITS] |= 1UL << (fd % WORD_BITS);
}

void fd_fence_set(struct fd_fence *f)
{
	f->max = 0;
	fds_each(fd_highest, &f->max);
	f->open = calloc(f->max / WORD_BITS + 1, sizeof(*f->open));
	if (f->open)
		fds_each(fd_note, f);
}

static bool fd_is_prog(int fd)
{
	char path[64], target[64];
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	len = readlink(path, target, sizeof(target) - 1);
	if (len < 0)
		return false;
	target[len] = '\0';
	return !strcmp(target, "anon_inode:bpf-prog");
}

struct sweep {
	const struct fd_fence *f;
	const int *keep;
	unsigned int n;
};

static void fd_sweep(int fd, void *ctx)
{
	const struct sweep *w = ctx;

	if (fd < w->f->max && (w->f->open[fd / WORD_BITS] & (1UL << (fd % WORD_BITS))))
		return;
	for (unsigned int i = 0; i < w->n; i++)
		if (w->keep[i] == fd)
			return;
	if (fd_is_prog(fd))
		close(fd);
}

static void fd_fence_forget(struct fd_fence *f)
{
	free(f->open);
	f->open = NULL;
}

void fd_fence_sweep(struct fd_fence *f, const int *keep, unsigned int n)
{
	struct sweep w = { .f = f, .keep = keep, .n = n };

	/* Nothing known of before: nothing is closed. */
	if (f->open)
		fds_each(fd_sweep, &w);
	fd_fence_forget(f);
}

/* A dispatcher holds more than this many programs only past libxdp's limit of 10. */
#define MULTIPROG_FDS_MAX 16

void fd_fence_sweep_multiprog(struct fd_fence *f, struct xdp_multiprog *mp)
{
	int keep[MULTIPROG_FDS_MAX];
	struct xdp_program *p;
	unsigned int n = 0;

	if (mp) {
		keep[n++] = xdp_program__fd(xdp_multiprog__main_prog(mp));
		keep[n++] = xdp_program__fd(xdp_multiprog__hw_prog(mp));
		for (p = xdp_multiprog__next_prog(NULL, mp); p;
		     p = xdp_multiprog__next_prog(p, mp)) {
			/* More than libxdp holds: closing none is safe, closing one of them not. */
			if (n == MULTIPROG_FDS_MAX) {
				fd_fence_forget(f);
				return;
			}
			keep[n++] = xdp_program__fd(p);
		}
	}
	fd_fence_sweep(f, keep, n);
}
