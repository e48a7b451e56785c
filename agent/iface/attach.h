/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Getting the classifier onto an interface through libxdp, and off it again. */
#ifndef AGENT_ATTACH_H
#define AGENT_ATTACH_H

#include <stdbool.h>
#include <linux/types.h>
#include <xdp/libxdp.h>

#include "fbf_object.h"

struct iface_lock;

struct attachment {
	struct fbf_object obj;
	struct xdp_program *prog;
	const char *iface;
	int ifindex;
	enum xdp_attach_mode mode;	/* as attached: native or skb */
	const char *why;		/* why that mode, for the start line */
	char driver[32];		/* ethtool's name for it; "" if unsaid */
	bool dispatcher;		/* through libxdp's dispatcher, not alone */
	__u32 attached_id;		/* the interface's program: ours, or the dispatcher */
	bool attached;
	bool linked;			/* through a BPF link of ours, not libxdp */
	int link_fd;			/* the link, while linked */
	int prog_fd;			/* the program, while linked */
	__u32 own_id;			/* the program's id, while linked or shared */
	bool shared;			/* the program all veths share (attachment_shared_open()) */
	bool in_slot_table;		/* its slot named in the shared program's table: */
	int slot_table_fd;		/* ... this one */
	__u32 slot_key;			/* ... at this key */
};

/* What to attach: the transport's object, its event map's size, sampling or aggregation. */
struct attach_spec {
	enum xdp_attach_mode mode;
	enum fbf_transport transport;
	__u32 queue_size;		/* events the queue or ring holds */
	__u32 sample;			/* 1 event in this many is sent; 1: all */
	__u32 max_sources;		/* --aggregate: the source maps' size; 0: events */
};

/*
 * Open the embedded object for interface slot @slot with the maps of @maps
 * (attachment_maps_open()'s), record their event map's id in @lock, then
 * load the program, attach it, and keep the program alone (the maps live
 * in @maps). Through libxdp with CAP_SYS_ADMIN; without it, alone through a
 * BPF link, which the kernel takes off with the agent's last descriptor of
 * it, even on SIGKILL. Returns 0 or an agent exit status after saying why.
 */
/*
 * What a link event said of an interface, which spares asking the kernel
 * again, each time under its RTNL lock, which a burst of pods' namespaces
 * coming and going holds for most of the time.
 */
struct attach_hint {
	const char *link_kind;		/* IFLA_INFO_KIND: "veth"; NULL or "": unsaid */
	bool xdp_none;			/* no XDP program on it when the event was made */
};

/*
 * Attach the program to @ifindex for @slot: @shared's (NULL: none) if the
 * interface is a veth with no XDP program and its entry in the slot table
 * is free, else a copy of its own, through libxdp or a link (attach.c);
 * @hint (NULL: none) says what it can of the interface.
 * 0 or an exit status, said.
 */
int attachment_attach(struct attachment *a, int ifindex, const char *iface,
		      const struct attach_spec *spec, struct iface_lock *lock,
		      const struct fbf_object *maps, __u32 slot,
		      const struct attachment *shared, const struct attach_hint *hint);

/*
 * The maps alone, for @slots interfaces' programs to share (attachment_attach()
 * with these as @maps), the reader_asleep flag mapped; no program is loaded.
 * Returns 0 or an agent exit status after saying why.
 */
int attachment_maps_open(struct attachment *a, const struct attach_spec *spec, __u32 slots);

/*
 * The copy of the program an agent over patterns attaches to every veth it
 * serves, loaded once (fbf_object_slot_by_ifindex()): pods' veths come and
 * go in hundreds, too fast for a copy loaded and verified for each. Its
 * descriptor is attachment_prog_fd(@shared). 0 or an exit status, said.
 */
int attachment_shared_open(struct attachment *shared, const struct attach_spec *spec,
			   const struct attachment *maps, __u32 slots);

/*
 * Detach, the maps staying open for the final drain. Returns 0, an exit
 * status after saying why, or AGENT_EXIT_IFACE_GONE unsaid: the interface
 * left the namespace first (deleted, or moved, its program with it), which
 * is no failure, and the program no longer counts as attached.
 */
int attachment_detach(struct attachment *a);

/*
 * Whether someone replaced or removed the program on the interface, now:
 * cheap (one query) unless the interface's program changed. A new libxdp
 * dispatcher that still runs it (libxdp builds one whenever another program
 * is loaded or unloaded beside it) is the agent's too, and followed from
 * then on. Without an id on record (attach_read_back() in attach.c) it
 * cannot tell, and says no. @said (NULL: ask the kernel): what a link
 * event said is there.
 */
bool attachment_replaced(struct attachment *a, const struct bpf_xdp_query_opts *said);

/* Forget pins libxdp left for an interface that no longer exists. */
void attachment_forget_iface(struct attachment *a);

/*
 * Its entry in the shared program's slot table, if it has one, emptied: from
 * the next run on, that program counts nothing of the interface in its slot,
 * wherever the device is. Done by attachment_close() once it is off.
 */
void attachment_slot_leave(struct attachment *a);

/* Release the program and the object (and with them the maps). */
void attachment_close(struct attachment *a);

int attachment_prog_fd(const struct attachment *a);

/* The program's id; 0 if it has none. */
__u32 attachment_prog_id(const struct attachment *a);

#endif /* AGENT_ATTACH_H */
