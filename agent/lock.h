/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* One agent per interface: an flock on a file per (network namespace, ifindex). */
#ifndef AGENT_LOCK_H
#define AGENT_LOCK_H

#define AGENT_LOCK_DIR "/run/fizzbuzzfib"

/*
 * Take the lock of @ifindex in the current network namespace and write our
 * pid into it. Returns the lock fd (keep it open while attached; the kernel
 * releases the lock when the process ends, however it ends), or a negative
 * agent exit status after printing why: -AGENT_EXIT_LOCKED if another
 * agent holds it.
 */
int iface_lock(int ifindex, const char *iface);

#endif /* AGENT_LOCK_H */
