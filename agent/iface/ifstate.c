// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What is on the interface: see ifstate.h. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>

#include "fizzbuzzfib.h"
#include "base/exit_codes.h"
#include "iface/ifstate.h"
#include "iface/libxdp_fds.h"
#include "iface/lock.h"
#include "base/log.h"
#include "iface/xdp_mode.h"
#include "iface/xdp_query.h"

struct xdp_multiprog *ifstate_progs(int ifindex, int *err)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	struct xdp_multiprog *mp;
	struct fd_fence fence;
	long e;

	/* libxdp's look costs a dump of every link: none there, none made. */
	*err = xdp_query(ifindex, &q);
	if (*err || q.attach_mode == XDP_ATTACHED_NONE)
		return NULL;

	/*
	 * libxdp warns of a dispatcher whose pins it cannot read (someone
	 * else's, or one pinned in another bpffs) and reads it as a single
	 * program, which is what every caller then explains in its one line.
	 */
	log_hold();
	fd_fence_set(&fence);
	mp = xdp_multiprog__get_from_ifindex(ifindex);
	e = libxdp_get_error(mp);
	fd_fence_sweep_multiprog(&fence, e ? NULL : mp);
	log_release(false);
	/* -ENOENT: no program there, which is no failure. */
	*err = e == -ENOENT ? 0 : e;
	return e ? NULL : mp;
}

/* The programs that run from the interface: the dispatcher's components, or the one alone. */
static struct xdp_program *multiprog_next(struct xdp_program *p, struct xdp_multiprog *mp)
{
	if (xdp_multiprog__is_legacy(mp))
		return p ? NULL : xdp_multiprog__main_prog(mp);
	return xdp_multiprog__next_prog(p, mp);
}

/* More than the classifier has: its queue or ring, its counters and perhaps .rodata. */
#define PROG_MAPS_MAX 8

static bool prog_uses_map(struct xdp_program *p, __u32 map_id)
{
	__u32 ids[PROG_MAPS_MAX] = {}, i, len;
	struct bpf_prog_info info = {
		.nr_map_ids = PROG_MAPS_MAX,
		.map_ids = (__u64)(unsigned long)ids,
	};

	len = sizeof(info);
	if (bpf_obj_get_info_by_fd(xdp_program__fd(p), &info, &len))
		return false;
	for (i = 0; i < info.nr_map_ids && i < PROG_MAPS_MAX; i++)
		if (ids[i] == map_id)
			return true;
	return false;
}

/* An xdp_fizzbuzzfib on @mp: the one using the map @map_id, or any if @map_id is 0. */
static struct xdp_program *multiprog_find(struct xdp_multiprog *mp, __u32 map_id)
{
	struct xdp_program *p;

	for (p = multiprog_next(NULL, mp); p; p = multiprog_next(p, mp))
		if (!strcmp(xdp_program__name(p), FBF_PROG_NAME) &&
		    (!map_id || prog_uses_map(p, map_id)))
			return p;
	return NULL;
}

/* Like ifstate_progs(), but says why it cannot read them. 0 or an agent exit status. */
static int progs_read(int ifindex, const char *iface, struct xdp_multiprog **mp)
{
	char buf[128];
	int err;

	*mp = ifstate_progs(ifindex, &err);
	if (!err)
		return 0;
	if (ifstate_raced(err, ifindex))
		return AGENT_EXIT_IFACE_GONE;
	if (err == -EPERM || err == -EACCES) {
		/* Only reading another's program: with none there, libxdp opens nothing. */
		pr_err("%s already runs an XDP program, and reading it (to share it or to "
		       "remove one a killed agent left) needs capability CAP_SYS_ADMIN, which the "
		       "agent lacks: add it, or remove that program\n", iface);
		return AGENT_EXIT_NO_PRIVILEGE;
	}
	pr_err("cannot read the XDP programs on %s: %s\n", iface,
	       libxdp_errstr(err, buf, sizeof(buf)));
	return agent_exit_for_errno(err);
}

/* The ip(8) keyword that detaches a program attached in @mode. */
static const char *ip_xdp_keyword(enum xdp_attach_mode mode)
{
	return mode == XDP_MODE_SKB ? "xdpgeneric" : mode == XDP_MODE_NATIVE ? "xdpdrv" :
	       mode == XDP_MODE_HW ? "xdpoffload" : "xdp";
}

/* Whether /proc/@pid/fdinfo/@fd says it is a descriptor of program @prog_id. */
static bool fd_holds_prog(const char *pid, const char *fd, __u32 prog_id)
{
	char path[600], line[128];
	bool found = false;
	unsigned int id;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/fdinfo/%s", pid, fd);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "prog_id: %u", &id) == 1 && id == prog_id;
	fclose(f);
	return found;
}

/*
 * A process other than this one with a descriptor of program @prog_id, or
 * 0: an agent keeps its program's descriptor while it runs, so one with
 * another --lock-dir shows up here.
 */
static long prog_holder(__u32 prog_id)
{
	struct dirent *pe, *fe;
	char fds[300];
	long holder = 0, pid;
	DIR *proc, *dir;

	proc = opendir("/proc");
	if (!proc)
		return 0;
	while (!holder && (pe = readdir(proc))) {
		pid = strtol(pe->d_name, NULL, 10);
		if (pid <= 0 || pid == getpid())
			continue;
		snprintf(fds, sizeof(fds), "/proc/%s/fdinfo", pe->d_name);
		dir = opendir(fds);
		if (!dir)
			continue;
		while (!holder && (fe = readdir(dir)))
			if (fe->d_name[0] != '.' && fd_holds_prog(pe->d_name, fe->d_name, prog_id))
				holder = pid;
		closedir(dir);
	}
	closedir(proc);
	return holder;
}

static void explain_foreign(struct xdp_multiprog *mp, struct xdp_program *p, const char *iface)
{
	__u32 id = xdp_program__id(p);
	char remedy[160];

	if (xdp_multiprog__is_legacy(mp))
		snprintf(remedy, sizeof(remedy), "'xdp-loader unload %s --all' or 'ip link set dev "
			 "%s %s off'", iface, iface,
			 ip_xdp_keyword(xdp_multiprog__attach_mode(mp)));
	else
		snprintf(remedy, sizeof(remedy), "'xdp-loader unload %s --id %u'", iface, id);
	pr_err("%s already runs an %s (prog id %u) that no agent recorded as its "
	       "own; remove it with %s\n", iface, FBF_PROG_NAME, id, remedy);
}

/* AGENT_EXIT_LOCKED, said as a held lock is, if another process holds @p (or NULL); else 0. */
static int other_agent(struct xdp_program *p, const char *iface)
{
	long holder = p ? prog_holder(xdp_program__id(p)) : 0;

	return holder ? iface_lock_held(holder, iface) : 0;
}

int stale_none(struct iface_lock *lock)
{
	lock->prev.map_id = 0;
	return 0;
}

/*
 * The program the dead holder of @lock recorded, off @ifindex if it is on
 * it, said; *@mp then what is there now. 0 or an exit status, said.
 */
static int recorded_remove(int ifindex, const char *iface, struct iface_lock *lock,
			   struct xdp_multiprog **mp)
{
	__u32 map_id = lock->prev.map_id, id;
	struct xdp_program *p;
	struct fd_fence fence;
	char buf[128];
	int ret, err;

	ret = progs_read(ifindex, iface, mp);
	if (ret)
		return ret;

	p = *mp && map_id ? multiprog_find(*mp, map_id) : NULL;
	if (p) {
		id = xdp_program__id(p);
		fd_fence_set(&fence);
		err = xdp_program__detach(p, ifindex, xdp_multiprog__attach_mode(*mp), 0);
		fd_fence_sweep_multiprog(&fence, *mp);
		xdp_multiprog__close(*mp);
		*mp = NULL;
		if (err) {
			pr_err("cannot remove stale %s (prog id %u) from %s: %s; "
			       "try 'xdp-loader unload %s --all'\n", FBF_PROG_NAME, id, iface,
			       libxdp_errstr(err, buf, sizeof(buf)), iface);
			return agent_exit_for_errno(err);
		}
		pr_info("removed stale %s (prog id %u) left on %s by agent pid %ld, "
			"which did not exit cleanly\n", FBF_PROG_NAME, id, iface, lock->prev.pid);
		ret = progs_read(ifindex, iface, mp);
		if (ret)
			return ret;
	}
	/* What the dead holder recorded is not attached (any more): nothing keeps its file. */
	lock->prev.map_id = 0;
	return 0;
}

int stale_remove_recorded(int ifindex, const char *iface, struct iface_lock *lock)
{
	struct xdp_multiprog *mp = NULL;
	int ret = recorded_remove(ifindex, iface, lock, &mp);

	xdp_multiprog__close(mp);
	return ret;
}

int stale_remove(int ifindex, const char *iface, struct iface_lock *lock)
{
	struct xdp_multiprog *mp = NULL;
	struct xdp_program *p;
	int ret;

	ret = recorded_remove(ifindex, iface, lock, &mp);
	if (ret || !mp) {
		xdp_multiprog__close(mp);
		return ret;
	}

	/* Any other of that name: another agent's (other --lock-dir), or someone's to remove. */
	p = multiprog_find(mp, 0);
	ret = other_agent(p, iface);
	if (!ret && p) {
		explain_foreign(mp, p, iface);
		ret = AGENT_EXIT_XDP_BUSY;
	}
	xdp_multiprog__close(mp);
	return ret;
}

int ifstate_explain_busy(int ifindex, const char *iface, enum xdp_attach_mode mode)
{
	struct xdp_multiprog *mp;
	struct xdp_program *main_prog;
	enum xdp_attach_mode have;
	int err, ret = AGENT_EXIT_XDP_BUSY;

	mp = ifstate_progs(ifindex, &err);
	main_prog = mp ? xdp_multiprog__main_prog(mp) : NULL;
	/* An agent with another --lock-dir that attached first, between our look and our attach. */
	if (mp && (err = other_agent(multiprog_find(mp, 0), iface))) {
		ret = err;
	} else if (main_prog && xdp_multiprog__is_legacy(mp)) {
		pr_err("%s already runs XDP program %s (prog id %u), which was not attached "
		       "through libxdp's dispatcher, so libxdp cannot share the interface; if it "
		       "is not wanted, remove it with 'ip link set dev %s %s off'\n",
		       iface, xdp_program__name(main_prog), xdp_program__id(main_prog), iface,
		       ip_xdp_keyword(xdp_multiprog__attach_mode(mp)));
	} else if (main_prog && mode != (have = xdp_multiprog__attach_mode(mp))) {
		pr_err("libxdp's dispatcher is attached to %s in %s mode; use --mode %s or auto "
		       "to share it, or if its programs are not wanted, remove them with "
		       "'xdp-loader unload %s --all'\n", iface, xdp_mode_name(have),
		       xdp_mode_name(have), iface);
	} else {
		pr_err("another XDP program already owns %s and libxdp cannot share it (a "
		       "dispatcher of another libxdp version, or one full); if it is not wanted, "
		       "remove it with 'xdp-loader unload %s --all' (see 'xdp-loader status %s')\n",
		       iface, iface, iface);
	}
	xdp_multiprog__close(mp);
	return ret;
}

enum xdp_attach_mode ifstate_join_mode(int ifindex)
{
	enum xdp_attach_mode mode = XDP_MODE_UNSPEC;
	struct xdp_multiprog *mp;
	int err;

	mp = ifstate_progs(ifindex, &err);
	if (mp && !xdp_multiprog__is_legacy(mp))
		mode = xdp_multiprog__attach_mode(mp);
	xdp_multiprog__close(mp);
	return mode;
}

/* @request on the interface @ifr names, through a socket of its own: 0, or -1. */
static int iface_ioctl(unsigned long request, struct ifreq *ifr)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int err;

	if (fd < 0)
		return -1;
	err = ioctl(fd, request, ifr);
	close(fd);
	return err;
}

void ifstate_warn_down(const char *name, const char *iface)
{
	struct ifreq ifr = {};

	strncpy(ifr.ifr_name, name, IFNAMSIZ - 1);
	/*
	 * Administratively down only: the carrier (IFF_RUNNING) follows a link
	 * that has just come up with a delay (the kernel's linkwatch), so it
	 * would warn of links that are fine.
	 */
	if (!iface_ioctl(SIOCGIFFLAGS, &ifr) && !(ifr.ifr_flags & IFF_UP))
		pr_warn("%s is down: no frame reaches %s until it is up ('ip link set %s up')\n",
			iface, FBF_PROG_NAME, iface);
}

bool ifstate_gone(int ifindex)
{
	char name[IF_NAMESIZE];

	return !if_indextoname(ifindex, name) && errno == ENXIO;
}

void ifstate_driver(int ifindex, char *buf, size_t size)
{
	struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };
	struct ifreq ifr = { .ifr_data = (void *)&info };

	buf[0] = '\0';
	if (if_indextoname(ifindex, ifr.ifr_name) && !iface_ioctl(SIOCETHTOOL, &ifr))
		snprintf(buf, size, "%.*s", (int)sizeof(info.driver), info.driver);
}
