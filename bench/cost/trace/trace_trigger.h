/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The built-in workloads that fire tracing programs' hooks: each a call
 * made over and over with harmless arguments on this process's own files,
 * pipes and sockets (open and close a file, a byte through a pipe, a
 * connect on loopback, an exec of /bin/true...), and the hooks each fires:
 * the system calls it makes, kernel functions, tracepoints and LSM hooks on
 * its path, and the C library's functions it calls. `cost_trace triggers`
 * prints them as docs/benchmarks.md's table.
 */
#ifndef FBF_TRACE_TRIGGER_H
#define FBF_TRACE_TRIGGER_H

#include <pthread.h>
#include <stdbool.h>

#include "trace_hook.h"

/* One thread's trigger: what its calls use, made by setup(), freed by teardown(). */
struct trace_trigger_ctx {
	char dir[64];		/* a directory of its own, for its files */
	char path[96];		/* a file in it */
	int fd[4];
	pthread_t partner;	/* the sched trigger's other thread */
	int partner_cpu;	/* where the partner runs: the caller's CPU, or -1 */
};

struct trace_trigger {
	const char *name;		/* as the BMF names it: cost/workload/NAME */
	const char *does;		/* one call, in words */
	const char *const *syscalls;	/* the system calls one call makes */
	const char *const *functions;	/* kernel functions on its path */
	const char *const *tracepoints;	/* tracepoints (any category) and raw tracepoints */
	const char *const *lsm;		/* LSM hooks */
	const char *const *libc;	/* C library functions (uprobes on libc.so.6) */
	int (*setup)(struct trace_trigger_ctx *c);
	void (*call)(struct trace_trigger_ctx *c);
	void (*teardown)(struct trace_trigger_ctx *c);
	/*
	 * Its calls sleep by design (a partner's reply, a child's exit), so a thread's CPU
	 * time over its wall time says nothing of what other work took from it.
	 */
	bool sleeps;
};

extern const struct trace_trigger trace_triggers[];
extern const unsigned int trace_nr_triggers;

/* The built-in trigger that fires @hook, or NULL: no trigger does. */
const struct trace_trigger *trace_trigger_for(const struct trace_hook *hook);

/* The trigger named @name, or NULL. */
const struct trace_trigger *trace_trigger_by_name(const char *name);

/*
 * Ready @t's calls on this thread, which may be pinned to @cpu (-1: not):
 * 0, or -errno. trace_trigger_end() undoes it.
 */
int trace_trigger_begin(const struct trace_trigger *t, struct trace_trigger_ctx *c, int cpu);
void trace_trigger_end(const struct trace_trigger *t, struct trace_trigger_ctx *c);

/* Every trigger and the hooks it fires, as a Markdown table, on stdout. */
void trace_trigger_table(void);

#endif /* FBF_TRACE_TRIGGER_H */
