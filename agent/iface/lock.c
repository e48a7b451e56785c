// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Interface indexes are per network namespace, so the lock is named after
 * the namespace's inode too. A holder removes the file while it still holds
 * the lock (lock.h): an agent that opened the file just before then locks a
 * file no one else opens, so whoever takes a lock checks that the file is
 * still the one at its path, and opens the new one if not.
 */
#define _GNU_SOURCE /* struct ucred */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <net/if.h>

#include "base/exit_codes.h"
#include "iface/lock.h"
#include "base/log.h"

/* Agents that leave while this one takes the lock, before it gives up. */
#define LOCK_TRIES 100

/* Close *@fd if open, and mark it so. */
static void fd_release(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* A lock directory or file the agent cannot use: its own exit status, but for a refusal. */
static int lock_fail(const char *what, const char *path)
{
	int err = errno;

	pr_err("cannot %s %s: %s%s\n", what, path, strerror(err),
	       err == EACCES || err == EPERM ? "; run as root, or name a directory you can "
	       "write with --lock-dir" : "; name a writable directory with --lock-dir");
	return err == EACCES || err == EPERM ? AGENT_EXIT_NO_PRIVILEGE : AGENT_EXIT_LOCK_DIR;
}

/* Whether the file @fd locks is still the one at @path (see the top of this file). */
static bool lock_is_current(int fd, const char *path)
{
	struct stat held, named;

	return !fstat(fd, &held) && !stat(path, &named) && held.st_ino == named.st_ino &&
	       held.st_dev == named.st_dev;
}

/*
 * A holder writes its record right after locking, so a reader that does not
 * hold the lock may find it empty or half written: the pid is then 0, and
 * the map id counts only if its line is complete.
 */
static struct lock_record record_read(int fd)
{
	struct lock_record r = {};
	unsigned long id;
	char buf[64], *end;
	ssize_t n;

	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return r;
	buf[n] = '\0';
	r.pid = strtol(buf, &end, 10);
	if (r.pid < 0)
		r.pid = 0;
	id = strtoul(end, &end, 10);
	if (*end == '\n' && id <= UINT32_MAX)
		r.map_id = id;
	return r;
}

/* Overwrite, then cut: a kill between the two still leaves a complete line first. */
int iface_lock_record(struct iface_lock *l, __u32 map_id)
{
	char buf[64];
	ssize_t n;
	int len;

	len = snprintf(buf, sizeof(buf), "%ld %u\n", (long)getpid(), map_id);
	n = pwrite(l->fd, buf, len, 0);
	if (n != len || ftruncate(l->fd, len)) {
		if (n >= 0 && n != len)
			errno = EIO;
		return lock_fail("write our record into", l->path);
	}
	return 0;
}

/* Connections to a holder's name that no one accepts, before a look at it finds no pid. */
#define NAME_BACKLOG 128

/* "@fizzbuzzfib/ifindex-N", an abstract name: one per network namespace. */
static socklen_t name_of(struct sockaddr_un *sa, int ifindex)
{
	*sa = (struct sockaddr_un){ .sun_family = AF_UNIX };
	return offsetof(struct sockaddr_un, sun_path) + 1 +
	       snprintf(sa->sun_path + 1, sizeof(sa->sun_path) - 1, "fizzbuzzfib/ifindex-%d",
			ifindex);
}

/* The pid of the process that holds @sa: it listens, so a connection tells. 0 if unknown. */
static long name_holder(const struct sockaddr_un *sa, socklen_t len)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	struct ucred cred = {};
	socklen_t size = sizeof(cred);
	long pid = 0;

	if (fd < 0)
		return 0;
	if (!connect(fd, (const struct sockaddr *)sa, len) &&
	    !getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &size))
		pid = cred.pid;
	close(fd);
	return pid;
}

/*
 * The kernel frees the name when the process ends, however it ends. Two
 * agents started at once with different lock directories both find the
 * interface free of programs and both attach where libxdp's dispatcher
 * shares it; only one of them can bind the name. A system that refuses the
 * socket still has the file's half. 0, or AGENT_EXIT_LOCKED after saying so.
 */
static int name_take(struct iface_lock *l, int ifindex, const char *iface)
{
	struct sockaddr_un sa;
	socklen_t len = name_of(&sa, ifindex);
	int fd, err;

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	if (!bind(fd, (struct sockaddr *)&sa, len) && !listen(fd, NAME_BACKLOG)) {
		l->name_fd = fd;
		return 0;
	}
	err = errno;
	close(fd);
	return err == EADDRINUSE ? iface_lock_held(name_holder(&sa, len), iface) : 0;
}

/* A lock file's name, for @ifindex of the network namespace @netns, in its directory. */
#define LOCK_NAME "netns-%llu-ifindex-%d.lock"

/* A sweep holds a file it does not hold the name of this long at most: a detach. */
#define LOCK_SWEEP_WAIT_MS 2000

/*
 * flock()'s errno, 0 once l->fd is locked. Holding the interface's name, no
 * live agent holds the interface: a file locked is another agent's sweep
 * (iface_lock_take_idle()), waited for. Without a name (a system that
 * refuses the socket), a lock held is an agent's.
 */
static int flock_idle(const struct iface_lock *l)
{
	const struct timespec ms = { .tv_nsec = 1000000 };
	int waited;

	for (waited = 0;; waited++) {
		if (!flock(l->fd, LOCK_EX | LOCK_NB))
			return 0;
		if (errno != EWOULDBLOCK || l->name_fd < 0 || waited == LOCK_SWEEP_WAIT_MS)
			return errno;
		nanosleep(&ms, NULL);
	}
}

/* The file's half: see lock.h. 0 or an agent exit status after saying why, l->fd left open. */
static int file_take(struct iface_lock *l, const char *dir, int ifindex, const char *iface)
{
	struct stat netns;
	int tries, lock_err;

	if (stat("/proc/self/ns/net", &netns)) {
		pr_err("cannot identify the network namespace from /proc/self/ns/net: %s\n",
		       strerror(errno));
		return AGENT_EXIT_FAILURE;
	}
	if (mkdir(dir, 0755) && errno != EEXIST)
		return lock_fail("create", dir);

	if ((size_t)snprintf(l->path, sizeof(l->path), "%s/" LOCK_NAME, dir,
			     (unsigned long long)netns.st_ino, ifindex) >= sizeof(l->path)) {
		errno = ENAMETOOLONG;
		return lock_fail("use the lock directory", dir);
	}
	for (tries = 0;; tries++) {
		l->fd = open(l->path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		if (l->fd < 0)
			return lock_fail("open", l->path);
		lock_err = flock_idle(l);
		if (lock_err || lock_is_current(l->fd, l->path))
			break;
		/* Removed under us by an agent that was leaving: take the one there now. */
		fd_release(&l->fd);
		if (tries == LOCK_TRIES) {
			errno = ESTALE;
			return lock_fail("keep a lock file in", dir);
		}
	}
	if (lock_err) {
		errno = lock_err;
		return lock_err != EWOULDBLOCK ? lock_fail("lock", l->path) :
		       iface_lock_held(record_read(l->fd).pid, iface);
	}

	l->prev = record_read(l->fd);
	return iface_lock_record(l, l->prev.map_id);
}

int iface_lock_take(struct iface_lock *l, const char *dir, int ifindex, const char *iface)
{
	int ret;

	*l = (struct iface_lock){ .fd = -1, .name_fd = -1 };
	ret = name_take(l, ifindex, iface) ?: file_take(l, dir, ifindex, iface);
	if (ret) {
		fd_release(&l->fd);
		fd_release(&l->name_fd);
	}
	return ret;
}

int iface_lock_held(long pid, const char *iface)
{
	if (pid > 0)
		pr_err("another agent (pid %ld) is attached to %s; stop it first\n", pid, iface);
	else
		pr_err("another agent is attached to %s; stop it first\n", iface);
	return AGENT_EXIT_LOCKED;
}

void iface_lock_leave(struct iface_lock *l, bool attached)
{
	if (l->fd >= 0 && !attached && !l->prev.map_id)
		unlink(l->path);
	fd_release(&l->fd);
	fd_release(&l->name_fd);
}

/*
 * @path locked, if no one holds it, into *@fd: whether it was (then the
 * caller closes *@fd, which lets go). Held: a live agent, or one on its way
 * out, which removes the file itself.
 */
static bool lock_free_take(const char *path, int *fd)
{
	*fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (*fd < 0)
		return false;
	if (!flock(*fd, LOCK_EX | LOCK_NB) && lock_is_current(*fd, path))
		return true;
	fd_release(fd);
	return false;
}

bool iface_lock_take_idle(struct iface_lock *l, const char *path)
{
	*l = (struct iface_lock){ .fd = -1, .name_fd = -1 };
	if ((size_t)snprintf(l->path, sizeof(l->path), "%s", path) >= sizeof(l->path) ||
	    !lock_free_take(path, &l->fd))
		return false;
	l->prev = record_read(l->fd);
	return true;
}

void iface_lock_each(const char *dir, void (*each)(int ifindex, const char *path, void *ctx),
		     void *ctx)
{
	unsigned long long ino;
	struct stat netns;
	struct dirent *e;
	int ifindex, end;
	char path[512];
	DIR *d;

	if (stat("/proc/self/ns/net", &netns))
		return;
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		/* Another namespace's: whether its interface is there, this one cannot tell. */
		end = 0;
		if (sscanf(e->d_name, LOCK_NAME "%n", &ino, &ifindex, &end) != 2 || !end ||
		    e->d_name[end] || ino != netns.st_ino)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		each(ifindex, path, ctx);
	}
	closedir(d);
}

/* @path's interface gone: the file removed if no one holds it, and counted in @ctx. */
static void gone_lock_remove(int ifindex, const char *path, void *ctx)
{
	char name[IF_NAMESIZE];
	unsigned int *removed = ctx;
	int fd;

	if ((if_indextoname(ifindex, name) || errno != ENXIO) || !lock_free_take(path, &fd))
		return;
	*removed += !unlink(path);
	close(fd);
}

void iface_lock_sweep(const char *dir)
{
	unsigned int removed = 0;

	iface_lock_each(dir, gone_lock_remove, &removed);
	if (removed)
		pr_info("removed %u lock file%s in %s of interfaces gone from this network "
			"namespace since an agent that was killed held them\n", removed,
			plural_s(removed), dir);
}
