// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* One rtnetlink request: see rtnl_once.h. */
#include <errno.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/netlink.h>

#include "iface/rtnl_once.h"

ssize_t rtnl_once(const void *req, size_t len, void *buf, size_t size)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	ssize_t n;

	if (fd < 0)
		return -errno;
	/* Unconnected, a netlink socket sends to the kernel, which answers this socket alone. */
	n = send(fd, req, len, 0);
	if (n >= 0)
		n = recv(fd, buf, size, 0);
	if (n < 0)
		n = -errno;
	close(fd);
	return n;
}
