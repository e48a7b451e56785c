// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* --detach: see leftover.h. */
#include "iface/ifstate.h"
#include "iface/leftover.h"
#include "iface/lock.h"

int leftover_remove(const char *lock_dir, int ifindex, const char *iface)
{
	struct iface_lock lock;
	int ret;

	/* Gone (deleted, or moved away): its program went with it, or the agent followed it. */
	if (!ifindex)
		return 0;
	ret = iface_lock_take(&lock, lock_dir, ifindex, iface);
	if (ret)
		return ret;
	/* The same recovery as an agent's start, which says what it removed. */
	ret = stale_remove(ifindex, iface, &lock);
	iface_lock_leave(&lock, false);
	return ret;
}
