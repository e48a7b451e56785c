// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A tracing program's hook, and whether the kernel takes it: see trace_hook.h. */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <bpf/btf.h>

#include "cost_exits.h"
#include "trace_hook.h"

#define TRACEFS "/sys/kernel/tracing"
#define SECURITYFS "/sys/kernel/security"
#define VMLINUX_BTF "/sys/kernel/btf/vmlinux"
/* The kernel's own "not supported", which no userspace header names. */
#define ENOTSUPP 524

struct section_kind {
	const char *prefix;		/* up to and with its '/', or the whole section */
	enum trace_kind kind;
	const char *name;
};

/* As libbpf 1.1 names them (libbpf.c's section_defs); the sleepable forms too. */
static const struct section_kind sections[] = {
	{ "kprobe.multi/", TRACE_KPROBE_MULTI, "kprobe.multi" },
	{ "kretprobe.multi/", TRACE_KPROBE_MULTI, "kretprobe.multi" },
	{ "kprobe/", TRACE_KPROBE, "kprobe" },
	{ "kretprobe/", TRACE_KRETPROBE, "kretprobe" },
	{ "ksyscall/", TRACE_KPROBE, "ksyscall" },
	{ "kretsyscall/", TRACE_KRETPROBE, "kretsyscall" },
	{ "fentry/", TRACE_FENTRY, "fentry" },
	{ "fentry.s/", TRACE_FENTRY, "fentry" },
	{ "fexit/", TRACE_FEXIT, "fexit" },
	{ "fexit.s/", TRACE_FEXIT, "fexit" },
	{ "fmod_ret/", TRACE_FMOD_RET, "fmod_ret" },
	{ "fmod_ret.s/", TRACE_FMOD_RET, "fmod_ret" },
	{ "tracepoint/", TRACE_TRACEPOINT, "tracepoint" },
	{ "tp/", TRACE_TRACEPOINT, "tracepoint" },
	{ "raw_tracepoint/", TRACE_RAW_TP, "raw_tp" },
	{ "raw_tp/", TRACE_RAW_TP, "raw_tp" },
	{ "tp_btf/", TRACE_TP_BTF, "tp_btf" },
	{ "lsm/", TRACE_LSM, "lsm" },
	{ "lsm.s/", TRACE_LSM, "lsm" },
	{ "uprobe/", TRACE_UPROBE, "uprobe" },
	{ "uprobe.s/", TRACE_UPROBE, "uprobe" },
	{ "uretprobe/", TRACE_URETPROBE, "uretprobe" },
	{ "uretprobe.s/", TRACE_URETPROBE, "uretprobe" },
	{ "perf_event", TRACE_PERF_EVENT, "perf_event" },
};

int trace_hook_of(const struct bpf_program *prog, struct trace_hook *hook)
{
	const char *sec = bpf_program__section_name(prog);
	const char *slash;

	memset(hook, 0, sizeof(*hook));
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		const struct section_kind *s = &sections[i];
		size_t len = strlen(s->prefix);

		if (s->kind == TRACE_PERF_EVENT ? strcmp(sec, s->prefix) :
		    strncmp(sec, s->prefix, len))
			continue;
		hook->kind = s->kind;
		hook->kind_name = s->name;
		if (s->kind == TRACE_PERF_EVENT)
			return 0;
		snprintf(hook->target, sizeof(hook->target), "%s", sec + len);
		slash = strrchr(hook->target, '/');
		if (s->kind == TRACE_TRACEPOINT && slash)
			snprintf(hook->event, sizeof(hook->event), "%s", slash + 1);
		else if (s->kind == TRACE_UPROBE || s->kind == TRACE_URETPROBE)
			snprintf(hook->event, sizeof(hook->event), "%s",
				 strrchr(hook->target, ':') ? strrchr(hook->target, ':') + 1 : "");
		else if (!strcmp(s->name, "ksyscall") || !strcmp(s->name, "kretsyscall"))
			snprintf(hook->event, sizeof(hook->event), "sys_%.250s", hook->target);
		else
			snprintf(hook->event, sizeof(hook->event), "%s", hook->target);
		return 0;
	}
	return -ENOENT;
}

bool trace_hook_is_tracing(const struct bpf_program *prog)
{
	struct trace_hook hook;

	return !trace_hook_of(prog, &hook);
}

/* Whether the kernel names @func among its functions (/proc/kallsyms, text symbols). */
static bool kallsyms_has(const char *func)
{
	char line[512], sym[256], type;
	bool found = false;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return true;	/* unknown: the attach will say */
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%*s %c %255s", &type, sym) == 2 &&
			(type == 't' || type == 'T') && !strcmp(sym, func);
	fclose(f);
	return found;
}

/* Whether vmlinux's BTF has @name of @kind; true where it cannot be read (the load says). */
static bool btf_has(const char *prefix, const char *name, int kind)
{
	struct btf *btf = btf__load_vmlinux_btf();
	char full[TRACE_TARGET_LEN + 32];
	bool found;

	if (!btf)
		return true;
	snprintf(full, sizeof(full), "%s%s", prefix, name);
	found = btf__find_by_name_kind(btf, full, kind) >= 0;
	btf__free(btf);
	return found;
}

/* @dir/@probe exists, mounting @fstype on @dir first where it is not mounted. */
static bool pseudo_fs_has(const char *dir, const char *fstype, const char *probe)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, probe);
	if (!access(path, F_OK))
		return true;
	mount(fstype, dir, fstype, 0, NULL);
	return !access(path, F_OK);
}

static int kernel_version(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	uname(&u);
	sscanf(u.release, "%d.%d", &major, &minor);
	return major * 256 + minor;
}

static const char *release(void)
{
	static struct utsname u;

	uname(&u);
	return u.release;
}

/* The BTF-typed kinds need the kernel's BTF (5.5). */
static int need_btf(const struct trace_hook *hook, const char *name)
{
	if (!access(VMLINUX_BTF, R_OK))
		return 0;
	fprintf(stderr, "cost: %s (%s/%s): this kernel (%s) has no BTF (%s), which %s programs "
		"need: measure it on a kernel built with CONFIG_DEBUG_INFO_BTF, as Debian's are\n",
		name, hook->kind_name, hook->target, release(), VMLINUX_BTF, hook->kind_name);
	return COST_EXIT_HOOK_KERNEL;
}

/* "has no WHAT EVENT[ WHERE]": the kernel lacks the function or tracepoint hooked. */
static int no_target(const struct trace_hook *hook, const char *name, const char *what,
		     const char *where)
{
	fprintf(stderr, "cost: %s (%s/%s): this kernel (%s) has no %s %s%s: check the name, or "
		"measure it on a kernel that has it\n", name, hook->kind_name, hook->target,
		release(), what, hook->event, where);
	return COST_EXIT_NO_HOOK;
}

static int check_uprobe(const struct trace_hook *hook, const char *name)
{
	char path[TRACE_TARGET_LEN], found[TRACE_TARGET_LEN + 64];
	/* Where libbpf 1.1 looks for a library named without a path (resolve_full_path). */
	static const char *const dirs[] = { "/lib64", "/usr/lib64", "/lib/x86_64-linux-gnu",
		"/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
		"/lib", "/usr/lib" };
	char *colon;

	snprintf(path, sizeof(path), "%s", hook->target);
	colon = strrchr(path, ':');
	if (!colon || colon == path || !colon[1]) {
		fprintf(stderr, "cost: %s (%s): its section names no binary and function "
			"(SEC(\"%s/PATH:FUNCTION\")), so its own loader attaches it: the tool "
			"attaches what the section names\n", name, hook->kind_name,
			hook->kind_name);
		return COST_EXIT_UPROBE;
	}
	*colon = '\0';
	if (strchr(path, '/')) {
		if (!access(path, R_OK))
			return 0;
	} else {
		for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
			snprintf(found, sizeof(found), "%s/%s", dirs[i], path);
			if (!access(found, R_OK))
				return 0;
		}
	}
	fprintf(stderr, "cost: %s (%s/%s): no binary %s on this host: install it, or name it "
		"by its whole path in the section\n", name, hook->kind_name, hook->target, path);
	return COST_EXIT_UPROBE;
}

static int check_lsm(const struct trace_hook *hook, const char *name)
{
	char list[512] = "", scan[512];
	FILE *f;
	int status = need_btf(hook, name);

	if (status)
		return status;
	if (!btf_has("bpf_lsm_", hook->target, BTF_KIND_FUNC)) {
		fprintf(stderr, "cost: %s (lsm/%s): this kernel (%s) has no LSM hook %s for BPF "
			"(no bpf_lsm_%s): check the name\n", name, hook->target, release(),
			hook->target, hook->target);
		return COST_EXIT_LSM;
	}
	pseudo_fs_has(SECURITYFS, "securityfs", "lsm");
	f = fopen(SECURITYFS "/lsm", "r");
	if (f) {
		if (!fgets(list, sizeof(list), f))
			list[0] = '\0';
		fclose(f);
	}
	list[strcspn(list, "\n")] = '\0';
	/* strtok_r cuts what it scans: the message below quotes the whole list. */
	memcpy(scan, list, sizeof(scan));
	for (char *tok = list[0] ? scan : NULL, *save = NULL, *s = scan;
	     (tok = strtok_r(s, ",", &save)); s = NULL)
		if (!strcmp(tok, "bpf"))
			return 0;
	fprintf(stderr, "cost: %s (lsm/%s): bpf is not among this kernel's active LSMs "
		"(%s/lsm: %s): boot it with lsm=%s%sbpf\n", name, hook->target, SECURITYFS,
		f ? (list[0] ? list : "none") : "unreadable", f && list[0] ? list : "",
		f && list[0] ? "," : "");
	return COST_EXIT_LSM;
}

int trace_hook_check(const struct trace_hook *hook, const char *name)
{
	char probe[2 * TRACE_TARGET_LEN];
	int status;

	switch (hook->kind) {
	case TRACE_KPROBE:
	case TRACE_KRETPROBE:
	case TRACE_KPROBE_MULTI:
		if (access("/sys/bus/event_source/devices/kprobe/type", F_OK) &&
		    !pseudo_fs_has(TRACEFS, "tracefs", "kprobe_events")) {
			fprintf(stderr, "cost: %s (%s/%s): this kernel (%s) has no kprobes "
				"(CONFIG_KPROBES is off): measure it on a kernel with them, as "
				"Debian's are\n", name, hook->kind_name, hook->target, release());
			return COST_EXIT_HOOK_KERNEL;
		}
		if (hook->kind == TRACE_KPROBE_MULTI && kernel_version() < (5 << 8 | 18)) {
			fprintf(stderr, "cost: %s (%s/%s): kprobe_multi links came in 5.18; this "
				"kernel is %s: use SEC(\"kprobe/FUNCTION\") there\n", name,
				hook->kind_name, hook->target, release());
			return COST_EXIT_HOOK_KERNEL;
		}
		if (hook->kind != TRACE_KPROBE_MULTI && strncmp(hook->kind_name, "k", 1) == 0 &&
		    !strstr(hook->kind_name, "syscall") && !kallsyms_has(hook->target))
			return no_target(hook, name, "function", "");
		return 0;
	case TRACE_FENTRY:
	case TRACE_FEXIT:
	case TRACE_FMOD_RET:
		status = need_btf(hook, name);
		if (status)
			return status;
		if (!btf_has("", hook->target, BTF_KIND_FUNC))
			return no_target(hook, name, "function", " in its BTF");
		return 0;
	case TRACE_TP_BTF:
		status = need_btf(hook, name);
		if (status)
			return status;
		if (!btf_has("btf_trace_", hook->target, BTF_KIND_TYPEDEF))
			return no_target(hook, name, "raw tracepoint", "");
		return 0;
	case TRACE_TRACEPOINT:
		snprintf(probe, sizeof(probe), "events/%s", hook->target);
		if (!pseudo_fs_has(TRACEFS, "tracefs", probe))
			return no_target(hook, name, "tracepoint", "");
		return 0;
	case TRACE_RAW_TP:
		if (!access(VMLINUX_BTF, R_OK)) {
			if (!btf_has("btf_trace_", hook->target, BTF_KIND_TYPEDEF))
				return no_target(hook, name, "raw tracepoint", "");
		} else {
			glob_t g;
			bool found;

			snprintf(probe, sizeof(probe), "%s/events/*/%s", TRACEFS, hook->target);
			pseudo_fs_has(TRACEFS, "tracefs", "events");
			found = !glob(probe, 0, NULL, &g);
			if (found)
				globfree(&g);
			if (!found)
				return no_target(hook, name, "raw tracepoint", "");
		}
		return 0;
	case TRACE_LSM:
		return check_lsm(hook, name);
	case TRACE_UPROBE:
	case TRACE_URETPROBE:
		return check_uprobe(hook, name);
	default:
		return 0;
	}
}

static bool is_trampoline(const struct trace_hook *hook)
{
	return hook->kind == TRACE_FENTRY || hook->kind == TRACE_FEXIT ||
	       hook->kind == TRACE_FMOD_RET || hook->kind == TRACE_LSM;
}

bool trace_hook_attaches_once(const struct trace_hook *hook)
{
	return is_trampoline(hook) && kernel_version() < (5 << 8 | 13);
}

int trace_hook_failed(const struct trace_hook *hook, const char *name, const char *what,
		      int err)
{
	bool trampoline = is_trampoline(hook);

	if ((hook->kind == TRACE_UPROBE || hook->kind == TRACE_URETPROBE) && err == ENOENT) {
		fprintf(stderr, "cost: %s (%s/%s): the binary has no function %s: check the "
			"name (nm -D shows a library's)\n", name, hook->kind_name, hook->target,
			hook->event);
		return COST_EXIT_UPROBE;
	}
	/* A kernel built without fprobe (CONFIG_FPROBE) has no kprobe_multi links. */
	if (hook->kind == TRACE_KPROBE_MULTI && err == EOPNOTSUPP && !strcmp(what, "attach")) {
		fprintf(stderr, "cost: %s (%s/%s): this kernel (%s) refused to attach it: %s "
			"(kprobe_multi links need CONFIG_FPROBE): use SEC(\"kprobe/FUNCTION\") "
			"there\n", name, hook->kind_name, hook->target, release(),
			strerror(err));
		return COST_EXIT_HOOK_KERNEL;
	}
	if (trampoline && (err == EPERM || err == ENOTSUPP || err == EOPNOTSUPP)) {
		fprintf(stderr, "cost: %s (%s/%s): this kernel (%s) refused to %s it: %s (%s "
			"programs run through BPF trampolines, which this kernel does not "
			"give): measure it on a kernel that does, as Debian's\n", name,
			hook->kind_name, hook->target, release(), what, strerror(err),
			hook->kind_name);
		return COST_EXIT_HOOK_KERNEL;
	}
	fprintf(stderr, "cost: %s (%s%s%s): cannot %s it: %s\n", name, hook->kind_name,
		hook->target[0] ? "/" : "", hook->target, what, strerror(err));
	return COST_EXIT_FAILED;
}
