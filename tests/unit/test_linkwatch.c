// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The link watcher against the kernel, in a network namespace of the test's
 * own: the links there before it opened, links created, set up, renamed,
 * deleted and moved to another namespace, and bursts that overrun its
 * socket, after which the links its events describe must be exactly those
 * `ip -o link` lists. Needs root (a namespace of its own, links made in it)
 * and iproute2; every test skips, saying why, where it cannot unshare.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "iface/linkwatch.h"

#define MAX_LINKS 1024
#define MAX_EVENTS 16384
/* Only a guard against a hang: events come in milliseconds, however slow the machine. */
#define HANG_MS 120000

/* A link as the events describe it. */
struct known {
	int ifindex;
	char name[IF_NAMESIZE];
	bool up;
	bool seen;	/* reported PRESENT since the last RESYNC */
};

struct watched {
	struct linkwatch w;
	struct link_event log[MAX_EVENTS];	/* every event since the last log_clear() */
	int nlog;
	struct known links[MAX_LINKS];
	int nlinks;
	int resyncs;
	int synced;
	bool syncing;	/* a SYNCED is owed: since the open or a RESYNC */
};

static const char *unshare_failed;
static void assert_truth(struct watched *t);
static char netns[32];		/* the named namespace links are moved to, once made */

static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;
	int status;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	status = system(cmd);
	if (status)
		fail_msg("'%s' failed (status %d)", cmd, status);
}

static struct known *find(struct watched *t, int ifindex)
{
	int i;

	for (i = 0; i < t->nlinks; i++)
		if (t->links[i].ifindex == ifindex)
			return &t->links[i];
	return NULL;
}

static void forget(struct watched *t, struct known *k)
{
	*k = t->links[--t->nlinks];
}

/* What a caller of linkwatch does with its events: keep the set of links up to date. */
static void apply(void *ctx, const struct link_event *ev)
{
	struct watched *t = ctx;
	struct known *k;
	int i;

	if (t->nlog == MAX_EVENTS)
		fail_msg("more than %d events", MAX_EVENTS);
	t->log[t->nlog++] = *ev;
	switch (ev->kind) {
	case LINKWATCH_PRESENT:
		k = find(t, ev->ifindex);
		if (!k) {
			if (t->nlinks == MAX_LINKS)
				fail_msg("more than %d links", MAX_LINKS);
			k = &t->links[t->nlinks++];
		}
		*k = (struct known){ .ifindex = ev->ifindex, .up = ev->up, .seen = true };
		memcpy(k->name, ev->name, sizeof(k->name));
		break;
	case LINKWATCH_GONE:
		k = find(t, ev->ifindex);
		if (k)
			forget(t, k);
		break;
	case LINKWATCH_RESYNC:
		t->resyncs++;
		t->syncing = true;
		for (i = 0; i < t->nlinks; i++)
			t->links[i].seen = false;
		break;
	case LINKWATCH_SYNCED:
		t->synced++;
		t->syncing = false;
		for (i = t->nlinks - 1; i >= 0; i--)
			if (!t->links[i].seen)
				forget(t, &t->links[i]);
		/* The tests change no link while a dump runs: what SYNCED says holds now. */
		assert_truth(t);
		break;
	}
}

/* An event @t saw since the log was cleared: @ifindex 0, @name NULL and @up -1 match any. */
static int logged(const struct watched *t, enum linkwatch_kind kind, int ifindex,
		  const char *name, int up)
{
	const struct link_event *ev;
	int i;

	for (i = 0; i < t->nlog; i++) {
		ev = &t->log[i];
		if (ev->kind == kind && (!ifindex || ev->ifindex == ifindex) &&
		    (!name || !strcmp(ev->name, name)) && (up < 0 || ev->up == up))
			return i;
	}
	return -1;
}

struct expect {
	enum linkwatch_kind kind;
	int ifindex;
	const char *name;
	int up;
	bool settled;	/* and no SYNCED owed */
};

static bool met(const struct watched *t, const struct expect *e)
{
	return logged(t, e->kind, e->ifindex, e->name, e->up) >= 0 &&
	       (!e->settled || (t->synced && !t->syncing));
}

/* Read events as they come until @e is met. */
static void wait_for(struct watched *t, const struct expect *e, const char *what)
{
	struct pollfd pfd = { .fd = t->w.fd, .events = POLLIN };
	int err, n;

	for (;;) {
		err = linkwatch_read(&t->w, apply, t, 0);
		if (err)
			fail_msg("linkwatch_read: %s", strerror(-err));
		if (met(t, e))
			return;
		n = poll(&pfd, 1, HANG_MS);
		if (n == 0)
			fail_msg("no event for %d s while waiting for %s", HANG_MS / 1000, what);
		if (n < 0 && errno != EINTR)
			fail_msg("poll: %s", strerror(errno));
	}
}

/* An event as wait_for() waits for it: @ifindex 0, @name NULL and @up -1 match any. */
static void wait_event(struct watched *t, enum linkwatch_kind kind, int ifindex, const char *name,
		       int up, const char *what)
{
	wait_for(t, &(struct expect){ .kind = kind, .ifindex = ifindex, .name = name, .up = up },
		 what);
}

static void log_clear(struct watched *t)
{
	t->nlog = 0;
}

/* A watcher opened, its first dump asked for and not read yet. */
static struct watched *watch_start(void)
{
	struct watched *t;
	int err;

	if (unshare_failed)
		skip();
	t = calloc(1, sizeof(*t));
	assert_non_null(t);
	t->syncing = true;
	err = linkwatch_open(&t->w);
	if (err)
		fail_msg("linkwatch_open: %s", strerror(-err));
	return t;
}

/* A watcher opened, and its first dump read. */
static struct watched *watch_open(void)
{
	struct watched *t = watch_start();

	wait_for(t, &(struct expect){ .kind = LINKWATCH_SYNCED, .up = -1, .settled = true },
		 "the first dump's end");
	return t;
}

static void watch_close(struct watched *t)
{
	linkwatch_close(&t->w);
	assert_int_equal(t->w.fd, -1);
	free(t);
}

/* Whether "<FLAG,FLAG,...>" of `ip -o link` holds UP. */
static bool flags_up(const char *line)
{
	const char *open = strchr(line, '<'), *close = open ? strchr(open, '>') : NULL;
	char flags[256], *f, *save;

	if (!open || !close || close - open >= (long)sizeof(flags))
		return false;
	snprintf(flags, sizeof(flags), "%.*s", (int)(close - open - 1), open + 1);
	for (f = strtok_r(flags, ",", &save); f; f = strtok_r(NULL, ",", &save))
		if (!strcmp(f, "UP"))
			return true;
	return false;
}

/* The links the events describe are those `ip -o link` lists: indexes, names, up or not. */
static void assert_truth(struct watched *t)
{
	char line[1024], name[IF_NAMESIZE];
	struct known *k;
	int ifindex, listed = 0;
	FILE *ip;

	ip = popen("ip -o link show", "r");
	assert_non_null(ip);
	while (fgets(line, sizeof(line), ip)) {
		/* "7: veth0@veth1: <BROADCAST,UP> ...": a veth's peer follows its name. */
		if (sscanf(line, "%d: %15[^:@]", &ifindex, name) != 2)
			continue;
		listed++;
		k = find(t, ifindex);
		if (!k)
			fail_msg("%s (index %d) is listed but was not reported", name, ifindex);
		if (strcmp(k->name, name))
			fail_msg("index %d is %s, reported as %s", ifindex, name, k->name);
		if (k->up != flags_up(line))
			fail_msg("%s is %s, reported %s", name, flags_up(line) ? "up" : "down",
				 k->up ? "up" : "down");
	}
	assert_int_equal(pclose(ip), 0);
	if (listed != t->nlinks)
		fail_msg("%d links listed, %d reported", listed, t->nlinks);
}

static void test_links_before_open(void **state __attribute__((unused)))
{
	struct watched *t;
	int synced, i;

	if (unshare_failed)
		skip();
	sh("ip link add lwa0 type veth peer name lwa1");
	t = watch_open();
	synced = logged(t, LINKWATCH_SYNCED, 0, NULL, -1);
	assert_int_equal(t->resyncs, 0);
	for (i = 0; i < 3; i++) {
		const char *name = (const char *[]){ "lo", "lwa0", "lwa1" }[i];
		int at = logged(t, LINKWATCH_PRESENT, if_nametoindex(name), name, 0);

		if (at < 0 || at > synced)
			fail_msg("%s not reported PRESENT (and down) before SYNCED", name);
	}
	assert_truth(t);
	sh("ip link del lwa0");
	watch_close(t);
}

/*
 * A deadline passed: one event a read, the rest of the dump's reply kept
 * for the next (linkwatch_pending()), none lost or repeated, in order.
 */
static void test_deadline_one_at_a_time(void **state __attribute__((unused)))
{
	struct pollfd pfd;
	struct watched *t;
	int err, reads = 0, before;

	if (unshare_failed)
		skip();
	sh("ip link add lwt0 type veth peer name lwt1");
	sh("ip link add lwt2 type veth peer name lwt3");
	t = watch_start();
	pfd = (struct pollfd){ .fd = t->w.fd, .events = POLLIN };
	assert_int_equal(poll(&pfd, 1, HANG_MS), 1);
	do {
		before = t->nlog;
		err = linkwatch_read(&t->w, apply, t, 1);
		if (err < 0)
			fail_msg("linkwatch_read: %s", strerror(-err));
		/* Each read takes one event at most; one that says it is done left none. */
		assert_in_range(t->nlog - before, 0, 1);
		if (!err)
			assert_false(linkwatch_pending(&t->w));
		reads++;
	} while (!t->synced && reads < 1000);
	/* lo, four veths, SYNCED: one at a time. */
	assert_true(reads >= 6);
	assert_false(linkwatch_pending(&t->w));
	assert_int_equal(t->resyncs, 0);
	assert_truth(t);
	sh("ip link del lwt0");
	sh("ip link del lwt2");
	watch_close(t);
}

static void test_create_up_rename_delete(void **state __attribute__((unused)))
{
	struct watched *t = watch_open();
	int idx, peer;
	int at;

	log_clear(t);
	sh("ip link add lwc0 type veth peer name lwc1");
	idx = if_nametoindex("lwc0");
	peer = if_nametoindex("lwc1");
	assert_true(idx > 0 && peer > 0);
	wait_event(t, LINKWATCH_PRESENT, idx, "lwc0", 0, "lwc0 created");

	sh("ip link set lwc0 up");
	wait_event(t, LINKWATCH_PRESENT, idx, "lwc0", 1, "lwc0 up");

	/* A link that is up keeps its name: down first. */
	sh("ip link set lwc0 down && ip link set lwc0 name lwc2");
	wait_event(t, LINKWATCH_PRESENT, idx, "lwc2", 0, "lwc0 renamed lwc2");
	assert_truth(t);

	/* A veth deleted takes its peer with it. */
	sh("ip link del lwc2");
	wait_event(t, LINKWATCH_GONE, idx, "lwc2", -1, "lwc2 deleted");
	wait_event(t, LINKWATCH_GONE, peer, "lwc1", -1, "its peer deleted");
	at = logged(t, LINKWATCH_GONE, idx, NULL, -1);
	assert_false(t->log[at].moved);
	assert_int_equal(logged(t, LINKWATCH_RESYNC, 0, NULL, -1), -1);
	assert_truth(t);
	watch_close(t);
}

static void test_moved_away(void **state __attribute__((unused)))
{
	struct watched *t = watch_open();
	int idx, at;

	snprintf(netns, sizeof(netns), "fbf-lw-%d", (int)getpid());
	sh("ip netns add %s", netns);
	sh("ip link add lwm0 type veth peer name lwm1");
	idx = if_nametoindex("lwm1");
	assert_true(idx > 0);
	log_clear(t);
	sh("ip link set lwm1 netns %s", netns);
	wait_event(t, LINKWATCH_GONE, idx, "lwm1", -1, "lwm1 moved away");
	at = logged(t, LINKWATCH_GONE, idx, NULL, -1);
	assert_true(t->log[at].moved);
	/* Its peer stays, and says so. */
	assert_truth(t);
	sh("ip link del lwm0");
	watch_close(t);
}

static int netns_teardown(void **state __attribute__((unused)))
{
	if (netns[0])
		sh("ip netns del %s", netns);
	netns[0] = '\0';
	return 0;
}

/* `ip -batch` lines: add the veth pairs PREFIXNa, PREFIXNb, @from <= N < @to, or delete them. */
static void pair_lines(FILE *f, bool add, const char *prefix, int from, int to)
{
	int i;

	for (i = from; i < to; i++)
		if (add)
			fprintf(f, "link add %s%da type veth peer name %s%db\n", prefix, i,
				prefix, i);
		else
			fprintf(f, "link del %s%da\n", prefix, i);
}

/* The lines @f holds, run by one `ip -batch`: at once, and nothing is read meanwhile. */
static void batch(FILE *f, char **text)
{
	char path[] = "/tmp/fbf-lw-batch.XXXXXX";
	FILE *out;
	int fd;

	assert_int_equal(fclose(f), 0);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	out = fdopen(fd, "w");
	assert_non_null(out);
	fputs(*text, out);
	assert_int_equal(fclose(out), 0);
	free(*text);
	sh("ip -batch %s", path);
	unlink(path);
}

#define BURST_DROPPED 10

/*
 * @pairs veth pairs (twice as many links) made at once while nothing is
 * read, the first BURST_DROPPED of them deleted again, and the links of
 * @drop_prefix 0 to 2 deleted too; then read: whether the socket overran or
 * not, once a link made after them is reported and no SYNCED is owed, the
 * events tell every link there is. A link made then deleted is where an
 * overrun's stale events would show.
 */
static void burst(struct watched *t, const char *prefix, int pairs, const char *drop_prefix)
{
	char marker[IF_NAMESIZE], *text;
	static int markers;
	size_t len;
	FILE *f;

	f = open_memstream(&text, &len);
	assert_non_null(f);
	pair_lines(f, true, prefix, 0, pairs);
	pair_lines(f, false, prefix, 0, BURST_DROPPED);
	if (drop_prefix)
		pair_lines(f, false, drop_prefix, 0, 3);
	batch(f, &text);
	snprintf(marker, sizeof(marker), "lwz%d", markers++);
	sh("ip link add %s type veth peer name %sp", marker, marker);
	wait_for(t, &(struct expect){ .kind = LINKWATCH_PRESENT, .name = marker, .up = -1,
				      .settled = true }, "the link made after the burst");
	assert_truth(t);
	sh("ip link del %s", marker);
}

/* What burst() left: its links go, at once. */
static void burst_clear(const char *prefix, int pairs)
{
	size_t len;
	char *text;
	FILE *f;

	f = open_memstream(&text, &len);
	assert_non_null(f);
	pair_lines(f, false, prefix, BURST_DROPPED, pairs);
	batch(f, &text);
}

static void test_burst(void **state __attribute__((unused)))
{
	struct watched *t = watch_open();
	int small = 1, before;

	burst(t, "lwb", 100, NULL);
	printf("# 200 links with the watcher's own receive buffer: %d RESYNC\n", t->resyncs);
	burst_clear("lwb", 100);

	/* The kernel's least (SOCK_MIN_RCVBUF): a few messages overrun it. */
	assert_int_equal(setsockopt(t->w.fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)), 0);
	before = t->resyncs;
	burst(t, "lwd", 250, NULL);
	if (t->resyncs == before)
		printf("# 500 links did not overrun the least receive buffer: no RESYNC to test\n");
	else
		printf("# 500 links with the least receive buffer: %d RESYNC\n",
		       t->resyncs - before);
	burst_clear("lwd", 250);
	watch_close(t);
}

/*
 * The overrun while the first dump runs: its replies, the first of them
 * made before links it lists were deleted, must not make a SYNCED.
 */
static void test_burst_during_dump(void **state __attribute__((unused)))
{
	struct watched *t;
	int small = 1;
	size_t len;
	char *text;
	FILE *f;

	if (unshare_failed)
		skip();
	f = open_memstream(&text, &len);
	assert_non_null(f);
	pair_lines(f, true, "lwf", 0, 3);
	batch(f, &text);
	t = watch_start();
	assert_int_equal(setsockopt(t->w.fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)), 0);
	burst(t, "lwe", 250, "lwf");
	if (!t->resyncs)
		printf("# 500 links during the first dump did not overrun: no RESYNC to test\n");
	else
		printf("# 500 links during the first dump: %d RESYNC\n", t->resyncs);
	burst_clear("lwe", 250);
	watch_close(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_links_before_open),
		cmocka_unit_test(test_deadline_one_at_a_time),
		cmocka_unit_test(test_create_up_rename_delete),
		cmocka_unit_test_teardown(test_moved_away, netns_teardown),
		cmocka_unit_test(test_burst_during_dump),
		cmocka_unit_test(test_burst),
	};

	/* Links come and go in a namespace of the test's own, and go with it. */
	if (unshare(CLONE_NEWNET)) {
		unshare_failed = strerror(errno);
		printf("# cannot make a network namespace (%s): skipping; run as root\n",
		       unshare_failed);
	}
	return cmocka_run_group_tests_name("linkwatch", tests, NULL, NULL);
}
