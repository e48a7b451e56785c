// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libxdp attaches through netlink, so a program outlives the process that
 * attached it: the agent detaches on every way out it controls, and records
 * its program in the interface lock before it attaches, for the next start
 * to remove if the agent was killed first (ifstate.c, lock.h). libxdp
 * finds programs by id, which needs CAP_SYS_ADMIN: without it the agent
 * attaches through a BPF link of its own (attach_link()), which the kernel
 * takes off with the agent's last descriptor of it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "fizzbuzzfib.h"
#include "iface/attach.h"
#include "base/exit_codes.h"
#include "iface/ifstate.h"
#include "iface/libxdp_fds.h"
#include "iface/lock.h"
#include "base/log.h"
#include "iface/xdp_mode.h"
#include "iface/xdp_query.h"
#include "service/privileges.h"
#include "transports/transport_memory.h"

/*
 * The driver's own refusal: a driver's message carries its module's name
 * (NL_SET_ERR_MSG_MOD), the core's does not ("does not support XDP in
 * native mode"). NULL if the driver did not speak.
 */
static const char *driver_refusal(const char *driver)
{
	const char *msg = log_kernel_message();
	size_t len = strlen(driver);

	if (!len || strncmp(msg, driver, len) || strncmp(msg + len, ": ", 2))
		return NULL;
	return msg + len + 2;
}

static int attach_error(struct attachment *a, enum xdp_attach_mode mode, int err)
{
	const char *refusal = driver_refusal(a->driver);
	char buf[128];

	switch (err) {
	case -EPERM:
	case -EACCES:
		log_release(false);
		pr_err("the kernel refused to load or attach %s on %s: %s; run as "
		       "root, and check that BPF is not restricted (kernel lockdown, LSM)\n",
		       FBF_PROG_NAME, a->iface, libxdp_errstr(err, buf, sizeof(buf)));
		return AGENT_EXIT_NO_PRIVILEGE;
	case -EEXIST:
	case -EBUSY:
		log_release(false);
		return ifstate_explain_busy(a->ifindex, a->iface, mode);
	}
	if (mode == XDP_MODE_NATIVE && refusal) {
		log_release(false);
		pr_err("%s (%s) refuses native XDP as configured: %s; use --mode skb or auto, "
		       "or for native mode: %s\n", a->iface, a->driver, refusal,
		       xdp_mode_native_needs(a->driver));
		return AGENT_EXIT_NATIVE_UNSUPPORTED;
	}
	if (mode == XDP_MODE_NATIVE && err == -EOPNOTSUPP) {
		log_release(false);
		pr_err("the driver of %s (%s) has no native XDP; use --mode skb or auto\n",
		       a->iface, a->driver[0] ? a->driver : "unknown");
		return AGENT_EXIT_NATIVE_UNSUPPORTED;
	}
	if (ifstate_raced(err, a->ifindex)) {
		log_release(false);
		return AGENT_EXIT_IFACE_GONE;
	}
	/* Unexplained: the library's own warnings (a verifier log, say) come first. */
	log_release(true);
	pr_err("cannot attach %s to %s in %s mode: %s\n", FBF_PROG_NAME, a->iface,
	       xdp_mode_name(mode), libxdp_errstr(err, buf, sizeof(buf)));
	return AGENT_EXIT_FAILURE;
}

/* The program descriptors @a holds: a->prog's, and its object's while open. How many. */
static unsigned int prog_fds(const struct attachment *a, int *fds, unsigned int max)
{
	struct bpf_program *p;
	unsigned int n = 0;

	fds[n++] = xdp_program__fd(a->prog);
	if (a->obj.obj)
		bpf_object__for_each_program(p, a->obj.obj)
			if (n < max)
				fds[n++] = bpf_program__fd(p);
	return n;
}

/* The most prog_fds() finds: the object has one program. */
#define PROG_FDS_MAX 4

/* libxdp's attach, which reads what is there first (libxdp_fds.h). */
static int prog_attach(struct attachment *a, enum xdp_attach_mode mode)
{
	int err, keep[PROG_FDS_MAX];
	struct fd_fence fence;

	fd_fence_set(&fence);
	err = xdp_program__attach(a->prog, a->ifindex, mode, 0);
	fd_fence_sweep(&fence, keep, prog_fds(a, keep, PROG_FDS_MAX));
	return err;
}

/*
 * Attach in @mode, or in auto's choice (a->why says which and why), which
 * falls back to skb, saying what native would need, where the driver refuses
 * native as configured: generic XDP runs in the core's receive path, so no
 * driver refuses it.
 */
static int attach_mode(struct attachment *a, enum xdp_attach_mode mode)
{
	const char *refusal;
	int err;

	if (mode != XDP_MODE_UNSPEC) {
		a->why = "as asked";
	} else if ((mode = ifstate_join_mode(a->ifindex)) != XDP_MODE_UNSPEC) {
		a->why = "that of libxdp's dispatcher there";
	} else {
		mode = xdp_mode_for_driver(a->driver, &a->why);
	}
	log_hold();
	err = prog_attach(a, mode);
	if (err && mode == XDP_MODE_UNSPEC && (refusal = driver_refusal(a->driver))) {
		log_release(false);
		pr_warn("%s (%s) refuses native XDP as configured: %s; attaching in skb mode. "
			"For native mode: %s\n", a->iface, a->driver, refusal,
			xdp_mode_native_needs(a->driver));
		a->why = "the driver refuses native as configured";
		mode = XDP_MODE_SKB;
		log_hold();
		err = prog_attach(a, mode);
	}
	if (err)
		return attach_error(a, mode, err);
	log_release(false);
	a->attached = true;
	a->mode = mode;
	return 0;
}

static const char *events_map_kind(enum fbf_transport transport)
{
	return transport == FBF_TRANSPORT_RINGBUF ? "ring buffer" : "queue";
}

/*
 * The kernel had no room for the event maps, though the options' check found
 * some: the kernel's own overhead, or memory taken since. The size, not the
 * system, is what to change: a usage error, with a size that would fit.
 */
static int events_no_room(const struct attach_spec *spec)
{
	__u32 fits, half = spec->queue_size / 2;
	struct memory_room r;
	char room[128];

	memory_room(&r);
	memory_room_words(&r, room, sizeof(room));
	fits = transport_memory_fits(spec->transport, r.for_maps);
	pr_err("cannot create the event %s for %u events: they do not fit in %s "
	       "(the kernel charges them to the agent's memory cgroup); use a smaller "
	       "--queue-size, e.g. %u\n", events_map_kind(spec->transport),
	       spec->queue_size, room, fits < half ? fits : half);
	return AGENT_EXIT_USAGE;
}

/*
 * Before 5.11 the kernel charges BPF maps to the process's locked-memory
 * limit, which libbpf can raise only with CAP_SYS_RESOURCE: a map refused
 * with EPERM there, under a finite limit, met that limit. Its size in KiB,
 * or 0 where that is not it.
 */
static unsigned long memlock_limit_kib(int err)
{
	unsigned int major, minor;
	struct utsname u;
	struct rlimit r;

	if (err != -EPERM || uname(&u) || sscanf(u.release, "%u.%u", &major, &minor) != 2 ||
	    major > 5 || (major == 5 && minor >= 11) || getrlimit(RLIMIT_MEMLOCK, &r) ||
	    r.rlim_cur == RLIM_INFINITY)
		return 0;
	return r.rlim_cur / 1024 ?: 1;
}

/* "cannot create @what: ..." for @err, in one line, and the exit status. */
static int maps_refused(const char *what, int err)
{
	unsigned long kib = memlock_limit_kib(err);

	/* The run's first bpf(), its capabilities checked: refused by a filter, not by them. */
	if (!kib && err == -EPERM && privileges_seccomp_filtered()) {
		pr_err("cannot create %s: %s, though the agent holds the capabilities it needs: "
		       "the seccomp profile it runs under refuses bpf() (a container runtime's "
		       "default does, without CAP_SYS_ADMIN); run it under one that allows bpf() "
		       "under CAP_BPF: tools/seccomp-bpf.py writes one (docs/deploy.md)\n", what,
		       strerror(-err));
		return AGENT_EXIT_NO_PRIVILEGE;
	}
	if (kib) {
		pr_err("cannot create %s: %s; before Linux 5.11 BPF maps count against the "
		       "locked-memory limit, %lu KiB here: run the agent with it unlimited "
		       "(ulimit -l unlimited, systemd's LimitMEMLOCK=infinity, podman's --ulimit "
		       "memlock=-1:-1) or with CAP_SYS_RESOURCE\n", what, strerror(-err), kib);
		return AGENT_EXIT_NO_PRIVILEGE;
	}
	pr_err("cannot create %s: %s\n", what, strerror(-err));
	return agent_exit_for_errno(err);
}

/* The object of attachment_attach() (@maps given) or attachment_maps_open() (@slot: slots). */
static int object_prepare(struct attachment *a, const struct attach_spec *spec,
			  struct iface_lock *lock, const struct fbf_object *maps, __u32 slot)
{
	__u32 map_id;
	int err;

	err = fbf_object_open(&a->obj, spec->transport);
	if (err) {
		pr_err("cannot open the embedded BPF object: %s\n", strerror(-err));
		return AGENT_EXIT_FAILURE;
	}
	/* Values the options checked: only an object unlike the one built here fails. */
	err = fbf_object_set_sample(&a->obj, spec->sample) ?:
	      (spec->max_sources ? fbf_object_set_aggregate(&a->obj, spec->max_sources) : 0);
	if (err) {
		pr_err("cannot set the sampling (1 in %u) or the sources counted (%u) of %s: %s\n",
		       spec->sample, spec->max_sources, FBF_PROG_NAME, strerror(-err));
		return AGENT_EXIT_FAILURE;
	}
	if (maps) {
		err = fbf_object_share(&a->obj, maps, slot);
		if (err) {
			pr_err("cannot share the maps with %s's program: %s\n", a->iface,
			       strerror(-err));
			return AGENT_EXIT_FAILURE;
		}
		return iface_lock_record(lock, maps->events_id);
	}
	/*
	 * The event map, made before any program is loaded so that its id is on
	 * record first (lock.h). A queue has no BTF then, which only makes
	 * bpftool print its events in hex.
	 */
	err = fbf_object_set_iface_slots(&a->obj, slot) ?:
	      fbf_object_events_create(&a->obj, spec->queue_size, &map_id);
	if (err == -ENOMEM)
		return events_no_room(spec);
	if (err) {
		char what[64];

		snprintf(what, sizeof(what), "the event %s for %u events",
			 events_map_kind(spec->transport), spec->queue_size);
		return maps_refused(what, err);
	}
	return 0;
}

int attachment_maps_open(struct attachment *a, const struct attach_spec *spec, __u32 slots)
{
	int err;

	*a = (struct attachment){ .iface = "" };
	err = object_prepare(a, spec, NULL, NULL, slots);
	if (err)
		return err;
	err = fbf_object_load_maps(&a->obj) ?: fbf_object_reader_map(&a->obj);
	return err ? maps_refused("the program's maps", err) : 0;
}

int attachment_shared_open(struct attachment *shared, const struct attach_spec *spec,
			   const struct attachment *maps, __u32 slots)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	int err, fd;

	*shared = (struct attachment){ .iface = "" };
	err = fbf_object_open(&shared->obj, spec->transport) ?:
	      fbf_object_set_sample(&shared->obj, spec->sample) ?:
	      (spec->max_sources ? fbf_object_set_aggregate(&shared->obj, spec->max_sources) : 0) ?:
	      fbf_object_share(&shared->obj, &maps->obj, 0) ?:
	      fbf_object_slot_by_ifindex(&shared->obj, slots);
	if (!err) {
		log_hold();
		err = bpf_object__load(shared->obj.obj);
		log_release(err);
	}
	fd = err ? -1 : fcntl(bpf_program__fd(shared->obj.prog), F_DUPFD_CLOEXEC, 0);
	if (!err && (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len)))
		err = -errno;
	fbf_object_close(&shared->obj);
	if (err) {
		if (fd >= 0)
			close(fd);
		pr_err("cannot load the copy of %s that veths share: %s\n", FBF_PROG_NAME,
		       strerror(-err));
		return agent_exit_for_errno(err);
	}
	shared->prog_fd = fd;
	shared->own_id = info.id;
	shared->shared = true;
	return 0;
}

void attachment_slot_leave(struct attachment *a)
{
	struct fbf_iface_slot none = {};

	if (a->in_slot_table)
		bpf_map_update_elem(a->slot_table_fd, &a->slot_key, &none, BPF_ANY);
	a->in_slot_table = false;
}

/*
 * @shared's program on a->ifindex for @slot, its entry in the table first:
 * 0; 1 where a copy of its own is for it (not a veth, its entry another's,
 * or a program there already, which that path joins or explains); or an
 * exit status, said.
 */
static int attach_shared(struct attachment *a, const struct attach_spec *spec,
			 const struct fbf_object *maps, __u32 slot,
			 const struct attachment *shared)
{
	int table = bpf_map__fd(maps->iface_slots), fd, err;
	__u32 key = a->ifindex & (bpf_map__max_entries(maps->iface_slots) - 1);
	enum xdp_attach_mode mode = spec->mode;
	struct fbf_iface_slot e;

	if (strcmp(a->driver, "veth") || mode == XDP_MODE_HW)
		return 1;
	if (bpf_map_lookup_elem(table, &key, &e) || (e.ifindex && e.ifindex != (__u32)a->ifindex))
		return 1;
	e = (struct fbf_iface_slot){ .ifindex = a->ifindex, .slot = slot };
	if (bpf_map_update_elem(table, &key, &e, BPF_ANY))
		return 1;
	a->slot_table_fd = table;
	a->slot_key = key;
	a->in_slot_table = true;
	/* Its own descriptor, as a linked program has (attachment_prog_fd()). */
	a->prog_fd = fcntl(shared->prog_fd, F_DUPFD_CLOEXEC, 0);
	if (a->prog_fd < 0) {
		err = -errno;
		attachment_slot_leave(a);
		pr_err("cannot attach %s to %s: %s\n", FBF_PROG_NAME, a->iface, strerror(-err));
		return agent_exit_for_errno(err);
	}
	if (mode != XDP_MODE_UNSPEC)
		a->why = "as asked";
	else
		mode = xdp_mode_for_driver(a->driver, &a->why);
	log_hold();
	if (privileges_sys_admin()) {
		err = bpf_xdp_attach(a->ifindex, shared->prog_fd,
				     XDP_FLAGS_UPDATE_IF_NOEXIST | xdp_mode_flags(mode), NULL);
	} else {
		LIBBPF_OPTS(bpf_link_create_opts, opts, .flags = xdp_mode_flags(mode));

		fd = bpf_link_create(shared->prog_fd, a->ifindex, BPF_XDP, &opts);
		err = fd < 0 ? -errno : 0;
		a->link_fd = fd;
		a->linked = !err;
	}
	if (err) {
		attachment_slot_leave(a);
		close(a->prog_fd);
		a->prog_fd = -1;
		if (err == -EBUSY || err == -EEXIST) {
			log_release(false);
			return 1;
		}
		return attach_error(a, mode, err);
	}
	log_release(false);
	/* Attached alone where nothing was: what attach_read_back() would find. */
	a->shared = true;
	a->own_id = shared->own_id;
	a->attached_id = shared->own_id;
	a->attached = true;
	a->mode = mode;
	return 0;
}

/*
 * Without CAP_SYS_ADMIN no program already on the interface can be read,
 * shared or replaced: say which capability would, in one line.
 */
static int link_busy(const struct attachment *a)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	__u32 id = 0;

	if (!xdp_query(a->ifindex, &q))
		id = q.prog_id ?: q.skb_prog_id ?: q.drv_prog_id;
	pr_err("%s already runs an XDP program (prog id %u); sharing it through libxdp's "
	       "dispatcher or removing one a killed agent left needs capability CAP_SYS_ADMIN, "
	       "which the agent lacks: add it, or remove that program\n", a->iface, id);
	return AGENT_EXIT_NO_PRIVILEGE;
}

/* Load the program and attach it in @mode through a BPF link of ours. 0 or -errno. */
static int link_mode(struct attachment *a, enum xdp_attach_mode mode)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts, .flags = xdp_mode_flags(mode));
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	int prog_fd, fd, err;

	/* Loaded once; a verifier log held for attach_error() if it fails. */
	prog_fd = bpf_program__fd(a->obj.prog);
	if (prog_fd < 0) {
		log_hold();
		err = bpf_object__load(a->obj.obj);
		if (err)
			return err;
		log_release(false);
		prog_fd = bpf_program__fd(a->obj.prog);
	}
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return -errno;
	fd = bpf_link_create(prog_fd, a->ifindex, BPF_XDP, &opts);
	if (fd < 0)
		return -errno;
	a->prog_fd = prog_fd;
	a->own_id = info.id;
	a->link_fd = fd;
	a->linked = true;
	return 0;
}

/* attach_mode()'s choice, through a BPF link: no dispatcher to join, no fd by id. */
static int attach_link(struct attachment *a, enum xdp_attach_mode mode)
{
	bool asked = mode != XDP_MODE_UNSPEC;
	int err;

	if (asked)
		a->why = "as asked";
	else
		mode = xdp_mode_for_driver(a->driver, &a->why);
	err = link_mode(a, mode);
	/* Generic XDP runs in the core's receive path: no driver refuses it. */
	if (err && !asked && mode == XDP_MODE_NATIVE && err != -EBUSY && err != -EEXIST &&
	    err != -EPERM && err != -EACCES) {
		pr_warn("%s (%s) refuses native XDP as configured; attaching in skb mode. "
			"For native mode: %s\n", a->iface, a->driver,
			xdp_mode_native_needs(a->driver));
		a->why = "the driver refuses native as configured";
		mode = XDP_MODE_SKB;
		err = link_mode(a, mode);
	}
	if (err == -EBUSY || err == -EEXIST) {
		log_release(false);
		return link_busy(a);
	}
	if (err)
		return attach_error(a, mode, err);
	a->attached = true;
	a->mode = mode;
	return 0;
}

/*
 * What the kernel chose, read back: with auto, native if the driver can;
 * and whether libxdp put a dispatcher in front (then another program's id
 * is the interface's). From the kernel, not libxdp's multiprog: a read of
 * it looks up every program there by id, and before libxdp 1.4 keeps a
 * descriptor of each open unless swept (libxdp_fds.h).
 */
static void attach_read_back(struct attachment *a)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	struct xdp_multiprog *mp;
	__u32 id;
	int err;

	if (!xdp_query(a->ifindex, &q) &&
	    (q.attach_mode == XDP_ATTACHED_SKB || q.attach_mode == XDP_ATTACHED_DRV)) {
		a->mode = q.attach_mode == XDP_ATTACHED_SKB ? XDP_MODE_SKB : XDP_MODE_NATIVE;
		id = a->mode == XDP_MODE_SKB ? q.skb_prog_id : q.drv_prog_id;
		a->dispatcher = id != attachment_prog_id(a);
		a->attached_id = id;
		return;
	}
	/*
	 * Programs in several modes at once (XDP_ATTACHED_MULTI), or no answer:
	 * libxdp tells which is ours, at the cost above; the detach goes through
	 * it too, and no id is on record for a move.
	 */
	mp = ifstate_progs(a->ifindex, &err);
	if (!mp)
		return;
	a->mode = xdp_multiprog__attach_mode(mp);
	a->dispatcher = !xdp_multiprog__is_legacy(mp);
	xdp_multiprog__close(mp);
}

/*
 * An attached program's object holds a descriptor of each shared map and the
 * ELF and BTF it was loaded from, some fifteen an interface, which on a host
 * of hundreds could pass the process's limit. If the program cannot be kept
 * alone, from its descriptor, the object stays.
 */
static void program_keep_alone(struct attachment *a)
{
	struct xdp_program *alone = xdp_program__clone(a->prog, 0);

	if (libxdp_get_error(alone))
		return;
	xdp_program__close(a->prog);
	fbf_object_close(&a->obj);
	a->prog = alone;
}

/* program_keep_alone() for a linked program: its own descriptor, the object closed. */
static void link_keep_alone(struct attachment *a)
{
	int fd = fcntl(a->prog_fd, F_DUPFD_CLOEXEC, 0);

	if (fd < 0)
		return;
	a->prog_fd = fd;
	fbf_object_close(&a->obj);
}

int attachment_attach(struct attachment *a, int ifindex, const char *iface,
		      const struct attach_spec *spec, struct iface_lock *lock,
		      const struct fbf_object *maps, __u32 slot,
		      const struct attachment *shared, const struct attach_hint *hint)
{
	DECLARE_LIBXDP_OPTS(xdp_program_opts, prog_opts, .prog_name = FBF_PROG_NAME);
	char buf[128];
	int err;

	*a = (struct attachment){ .iface = iface, .ifindex = ifindex };
	/* ethtool's name for a veth is its kind's. */
	if (hint && hint->link_kind && !strcmp(hint->link_kind, "veth"))
		snprintf(a->driver, sizeof(a->driver), "veth");
	else
		ifstate_driver(ifindex, a->driver, sizeof(a->driver));
	if (shared) {
		err = iface_lock_record(lock, maps->events_id) ?:
		      attach_shared(a, spec, maps, slot, shared);
		if (err <= 0)
			return err;
	}
	err = object_prepare(a, spec, lock, maps, slot);
	if (err)
		return err;
	if (!privileges_sys_admin()) {
		err = attach_link(a, spec->mode);
		if (err)
			return err;
		attach_read_back(a);
		link_keep_alone(a);
		return 0;
	}

	/* Created from the opened object, the program is loaded by the attach. */
	prog_opts.obj = a->obj.obj;
	a->prog = xdp_program__create(&prog_opts);
	err = libxdp_get_error(a->prog);
	if (err) {
		a->prog = NULL;
		pr_err("cannot prepare %s for libxdp: %s\n", FBF_PROG_NAME,
		       libxdp_errstr(err, buf, sizeof(buf)));
		return AGENT_EXIT_FAILURE;
	}

	err = attach_mode(a, spec->mode);
	if (err)
		return err;

	attach_read_back(a);
	if (!a->why)
		a->why = a->mode == XDP_MODE_SKB ? "the driver has no native XDP" :
			 "the driver has it";

	program_keep_alone(a);
	return 0;
}

int attachment_detach(struct attachment *a)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, opts, .old_prog_fd = attachment_prog_fd(a));
	int err, keep[PROG_FDS_MAX];
	struct fd_fence fence;
	char buf[128];
	bool gone;

	if (!a->attached)
		return 0;
	if (a->linked) {
		/* A link is ours alone: nobody replaces the program under it. */
		err = bpf_link_detach(a->link_fd) ? -errno : 0;
		gone = err == -ENOLINK;
	} else if (a->dispatcher || !a->attached_id || opts.old_prog_fd < 0) {
		/*
		 * Through libxdp, which knows what it attached, only where it must (a
		 * dispatcher, or no id on record): its detach reads the interface's
		 * programs, whose descriptors 1.3.1 leaves open (libxdp_fds.h).
		 */
		log_hold();
		fd_fence_set(&fence);
		err = xdp_program__detach(a->prog, a->ifindex, a->mode, 0);
		gone = err == -ENOENT &&
		       xdp_program__is_attached(a->prog, a->ifindex) == XDP_MODE_UNSPEC;
		fd_fence_sweep(&fence, keep, prog_fds(a, keep, PROG_FDS_MAX));
		log_release(err && !gone);
	} else {
		/* The old program's descriptor makes it XDP_FLAGS_REPLACE: ours, or nothing. */
		err = bpf_xdp_detach(a->ifindex, xdp_mode_flags(a->mode), &opts) ? -errno : 0;
		gone = err == -EEXIST;
	}
	/* Deleted, or moved away, since: the program went with it; its link event says which. */
	if (err && ifstate_gone(a->ifindex)) {
		a->attached = false;
		return AGENT_EXIT_IFACE_GONE;
	}
	if (gone) {
		pr_warn("%s was already replaced or removed on %s by someone else\n",
			FBF_PROG_NAME, a->iface);
		err = 0;
	}
	if (err) {
		pr_err("cannot detach %s from %s: %s; remove it with 'xdp-loader unload %s "
		       "--all'\n", FBF_PROG_NAME, a->iface, libxdp_errstr(err, buf, sizeof(buf)),
		       a->iface);
		return agent_exit_for_errno(err);
	}
	a->attached = false;
	return 0;
}

/* Whether the new dispatcher, swapped in atomically with the same components, still runs ours. */
static bool dispatcher_runs_own(const struct attachment *a)
{
	__u32 own = xdp_program__id(a->prog);
	struct xdp_multiprog *mp;
	struct xdp_program *p;
	bool found = false;
	int err;

	/* A dispatcher whose pins libxdp cannot read reads as a single program: not ours. */
	mp = ifstate_progs(a->ifindex, &err);
	if (mp && !xdp_multiprog__is_legacy(mp))
		for (p = xdp_multiprog__next_prog(NULL, mp); p && !found;
		     p = xdp_multiprog__next_prog(p, mp))
			found = xdp_program__id(p) == own;
	xdp_multiprog__close(mp);
	return found;
}

bool attachment_replaced(struct attachment *a, const struct bpf_xdp_query_opts *said)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	__u32 id;

	/*
	 * A device being deleted or moved leaves the namespace's list before
	 * its program is taken off, so a query that fails is no answer: the
	 * RTM_DELLINK that follows says what happened.
	 */
	if (!a->attached || !a->attached_id || (!said && xdp_query(a->ifindex, &q)))
		return false;
	if (said)
		q = *said;
	id = a->mode == XDP_MODE_SKB ? q.skb_prog_id :
	     a->mode == XDP_MODE_HW ? q.hw_prog_id : q.drv_prog_id;
	if (id == a->attached_id)
		return false;
	if (id && a->dispatcher && dispatcher_runs_own(a)) {
		a->attached_id = id;
		return false;
	}
	return true;
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
	/* Detached, or gone with its device: no frame can look for its entry now. */
	if (!a->attached)
		attachment_slot_leave(a);
	if (a->linked)
		close(a->link_fd);
	/* Its own descriptor once the object is closed, else the object's. */
	if ((a->linked || a->shared) && !a->obj.obj)
		close(a->prog_fd);
	a->linked = false;
	a->shared = false;
	xdp_program__close(a->prog);
	fbf_object_close(&a->obj);
	a->prog = NULL;
}

int attachment_prog_fd(const struct attachment *a)
{
	if (a->linked || a->shared)
		return a->prog_fd;
	return a->prog ? xdp_program__fd(a->prog) : -1;
}

__u32 attachment_prog_id(const struct attachment *a)
{
	return a->linked || a->shared ? a->own_id : xdp_program__id(a->prog);
}
