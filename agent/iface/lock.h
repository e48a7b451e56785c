/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One agent per interface: an flock on a file per (network namespace, ifindex),
 * and an abstract unix socket named after the ifindex, which another
 * --lock-dir cannot put elsewhere (lock.c).
 *
 * The file holds one line, "PID MAP_ID\n": the holder's pid and the id of
 * the event map (queue or ring) of the program it answers for, 0 for none.
 * The agent creates that map itself and records its id before the program
 * can be on the interface, so even an agent killed in the middle of the
 * attach leaves a program the next holder can tell from any other of the
 * same name: it is the one whose maps include that id. Map ids, like program
 * ids, are not reused short of wrapping around 2^31. A new holder carries
 * over the id its dead predecessor recorded until it has removed that
 * program. Whoever leaves with nothing the record names still attached
 * removes the file (iface_lock_leave()), so a file left behind is a dead
 * agent's that may name a program still on the interface.
 */
#ifndef AGENT_LOCK_H
#define AGENT_LOCK_H

#include <stdbool.h>
#include <linux/types.h>

#define AGENT_LOCK_DIR "/run/fizzbuzzfib"

struct lock_record {
	long pid;	/* 0: none recorded */
	__u32 map_id;	/* event queue or ring of the holder's program; 0: none */
};

struct iface_lock {
	int fd;
	int name_fd;	/* the abstract socket that --lock-dir cannot split; -1: none */
	char path[256];
	struct lock_record prev;	/* what the previous holder left */
};

/*
 * Take the lock of @ifindex in the current network namespace, a file in
 * @dir (created if missing; AGENT_LOCK_DIR unless --lock-dir), read the
 * previous holder's record into l->prev, and write "OUR_PID PREV_MAP_ID".
 * Keep the lock while attached: the kernel releases it when the process
 * ends, however it ends. Returns 0, or an agent exit status after printing
 * why: AGENT_EXIT_LOCKED if another agent holds it.
 */
int iface_lock_take(struct iface_lock *l, const char *dir, int ifindex, const char *iface);

/*
 * Say that another agent, @pid (0 if unknown), holds @iface, however it was
 * started: its lock, or its program found with another --lock-dir. Returns
 * AGENT_EXIT_LOCKED.
 */
int iface_lock_held(long pid, const char *iface);

/* Record @map_id as ours. Returns 0 or an agent exit status after printing why. */
int iface_lock_record(struct iface_lock *l, __u32 map_id);

/*
 * Let go of the lock, removing the file first unless its record may name a
 * program still attached: ours (@attached), or the dead holder's.
 */
void iface_lock_leave(struct iface_lock *l, bool attached);

/*
 * Remove the lock files in @dir of this network namespace's interfaces that
 * are gone (deleted, or moved away: their program went with them), which no
 * live agent holds: a killed agent's, for interfaces no next start or
 * --detach looks at. Said once, at info, if there were any.
 */
void iface_lock_sweep(const char *dir);

/* Each lock file in @dir of this network namespace, whatever its state: @each(ifindex, path). */
void iface_lock_each(const char *dir, void (*each)(int ifindex, const char *path, void *ctx),
		     void *ctx);

/*
 * The lock file @path (iface_lock_each()'s) taken if no one holds it, and
 * without the interface's name: a sweep of what killed agents left, which
 * must not look like an agent to one starting on that interface (which
 * waits for the file a moment, holding the name: file_take()). Its
 * record in l->prev. Whether it was taken; then iface_lock_leave().
 */
bool iface_lock_take_idle(struct iface_lock *l, const char *path);

#endif /* AGENT_LOCK_H */
