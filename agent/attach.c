// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libxdp attaches through netlink, so a program outlives the process that
 * attached it. The agent therefore detaches explicitly on every way out it
 * controls, records in the interface lock what identifies its program, and
 * removes that program at the next start if it was killed before it could
 * detach it (lock.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <bpf/bpf.h>

#include "fizzbuzzfib.h"
#include "attach.h"
#include "exit_codes.h"
#include "lock.h"
#include "log.h"
#include "options.h"

#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC 0xcafe4a11
#endif

#define BPFFS_DEFAULT "/sys/fs/bpf"

static const char *xdp_strerror(int err, char *buf, size_t size)
{
	libxdp_strerror(err, buf, size);
	return buf;
}

void bpffs_ensure(void)
{
	const char *dir = getenv(XDP_BPFFS_ENVVAR) ?: BPFFS_DEFAULT;
	struct statfs fs;

	if (!statfs(dir, &fs) && fs.f_type == BPF_FS_MAGIC)
		return;
	if (!mount("bpf", dir, "bpf", 0, NULL)) {
		pr_info("mounted bpffs at %s for libxdp's dispatcher\n", dir);
		return;
	}
	pr_warn("no bpffs at %s and mounting one failed (%s); libxdp will attach "
		"without its dispatcher, so no other XDP program can share the interface\n",
		dir, strerror(errno));
}

/* The multiprog on @ifindex, NULL if none; *err < 0 if it cannot be read. */
static struct xdp_multiprog *multiprog_get(int ifindex, int *err)
{
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(ifindex);
	long e = libxdp_get_error(mp);

	*err = 0;
	if (!e)
		return mp;
	if (e != -ENOENT)
		*err = e;
	return NULL;
}

/*
 * The programs that run from the interface: the components of libxdp's
 * dispatcher, or the one program attached without it.
 */
static struct xdp_program *multiprog_next(struct xdp_program *p, struct xdp_multiprog *mp)
{
	if (xdp_multiprog__is_legacy(mp))
		return p ? NULL : xdp_multiprog__main_prog(mp);
	return xdp_multiprog__next_prog(p, mp);
}

/* More than the classifier has: its queue or ring, its counters and perhaps .rodata. */
#define PROG_MAPS_MAX 8

/* Whether @p uses the map with id @map_id. */
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

static int exit_for_errno(int err)
{
	return err == -EPERM || err == -EACCES ? AGENT_EXIT_NO_PRIVILEGE : AGENT_EXIT_FAILURE;
}

/* Like multiprog_get(), but says why it cannot read them. 0 or an agent exit status. */
static int progs_read(int ifindex, const char *iface, struct xdp_multiprog **mp)
{
	char buf[128];
	int err;

	*mp = multiprog_get(ifindex, &err);
	if (!err)
		return 0;
	pr_err("cannot read the XDP programs on %s: %s\n", iface,
	       xdp_strerror(err, buf, sizeof(buf)));
	return exit_for_errno(err);
}

/* The ip(8) keyword that detaches a program attached in @mode. */
static const char *ip_xdp_keyword(enum xdp_attach_mode mode)
{
	switch (mode) {
	case XDP_MODE_SKB:
		return "xdpgeneric";
	case XDP_MODE_NATIVE:
		return "xdpdrv";
	case XDP_MODE_HW:
		return "xdpoffload";
	default:
		return "xdp";
	}
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

int stale_remove(int ifindex, const char *iface, const struct iface_lock *lock)
{
	__u32 map_id = lock->prev.map_id, id;
	struct xdp_multiprog *mp;
	struct xdp_program *p;
	char buf[128];
	int ret, err;

	ret = progs_read(ifindex, iface, &mp);
	if (ret || !mp)
		return ret;

	p = map_id ? multiprog_find(mp, map_id) : NULL;
	if (p) {
		id = xdp_program__id(p);
		err = xdp_program__detach(p, ifindex, xdp_multiprog__attach_mode(mp), 0);
		xdp_multiprog__close(mp);
		if (err) {
			pr_err("cannot remove stale %s (prog id %u) from %s: %s; "
			       "try 'xdp-loader unload %s --all'\n", FBF_PROG_NAME, id, iface,
			       xdp_strerror(err, buf, sizeof(buf)), iface);
			return exit_for_errno(err);
		}
		pr_info("removed stale %s (prog id %u) left on %s by agent pid %ld, "
			"which did not exit cleanly\n", FBF_PROG_NAME, id, iface, lock->prev.pid);
		ret = progs_read(ifindex, iface, &mp);
		if (ret || !mp)
			return ret;
	}

	/* Same name, but no agent answers for it: someone else's to remove. */
	p = multiprog_find(mp, 0);
	if (p) {
		explain_foreign(mp, p, iface);
		ret = AGENT_EXIT_XDP_BUSY;
	}
	xdp_multiprog__close(mp);
	return ret;
}

/*
 * -EEXIST/-EBUSY: libxdp cannot add a program next to what is there. Say
 * what that is, since the remedy differs.
 */
static void explain_busy(int ifindex, const char *iface, enum xdp_attach_mode mode)
{
	struct xdp_multiprog *mp;
	struct xdp_program *main_prog;
	enum xdp_attach_mode have;
	int err;

	mp = multiprog_get(ifindex, &err);
	main_prog = mp ? xdp_multiprog__main_prog(mp) : NULL;
	if (main_prog && xdp_multiprog__is_legacy(mp)) {
		pr_err("%s already runs XDP program %s (prog id %u), which was "
		       "not attached through libxdp's dispatcher, so libxdp cannot share the "
		       "interface; see 'xdp-loader status %s'\n", iface,
		       xdp_program__name(main_prog), xdp_program__id(main_prog), iface);
	} else if (main_prog && mode != (have = xdp_multiprog__attach_mode(mp))) {
		pr_err("libxdp's dispatcher is attached to %s in %s mode; use "
		       "--mode %s or auto to share it, see 'xdp-loader status %s'\n", iface,
		       mode_name(have), mode_name(have), iface);
	} else {
		pr_err("another XDP program already owns %s and libxdp cannot "
		       "share it; see 'xdp-loader status %s'\n", iface, iface);
	}
	xdp_multiprog__close(mp);
}

static int attach_error(struct attachment *a, enum xdp_attach_mode mode, int err)
{
	char buf[128];

	switch (err) {
	case -EPERM:
	case -EACCES:
		log_release(false);
		pr_err("the kernel refused to load or attach %s on %s: %s; run as "
		       "root, and check that BPF is not restricted (kernel lockdown, LSM)\n",
		       FBF_PROG_NAME, a->iface, xdp_strerror(err, buf, sizeof(buf)));
		return AGENT_EXIT_NO_PRIVILEGE;
	case -EOPNOTSUPP:
		if (mode != XDP_MODE_NATIVE)
			break;
		log_release(false);
		pr_err("the driver of %s does not support native XDP; try --mode "
		       "skb\n", a->iface);
		return AGENT_EXIT_NATIVE_UNSUPPORTED;
	case -EEXIST:
	case -EBUSY:
		log_release(false);
		explain_busy(a->ifindex, a->iface, mode);
		return AGENT_EXIT_XDP_BUSY;
	}
	/* Unexplained: the library's own warnings (a verifier log, say) come first. */
	log_release(true);
	pr_err("cannot attach %s to %s in %s mode: %s\n", FBF_PROG_NAME, a->iface,
	       mode_name(mode), xdp_strerror(err, buf, sizeof(buf)));
	return AGENT_EXIT_FAILURE;
}

/*
 * With --mode auto, join a dispatcher already on the interface in its mode:
 * the kernel would pick native for us, and native and generic XDP cannot be
 * attached to one interface at the same time.
 */
static enum xdp_attach_mode attach_mode_for(int ifindex, enum xdp_attach_mode mode)
{
	struct xdp_multiprog *mp;
	int err;

	if (mode != XDP_MODE_UNSPEC)
		return mode;
	mp = multiprog_get(ifindex, &err);
	if (mp && !xdp_multiprog__is_legacy(mp))
		mode = xdp_multiprog__attach_mode(mp);
	xdp_multiprog__close(mp);
	return mode;
}

int attachment_attach(struct attachment *a, int ifindex, const char *iface,
		      const struct attach_spec *spec, struct iface_lock *lock)
{
	enum xdp_attach_mode mode = spec->mode;
	DECLARE_LIBXDP_OPTS(xdp_program_opts, prog_opts, .prog_name = FBF_PROG_NAME);
	struct xdp_multiprog *mp;
	__u32 map_id = 0;
	char buf[128];
	int err;

	*a = (struct attachment){ .iface = iface, .ifindex = ifindex };

	err = fbf_object_open(&a->obj, spec->transport, spec->wakeup_batch);
	if (err) {
		pr_err("cannot open the embedded BPF object: %s\n", strerror(-err));
		return AGENT_EXIT_FAILURE;
	}
	/*
	 * The event map is created here rather than by the load inside libxdp's
	 * attach, so that its id is on record before the program can be on the
	 * interface. (A queue has no BTF then, which only makes bpftool print
	 * its events in hex.)
	 */
	err = fbf_object_events_create(&a->obj, spec->queue_size, &map_id);
	if (err) {
		pr_err("cannot create the event %s for %u events: %s\n",
		       spec->transport == FBF_TRANSPORT_RINGBUF ? "ring buffer" : "queue",
		       spec->queue_size, strerror(-err));
		return exit_for_errno(err);
	}
	err = iface_lock_record(lock, map_id);
	if (err)
		return err;

	/* Created from the opened object, the program is loaded by the attach. */
	prog_opts.obj = a->obj.obj;
	a->prog = xdp_program__create(&prog_opts);
	err = libxdp_get_error(a->prog);
	if (err) {
		a->prog = NULL;
		pr_err("cannot prepare %s for libxdp: %s\n", FBF_PROG_NAME,
		       xdp_strerror(err, buf, sizeof(buf)));
		return AGENT_EXIT_FAILURE;
	}

	mode = attach_mode_for(ifindex, mode);
	log_hold();
	err = xdp_program__attach(a->prog, ifindex, mode, 0);
	if (err)
		return attach_error(a, mode, err);
	log_release(false);
	a->attached = true;

	/* Read back what the kernel chose: with auto, native if the driver can. */
	a->mode = mode;
	mp = multiprog_get(ifindex, &err);
	if (mp) {
		a->mode = xdp_multiprog__attach_mode(mp);
		a->dispatcher = !xdp_multiprog__is_legacy(mp);
		xdp_multiprog__close(mp);
	}
	return 0;
}

int attachment_detach(struct attachment *a)
{
	char buf[128];
	int err;

	if (!a->attached)
		return 0;
	log_hold();
	err = xdp_program__detach(a->prog, a->ifindex, a->mode, 0);
	if (err == -ENOENT && xdp_program__is_attached(a->prog, a->ifindex) == XDP_MODE_UNSPEC) {
		log_release(false);
		pr_warn("%s was already detached from %s by someone else\n",
			FBF_PROG_NAME, a->iface);
		err = 0;
	}
	log_release(err);
	if (err) {
		pr_err("cannot detach %s from %s: %s; remove it with "
		       "'xdp-loader unload %s --all'\n", FBF_PROG_NAME, a->iface,
		       xdp_strerror(err, buf, sizeof(buf)), a->iface);
		return exit_for_errno(err);
	}
	a->attached = false;
	return 0;
}

void attachment_forget_iface(struct attachment *a)
{
	/* The kernel dropped the program with the device; libxdp's pins remain. */
	if (a->dispatcher)
		libxdp_clean_references(a->ifindex);
	a->attached = false;
}

void attachment_close(struct attachment *a)
{
	xdp_program__close(a->prog);
	fbf_object_close(&a->obj);
	a->prog = NULL;
}

int attachment_events_fd(const struct attachment *a)
{
	return bpf_map__fd(a->obj.events);
}

int attachment_prog_fd(const struct attachment *a)
{
	return xdp_program__fd(a->prog);
}

int attachment_counters_fd(const struct attachment *a)
{
	return bpf_map__fd(a->obj.counters);
}
