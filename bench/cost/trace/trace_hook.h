/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The hook a tracing program attaches to, read from its section as libbpf
 * reads it (kprobe/FUNC, fentry/FUNC, tracepoint/CAT/NAME, raw_tp/NAME,
 * tp_btf/NAME, lsm/HOOK, uprobe/PATH:FUNC, perf_event), and whether this
 * kernel can take it: one line naming the program and the reason, and the
 * cost_exit status that says which, before anything is loaded.
 */
#ifndef FBF_TRACE_HOOK_H
#define FBF_TRACE_HOOK_H

#include <stdbool.h>
#include <bpf/libbpf.h>

enum trace_kind {
	TRACE_NONE,		/* not a tracing program */
	TRACE_KPROBE,
	TRACE_KRETPROBE,
	TRACE_KPROBE_MULTI,	/* kprobe.multi and kretprobe.multi: a pattern of functions */
	TRACE_FENTRY,
	TRACE_FEXIT,
	TRACE_FMOD_RET,
	TRACE_TRACEPOINT,
	TRACE_RAW_TP,
	TRACE_TP_BTF,
	TRACE_LSM,
	TRACE_UPROBE,
	TRACE_URETPROBE,
	TRACE_PERF_EVENT,
};

/* The longest target a section names: a path and a symbol. */
#define TRACE_TARGET_LEN 256

struct trace_hook {
	enum trace_kind kind;
	const char *kind_name;		/* "kprobe", "tp_btf": as the table names it */
	char target[TRACE_TARGET_LEN];	/* FUNC, CAT/NAME, NAME, HOOK or PATH:FUNC */
	char event[TRACE_TARGET_LEN];	/* the tracepoint's NAME alone, or the function's */
};

/*
 * The hook of @prog, an opened program: 0, or -ENOENT for a program that is
 * not a tracing program the tool measures.
 */
int trace_hook_of(const struct bpf_program *prog, struct trace_hook *hook);

/* Whether @prog is a tracing program this tool measures. */
bool trace_hook_is_tracing(const struct bpf_program *prog);

/*
 * Whether this kernel can take @hook of program @name: 0, or one line on
 * stderr and the cost_exit status (COST_EXIT_NO_HOOK, COST_EXIT_LSM,
 * COST_EXIT_UPROBE, COST_EXIT_HOOK_KERNEL). Mounts tracefs and securityfs
 * where they are not, as reading them needs.
 */
int trace_hook_check(const struct trace_hook *hook, const char *name);

/*
 * Whether this kernel attaches @hook's program once a load: before 5.13 a trampoline
 * program's (fentry, fexit, fmod_ret, lsm) first attach cleared its target, so each
 * further attach needs the program loaded again.
 */
bool trace_hook_attaches_once(const struct trace_hook *hook);

/*
 * Why an attach or a load of program @name at @hook failed with -@err, as one line on
 * stderr; the cost_exit status.
 */
int trace_hook_failed(const struct trace_hook *hook, const char *name, const char *what,
		      int err);

#endif /* FBF_TRACE_HOOK_H */
