/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Watching the interface while attached: is it still here, and is the
 * program on it still the one the agent attached? An interface can also
 * leave for another network namespace, taking the program with it; the
 * kernel says where in the RTM_DELLINK it sends (the new namespace's nsid
 * and ifindex), so the agent listens to link events from the moment it
 * attaches, and can step into that namespace to detach the program there.
 */
#ifndef AGENT_IFWATCH_H
#define AGENT_IFWATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <xdp/libxdp.h>

enum ifwatch_state {
	IFWATCH_OK,
	IFWATCH_GONE,		/* deleted, and the program with it */
	IFWATCH_MOVED,		/* in another network namespace, program still attached */
	IFWATCH_REPLACED,	/* another program, or none, where the agent's was */
};

struct ifwatch {
	int ifindex;
	enum xdp_attach_mode mode;
	__u32 prog_id;		/* attached by the agent: its program or the dispatcher;
				 * 0: unknown, so a replacement goes unnoticed */
	__u32 own_id;		/* the agent's program, in the dispatcher or alone */
	int nl_fd;		/* rtnetlink socket subscribed to link events; -1: none */
	bool left;		/* its RTM_DELLINK arrived: deleted or moved */
	int new_nsid;		/* IFWATCH_MOVED: where to, as this namespace names it */
	int new_ifindex;	/* and the interface's index there */
};

/*
 * Start watching @ifindex, on which the agent has just attached its
 * program @own_id in @mode. Returns 0 or -errno; without link events
 * (-errno from the socket) a move is reported as IFWATCH_GONE.
 */
int ifwatch_start(struct ifwatch *w, int ifindex, enum xdp_attach_mode mode, __u32 own_id);

/*
 * Where things stand now. Cheap: one syscall or three. A new libxdp
 * dispatcher that still runs the agent's program (libxdp builds one
 * whenever another program is loaded or unloaded beside it) is the agent's
 * too, and watched from then on. Only when the device or the program is
 * gone does it wait for the kernel's RTM_DELLINK (a
 * deleted device loses its program first): up to a second while the device
 * is still listed, and for a device that has left, until the message comes.
 */
enum ifwatch_state ifwatch_check(struct ifwatch *w);

/*
 * After IFWATCH_MOVED: find the namespace the interface went to (among the
 * named ones and those of every process), step into it, detach the program
 * whose fd is @prog_fd only if it is still the one attached there, and step
 * back. @where gets the namespace's name, or "nsid N". Returns 0 or -errno
 * (-ENOENT: no such namespace found).
 */
int ifwatch_detach_moved(const struct ifwatch *w, int prog_fd, char *where, size_t size);

void ifwatch_stop(struct ifwatch *w);

#endif /* AGENT_IFWATCH_H */
