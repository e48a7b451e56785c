// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The interfaces --iface selects, as they come and go: see ifset.h. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>

#include "counters_read.h"
#include "base/exit_codes.h"
#include "base/log.h"
#include "iface/ifset.h"
#include "iface/ifstate.h"
#include "iface/moved.h"
#include "iface/xdp_mode.h"
#include "userspace_util.h"
#include "sinks/event_sink.h"

/* How long the first listing of the links may take before the agent gives up. */
#define IFSET_LISTING_TIMEOUT_MS 10000

/*
 * A grace period on demand: an update of an array of maps returns once
 * every program run that began before it has ended (the kernel's
 * synchronize_rcu() for map-in-map updates), so the counts read after it
 * are final for a program no longer attached.
 */
static int grace_open(struct ifset *s)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts);

	s->grace_inner_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "fbf_grace_in", 4, 4, 1, NULL);
	if (s->grace_inner_fd < 0)
		return -errno;
	opts.inner_map_fd = s->grace_inner_fd;
	s->grace_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, "fbf_grace", 4, 4, 1, &opts);
	return s->grace_fd < 0 ? -errno : 0;
}

static int grace_wait(const struct ifset *s)
{
	__u32 key = 0;

	return bpf_map_update_elem(s->grace_fd, &key, &s->grace_inner_fd, BPF_ANY) ? -errno : 0;
}

static struct ifset_member *member_find(struct ifset *s, int ifindex)
{
	for (__u32 i = 0; i < s->slots; i++)
		if (s->m[i].ifindex == ifindex && !s->m[i].going)
			return &s->m[i];
	return NULL;
}

/* A free slot whose events, if it had an interface before, have all been taken; or -1. */
static int slot_take(struct ifset *s)
{
	for (__u32 i = 0; i < s->slots; i++) {
		struct ifset_member *m = &s->m[i];

		if (!m->ifindex && __atomic_load_n(s->caught_up, __ATOMIC_ACQUIRE) >= m->reuse_at)
			return i;
	}
	return -1;
}

/* The outputs' names of @m: the drain's thread reads them, between events. */
static void names_give(struct ifset *s, struct ifset_member *m)
{
	__u32 slot = m - s->m;

	memcpy(s->names.log[slot], m->shown, sizeof(m->shown));
	memcpy(s->names.json[slot], m->shown_json, sizeof(m->shown_json));
	m->names_stale = false;
}

/*
 * @m's name now. The outputs' copy is written here while no event of the
 * slot can be under way (@live false: it is being taken), or by the drain's
 * thread (ifset_names_apply()) while one can and another thread follows links.
 */
static void member_name(struct ifset *s, struct ifset_member *m, const char *name, bool live)
{
	pthread_mutex_lock(&s->lock);
	snprintf(m->name, sizeof(m->name), "%s", name);
	escape_log(m->shown, sizeof(m->shown), name);
	escape_json(m->shown_json, sizeof(m->shown_json), name);
	if (live && s->threaded) {
		m->names_stale = true;
		__atomic_store_n(&s->names_stale, true, __ATOMIC_RELEASE);
	} else {
		names_give(s, m);
	}
	pthread_mutex_unlock(&s->lock);
}

void ifset_names_apply(struct ifset *s)
{
	if (!__atomic_exchange_n(&s->names_stale, false, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&s->lock);
	for (__u32 i = 0; i < s->slots; i++)
		if (s->m[i].names_stale)
			names_give(s, &s->m[i]);
	pthread_mutex_unlock(&s->lock);
}

/* What the slot counted since this interface took it, now. 0 or -errno. */
static int member_counts(const struct ifset *s, const struct ifset_member *m,
			 struct fbf_counters *c)
{
	int err = fbf_counters_read_slot(bpf_map__fd(s->maps->obj.counters), m - s->m, c);

	if (!err)
		fbf_counters_since(c, &m->base);
	return err;
}

static void member_run_stats(const struct ifset_member *m, __u64 *ns, __u64 *cnt)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	int fd = attachment_prog_fd(&m->att);

	/* The shared program's are counted once, for all (ifset_run_stats()). */
	if (fd < 0 || m->att.shared || bpf_obj_get_info_by_fd(fd, &info, &len))
		return;
	*ns += info.run_time_ns;
	*cnt += info.run_cnt;
}

/*
 * Give the slot up, once its program has run for the last time (@ran: it
 * ran at all, so events of it may still be queued). A program that may run
 * on (@park: its detach failed, or it may have left with its interface)
 * parks the slot for good instead: the next interface there would count
 * its frames and take its events.
 */
static void member_free(struct ifset *s, struct ifset_member *m, bool ran, bool park)
{
	pthread_mutex_lock(&s->lock);
	member_run_stats(m, &s->gone_run_time_ns, &s->gone_run_cnt);
	attachment_close(&m->att);
	m->ifindex = 0;
	pthread_mutex_unlock(&s->lock);
	iface_lock_leave(&m->lock, m->att.attached);
	m->suspect = false;
	/*
	 * A round of the drain under way now may have begun before the last
	 * events of the slot were queued: the one after it takes them.
	 */
	m->reuse_at = park ? ~0ULL : ran ? __atomic_load_n(s->caught_up, __ATOMIC_ACQUIRE) + 2 : 0;
}

/*
 * Whether a line of the churn's routine (attached, deleted, gone before the
 * attach) may be said now: IFSET_SAY_BURST an IFSET_SAY_INTERVAL_NS, the
 * rest counted, and said as a count once the next interval has a line.
 */
static bool say_routine(struct ifset *s)
{
	__u64 now = fbf_monotonic_ns();

	if (now - s->say_since_ns >= IFSET_SAY_INTERVAL_NS) {
		if (s->unsaid_since)
			pr_info("%u line%s about interfaces attached and gone not said in %llu s "
				"(over %u an interval); their accounts are said all the same, and "
				"fizzbuzzfib_ifaces_lines_unsaid_total counts them\n",
				s->unsaid_since, plural_s(s->unsaid_since),
				(now - s->say_since_ns) / 1000000000ULL, IFSET_SAY_BURST);
		s->say_since_ns = now;
		s->said_since = s->unsaid_since = 0;
	}
	if (s->said_since < IFSET_SAY_BURST) {
		s->said_since++;
		return true;
	}
	s->unsaid_since++;
	__atomic_fetch_add(&s->unsaid, 1, __ATOMIC_RELAXED);
	return false;
}

/*
 * The accounts of the members gone: final once every run of their programs
 * that began has ended, which one grace period waits out for all of them
 * (a burst's hundreds of deletions would otherwise wait one each, and the
 * links that come meanwhile with them).
 */
static void gone_settle(struct ifset *s)
{
	struct fbf_counters c;
	int err;

	if (!s->going)
		return;
	err = grace_wait(s);
	for (__u32 i = 0; i < s->slots && s->going; i++) {
		struct ifset_member *m = &s->m[i];

		if (!m->going)
			continue;
		if (!err)
			err = member_counts(s, m, &c);
		if (err)
			pr_warn("cannot read what %s counted on %s: %s; the totals still have it\n",
				FBF_PROG_NAME, m->shown, strerror(-err));
		else
			s->account("iface_gone", &c, m->shown, m->shown_json,
				   xdp_mode_name(m->att.mode), s->json);
		m->going = false;
		s->going--;
		__atomic_fetch_sub(&s->attached, 1, __ATOMIC_RELAXED);
		member_free(s, m, true, m->going_park);
	}
}

/*
 * The program left @m (@why says how, a line of the churn's routine or
 * not), or may run on (@park): said now, its account once no run is left
 * (gone_settle()).
 */
static void member_gone(struct ifset *s, struct ifset_member *m, const char *why, bool park,
			bool routine)
{
	const char *shown = m->shown;

	if (!routine || say_routine(s))
		pr_info("interface %s (ifindex %d) %s\n", shown, m->ifindex, why);
	/*
	 * Out of the shared program's table, nothing of ours counts into the slot
	 * once the grace period in gone_settle() has passed, wherever the device
	 * went with the program: the slot is free for the next, not parked.
	 */
	if (m->att.shared) {
		attachment_slot_leave(&m->att);
		park = false;
	}
	m->going = true;
	m->going_park = park;
	m->suspect = false;
	if (!s->going++)
		s->going_since_ns = fbf_monotonic_ns();
	/* The churn's deletions wait for a batch; the rest, or one waiting for the slot, not. */
	if (!s->following || !routine || s->waiting_n)
		gone_settle(s);
}

static struct ifset_refused *refused_find(struct ifset *s, int ifindex)
{
	for (unsigned int i = 0; i < IFSET_REFUSED_MAX; i++)
		if (s->refused[i].ifindex == ifindex)
			return &s->refused[i];
	return NULL;
}

/* Remember @ifindex as not taken, in place of the oldest remembered. */
static void refused_keep(struct ifset *s, int ifindex, const char *name, bool up)
{
	struct ifset_refused *r = &s->refused[s->refused_next++ % IFSET_REFUSED_MAX];

	*r = (struct ifset_refused){ .ifindex = ifindex, .up = up, .was_up = up };
	snprintf(r->name, sizeof(r->name), "%s", name);
}

static struct ifset_waiting *waiting_find(struct ifset *s, int ifindex)
{
	for (unsigned int i = 0; i < s->waiting_n; i++)
		if (s->waiting[i].ifindex == ifindex)
			return &s->waiting[i];
	return NULL;
}

/* @ifindex no longer waits for a slot: taken, gone, or renamed out of the selection. */
static void waiting_forget(struct ifset *s, int ifindex)
{
	struct ifset_waiting *w = waiting_find(s, ifindex);
	unsigned int n = s->waiting_n;

	if (!w)
		return;
	memmove(w, w + 1, (s->waiting + n - (w + 1)) * sizeof(*w));
	__atomic_store_n(&s->waiting_n, n - 1, __ATOMIC_RELAXED);
	/* None left waiting: the next left alone is said again. */
	if (n == 1 && !s->waiting_over)
		s->full_said = false;
}

/* @ifindex, selected, waits for a slot: behind those that came before it. */
static void waiting_keep(struct ifset *s, int ifindex, const char *name, bool up)
{
	struct ifset_waiting *w = waiting_find(s, ifindex);

	if (!w && s->waiting_n == IFSET_WAITING_MAX) {
		s->waiting_over = true;
		return;
	}
	if (!w) {
		w = &s->waiting[s->waiting_n];
		__atomic_store_n(&s->waiting_n, s->waiting_n + 1, __ATOMIC_RELAXED);
	}
	*w = (struct ifset_waiting){ .ifindex = ifindex, .up = up };
	snprintf(w->name, sizeof(w->name), "%s", name);
}

/* Whether a slot given up is free, or will be once the drain has caught up. */
static bool slot_coming(const struct ifset *s)
{
	for (__u32 i = 0; i < s->slots; i++)
		if (!s->m[i].ifindex && s->m[i].reuse_at != ~0ULL)
			return true;
	return false;
}

static void attached_say(const struct ifset_member *m, const char *shown, const char *more)
{
	pr_info("attached %s (prog id %u) to %s (%s mode: %s; %s)%s\n", FBF_PROG_NAME,
		attachment_prog_id(&m->att), shown, xdp_mode_name(m->att.mode), m->att.why,
		m->att.dispatcher ? "libxdp dispatcher" : "no dispatcher", more);
}

/* Take @ifindex, named @name: its lock, a dead agent's program off it, then ours on it. */
static void member_add(struct ifset *s, int ifindex, const char *name, bool up,
		       const struct attach_hint *hint)
{
	int slot = slot_take(s), err;
	struct ifset_member *m;
	const char *shown;

	/* Slots of members gone wait for their accounts: settled now, one may be free. */
	if (slot < 0 && s->going) {
		gone_settle(s);
		slot = slot_take(s);
	}
	if (slot < 0) {
		char full[ESCAPE_IFNAME_SIZE];

		escape_log(full, sizeof(full), name);
		if (!s->full_said)
			pr_warn("interface %s is selected, but the agent serves %u interface%s "
				"already (--max-ifaces; taken as they came, at start those up "
				"first): it is left alone, and so is any other, each taken in "
				"turn as soon as one has gone; raise --max-ifaces to serve more\n",
				full, s->slots, plural_s(s->slots));
		s->full_said = true;
		waiting_keep(s, ifindex, name, up);
		return;
	}
	waiting_forget(s, ifindex);
	m = &s->m[slot];
	m->att = (struct attachment){ 0 };
	/* Held by none until iface_lock_take(): a slot never used has 0s, descriptors of others. */
	m->lock = (struct iface_lock){ .fd = -1, .name_fd = -1 };
	m->listed = s->listing;
	member_name(s, m, name, false);
	shown = m->shown;
	/*
	 * A burst's link events come long after some of their interfaces went:
	 * one gone already costs a look, not a program loaded.
	 */
	err = (!s->one && ifstate_gone(ifindex) ? AGENT_EXIT_IFACE_GONE : 0) ?:
	      iface_lock_take(&m->lock, s->lock_dir, ifindex, shown) ?:
	      (hint && hint->xdp_none ? stale_none(&m->lock) :
				       stale_remove(ifindex, shown, &m->lock)) ?:
	      fbf_counters_read_slot(bpf_map__fd(s->maps->obj.counters), slot, &m->base) ?:
	      attachment_attach(&m->att, ifindex, shown, s->spec, &m->lock, &s->maps->obj, slot,
				s->one ? NULL : &s->shared, hint);
	if (err == AGENT_EXIT_IFACE_GONE && !s->one) {
		/* Its link event said where it went, or will: nothing to attach to, no fault. */
		if (say_routine(s))
			pr_info("interface %s (ifindex %d) went away (deleted, or moved to "
				"another namespace) before %s was attached to it; left alone\n",
				shown, ifindex, FBF_PROG_NAME);
		__atomic_fetch_add(&s->vanished, 1, __ATOMIC_RELAXED);
		/* Its other link events, still queued, are not tried: said once, counted once. */
		refused_keep(s, ifindex, name, true);
		member_free(s, m, false, false);
		return;
	}
	if (err == AGENT_EXIT_IFACE_GONE) {
		pr_err("interface %s (ifindex %d) went away before %s was attached to it; list "
		       "them with 'ip link'\n", shown, ifindex, FBF_PROG_NAME);
		err = AGENT_EXIT_NO_IFACE;
	}
	if (err) {
		/* Said why; the agent goes on with the others, or a run of one does not start. */
		if (err < 0)
			pr_err("cannot read the counters of slot %d: %s\n", slot, strerror(-err));
		if (s->one)
			s->end = err < 0 ? agent_exit_for_errno(err) : err;
		s->failed++;
		refused_keep(s, ifindex, name, up);
		member_free(s, m, false, false);
		return;
	}
	/* Served from here: the metrics' shares name it. */
	pthread_mutex_lock(&s->lock);
	m->ifindex = ifindex;
	pthread_mutex_unlock(&s->lock);
	__atomic_fetch_add(&s->attached, 1, __ATOMIC_RELAXED);
	/* One interface's is the start line (ifset_say_started()). */
	if (s->one)
		return;
	if (say_routine(s))
		attached_say(m, shown, "");
	/* At start only: an interface that comes is set up after it appears. */
	if (!s->listed)
		ifstate_warn_down(name, shown);
}

/* Someone else's program, or none, is where the agent's was: left alone. */
static void member_replaced(struct ifset *s, struct ifset_member *m)
{
	const char *shown = m->shown;

	m->att.attached = false;
	if (s->one) {
		pr_err("someone replaced or removed %s on %s; stopping, and leaving what is "
		       "attached now alone\n", FBF_PROG_NAME, shown);
		s->end = AGENT_EXIT_PROG_REPLACED;
		return;
	}
	member_gone(s, m, "lost " FBF_PROG_NAME " to someone who replaced or removed it; what "
		    "is attached now is left alone", false, false);
}

/* @m was renamed @name: followed while selected, else detached. */
static void member_renamed(struct ifset *s, struct ifset_member *m, const char *name)
{
	char shown[ESCAPE_IFNAME_SIZE], why[96 + ESCAPE_IFNAME_SIZE];
	int err;

	escape_log(shown, sizeof(shown), name);
	if (ifselect_match(s->sel, name)) {
		pr_info("interface %s (ifindex %d) renamed %s; its events are named so from now\n",
			m->shown, m->ifindex, shown);
		member_name(s, m, name, true);
		return;
	}
	/* Said under the name its events had: the account is theirs. */
	err = attachment_detach(&m->att);
	/* Renamed, then deleted or moved: its RTM_DELLINK, queued, says which and lets it go. */
	if (err == AGENT_EXIT_IFACE_GONE)
		return;
	snprintf(why, sizeof(why), "renamed %s, which --iface does not select: %s", shown,
		 !err ? "detached" : m->att.shared ? "detaching failed" :
		 "detaching failed; its slot is not used again");
	member_gone(s, m, why, err, false);
}

static struct ifset_deferred *deferred_find(struct ifset *s, int ifindex)
{
	for (unsigned int i = 0; i < IFSET_DEFERRED_MAX; i++)
		if (s->deferred[i].ifindex == ifindex)
			return &s->deferred[i];
	return NULL;
}

/*
 * During a listing, with patterns: keep @ev's interface, selected and down,
 * for its end (deferred_take()), forgetting what was kept of it before.
 * Whether it was kept; one up, or with no room left, is for the caller.
 */
static bool deferred_keep(struct ifset *s, const struct link_event *ev)
{
	struct ifset_deferred *d = deferred_find(s, ev->ifindex);

	if (d)
		d->ifindex = 0;
	if (s->one || s->listed || ev->up || !ifselect_match(s->sel, ev->name))
		return false;
	d = deferred_find(s, 0);
	if (!d)
		return false;
	d->ifindex = ev->ifindex;
	snprintf(d->name, sizeof(d->name), "%s", ev->name);
	return true;
}

/* The listing has ended: the interfaces down in it, in its order. */
static void deferred_take(struct ifset *s)
{
	for (unsigned int i = 0; i < IFSET_DEFERRED_MAX; i++) {
		struct ifset_deferred d = s->deferred[i];

		s->deferred[i].ifindex = 0;
		if (d.ifindex && !member_find(s, d.ifindex))
			member_add(s, d.ifindex, d.name, false, NULL);
	}
}

/* A link exists now, new, changed or renamed. */
static void link_present(struct ifset *s, const struct link_event *ev)
{
	struct ifset_member *m = member_find(s, ev->ifindex);
	struct attach_hint hint;
	struct ifset_refused *r;

	if (m) {
		m->listed = s->listing;
		/* One interface keeps the name it was given: the run's outputs have it. */
		if (!s->one && strcmp(m->name, ev->name))
			member_renamed(s, m, ev->name);
		/* A change of program sends a link event too: judged in suspects_judge(). */
		if (m->ifindex && !m->suspect &&
		    attachment_replaced(&m->att, ev->xdp_said ? &ev->xdp : NULL)) {
			m->suspect = true;
			m->suspect_ns = fbf_monotonic_ns();
		}
		return;
	}
	/* One interface is taken at start only: the run ends when it goes. */
	if (!ifselect_match(s->sel, ev->name) || (s->one && s->listed)) {
		/* Renamed out of the patterns while it waited for the listing's end, or a slot. */
		deferred_keep(s, ev);
		waiting_forget(s, ev->ifindex);
		return;
	}
	/*
	 * Refused before: tried again when set up again (down, then up), or
	 * under another name; not at the first up of one refused while down
	 * (made, renamed into the selection, then set up), which would say it
	 * twice.
	 */
	r = refused_find(s, ev->ifindex);
	if (r && !(ev->up && !r->up && r->was_up) && !strcmp(r->name, ev->name)) {
		r->up = ev->up;
		r->was_up |= ev->up;
		return;
	}
	if (r)
		r->ifindex = 0;
	hint = (struct attach_hint){
		.link_kind = ev->link_kind,
		.xdp_none = ev->xdp_said && ev->xdp.attach_mode == XDP_ATTACHED_NONE,
	};
	if (!deferred_keep(s, ev))
		member_add(s, ev->ifindex, ev->name, ev->up, &hint);
}

/*
 * @m's interface left for another namespace, the program on it: step in
 * there and take it off, if it is still the one the agent attached. @why
 * gets what happened. 0 or -errno.
 */
static int member_moved(struct ifset_member *m, const struct link_event *ev, const char *shown,
			char *why, size_t size)
{
	char where[128];
	int fd, err;

	fd = m->att.attached_id ? bpf_prog_get_fd_by_id(m->att.attached_id) : -1;
	err = moved_detach(ev->new_nsid, ev->new_ifindex, m->att.mode, fd, where, sizeof(where));
	if (fd >= 0)
		close(fd);
	if (!err)
		snprintf(why, size, "moved to network namespace %s; %s detached from it there",
			 where, FBF_PROG_NAME);
	else
		snprintf(why, size, "moved to network namespace %s with %s attached, and "
			 "detaching it there failed: %s; remove it with 'ip -n NAMESPACE link set "
			 "dev %s xdp off'", where, FBF_PROG_NAME, strerror(-err), shown);
	return err;
}

/* The one interface was deleted, or is gone, and the program with it. */
static void one_gone(struct ifset *s, struct ifset_member *m)
{
	pr_err("interface %s (ifindex %d) disappeared, and %s with it\n", m->shown, m->ifindex,
	       FBF_PROG_NAME);
	s->end = AGENT_EXIT_IFACE_GONE;
}

static void link_gone(struct ifset *s, const struct link_event *ev)
{
	struct ifset_member *m = member_find(s, ev->ifindex);
	struct ifset_refused *r = refused_find(s, ev->ifindex);
	struct ifset_deferred *d = deferred_find(s, ev->ifindex);
	char why[384 + ESCAPE_IFNAME_SIZE];
	int err = 0;

	if (r)
		r->ifindex = 0;
	if (d)
		d->ifindex = 0;
	waiting_forget(s, ev->ifindex);
	if (!m)
		return;
	if (ev->moved)
		err = member_moved(m, ev, m->shown, why, sizeof(why));
	else
		snprintf(why, sizeof(why), "deleted, and %s with it", FBF_PROG_NAME);
	/* The kernel took the program off with the device, or it went along. */
	attachment_forget_iface(&m->att);
	if (s->one && ev->moved) {
		pr_warn("interface %s %s\n", m->shown, why);
		s->end = AGENT_EXIT_IFACE_MOVED;
	} else if (s->one) {
		one_gone(s, m);
	} else {
		if (err && !m->att.shared)
			snprintf(why + strlen(why), sizeof(why) - strlen(why),
				 " (its slot is not used again)");
		/* Deleted is the churn's routine; moved, or a failure, is said always. */
		member_gone(s, m, why, err, !ev->moved && !err);
	}
}

static void link_event_apply(struct ifset *s, const struct link_event *ev)
{
	switch (ev->kind) {
	case LINKWATCH_PRESENT:
		link_present(s, ev);
		break;
	case LINKWATCH_GONE:
		link_gone(s, ev);
		break;
	case LINKWATCH_RESYNC:
		pr_warn("link events were lost (the socket overran); listing the links again\n");
		s->listing++;
		s->listed = false;
		break;
	case LINKWATCH_SYNCED:
		/* Not in a complete listing: gone while its events were lost. */
		for (__u32 i = 0; i < s->slots; i++)
			if (s->m[i].ifindex && !s->m[i].going && s->m[i].listed != s->listing) {
				attachment_forget_iface(&s->m[i].att);
				/* Deleted, or moved with its own copy, which parks it. */
				if (s->one)
					one_gone(s, &s->m[i]);
				else
					member_gone(s, &s->m[i], "is gone", true, false);
			}
		deferred_take(s);
		s->listed = true;
		break;
	}
}

static void on_link(void *ctx, const struct link_event *ev)
{
	struct ifset *s = ctx;

	/*
	 * One interface lost: what comes after it is for no one. Its member, and
	 * the program the metrics may still read, stay until ifset_close().
	 */
	if (s->end)
		return;
	link_event_apply(s, ev);
}

/*
 * The kernel takes a deleted device's program off and unlists a device
 * leaving the namespace before it sends the RTM_DELLINK that says it left
 * and where to, so a program gone from a device may be the device leaving.
 * Its link events have LEAVING_WAIT_NS to say so while the device is still
 * listed, then, however slow the machine, until the message comes
 * (DELLINK_WAIT_NS at most, against a message lost to an overrun). Nothing
 * waits meanwhile: the suspect is judged at the first follow past its time.
 */
#define LEAVING_WAIT_NS 1000000000ULL
#define DELLINK_WAIT_NS (10 * 1000000000ULL)

static bool member_listed(const struct ifset_member *m)
{
	return !ifstate_gone(m->ifindex);
}

/* Members whose program looked replaced, and whose time is up: replaced, if still so. */
static void suspects_judge(struct ifset *s)
{
	__u64 now = fbf_monotonic_ns();

	s->suspects_due_ns = 0;
	for (__u32 i = 0; i < s->slots && !s->end; i++) {
		struct ifset_member *m = &s->m[i];
		__u64 due;

		if (!m->suspect)
			continue;
		due = m->suspect_ns + (member_listed(m) ? LEAVING_WAIT_NS : DELLINK_WAIT_NS);
		if (now < due) {
			if (!s->suspects_due_ns || due < s->suspects_due_ns)
				s->suspects_due_ns = due;
			continue;
		}
		m->suspect = false;
		if (attachment_replaced(&m->att, NULL))
			member_replaced(s, m);
	}
}

/* Those waiting for a slot, in the order they came, as long as slots are free. */
static void waiting_take(struct ifset *s)
{
	struct ifset_waiting w;

	while (s->waiting_n && !s->end) {
		if (slot_take(s) < 0 && s->going)
			gone_settle(s);
		if (slot_take(s) < 0)
			return;
		w = s->waiting[0];
		waiting_forget(s, w.ifindex);
		member_add(s, w.ifindex, w.name, w.up, NULL);
	}
}

/*
 * The link events waiting, until @deadline_ns (0: all of them), then the
 * suspects due, and once the links are listed, those waiting for a slot.
 */
int ifset_follow_until(struct ifset *s, __u64 deadline_ns)
{
	int err;

	s->following = true;
	err = linkwatch_read(&s->watch, on_link, s, deadline_ns);
	if (err >= 0)
		suspects_judge(s);
	s->following = false;
	if (err < 0 || s->end || fbf_monotonic_ns() >= s->going_since_ns + IFSET_SETTLE_NS)
		gone_settle(s);
	if (err >= 0 && s->listed)
		waiting_take(s);
	if (err < 0) {
		pr_err("cannot read link events: %s\n", strerror(-err));
		return AGENT_EXIT_FAILURE;
	}
	return s->end;
}

int ifset_follow(struct ifset *s)
{
	/* Another thread follows them: what it asks of the drain's. */
	if (s->threaded) {
		ifset_names_apply(s);
		return ifset_thread_sync(s);
	}
	return ifset_follow_until(s, fbf_monotonic_ns() + IFSET_FOLLOW_SLICE_NS);
}

__u64 ifset_links_due_ns(const struct ifset *s)
{
	__u64 settle = s->going ? s->going_since_ns + IFSET_SETTLE_NS : 0, due;

	/* Read already, so the socket's readiness no longer tells of them. */
	if (linkwatch_pending(&s->watch))
		return fbf_monotonic_ns();
	if (!settle || (s->suspects_due_ns && s->suspects_due_ns < settle))
		due = s->suspects_due_ns;
	else
		due = settle;
	/*
	 * One waits for a slot the drain frees once it has caught up, which it
	 * hears of when this thread tells it of a change: looked at again soon.
	 */
	if (s->listed && s->waiting_n && slot_coming(s) &&
	    (!due || due > fbf_monotonic_ns() + IFSET_WAITING_POLL_NS))
		due = fbf_monotonic_ns() + IFSET_WAITING_POLL_NS;
	return due;
}

__u64 ifset_due_ns(const struct ifset *s)
{
	return s->threaded ? 0 : ifset_links_due_ns(s);
}

/* "no interface 'NAME' ...": the one exact name selected is not here. */
static int one_missing(const char *name)
{
	char shown[ESCAPE_IFNAME_SIZE];

	escape_log(shown, sizeof(shown), name);
	pr_err("no interface '%s' in this network namespace; list them with 'ip link'\n", shown);
	return AGENT_EXIT_NO_IFACE;
}

int ifset_check(const struct ifselect *sel)
{
	const char *one = ifselect_single(sel);

	return one && !if_nametoindex(one) ? one_missing(one) : 0;
}

int ifset_open(struct ifset *s)
{
	struct pollfd p;
	int err, waited = 0;

	pthread_mutex_init(&s->lock, NULL);
	s->watch.fd = -1;
	s->changed_fd = s->stop_fd = -1;
	s->grace_fd = s->grace_inner_fd = -1;
	s->one = ifselect_single(s->sel);
	s->m = calloc(s->slots, sizeof(*s->m));
	s->names.log = calloc(s->slots, sizeof(*s->names.log));
	s->names.json = calloc(s->slots, sizeof(*s->names.json));
	if (!s->m || !s->names.log || !s->names.json) {
		pr_err("cannot allocate room for %u interfaces\n", s->slots);
		return AGENT_EXIT_FAILURE;
	}
	s->names.slots = s->slots;
	err = s->one ? 0 : attachment_shared_open(&s->shared, s->spec, s->maps, s->slots);
	if (err)
		return err;
	err = grace_open(s);
	if (err) {
		pr_err("cannot create the map that waits for the program's runs: %s\n",
		       strerror(-err));
		return agent_exit_for_errno(err);
	}
	err = linkwatch_open(&s->watch);
	if (err) {
		pr_err("cannot watch the links for interfaces that come and go: %s\n",
		       strerror(-err));
		return agent_exit_for_errno(err);
	}
	p = (struct pollfd){ .fd = s->watch.fd, .events = POLLIN };
	while (!s->listed && waited < IFSET_LISTING_TIMEOUT_MS) {
		if (poll(&p, 1, 100) < 0 && errno != EINTR) {
			pr_err("cannot wait for the links: %s\n", strerror(errno));
			return AGENT_EXIT_FAILURE;
		}
		waited += 100;
		/* Nothing else runs yet: the whole listing at once. */
		err = ifset_follow_until(s, 0);
		if (err)
			return err;
	}
	if (!s->listed) {
		pr_err("the kernel did not list the links within %d s\n",
		       IFSET_LISTING_TIMEOUT_MS / 1000);
		return AGENT_EXIT_FAILURE;
	}
	/* Gone between the agent's first look (ifset_check()) and the listing. */
	if (s->one && !ifset_attached(s))
		return one_missing(s->one);
	if (!s->attached && !s->failed)
		pr_warn("no interface in this network namespace matches --iface yet; the agent "
			"attaches to those that come (list them with 'ip link')\n");
	else if (!s->attached)
		pr_warn("no interface --iface selects took the program (said above); the agent "
			"attaches to those that come\n");
	return ifset_thread_start(s);
}

int ifset_detach(struct ifset *s)
{
	int ret = 0, err;

	ifset_thread_stop(s);
	gone_settle(s);
	for (__u32 i = 0; s->m && i < s->slots; i++) {
		struct ifset_member *m = &s->m[i];

		if (!m->ifindex)
			continue;
		err = attachment_detach(&m->att);
		if (err == AGENT_EXIT_IFACE_GONE)
			pr_info("interface %s (ifindex %d) went away (deleted, or moved to "
				"another namespace) before %s was detached from it, and the "
				"program with it\n",
				m->shown, m->ifindex, FBF_PROG_NAME);
		else
			ret = err ?: ret;
	}
	/* No run still under way when the last counts are read. */
	if (s->grace_fd >= 0)
		grace_wait(s);
	return ret;
}

void ifset_account(const struct ifset *s)
{
	struct fbf_counters c;

	/* One interface's account is the summary's. */
	for (__u32 i = 0; !s->one && i < s->slots; i++) {
		const struct ifset_member *m = &s->m[i];

		if (m->ifindex && !member_counts(s, m, &c))
			s->account("iface", &c, m->shown, m->shown_json,
				   xdp_mode_name(m->att.mode), s->json);
	}
}

void ifset_name_events(const struct ifset *s, struct event_sink *sink)
{
	if (!s->one)
		event_sink_name_ifaces(sink, &s->names);
}

/* "; stop with Ctrl-C" to a terminal; under a service manager or a pod there is no such key. */
static const char *stop_hint(void)
{
	return isatty(STDIN_FILENO) ? "; stop with Ctrl-C" : "";
}

void ifset_say_started(const struct ifset *s, const char *given, const char *transport)
{
	char more[256];

	if (!s->one) {
		pr_info("serving every interface --iface %s selects, as they come and go (%u now, "
			"at most %u), %s%s\n", given, s->attached, s->slots, transport,
			stop_hint());
		return;
	}
	snprintf(more, sizeof(more), ", %s%s", transport, stop_hint());
	attached_say(&s->m[0], s->m[0].shown, more);
	ifstate_warn_down(s->one, s->m[0].shown);
}

void ifset_status(const struct ifset *s, const char *given, const char *transport, char *buf,
		  size_t size)
{
	if (s->one)
		snprintf(buf, size, "%s (prog id %u) on %s, %s mode, %s", FBF_PROG_NAME,
			 attachment_prog_id(&s->m[0].att), s->m[0].shown,
			 xdp_mode_name(s->m[0].att.mode), transport);
	else
		snprintf(buf, size, "%s on %u interface%s --iface %s selects, %s", FBF_PROG_NAME,
			 ifset_attached(s), plural_s(ifset_attached(s)), given, transport);
}

unsigned int ifset_unattached(const struct ifset *s, char *why, size_t size)
{
	unsigned int n = 0, waiting = __atomic_load_n(&s->waiting_n, __ATOMIC_RELAXED);
	char shown[ESCAPE_IFNAME_SIZE];

	for (unsigned int i = 0; i < IFSET_REFUSED_MAX; i++)
		if (s->refused[i].ifindex && !n++)
			escape_log(shown, sizeof(shown), s->refused[i].name);
	/* Past IFSET_WAITING_MAX they are not known one by one: at least one more. */
	waiting += !waiting && s->waiting_over;
	if (n)
		snprintf(why, size, "%u interface%s selected could not have %s (%s first; the log "
			 "says why)", n, plural_s(n), FBF_PROG_NAME, shown);
	else if (waiting)
		snprintf(why, size, "%u interface%s selected left alone: %u served already "
			 "(--max-ifaces)", waiting, plural_s(waiting), s->slots);
	else
		snprintf(why, size, "every interface selected has %s", FBF_PROG_NAME);
	return n + waiting;
}

const char *ifset_mode_name(const struct ifset *s)
{
	return xdp_mode_name(s->one ? s->m[0].att.mode : s->spec->mode);
}

int ifset_prog_fd(const struct ifset *s)
{
	return s->one ? attachment_prog_fd(&s->m[0].att) : -1;
}

int ifset_shares(struct ifset *s, struct ifset_share **shares, struct fbf_counters *total)
{
	int fd = bpf_map__fd(s->maps->obj.counters), n = 0, err;
	struct fbf_counters *slots, sum = {};
	struct ifset_share *out;

	out = calloc(s->slots + 1, sizeof(*out));
	slots = calloc(s->slots, sizeof(*slots));
	if (!out || !slots) {
		free(out);
		free(slots);
		return -ENOMEM;
	}
	/* A batch of slots a system call: the lock, which an attach waits for, held briefly. */
	pthread_mutex_lock(&s->lock);
	err = fbf_counters_read_slots(fd, s->slots, slots);
	for (__u32 i = 0; i < s->slots && !err; i++) {
		struct ifset_member *m = &s->m[i];

		fbf_counters_add(&sum, &slots[i]);
		if (!m->ifindex)
			continue;
		escape_label(out[n].label, sizeof(out[n].label), m->name);
		out[n].mode = xdp_mode_name(m->att.mode);
		out[n].c = slots[i];
		fbf_counters_since(&out[n].c, &m->base);
		n++;
	}
	pthread_mutex_unlock(&s->lock);
	free(slots);
	if (err) {
		free(out);
		return err;
	}
	/* What the slots hold beyond the shares of those served now: the interfaces gone. */
	out[n].c = sum;
	for (int i = 0; i < n; i++)
		fbf_counters_since(&out[n].c, &out[i].c);
	*total = sum;
	*shares = out;
	return n + 1;
}

static void shared_run_stats(const struct ifset *s, __u64 *ns, __u64 *cnt)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (s->shared.shared && !bpf_obj_get_info_by_fd(s->shared.prog_fd, &info, &len)) {
		*ns += info.run_time_ns;
		*cnt += info.run_cnt;
	}
}

void ifset_run_stats(struct ifset *s, __u64 *run_time_ns, __u64 *run_cnt)
{
	pthread_mutex_lock(&s->lock);
	*run_time_ns = s->gone_run_time_ns;
	*run_cnt = s->gone_run_cnt;
	shared_run_stats(s, run_time_ns, run_cnt);
	for (__u32 i = 0; i < s->slots; i++)
		if (s->m[i].ifindex)
			member_run_stats(&s->m[i], run_time_ns, run_cnt);
	pthread_mutex_unlock(&s->lock);
}

void ifset_close(struct ifset *s)
{
	ifset_thread_stop(s);
	gone_settle(s);
	for (__u32 i = 0; s->m && i < s->slots; i++)
		if (s->m[i].ifindex)
			member_free(s, &s->m[i], false, false);
	linkwatch_close(&s->watch);
	attachment_close(&s->shared);
	if (s->grace_fd >= 0)
		close(s->grace_fd);
	if (s->grace_inner_fd >= 0)
		close(s->grace_inner_fd);
	pthread_mutex_destroy(&s->lock);
	free(s->m);
	free(s->names.log);
	free(s->names.json);
	s->m = NULL;
}
