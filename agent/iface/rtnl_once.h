/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* One rtnetlink request and its one reply, on a socket of its own. */
#ifndef AGENT_RTNL_ONCE_H
#define AGENT_RTNL_ONCE_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Send @req (@len bytes) to the kernel and read its reply into @buf (@size
 * bytes, aligned for a struct nlmsghdr). The bytes read, or -errno.
 */
ssize_t rtnl_once(const void *req, size_t len, void *buf, size_t size);

#endif /* AGENT_RTNL_ONCE_H */
