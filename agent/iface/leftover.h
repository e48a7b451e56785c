/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --detach: take off what a dead agent left on the interface, without
 * attaching anything. libxdp attaches through netlink, so a program outlives
 * an agent killed by a signal it cannot catch (SIGKILL, or SIGABRT, SIGSEGV
 * and the other signals that dump core); the next agent removes it, but a
 * service manager that starts no next agent (a stop, the start limit) runs
 * this after every exit instead: the unit's ExecStopPost=.
 */
#ifndef AGENT_LEFTOVER_H
#define AGENT_LEFTOVER_H

/*
 * Take @iface's lock in @lock_dir, remove the program its dead holder
 * recorded (stale_remove(): never any other) and the lock file. Nothing to
 * remove is success, an @ifindex of 0 (no such interface) included.
 * Returns 0 or an agent exit status after saying why: AGENT_EXIT_LOCKED if
 * a live agent holds the interface, which is left alone.
 */
int leftover_remove(const char *lock_dir, int ifindex, const char *iface);

struct ifselect;

/*
 * What killed agents left that no interface --iface selects leads to, by
 * @lock_dir's files of this namespace: the files of interfaces gone, and
 * the program each file records on an interface renamed out of @sel since
 * (only that one), said once each. Files a live agent holds are left alone.
 */
void leftovers_sweep(const char *lock_dir, const struct ifselect *sel);

#endif /* AGENT_LEFTOVER_H */
