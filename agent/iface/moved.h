/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * An interface can leave for another network namespace, taking the program
 * with it. The kernel says where in the RTM_DELLINK it sends (the new
 * namespace's nsid and the interface's index there: linkwatch.h), so the
 * agent can step into that namespace and detach its program there.
 */
#ifndef AGENT_MOVED_H
#define AGENT_MOVED_H

#include <stddef.h>
#include <xdp/libxdp.h>

/*
 * Find the namespace this one calls @nsid (among the named ones and those
 * of every process), step into it, detach from @ifindex there, in @mode,
 * the program whose fd is @prog_fd only if it is still the one attached,
 * and step back. @where gets the namespace's name, or "nsid N". Returns 0
 * or -errno (-ENOENT: no such namespace found, or no @prog_fd).
 */
int moved_detach(int nsid, int ifindex, enum xdp_attach_mode mode, int prog_fd, char *where,
		 size_t size);

#endif /* AGENT_MOVED_H */
