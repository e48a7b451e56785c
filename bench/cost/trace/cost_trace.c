// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * cost_trace: what a tracing program costs the workload it hooks
 * (bench/cost/trace/trace.sh, make cost on a tracing object). Each program
 * of the object (or the one named) attached at the hook its section names,
 * the hook fired by a built-in trigger (trace_trigger.h) or a command, the
 * object's events read as its tool reads them (trace_readers.h), and per
 * round, in an order that turns each round: the workload bare, with the
 * programs attached, and attached with bpf_stats on (the programs' own ns per
 * run; the two attached phases apart give bpf_stats' own cost).
 *
 *   cost_trace family [-p PROG] OBJECT
 *       "trace" or "packet": which family measures the object (or PROG)
 *   cost_trace triggers
 *       the built-in triggers and the hooks each fires, as a Markdown table
 *   cost_trace run|cpus [-p PROG] [-N NAME] [-s SET] [-m MAPS] [-S ARM=SET] [-M ARM=MAPS]
 *                  [-c COMMAND] [-r ROUNDS] [-t MS] [-F HZ] [-C COUNTS] [-L LINES]
 *                  ARM[:PROG]=OBJECT...
 *       rows "ARM<TAB>BENCH<TAB>MEASURE<TAB>VALUE" and "#" lines
 *       (bench/cost/trace/trace_report.py); cpus: on 1, 2, 4... CPUs at once; PROG
 *       (-p, or an arm's own) the one program measured, NAME what its rows call it, so
 *       that a compare pairs a base's and a candidate's of different names; -S and -M
 *       an arm's own SET and MAPS, over -s and -m
 *
 * Exit statuses: bench/cost/cost_exits.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cost_args.h"
#include "cost_exits.h"
#include "cost_lines.h"
#include "cost_object.h"
#include "cost_state.h"
#include "trace_hook.h"
#include "trace_readers.h"
#include "trace_stats.h"
#include "trace_trigger.h"

#define MAX_ARMS 3
#define MAX_PROGS 32
#define MAX_WORKLOADS 16
#define MAX_CPUS 1024
/* Defaults: rounds, and how long each phase fires the hook. */
#define DEFAULT_ROUNDS 10
#define DEFAULT_PHASE_MS 100
/* A perf_event program's samples a second on each CPU: the seed article's profiler's 100 Hz. */
#define DEFAULT_PERF_HZ 100
/* bpf_stats' own cost: pairs of getpid loops, stats on and off, each this long. */
#define STATS_COST_ROUNDS 21
#define STATS_COST_MS 20
/* Calls between two looks at the clock: the look costs nothing beside them. */
#define BATCH 8

struct tprog {
	struct bpf_program *prog;	/* in the arm's object, or in its latest copy's */
	const char *name;
	const char *label;	/* as its rows name it: its name, or -N's for a compare */
	struct trace_hook hook;
	const struct trace_trigger *trigger;	/* the built-in one that fires its hook */
	int fd;			/* the program's, or its latest copy's (reload_copy) */
	struct bpf_object *copy;	/* the copy's object, once the kernel needs one */
	bool attached;		/* once: a kernel that attaches it once a load needs a copy */
	struct bpf_link *link;
	struct bpf_link *perf_links[MAX_CPUS];	/* a perf_event program's, one per CPU */
	int home;		/* the workload its figures come from; -1 until one ran it */
	unsigned long long runs;	/* over the whole run */
	struct trace_stats before;
};

struct tarm {
	const char *name, *path;
	struct bpf_object *obj;
	struct tprog progs[MAX_PROGS];
	int nr;
	struct trace_readers readers;
	struct cost_state state;
	unsigned long long read_before, lost_before;
};

struct workload {
	const char *name;		/* the trigger's, or "command" */
	const struct trace_trigger *trigger;	/* NULL: the command */
};

static struct tarm arms[MAX_ARMS];
static int nr_arms;
static struct workload workloads[MAX_WORKLOADS];
static int nr_workloads;
static const char *command;
static int perf_hz = DEFAULT_PERF_HZ;
static int nr_cpus;

static int usage(void)
{
	fprintf(stderr, "usage: cost_trace family [-p PROG] OBJECT\n"
		"       cost_trace triggers\n"
		"       cost_trace run|cpus [-p PROG] [-N NAME] [-s SET] [-m MAPS] [-S ARM=SET]\n"
		"                  [-M ARM=MAPS] [-c COMMAND]\n"
		"                  [-r ROUNDS] [-t MS] [-F HZ] [-C COUNTS] [-L LINES]\n"
		"                  ARM[:PROG]=OBJECT...\n");
	return COST_EXIT_USAGE;
}

/* This thread's CPU time: what it ran, not what others took of its CPU meanwhile. */
static double thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* "kprobe (SEC(\"kprobe/x\"))": a program of a type no family here takes, for one line. */
static const char *type_of(const struct bpf_program *p, char *buf, size_t size)
{
	const char *type = libbpf_bpf_prog_type_str(bpf_program__type(p));

	snprintf(buf, size, "%s, SEC(\"%s\")", type ? type : "unknown",
		 bpf_program__section_name(p));
	return buf;
}

/* A program the packet family measures: XDP or TC, or a section this libbpf cannot type. */
static bool is_packet(const struct bpf_program *p)
{
	enum bpf_prog_type t = bpf_program__type(p);

	return t == BPF_PROG_TYPE_XDP || t == BPF_PROG_TYPE_SCHED_CLS ||
	       t == BPF_PROG_TYPE_SCHED_ACT || t == BPF_PROG_TYPE_UNSPEC;
}

static int family(int argc, char **argv)
{
	const char *name = NULL;
	struct bpf_object *obj;
	struct bpf_program *p;
	int nr_trace = 0, nr_packet = 0, opt;
	char buf[256];

	while ((opt = getopt(argc, argv, "p:")) != -1) {
		if (opt != 'p')
			return usage();
		name = optarg;
	}
	if (optind != argc - 1)
		return usage();
	obj = bpf_object__open_file(argv[optind], NULL);
	if (!obj) {
		/* The packet family's loader says what is wrong with the file. */
		printf("packet\n");
		return 0;
	}
	bpf_object__for_each_program(p, obj) {
		if (name && strcmp(bpf_program__name(p), name))
			continue;
		nr_trace += trace_hook_is_tracing(p);
		nr_packet += is_packet(p);
	}
	if (nr_trace && !nr_packet) {
		printf("trace\n");
	} else if (nr_packet || (name && !nr_trace)) {
		printf("packet\n");
	} else {
		bool first = true;

		fprintf(stderr, "cost: %s has no program of a type the tool measures: ",
			argv[optind]);
		bpf_object__for_each_program(p, obj) {
			fprintf(stderr, "%s%s (%s)", first ? "" : ", ", bpf_program__name(p),
				type_of(p, buf, sizeof(buf)));
			first = false;
		}
		fprintf(stderr, "; it takes XDP, TC and tracing programs (kprobe, fentry, "
			"tracepoint, raw_tp, tp_btf, lsm, uprobe, perf_event)\n");
		bpf_object__close(obj);
		return COST_EXIT_NO_XDP;
	}
	bpf_object__close(obj);
	return 0;
}

static int add_workload(const char *name, const struct trace_trigger *t)
{
	for (int i = 0; i < nr_workloads; i++)
		if (!strcmp(workloads[i].name, name))
			return i;
	if (nr_workloads == MAX_WORKLOADS)
		return -1;
	workloads[nr_workloads] = (struct workload){ name, t };
	return nr_workloads++;
}

static int attach_arm(struct tarm *a);
static void detach_arm(struct tarm *a);

/* ARM=OBJECT opened, its programs chosen and checked against this kernel, then loaded. */
static int open_arm(struct tarm *a, const char *prog_name, const char *set, const char *maps)
{
	struct bpf_program *p;
	int err;

	a->obj = bpf_object__open_file(a->path, NULL);
	if (!a->obj) {
		fprintf(stderr, "cost: %s is not a BPF object: %s\n", a->path, strerror(errno));
		return COST_EXIT_OPEN;
	}
	bpf_object__for_each_program(p, a->obj) {
		struct tprog *tp = &a->progs[a->nr];
		bool chosen = prog_name ? !strcmp(bpf_program__name(p), prog_name) :
				trace_hook_is_tracing(p);

		bpf_program__set_autoload(p, chosen);
		if (!chosen)
			continue;
		if (a->nr == MAX_PROGS) {
			fprintf(stderr, "cost: %s has more than %d tracing programs: name one "
				"with PROG=\n", a->path, MAX_PROGS);
			return COST_EXIT_USAGE;
		}
		tp->prog = p;
		tp->name = tp->label = bpf_program__name(p);
		tp->home = -1;
		if (trace_hook_of(p, &tp->hook)) {
			char buf[256];

			fprintf(stderr, "cost: %s in %s is not a program the tool measures (%s): "
				"it takes XDP, TC and tracing programs\n", tp->name, a->path,
				type_of(p, buf, sizeof(buf)));
			return COST_EXIT_NO_XDP;
		}
		err = trace_hook_check(&tp->hook, tp->name);
		if (err)
			return err;
		tp->trigger = trace_trigger_for(&tp->hook);
		a->nr++;
	}
	if (!a->nr) {
		fprintf(stderr, "cost: %s has no %s%s: bpftool prog loadall shows its programs\n",
			a->path, prog_name ? "program named " : "tracing program",
			prog_name ? prog_name : "");
		return prog_name ? COST_EXIT_NO_PROG : COST_EXIT_NO_XDP;
	}
	/* MAPS's per-cpu makes a map of maps' inner maps as the object declares them. */
	a->state.object = a->path;
	err = cost_state_set_globals(a->obj, a->path, set) ?:
	      cost_state_keep_inner(&a->state, a->obj, maps);
	if (err)
		return err;
	err = bpf_object__load(a->obj) ? -errno : 0;
	cost_state_loaded(&a->state);
	if (err) {
		int load_err = -err;

		if (cost_object_print_refusal()) {
			fprintf(stderr, "cost: the verifier refused a program of %s: its log "
				"ends as above\n", a->path);
			return COST_EXIT_REFUSED;
		}
		/* No verifier log: the kernel refused the kind of program before verifying. */
		for (int i = 0; i < a->nr; i++)
			if (load_err == EPERM && bpf_program__fd(a->progs[i].prog) < 0 &&
			    a->progs[i].hook.kind != TRACE_NONE)
				return trace_hook_failed(&a->progs[i].hook, a->progs[i].name,
							 "load", load_err);
		fprintf(stderr, "cost: loading %s: %s\n", a->path, strerror(load_err));
		return COST_EXIT_FAILED;
	}
	for (int i = 0; i < a->nr; i++)
		a->progs[i].fd = bpf_program__fd(a->progs[i].prog);
	if (maps) {
		err = cost_object_fill(&a->state, a->obj, maps);
		if (err)
			return err;
	}
	/* Each hook tried once before any round: a uprobe's symbol, say, is checked here. */
	err = attach_arm(a);
	detach_arm(a);
	return err;
}

static int perf_open(int cpu)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.freq = 1,
		.sample_freq = perf_hz,
	};

	return syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/*
 * A fresh copy of @tp's program loaded from @a's file, its maps @a's own (reused: the
 * state, globals and events are those of the arm), for a kernel that attaches a program
 * once a load (trace_hook_attaches_once). The copy before it is closed.
 */
static int reload_copy(struct tarm *a, struct tprog *tp)
{
	struct bpf_object *obj = bpf_object__open_file(a->path, NULL);
	struct bpf_program *p, *copy = NULL;
	struct bpf_map *m;
	int err;

	if (!obj)
		return trace_hook_failed(&tp->hook, tp->name, "load again", errno);
	bpf_object__for_each_program(p, obj) {
		bool it = !strcmp(bpf_program__name(p), tp->name);

		bpf_program__set_autoload(p, it);
		if (it)
			copy = p;
	}
	bpf_object__for_each_map(m, obj) {
		const struct bpf_map *own = bpf_object__find_map_by_name(a->obj,
									 bpf_map__name(m));

		if (own && bpf_map__fd(own) >= 0 && bpf_map__reuse_fd(m, bpf_map__fd(own))) {
			err = errno;
			bpf_object__close(obj);
			return trace_hook_failed(&tp->hook, tp->name, "share the maps of", err);
		}
	}
	if (!copy || bpf_object__load(obj)) {
		err = copy ? errno : ENOENT;
		bpf_object__close(obj);
		return trace_hook_failed(&tp->hook, tp->name, "load again", err);
	}
	bpf_object__close(tp->copy);
	tp->copy = obj;
	tp->prog = copy;
	tp->fd = bpf_program__fd(copy);
	return 0;
}

static void detach_prog(struct tprog *tp)
{
	bpf_link__destroy(tp->link);
	tp->link = NULL;
	for (int c = 0; c < nr_cpus; c++) {
		bpf_link__destroy(tp->perf_links[c]);
		tp->perf_links[c] = NULL;
	}
}

static int attach_prog(struct tarm *a, struct tprog *tp)
{
	if (tp->attached && trace_hook_attaches_once(&tp->hook)) {
		int err = reload_copy(a, tp);

		if (err)
			return err;
	}
	tp->attached = true;
	if (tp->hook.kind != TRACE_PERF_EVENT) {
		tp->link = bpf_program__attach(tp->prog);
		return tp->link ? 0 : trace_hook_failed(&tp->hook, tp->name, "attach", errno);
	}
	for (int c = 0; c < nr_cpus; c++) {
		int pfd = perf_open(c);

		if (pfd < 0)
			return trace_hook_failed(&tp->hook, tp->name, "open the cpu-clock event "
						 "for", errno);
		tp->perf_links[c] = bpf_program__attach_perf_event(tp->prog, pfd);
		if (!tp->perf_links[c]) {
			int err = errno;

			close(pfd);
			return trace_hook_failed(&tp->hook, tp->name, "attach", err);
		}
	}
	return 0;
}

/* Every program of @a attached, those on an LSM hook last: one may refuse bpf(2) itself. */
static int attach_arm(struct tarm *a)
{
	int err = 0;

	for (int lsm = 0; lsm < 2 && !err; lsm++)
		for (int i = 0; i < a->nr && !err; i++)
			if ((a->progs[i].hook.kind == TRACE_LSM) == lsm)
				err = attach_prog(a, &a->progs[i]);
	return err;
}

static void detach_arm(struct tarm *a)
{
	/* LSM programs first, so that the rest detach through a bpf(2) they allow. */
	for (int lsm = 1; lsm >= 0; lsm--)
		for (int i = 0; i < a->nr; i++)
			if ((a->progs[i].hook.kind == TRACE_LSM) == lsm)
				detach_prog(&a->progs[i]);
}

/* One thread of a phase: the workload called over and over on its CPU until told to stop. */
struct worker {
	const struct workload *w;
	int cpu;
	pthread_t thread;
	unsigned long calls;
	/*
	 * Ns per call: the thread's own CPU time over its calls, so that what other work
	 * takes of its CPU meanwhile is not counted as the workload's (the programs run in
	 * its context, so their time is); wall time for a workload that sleeps by design,
	 * whose calls' cost is mostly another thread's, or a child's.
	 */
	double ns;
	double oncpu;		/* its CPU time over its wall time in the loop, in percent */
	int err;		/* a setup's -errno, or the command's exit status */
};

static volatile int ready, go, stop, done, release_workers;

/* Whether @w's calls are timed by the thread's CPU time (struct worker's ns). */
static bool by_cpu_time(const struct workload *w)
{
	return w->trigger && !w->trigger->sleeps;
}

static int run_command(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", command, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return 126;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void *work(void *arg)
{
	struct worker *wk = arg;
	struct trace_trigger_ctx ctx;
	cpu_set_t set;
	double start, cpu_start, wall, cpu;

	CPU_ZERO(&set);
	CPU_SET(wk->cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	if (wk->w->trigger)
		wk->err = trace_trigger_begin(wk->w->trigger, &ctx, wk->cpu);
	__atomic_add_fetch(&ready, 1, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
		;
	start = now_ns();
	cpu_start = thread_cpu_ns();
	/* At least one call: a command may take longer than a phase. */
	do {
		if (wk->err)
			break;
		if (!wk->w->trigger) {
			wk->err = run_command();
			wk->calls++;
			continue;
		}
		for (int i = 0; i < BATCH; i++)
			wk->w->trigger->call(&ctx);
		wk->calls += BATCH;
	} while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE));
	wall = now_ns() - start;
	cpu = thread_cpu_ns() - cpu_start;
	wk->ns = !wk->calls ? 0 : (by_cpu_time(wk->w) ? cpu : wall) / wk->calls;
	wk->oncpu = wall > 0 ? cpu / wall * 100 : 0;
	__atomic_add_fetch(&done, 1, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(&release_workers, __ATOMIC_ACQUIRE))
		usleep(100);
	if (wk->w->trigger && !wk->err)
		trace_trigger_end(wk->w->trigger, &ctx);
	return NULL;
}

struct phase {
	double ns_per_call;	/* the threads' mean */
	double oncpu;		/* the least any thread ran of the phase, in percent */
	unsigned long calls;	/* all threads' */
	double seconds;
	int err;
};

/*
 * The workload on @n threads, CPUs 0 to n-1, for @ms; @snap, called once all are
 * ready and again once all are done (before their teardown), reads what it
 * wants around exactly the calls.
 */
static struct phase run_phase(const struct workload *w, int n, int ms,
			      void (*snap)(bool after, void *ctx), void *ctx)
{
	static struct worker workers[MAX_CPUS];
	struct phase ph = { 0 };
	double start;

	ready = go = stop = done = release_workers = 0;
	for (int i = 0; i < n; i++) {
		workers[i] = (struct worker){ .w = w, .cpu = i % nr_cpus };
		pthread_create(&workers[i].thread, NULL, work, &workers[i]);
	}
	while (__atomic_load_n(&ready, __ATOMIC_SEQ_CST) < n)
		usleep(100);
	snap(false, ctx);
	start = now_ns();
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	usleep(ms * 1000);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&done, __ATOMIC_SEQ_CST) < n)
		usleep(100);
	ph.seconds = (now_ns() - start) / 1e9;
	ph.oncpu = 100;
	snap(true, ctx);
	__atomic_store_n(&release_workers, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < n; i++) {
		pthread_join(workers[i].thread, NULL);
		ph.ns_per_call += workers[i].ns / n;
		if (workers[i].oncpu < ph.oncpu)
			ph.oncpu = workers[i].oncpu;
		ph.calls += workers[i].calls;
		if (workers[i].err && !ph.err)
			ph.err = workers[i].err;
	}
	return ph;
}

/* The statistics of every program of an arm around a phase. */
struct stats_snap {
	struct tarm *a;
	struct trace_stats delta[MAX_PROGS];
};

static void snap_stats(bool after, void *ctx)
{
	struct stats_snap *s = ctx;

	if (!s->a)
		return;
	for (int i = 0; i < s->a->nr; i++) {
		struct trace_stats now = { 0 };

		trace_stats_read(s->a->progs[i].fd, &now);
		if (!after) {
			s->a->progs[i].before = now;
			continue;
		}
		s->delta[i].run_cnt = now.run_cnt - s->a->progs[i].before.run_cnt;
		s->delta[i].run_time_ns = now.run_time_ns - s->a->progs[i].before.run_time_ns;
	}
}

static int workload_failed(const struct phase *ph)
{
	if (command) {
		fprintf(stderr, "cost: WORKLOAD \"%s\" exited %d: run it by hand to see why; "
			"it must succeed, bare and with the programs attached\n", command,
			ph->err);
		return COST_EXIT_WORKLOAD;
	}
	fprintf(stderr, "cost: the built-in trigger could not start: %s\n", strerror(-ph->err));
	return COST_EXIT_FAILED;
}

enum phase_kind { PHASE_BARE, PHASE_ATTACHED, PHASE_STATS };

/* One phase of workload @wi on @n CPUs for arm @a (NULL: bare): its rows printed. */
static int phase(int wi, enum phase_kind kind, struct tarm *a, int n, int ms, bool curve)
{
	const struct workload *w = &workloads[wi];
	struct stats_snap snap = { .a = kind == PHASE_STATS ? a : NULL };
	int stats_fd = -1, err;
	char prefix[64] = "cost";
	struct phase ph;

	if (curve)
		snprintf(prefix, sizeof(prefix), "cost/cpus/%d", n);
	if (kind == PHASE_STATS) {
		stats_fd = trace_stats_enable();
		if (stats_fd < 0) {
			fprintf(stderr, "cost: cannot switch bpf_stats on: %s (5.8 and later, as "
				"root)\n", strerror(-stats_fd));
			return COST_EXIT_FAILED;
		}
	}
	err = a && kind != PHASE_BARE ? attach_arm(a) : 0;
	if (err) {
		if (a)
			detach_arm(a);
		if (stats_fd >= 0)
			close(stats_fd);
		return err;
	}
	ph = run_phase(w, n, ms, snap_stats, &snap);
	if (a && kind != PHASE_BARE)
		detach_arm(a);
	if (stats_fd >= 0)
		close(stats_fd);
	if (ph.err)
		return workload_failed(&ph);
	if (kind == PHASE_BARE) {
		for (int i = 0; i < nr_arms; i++)
			printf("%s\t%s/workload/%s/bare\tlatency\t%.2f\n", arms[i].name, prefix,
			       w->name, ph.ns_per_call);
		return 0;
	}
	if (kind == PHASE_ATTACHED) {
		printf("%s\t%s/workload/%s\tlatency\t%.2f\n", a->name, prefix, w->name,
		       ph.ns_per_call);
		return 0;
	}
	printf("%s\t%s/workload/%s/stats\tlatency\t%.2f\n", a->name, prefix, w->name,
	       ph.ns_per_call);
	/*
	 * Threads that other work kept off their CPUs met less: contention reads low. Not
	 * said of a workload that sleeps by design, nor of a command (it forks and waits).
	 */
	if (curve && by_cpu_time(w))
		printf("%s\t%s/workload/%s\toncpu-percent\t%.1f\n", a->name, prefix, w->name,
		       ph.oncpu);
	for (int i = 0; i < a->nr; i++) {
		struct tprog *tp = &a->progs[i];
		struct trace_stats *d = &snap.delta[i];

		if (!d->run_cnt)
			continue;
		tp->runs += d->run_cnt;
		if (!curve) {
			printf("%s\t%s/workload/%s/prog/%s\truns\t%.4f\n", a->name, prefix, w->name,
			       tp->label, (double)d->run_cnt / ph.calls);
			if (tp->home < 0)
				tp->home = wi;
		}
		if (tp->home != wi || (curve && tp->hook.kind == TRACE_PERF_EVENT))
			continue;
		printf("%s\t%s/prog/%s\tlatency\t%.2f\n", a->name,
		       curve ? prefix : "cost", tp->label, (double)d->run_time_ns / d->run_cnt);
		if (curve)
			continue;
		printf("%s\tcost/prog/%s\truns\t%.4f\n", a->name, tp->label,
		       (double)d->run_cnt / ph.calls);
		if (tp->hook.kind == TRACE_PERF_EVENT) {
			printf("%s\tcost/prog/%s\tsamples-per-s\t%.1f\n", a->name, tp->label,
			       d->run_cnt / ph.seconds / nr_cpus);
			printf("%s\tcost/prog/%s\tcpu-percent\t%.4f\n", a->name, tp->label,
			       d->run_time_ns / (ph.seconds * 1e9 * nr_cpus) * 100);
		}
	}
	return 0;
}

/*
 * Each program's home: the workload of its own trigger where it has one here, so that
 * its figures come from the call it hooks, not from one it meets on the way.
 */
static void set_homes(void)
{
	for (int i = 0; i < nr_arms; i++)
		for (int j = 0; j < arms[i].nr; j++) {
			struct tprog *tp = &arms[i].progs[j];

			for (int wi = 0; wi < nr_workloads && !command; wi++)
				if (workloads[wi].trigger == tp->trigger)
					tp->home = wi;
		}
}

static void print_static(const struct tarm *a)
{
	for (int i = 0; i < a->nr; i++) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (bpf_obj_get_info_by_fd(a->progs[i].fd, &info, &len))
			continue;
		if (info.verified_insns)
			printf("%s\tcost/prog/%s\tverified-instructions\t%u\n", a->name,
			       a->progs[i].label, info.verified_insns);
		printf("%s\tcost/prog/%s\ttranslated-instructions\t%u\n", a->name,
		       a->progs[i].label, info.xlated_prog_len / 8);
		printf("%s\tcost/prog/%s\tjited-bytes\t%u\n", a->name, a->progs[i].label,
		       info.jited_prog_len);
	}
}

static void print_events(struct tarm *a, const char *workload)
{
	unsigned long long read, lost;

	if (!a->readers.nr)
		return;
	trace_readers_counts(&a->readers, &read, &lost);
	printf("#events\t%s\t%s\t%llu\t%llu", a->name, workload, read - a->read_before,
	       lost - a->lost_before);
	for (int i = 0; i < a->readers.nr; i++)
		printf("\t%s (%s)", a->readers.maps[i].name, a->readers.maps[i].kind);
	printf("\n");
	a->read_before = read;
	a->lost_before = lost;
}

/* The CPU counts of a curve: 1, 2, 4, ... and every CPU, or those of @list. */
static int cpu_counts(const char *list, int *counts)
{
	int n = 0;

	if (list) {
		char *copy = strdup(list), *save = NULL;

		for (char *tok = strtok_r(copy, " ,", &save); tok && n < 32;
		     tok = strtok_r(NULL, " ,", &save))
			if (atoi(tok) > 0 && atoi(tok) <= nr_cpus)
				counts[n++] = atoi(tok);
		free(copy);
		return n;
	}
	for (int c = 1; c < nr_cpus; c *= 2)
		counts[n++] = c;
	counts[n++] = nr_cpus;
	/* Every host compares 1 with 2, however few CPUs it has. */
	if (n == 1)
		counts[n++] = 2;
	return n;
}

/*
 * Round @r of workload @wi on @n CPUs: bare, and each arm attached and with stats on. The
 * arms' order turns each round and the whole round runs backwards every other one, so no
 * arm keeps the place next to the bare phase, or the first or the last.
 */
static int one_round(int wi, int r, int n, int ms, bool curve)
{
	enum phase_kind order[2 * MAX_ARMS + 1];
	struct tarm *arm_of[2 * MAX_ARMS + 1];
	int steps = 0, err = 0;

	order[steps] = PHASE_BARE;
	arm_of[steps++] = NULL;
	for (int i = 0; i < nr_arms; i++) {
		struct tarm *a = &arms[(i + r) % nr_arms];

		/* On a curve the attached phase without stats tells nothing new. */
		if (!curve) {
			order[steps] = PHASE_ATTACHED;
			arm_of[steps++] = a;
		}
		order[steps] = PHASE_STATS;
		arm_of[steps++] = a;
	}
	for (int s = 0; s < steps && !err; s++) {
		int k = r % 2 ? steps - 1 - s : s;

		err = phase(wi, order[k], arm_of[k], n, ms, curve);
	}
	return err;
}

static int measure(int rounds, int ms, bool curve, const char *counts_list)
{
	int counts[32], nr_counts = curve ? cpu_counts(counts_list, counts) : 1;
	int err = 0;

	if (!curve)
		counts[0] = 1;
	for (int wi = 0; wi < nr_workloads && !err; wi++) {
		for (int a = 0; a < nr_arms; a++) {
			unsigned long long read, lost;

			trace_readers_counts(&arms[a].readers, &read, &lost);
			arms[a].read_before = read;
			arms[a].lost_before = lost;
		}
		for (int ci = 0; ci < nr_counts && !err; ci++)
			for (int r = 0; r < rounds && !err; r++)
				err = one_round(wi, r, counts[ci], ms, curve);
		for (int a = 0; a < nr_arms && !curve; a++)
			print_events(&arms[a], workloads[wi].name);
	}
	return err;
}

static int run(int argc, char **argv, bool curve)
{
	const char *prog = NULL, *set = NULL, *maps = NULL, *counts = NULL, *lines = NULL;
	const char *label = NULL;
	struct cost_arm_option arm_maps[MAX_ARMS], arm_sets[MAX_ARMS];
	int nr_arm_maps = 0, nr_arm_sets = 0;
	int rounds = DEFAULT_ROUNDS, ms = DEFAULT_PHASE_MS, opt, err = 0, ran = 0;

	while ((opt = getopt(argc, argv, "p:N:s:m:S:M:c:r:t:F:C:L:")) != -1) {
		switch (opt) {
		case 'p': prog = optarg; break;
		case 'N': label = optarg; break;
		case 's': set = optarg; break;
		case 'm': maps = optarg; break;
		case 'S':
			if (cost_arm_option(arm_sets, &nr_arm_sets, MAX_ARMS, optarg))
				return COST_EXIT_USAGE;
			break;
		case 'M':
			if (cost_arm_option(arm_maps, &nr_arm_maps, MAX_ARMS, optarg))
				return COST_EXIT_USAGE;
			break;
		case 'c': command = optarg; break;
		case 'r': rounds = atoi(optarg); break;
		case 't': ms = atoi(optarg); break;
		case 'F': perf_hz = atoi(optarg); break;
		case 'C': counts = optarg; break;
		case 'L': lines = optarg; break;
		default: return usage();
		}
	}
	if (optind == argc || argc - optind > MAX_ARMS || rounds < 1 || ms < 1 || perf_hz < 1)
		return usage();
	for (int i = optind; i < argc && !err; i++) {
		struct tarm *a = &arms[nr_arms++];
		char *eq = strchr(argv[i], '='), *colon;

		if (!eq)
			return usage();
		*eq = '\0';
		a->name = argv[i];
		a->path = eq + 1;
		/* NAME:PROG=OBJECT: this arm's program, where the arms' names differ. */
		colon = strchr(a->name, ':');
		if (colon)
			*colon = '\0';
		err = open_arm(a, colon ? colon + 1 : prog,
			       cost_arm_value(arm_sets, nr_arm_sets, a->name, set),
			       cost_arm_value(arm_maps, nr_arm_maps, a->name, maps));
		if (!err && label && a->nr != 1) {
			fprintf(stderr, "cost: -N names one program, and %s has %d: name it\n",
				a->path, a->nr);
			return COST_EXIT_USAGE;
		}
		if (!err && label)
			a->progs[0].label = label;
	}
	if (err)
		return err;
	if (command) {
		add_workload("command", NULL);
	} else {
		for (int i = 0; i < nr_arms; i++)
			for (int j = 0; j < arms[i].nr; j++)
				if (arms[i].progs[j].trigger &&
				    add_workload(arms[i].progs[j].trigger->name,
						 arms[i].progs[j].trigger) < 0)
					return COST_EXIT_FAILED;
		if (!nr_workloads) {
			struct tprog *tp = &arms[0].progs[0];

			fprintf(stderr, "cost: no built-in trigger fires %s (%s%s%s): give a "
				"command that does, WORKLOAD=\"...\" (docs/benchmarks.md lists the "
				"triggers)\n", tp->name, tp->hook.kind_name,
				tp->hook.target[0] ? "/" : "", tp->hook.target);
			return COST_EXIT_NO_TRIGGER;
		}
	}
	set_homes();
	for (int i = 0; i < nr_arms; i++) {
		printf("#type\t%s\ttrace\n", arms[i].name);
		for (int j = 0; j < arms[i].nr; j++) {
			struct tprog *tp = &arms[i].progs[j];

			printf("#prog\t%s\t%s\t%s\t%s\t%s\n", arms[i].name, tp->label,
			       tp->hook.kind_name, tp->hook.target[0] ? tp->hook.target : "-",
			       tp->trigger ? tp->trigger->name : "-");
		}
		if (!curve)
			print_static(&arms[i]);
	}
	for (int wi = 0; wi < nr_workloads; wi++)
		printf("#workload\t%s\t%s\t%s\n", workloads[wi].name,
		       workloads[wi].trigger ? workloads[wi].trigger->does : command,
		       by_cpu_time(&workloads[wi]) ? "cpu" : "wall");
	printf("#perf-hz\t%d\n#cpus\t%d\n", perf_hz, nr_cpus);
	if (lines) {
		FILE *f = fopen(lines, "w");

		if (!f) {
			fprintf(stderr, "cost: cannot write %s: %s\n", lines, strerror(errno));
			return COST_EXIT_FAILED;
		}
		for (int i = 0; i < nr_arms; i++)
			for (int j = 0; j < arms[i].nr; j++)
				cost_lines_print(f, arms[i].name, arms[i].progs[j].fd);
		fclose(f);
	}
	for (int i = 0; i < nr_arms && !err; i++) {
		err = trace_readers_start(&arms[i].readers, arms[i].obj);
		if (err) {
			fprintf(stderr, "cost: cannot read %s's events: %s\n", arms[i].path,
				strerror(-err));
			err = COST_EXIT_FAILED;
		}
	}
	if (!err && !curve && !trace_stats_always_on()) {
		double own;
		int own_err = trace_stats_own_cost(STATS_COST_ROUNDS, STATS_COST_MS, &own);

		if (own_err)
			fprintf(stderr, "cost: bpf_stats' own cost not measured: %s\n",
				strerror(-own_err));
		else
			printf("#stats-cost\t%.1f\n", own);
	}
	fflush(stdout);
	err = err ?: measure(rounds, ms, curve, counts);
	for (int i = 0; i < nr_arms; i++) {
		trace_readers_stop(&arms[i].readers);
		for (int j = 0; j < arms[i].nr; j++) {
			const struct tprog *tp = &arms[i].progs[j];

			ran += tp->runs > 0;
			if (!err && !tp->runs)
				printf("#notrun\t%s\t%s\t%s\n", arms[i].name, tp->label,
				       tp->trigger || command ?
				       "the workload never fired its hook" :
				       "no built-in trigger fires its hook: give WORKLOAD=");
		}
		for (int j = 0; j < arms[i].nr; j++)
			bpf_object__close(arms[i].progs[j].copy);
		bpf_object__close(arms[i].obj);
	}
	if (!err && trace_stats_always_on())
		printf("#stats-always-on\n");
	if (!err && !ran) {
		fprintf(stderr, "cost: %s ran no program of %s: it never reached the hooks "
			"(the table's #notrun lines name them)\n",
			command ? "WORKLOAD" : "the built-in triggers", arms[0].path);
		return COST_EXIT_NOT_FIRED;
	}
	return err;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	/* A workload's writes into a closed pipe end are its own business. */
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	nr_cpus = libbpf_num_possible_cpus();
	if (nr_cpus > MAX_CPUS)
		nr_cpus = MAX_CPUS;
	{
		cpu_set_t set;

		if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) < nr_cpus)
			nr_cpus = CPU_COUNT(&set);
	}
	cost_object_init();
	if (!strcmp(argv[1], "family"))
		return family(argc - 1, argv + 1);
	if (!strcmp(argv[1], "triggers")) {
		trace_trigger_table();
		return 0;
	}
	if (!strcmp(argv[1], "run"))
		return run(argc - 1, argv + 1, false);
	if (!strcmp(argv[1], "cpus"))
		return run(argc - 1, argv + 1, true);
	return usage();
}
