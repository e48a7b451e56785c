/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The interfaces --iface selects, now and as they come and go: a copy of
 * the program on each, all sharing one set of maps (attachment_maps_open()),
 * each with its own slot, which names its events and its entry in the
 * counters.
 *
 * The links are followed through linkwatch.h. An interface that appears,
 * or is renamed into the patterns, gets the program; one deleted, moved to
 * another namespace, renamed out of them or whose program someone else
 * replaced or removed loses it, and its share of the counters is said in
 * one line. Each interface is taken alike: its lock, the program a killed
 * agent left there removed, never another's (ifstate.h).
 *
 * A slot given up keeps its counts, so the counters' sum stays every
 * frame seen; the next interface to take it counts from what it holds
 * then. It is not given again until the drain has caught up once since,
 * so that no event still queued from the interface gone takes the new
 * one's name.
 *
 * A selection of one exact name is a set of one: that interface must be
 * there and taken at start, else the run does not start; it is followed
 * under the name it was given when renamed, and when it goes, moves or
 * loses the program to someone else the run ends (ifset_follow()). Its
 * events, start line, status and metrics speak of it as the run's own.
 */
#ifndef AGENT_IFSET_H
#define AGENT_IFSET_H

#include <pthread.h>
#include <stdbool.h>
#include <net/if.h>
#include <linux/types.h>

#include "fizzbuzzfib.h"
#include "iface/attach.h"
#include "iface/ifselect.h"
#include "iface/linkwatch.h"
#include "iface/lock.h"
#include "sinks/iface_names.h"

struct event_sink;

/* Interfaces the program could not be attached to, remembered at once. */
#define IFSET_REFUSED_MAX 512
/*
 * Lines of the churn's routine (attached, deleted, gone before the attach) said at most
 * this many an interval; the rest are counted (ifset's unsaid). Renamed, moved, replaced
 * and every failure are said always, once an interface.
 */
#define IFSET_SAY_BURST 1000
#define IFSET_SAY_INTERVAL_NS (10 * 1000000000ULL)
/*
 * Accounts of interfaces gone wait at most this long for the grace period
 * that makes them final, taken once for all gone meanwhile: a wait for each
 * would hold the attaches of a burst of pods behind their deletions.
 */
#define IFSET_SETTLE_NS (250 * 1000000ULL)
/* Interfaces down in a listing, taken after those up in it; past these, as they come. */
#define IFSET_DEFERRED_MAX 64
/*
 * Interfaces selected and left alone for want of a slot (--max-ifaces),
 * remembered in the order they came, the first taken as soon as a slot is
 * free again; past these, at their next link event after one is.
 */
#define IFSET_WAITING_MAX 512
/* How often a slot given up is looked at while one waits for it: the drain frees it. */
#define IFSET_WAITING_POLL_NS 5000000ULL

struct ifset_member {
	int ifindex;			/* 0: the slot is free, or being taken */
	char name[IF_NAMESIZE];		/* as the kernel has it now; with one, as given */
	char shown[ESCAPE_IFNAME_SIZE];	/* ... escaped for the log, for the link work */
	char shown_json[ESCAPE_IFNAME_SIZE];
	bool names_stale;		/* renamed: the outputs' copy lags (ifset_names_apply) */
	__u32 listed;			/* the listing it was last seen in (struct ifset) */
	bool suspect;			/* program looked replaced: judged in suspects_judge() */
	bool going;			/* gone, its account due after a grace (gone_settle()) */
	bool going_park;		/* ... and then its slot parked */
	__u64 suspect_ns;		/* ... since then (CLOCK_MONOTONIC) */
	__u64 reuse_at;			/* free: taken when *caught_up reaches it; ~0: parked */
	struct fbf_counters base;	/* the slot's counts when this interface took it */
	struct iface_lock lock;
	struct attachment att;
};

struct ifset {
	/* Set by the caller before ifset_open(). */
	const struct ifselect *sel;
	const struct attach_spec *spec;
	const char *lock_dir;
	const struct attachment *maps;	/* attachment_maps_open()'s, for spec's slots */
	__u32 slots;
	const __u64 *caught_up;		/* the drain's */
	bool json;			/* per-interface accounts as JSON objects */
	/* Says one interface's share (summary_iface(): the run's account is above this room). */
	void (*account)(const char *kind, const struct fbf_counters *c, const char *iface,
			const char *iface_json, const char *mode, bool json);

	/* Its own. */
	const char *one;		/* the one exact name selected; NULL: patterns */
	struct attachment shared;	/* with patterns, the program veths share */
	int end;			/* one: the exit status its loss calls for; 0: none */
	/*
	 * Held while a member is published, let go or renamed, never across
	 * an attach or a wait: what ifset_shares() and ifset_run_stats() read.
	 */
	pthread_mutex_t lock;
	struct ifset_member *m;		/* [slots] */
	struct iface_names names;	/* by slot, for the outputs */
	struct linkwatch watch;
	int grace_fd;			/* an array of maps whose update waits out every run */
	int grace_inner_fd;
	__u32 listing;			/* the netlink listing under way, or the last */
	bool listed;			/* ... it ended: every interface there is is known */
	bool full_said;			/* "no slot left" said since none waited (waiting[]) */
	unsigned int attached;		/* members with the program on: atomic */
	unsigned int failed;		/* interfaces the program could not be attached to */
	unsigned int going;		/* members gone, their accounts due (gone_settle()) */
	__u64 going_since_ns;		/* ... the first of them went */
	bool following;			/* ... which waits for the end of the link events read */
	unsigned int refused_next;	/* the next of refused[] to take, round */
	__u64 vanished;			/* ... that went away first: atomic, for the metrics */
	__u64 say_since_ns;		/* the interval of routine lines under way began */
	unsigned int said_since;	/* ... lines said in it */
	unsigned int unsaid_since;	/* ... and not said, past IFSET_SAY_BURST */
	__u64 unsaid;			/* routine lines not said since the start: atomic */
	/*
	 * Those, and those that went away first, by ifindex, so that their
	 * every link event (carrier, MTU; those still queued) does not load the
	 * program and say why again: retried when renamed, or set up again (not
	 * those gone). The oldest is forgotten past IFSET_REFUSED_MAX; a
	 * RTM_DELLINK forgets its own.
	 */
	struct ifset_refused {
		int ifindex;
		char name[IF_NAMESIZE];
		bool up;		/* as its last link event said */
		bool was_up;		/* up some time since: a new one's first up is no retry */
	} refused[IFSET_REFUSED_MAX];
	/*
	 * Selected and down during a listing: taken once it ends, after those up,
	 * so that with more selected than --max-ifaces the ones that carry
	 * traffic are served first.
	 */
	struct ifset_deferred {
		int ifindex;		/* 0: free */
		char name[IF_NAMESIZE];
	} deferred[IFSET_DEFERRED_MAX];
	/* Selected and left alone for want of a slot, the first to come first. */
	struct ifset_waiting {
		int ifindex;
		char name[IF_NAMESIZE];
		bool up;
	} waiting[IFSET_WAITING_MAX];
	unsigned int waiting_n;		/* atomic: how many of them, for the drain's thread */
	bool waiting_over;		/* more came than waiting[] holds since it was empty */
	__u64 suspects_due_ns;		/* the first suspect's judgement, 0: none */
	/*
	 * With patterns, once open, a thread of its own follows the links
	 * (ifset_thread.c), so that no attach, detach or grace period holds
	 * the drain loop; the drain's thread takes what it asks on changed_fd.
	 */
	bool threaded;
	pthread_t thread;
	int changed_fd;			/* eventfd: the set changed, or the thread ended */
	int stop_fd;			/* eventfd: the thread is to end */
	int thread_end;			/* atomic: its exit status once it ended on a failure */
	bool names_stale;		/* atomic: a member's outputs' names are not yet its own */
	__u64 gone_run_time_ns;		/* BPF run-time statistics of the programs let go */
	__u64 gone_run_cnt;
};

/*
 * Watch the links, list them, and attach to every interface selected.
 * Returns 0 (some selected or none yet, said), or an exit status after
 * saying why.
 */
int ifset_open(struct ifset *s);

/*
 * A selection of one exact name needs that interface now: 0 if it is there
 * (or the selection has patterns, which wait for theirs), else
 * AGENT_EXIT_NO_IFACE after saying so.
 */
int ifset_check(const struct ifselect *sel);

/*
 * The name every event of the run shares, for the outputs' envelope: with
 * one interface, @json (its name escaped so); NULL where each event names
 * its own (event_sink_name_ifaces() with the set's names).
 */
static inline const char *ifset_run_name(const struct ifselect *sel, const char *json)
{
	return ifselect_single(sel) ? json : NULL;
}

/* The slots the maps need: one interface's one, or --max-ifaces (@max) for patterns. */
static inline __u32 ifset_slots(const struct ifselect *sel, __u32 max)
{
	return ifselect_single(sel) ? 1 : max;
}

/* Which interface each event came from, for @sink, where events name their own. */
void ifset_name_events(const struct ifset *s, struct event_sink *sink);

/* The start line: one interface's, or how many the patterns select now (@given: --iface). */
void ifset_say_started(const struct ifset *s, const char *given, const char *transport);

/* The same for the service manager's status. */
void ifset_status(const struct ifset *s, const char *given, const char *transport, char *buf,
		  size_t size);

/* The XDP mode of the run: one interface's, or the one asked of every interface. */
const char *ifset_mode_name(const struct ifset *s);

/*
 * Interfaces selected and here that do not have the program, for /readyz:
 * refused, or left alone for want of a slot; @why gets one line naming the
 * first, or that none is selected yet. The drain's thread only.
 */
unsigned int ifset_unattached(const struct ifset *s, char *why, size_t size);

/* For the metrics: the one interface's program, whose run time is the run's; else -1. */
int ifset_prog_fd(const struct ifset *s);

/* For the metrics: the set where each interface has a share of its own; NULL with one. */
static inline struct ifset *ifset_shared(struct ifset *s)
{
	return s->one ? NULL : s;
}

/* What the drain loop watches for ifset_follow(): link events, or the link thread's word. */
static inline int ifset_fd(const struct ifset *s)
{
	return s->threaded ? s->changed_fd : s->watch.fd;
}

/* How long one ifset_follow() goes on before the drain loop has its turn again. */
#define IFSET_FOLLOW_SLICE_NS 20000000ULL

/*
 * For the drain's thread, when ifset_fd() is ready or ifset_due_ns() has
 * come: with one interface, take the link events waiting for
 * IFSET_FOLLOW_SLICE_NS at most (ifset_follow_until()); with patterns,
 * what the link thread asks (the outputs' names of members renamed). Never
 * waits. 0 or an exit status: a failure, or with one interface, its loss
 * (said).
 */
int ifset_follow(struct ifset *s);

/*
 * Take the link events waiting until @deadline_ns (0: all; one
 * interface's work may pass it): attach, rename, detach; then judge the
 * programs that looked replaced, once their time is up. 0 or an exit status.
 */
int ifset_follow_until(struct ifset *s, __u64 deadline_ns);

/* The outputs' names of the members renamed, from the drain's thread, between events. */
void ifset_names_apply(struct ifset *s);

/* Interfaces served now. */
static inline unsigned int ifset_attached(const struct ifset *s)
{
	return __atomic_load_n(&s->attached, __ATOMIC_RELAXED);
}

/*
 * The link thread (ifset_thread.c). Start it once the set is open, with
 * patterns: 0 or an exit status (said). Stop and join it, if it runs,
 * before the members are read or detached.
 */
int ifset_thread_start(struct ifset *s);
void ifset_thread_stop(struct ifset *s);
/* Its word taken (changed_fd read): 0, or the exit status it ended with. */
int ifset_thread_sync(struct ifset *s);

/*
 * When ifset_follow_until() is due although the socket may not say so (work
 * read and left for the next slice, a suspect's time up): CLOCK_MONOTONIC;
 * 0: never. For the thread that follows the links.
 */
__u64 ifset_links_due_ns(const struct ifset *s);

/* The same for the drain's thread's ifset_follow(): 0 while the link thread follows them. */
__u64 ifset_due_ns(const struct ifset *s);

/* One interface's share of the counters, for another thread (a metrics scrape). */
struct ifset_share {
	char label[ESCAPE_IFNAME_SIZE];	/* its name escaped for a Prometheus label; "": gone */
	const char *mode;		/* the XDP mode it got: native or skb */
	struct fbf_counters c;
};

/*
 * Every interface served now, and last the interfaces gone (label ""), all
 * from one read of the counters, and their sum (*total): the shares add up
 * to it exactly. Safe on any thread. Returns how many in *shares (freed
 * by the caller), or -errno.
 */
int ifset_shares(struct ifset *s, struct ifset_share **shares, struct fbf_counters *total);

/*
 * BPF run-time statistics summed over every program the set attached, those
 * let go included, so that they only grow. Safe on any thread.
 */
void ifset_run_stats(struct ifset *s, __u64 *run_time_ns, __u64 *run_cnt);

/* At stop: the program off every interface. 0, or the exit status of a failure. */
int ifset_detach(struct ifset *s);

/* Once the last drain is done: each interface's share of the counters, one line each. */
void ifset_account(const struct ifset *s);

/* Release everything, however far ifset_open() got. */
void ifset_close(struct ifset *s);

#endif /* AGENT_IFSET_H */
