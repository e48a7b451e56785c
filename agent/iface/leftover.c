// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* --detach: see leftover.h. */
#include <net/if.h>
#include <linux/if_link.h>

#include "base/escape.h"
#include "iface/ifselect.h"
#include "iface/ifstate.h"
#include "iface/leftover.h"
#include "iface/lock.h"
#include "iface/xdp_query.h"
#include "service/privileges.h"

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

/*
 * Whether this run may read the programs on @ifindex: with CAP_SYS_ADMIN,
 * or where there is none (libxdp finds them by id). Not an interface this
 * run selected, which it need not explain.
 */
static bool progs_readable(int ifindex)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);

	return privileges_sys_admin() ||
	       (!xdp_query(ifindex, &q) && q.attach_mode == XDP_ATTACHED_NONE);
}

/* @path's interface, here and no longer selected: what its dead holder recorded, off it. */
static void unselected_remove(int ifindex, const char *path, void *ctx)
{
	char name[IF_NAMESIZE], shown[ESCAPE_IFNAME_SIZE];
	const struct ifselect *sel = ctx;
	struct iface_lock lock;

	/* Selected: the run's own work, or --detach's. Held: a live agent's. */
	if (!if_indextoname(ifindex, name) || ifselect_match(sel, name) ||
	    !iface_lock_take_idle(&lock, path))
		return;
	escape_log(shown, sizeof(shown), name);
	/*
	 * What it records goes, if it is there, and the file with it; where this
	 * run cannot read what is there, the file stays for a run that can.
	 */
	if (lock.prev.map_id && progs_readable(ifindex))
		stale_remove_recorded(ifindex, shown, &lock);
	iface_lock_leave(&lock, false);
}

void leftovers_sweep(const char *lock_dir, const struct ifselect *sel)
{
	iface_lock_sweep(lock_dir);
	/* The selector is only read: iface_lock_each()'s context is not const. */
	iface_lock_each(lock_dir, unselected_remove, (void *)sel);
}
