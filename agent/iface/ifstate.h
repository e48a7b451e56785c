/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The interface as the agent finds it: the XDP programs on it (through
 * libxdp, which sees its dispatcher's components too), a program a killed
 * agent left there, and why libxdp cannot add one. Also the bpffs libxdp
 * keeps its dispatcher's state in (bpffs.c).
 */
#ifndef AGENT_IFSTATE_H
#define AGENT_IFSTATE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <xdp/libxdp.h>

struct iface_lock;

/* libxdp's message for @err in @buf, for a format argument. */
static inline const char *libxdp_errstr(int err, char *buf, size_t size)
{
	libxdp_strerror(err, buf, size);
	return buf;
}

/* Make sure libxdp finds a bpffs for its dispatcher; say what happens if not. */
void bpffs_ensure(void);

/* The programs on @ifindex, NULL if none; *err < 0 if they cannot be read. */
struct xdp_multiprog *ifstate_progs(int ifindex, int *err);

/*
 * Detach the program the previous holder of @lock recorded (the one using
 * the recorded map), if it is still on @ifindex: that agent died without
 * detaching it. Only call it while holding the lock: then no live agent
 * owns it. Then clears lock->prev.map_id: nothing recorded is attached.
 * Any other xdp_fizzbuzzfib is left alone, and makes this
 * AGENT_EXIT_LOCKED if a live process holds it (an agent with another
 * --lock-dir), else AGENT_EXIT_XDP_BUSY. Returns 0 or an agent exit status
 * after saying why.
 */
int stale_remove(int ifindex, const char *iface, struct iface_lock *lock);

/*
 * stale_remove()'s first half alone, for an interface no longer selected:
 * the recorded program removed if there, nothing else looked at or said.
 */
int stale_remove_recorded(int ifindex, const char *iface, struct iface_lock *lock);

/* stale_remove() where a link event said no XDP program is on the interface. 0. */
int stale_none(struct iface_lock *lock);

/*
 * libxdp could not add the program (-EEXIST/-EBUSY): say what is there,
 * since the remedy differs. Returns AGENT_EXIT_LOCKED if it is another
 * agent's program, else AGENT_EXIT_XDP_BUSY.
 */
int ifstate_explain_busy(int ifindex, const char *iface, enum xdp_attach_mode mode);

/*
 * For --mode auto: the mode of a dispatcher already on the interface, else
 * XDP_MODE_UNSPEC, since the kernel would pick native for us and native and
 * generic XDP cannot share an interface.
 */
enum xdp_attach_mode ifstate_join_mode(int ifindex);

/*
 * Say so if @name (shown as @iface) is down: attached there, the program
 * sees no frame until it is up, and an agent that sat silent would look
 * broken.
 */
void ifstate_warn_down(const char *name, const char *iface);

/* @ifindex's driver as ethtool names it ("veth", "virtio_net", "e1000") in @buf; "" if unsaid. */
void ifstate_driver(int ifindex, char *buf, size_t size);

/* Whether @ifindex is no longer in this network namespace: deleted, or moved away. */
bool ifstate_gone(int ifindex);

/*
 * -ENODEV from a request on @ifindex, which is gone since its link event: a
 * race the caller handles (AGENT_EXIT_IFACE_GONE, said by it, not here).
 */
static inline bool ifstate_raced(int err, int ifindex)
{
	return (err == -ENODEV || err == -ENXIO) && ifstate_gone(ifindex);
}

#endif /* AGENT_IFSTATE_H */
