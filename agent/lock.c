// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Interface indexes are per network namespace, so the lock is named after
 * the namespace's inode too. The file is never removed: unlinking a lock file
 * lets a third agent lock a new file while a second still waits on the old.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "exit_codes.h"
#include "lock.h"

static int lock_fail(const char *what, const char *path)
{
	int err = errno;

	fprintf(stderr, "agent: cannot %s %s: %s%s\n", what, path, strerror(err),
		err == EACCES || err == EPERM ? "; run as root" : "");
	return err == EACCES || err == EPERM ? -AGENT_EXIT_NO_PRIVILEGE : -AGENT_EXIT_FAILURE;
}

/* The holder writes its pid right after locking: a reader may find it empty. */
static long lock_holder_pid(int fd)
{
	char buf[32];
	ssize_t n;

	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

int iface_lock(int ifindex, const char *iface)
{
	char path[128], pid[32];
	struct stat netns;
	int fd, len;
	long holder;

	if (stat("/proc/self/ns/net", &netns))
		return lock_fail("identify the network namespace from", "/proc/self/ns/net");
	if (mkdir(AGENT_LOCK_DIR, 0755) && errno != EEXIST)
		return lock_fail("create", AGENT_LOCK_DIR);

	snprintf(path, sizeof(path), AGENT_LOCK_DIR "/netns-%llu-ifindex-%d.lock",
		 (unsigned long long)netns.st_ino, ifindex);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return lock_fail("open", path);

	if (flock(fd, LOCK_EX | LOCK_NB)) {
		if (errno != EWOULDBLOCK) {
			lock_fail("lock", path);
			close(fd);
			return -AGENT_EXIT_FAILURE;
		}
		holder = lock_holder_pid(fd);
		if (holder > 0)
			fprintf(stderr, "agent: another agent (pid %ld) is attached to %s; "
				"stop it first\n", holder, iface);
		else
			fprintf(stderr, "agent: another agent is attached to %s; stop it first\n",
				iface);
		close(fd);
		return -AGENT_EXIT_LOCKED;
	}

	len = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, pid, len, 0) != len) {
		lock_fail("write our pid into", path);
		close(fd);
		return -AGENT_EXIT_FAILURE;
	}
	return fd;
}
