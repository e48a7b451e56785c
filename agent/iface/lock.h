/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One agent per interface: an flock on a file per (network namespace, ifindex).
 *
 * The file holds one line, "PID MAP_ID\n": the holder's pid and the id of
 * the event map (queue or ring) of the program it answers for, 0 for none.
 * The agent creates that map itself and records its id before the program
 * can be on the interface, so even an agent killed in the middle of the
 * attach leaves a program the next holder can tell from any other of the
 * same name: it is the one whose maps include that id. Map ids, like program
 * ids, are not reused short of wrapping around 2^31. A new holder carries
 * over the id its dead predecessor recorded until it has removed that
 * program.
 */
#ifndef AGENT_LOCK_H
#define AGENT_LOCK_H

#include <linux/types.h>

#define AGENT_LOCK_DIR "/run/fizzbuzzfib"

struct lock_record {
	long pid;	/* 0: none recorded */
	__u32 map_id;	/* event queue or ring of the holder's program; 0: none */
};

struct iface_lock {
	int fd;
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

/* Record @map_id as ours. Returns 0 or an agent exit status after printing why. */
int iface_lock_record(struct iface_lock *l, __u32 map_id);

/* Let go of the lock and keep the file: its record may name a program left attached. */
void iface_lock_release(struct iface_lock *l);

/* Let go of the lock and remove the file: nothing it records is attached any more. */
void iface_lock_drop(struct iface_lock *l);

#endif /* AGENT_LOCK_H */
