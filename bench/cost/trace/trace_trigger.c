// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The built-in workloads: see trace_trigger.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/bpf.h>
#include <linux/openat2.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "trace_trigger.h"

/* What exec's child runs: the smallest program every Debian host has. */
#define EXEC_PATH "/bin/true"
/* The cpu trigger's one call: a fixed loop, some 50 us on this project's hosts. */
#define CPU_LOOP_STEPS 100000

#define STR_(x) #x
#define STR(x) STR_(x)
#define LIST(...) ((const char *const[]){ __VA_ARGS__, NULL })

static int tmp_file(struct trace_trigger_ctx *c, bool create)
{
	int fd;

	snprintf(c->dir, sizeof(c->dir), "/tmp/fbf-cost-trace.XXXXXX");
	if (!mkdtemp(c->dir))
		return -errno;
	snprintf(c->path, sizeof(c->path), "%s/file", c->dir);
	if (!create)
		return 0;
	fd = open(c->path, O_CREAT | O_WRONLY, 0600);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int setup_file(struct trace_trigger_ctx *c)
{
	return tmp_file(c, true);
}

static int setup_dir(struct trace_trigger_ctx *c)
{
	return tmp_file(c, false);
}

static void teardown_file(struct trace_trigger_ctx *c)
{
	unlink(c->path);
	rmdir(c->dir);
}

static void call_getpid(struct trace_trigger_ctx *c)
{
	(void)c;
	getpid();
}

static void call_openat(struct trace_trigger_ctx *c)
{
	int fd = openat(AT_FDCWD, c->path, O_RDONLY);

	if (fd >= 0)
		close(fd);
}

#ifdef SYS_open
static void call_open(struct trace_trigger_ctx *c)
{
	int fd = syscall(SYS_open, c->path, O_RDONLY);

	if (fd >= 0)
		close(fd);
}
#endif

static void call_openat2(struct trace_trigger_ctx *c)
{
	struct open_how how = { .flags = O_RDONLY };
	int fd = syscall(SYS_openat2, AT_FDCWD, c->path, &how, sizeof(how));

	if (fd >= 0)
		close(fd);
}

static void call_unlinkat(struct trace_trigger_ctx *c)
{
	int fd = openat(AT_FDCWD, c->path, O_CREAT | O_WRONLY, 0600);

	if (fd >= 0)
		close(fd);
	unlinkat(AT_FDCWD, c->path, 0);
}

static int setup_pipe(struct trace_trigger_ctx *c)
{
	return pipe(c->fd) ? -errno : 0;
}

static void teardown_pipe(struct trace_trigger_ctx *c)
{
	close(c->fd[0]);
	close(c->fd[1]);
}

static void call_pipe(struct trace_trigger_ctx *c)
{
	char byte = 'x';

	if (write(c->fd[1], &byte, 1) == 1 && read(c->fd[0], &byte, 1) != 1)
		byte = 0;
}

static void call_mmap(struct trace_trigger_ctx *c)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)c;
	if (p != MAP_FAILED)
		munmap(p, 4096);
}

/* A listener on loopback, an ephemeral port: fd[0], its address in fd[1..]'s place. */
static int setup_connect(struct trace_trigger_ctx *c)
{
	struct sockaddr_in addr = { .sin_family = AF_INET,
				    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(addr);

	c->fd[0] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd[0] < 0)
		return -errno;
	if (bind(c->fd[0], (struct sockaddr *)&addr, sizeof(addr)) || listen(c->fd[0], 64) ||
	    getsockname(c->fd[0], (struct sockaddr *)&addr, &len)) {
		int err = -errno;

		close(c->fd[0]);
		return err;
	}
	c->fd[1] = ntohs(addr.sin_port);
	return 0;
}

static void teardown_connect(struct trace_trigger_ctx *c)
{
	close(c->fd[0]);
}

static void call_connect(struct trace_trigger_ctx *c)
{
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons(c->fd[1]),
				    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	/* A reset, not a close: no TIME_WAIT, so thousands of calls never run out of ports. */
	struct linger rst = { .l_onoff = 1, .l_linger = 0 };
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), a;

	if (s < 0)
		return;
	setsockopt(s, SOL_SOCKET, SO_LINGER, &rst, sizeof(rst));
	if (!connect(s, (struct sockaddr *)&addr, sizeof(addr))) {
		a = accept4(c->fd[0], NULL, NULL, SOCK_CLOEXEC);
		if (a >= 0)
			close(a);
	}
	close(s);
}

static void call_exec(struct trace_trigger_ctx *c)
{
	pid_t pid = vfork();

	(void)c;
	if (pid == 0) {
		execl(EXEC_PATH, EXEC_PATH, (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

static void call_bpf(struct trace_trigger_ctx *c)
{
	union bpf_attr attr = { .start_id = 0 };

	(void)c;
	syscall(SYS_bpf, BPF_PROG_GET_NEXT_ID, &attr, sizeof(attr));
}

static void call_cpu(struct trace_trigger_ctx *c)
{
	volatile unsigned long sum = 0;

	(void)c;
	for (unsigned long i = 0; i < CPU_LOOP_STEPS; i++)
		sum += i;
}

/* The sched trigger's partner: sends each byte back, on the caller's CPU. */
static void *partner(void *arg)
{
	struct trace_trigger_ctx *c = arg;
	char byte;

	if (c->partner_cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(c->partner_cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	while (read(c->fd[0], &byte, 1) == 1)
		if (write(c->fd[3], &byte, 1) != 1)
			break;
	return NULL;
}

static int setup_sched(struct trace_trigger_ctx *c)
{
	int err;

	if (pipe(c->fd) || pipe(c->fd + 2))
		return -errno;
	err = pthread_create(&c->partner, NULL, partner, c);
	return -err;
}

static void teardown_sched(struct trace_trigger_ctx *c)
{
	close(c->fd[1]);
	pthread_join(c->partner, NULL);
	close(c->fd[0]);
	close(c->fd[2]);
	close(c->fd[3]);
}

/* One round trip: the partner wakes, runs and sleeps; so does the caller. */
static void call_sched(struct trace_trigger_ctx *c)
{
	char byte = 'x';

	if (write(c->fd[1], &byte, 1) == 1 && read(c->fd[2], &byte, 1) != 1)
		byte = 0;
}

const struct trace_trigger trace_triggers[] = {
	{ "getpid", "getpid(2), the C library's", LIST("getpid"), LIST("__do_sys_getpid"),
	  LIST("sys_enter", "sys_exit"), LIST(NULL), LIST("getpid"),
	  NULL, call_getpid, NULL, false },
	{ "openat", "openat(2) of a file of its own, then close(2)", LIST("openat", "close"),
	  LIST("do_sys_openat2", "do_sys_open", "do_filp_open", "path_openat", "vfs_open",
	       "do_dentry_open", "security_file_open", "fd_install", "filp_close",
	       "close_fd"),
	  LIST(NULL), LIST("file_open"), LIST("open", "open64", "openat", "openat64", "close"),
	  setup_file, call_openat, teardown_file, false },
#ifdef SYS_open
	{ "open", "open(2) of a file of its own, then close(2)", LIST("open"), LIST(NULL),
	  LIST(NULL), LIST(NULL), LIST(NULL), setup_file, call_open, teardown_file, false },
#endif
	{ "openat2", "openat2(2) of a file of its own (5.6), then close(2)", LIST("openat2"),
	  LIST(NULL), LIST(NULL), LIST(NULL), LIST(NULL), setup_file, call_openat2,
	  teardown_file, false },
	{ "unlinkat", "create a file of its own (openat(2), close(2)), then unlinkat(2)",
	  LIST("unlinkat", "unlink"),
	  LIST("do_unlinkat", "vfs_unlink", "security_inode_unlink", "may_delete"),
	  LIST(NULL), LIST("inode_unlink", "path_unlink"), LIST("unlink", "unlinkat"),
	  setup_dir, call_unlinkat, teardown_file, false },
	{ "pipe", "write(2) a byte into a pipe of its own, read(2) it back",
	  LIST("write", "read"),
	  LIST("vfs_read", "vfs_write", "ksys_read", "ksys_write", "pipe_read", "pipe_write",
	       "rw_verify_area", "security_file_permission"),
	  LIST(NULL), LIST("file_permission"), LIST("read", "write"),
	  setup_pipe, call_pipe, teardown_pipe, false },
	{ "mmap", "mmap(2) a private anonymous page, munmap(2) it", LIST("mmap", "munmap"),
	  LIST("do_mmap", "vm_mmap_pgoff", "__vm_munmap", "do_vmi_munmap", "security_mmap_file"),
	  LIST(NULL), LIST("mmap_file", "mmap_addr"), LIST("mmap", "mmap64", "munmap"),
	  NULL, call_mmap, NULL, false },
	{ "connect", "connect(2) on loopback to a listener of its own, accept(2), close both "
	  "(a reset: no TIME_WAIT)", LIST("connect", "socket", "accept4", "setsockopt"),
	  LIST("tcp_v4_connect", "tcp_connect", "inet_stream_connect", "__sys_connect",
	       "inet_csk_accept", "tcp_set_state", "tcp_close", "tcp_v4_rcv",
	       "tcp_rcv_state_process", "security_socket_connect"),
	  LIST("inet_sock_set_state", "tcp_destroy_sock"),
	  LIST("socket_connect", "socket_create", "socket_accept", "socket_post_create"),
	  LIST("socket", "connect", "accept4"), setup_connect, call_connect, teardown_connect,
	  true },
	{ "exec", "vfork(2) and execve(2) " EXEC_PATH ", then wait4(2) for it",
	  LIST("execve", "vfork", "wait4", "exit_group"),
	  LIST("bprm_execve", "do_execveat_common", "load_elf_binary", "wake_up_new_task",
	       "kernel_clone", "do_exit", "security_bprm_check"),
	  LIST("sched_process_exec", "sched_process_exit", "sched_process_fork",
	       "sched_process_free", "sched_wakeup_new", "task_newtask"),
	  LIST("bprm_check_security", "bprm_creds_for_exec", "task_alloc", "task_free"),
	  LIST("execl", "execve", "vfork"), NULL, call_exec, NULL, true },
	{ "sched", "a byte to a thread of its own on the same CPU and back, through two "
	  "pipes: a wake-up and a context switch each way", LIST(NULL),
	  LIST("finish_task_switch", "try_to_wake_up", "ttwu_do_activate", "schedule"),
	  LIST("sched_switch", "sched_wakeup", "sched_waking", "sched_stat_runtime"),
	  LIST(NULL), LIST(NULL), setup_sched, call_sched, teardown_sched, true },
	{ "bpf", "bpf(2) BPF_PROG_GET_NEXT_ID", LIST("bpf"),
	  LIST("__sys_bpf", "security_bpf"), LIST(NULL), LIST("bpf"), LIST(NULL),
	  NULL, call_bpf, NULL, false },
	{ "cpu", "a loop of " STR(CPU_LOOP_STEPS) " additions, no system call: what a perf_event "
	  "program samples", LIST(NULL), LIST(NULL), LIST(NULL), LIST(NULL), LIST(NULL),
	  NULL, call_cpu, NULL, false },
};

const unsigned int trace_nr_triggers = sizeof(trace_triggers) / sizeof(trace_triggers[0]);

static bool listed(const char *const *list, const char *name)
{
	for (; list && *list; list++)
		if (!strcmp(*list, name))
			return true;
	return false;
}

const struct trace_trigger *trace_trigger_by_name(const char *name)
{
	for (unsigned int i = 0; i < trace_nr_triggers; i++)
		if (!strcmp(trace_triggers[i].name, name))
			return &trace_triggers[i];
	return NULL;
}

/* The trigger whose @field lists @name. */
static const struct trace_trigger *find(size_t field, const char *name)
{
	for (unsigned int i = 0; i < trace_nr_triggers; i++) {
		const char *const *list =
			*(const char *const *const *)((const char *)&trace_triggers[i] + field);

		if (listed(list, name))
			return &trace_triggers[i];
	}
	return NULL;
}

#define FIND(field, name) find(offsetof(struct trace_trigger, field), name)

/* A kernel function that is a system call's entry: the call's name, or NULL. */
static const char *syscall_of_function(const char *func)
{
	/* The wrappers' prefixes on x86-64 and arm64, then the older generic ones. */
	static const char *const prefixes[] = { "__x64_sys_", "__ia32_sys_", "__arm64_sys_",
						"__se_sys_", "__do_sys_", "ksys_", "sys_" };

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(func, prefixes[i], strlen(prefixes[i])))
			return func + strlen(prefixes[i]);
	return NULL;
}

/* The first trigger with a kernel function that the kprobe.multi @pattern matches. */
static const struct trace_trigger *find_pattern(const char *pattern)
{
	for (unsigned int i = 0; i < trace_nr_triggers; i++)
		for (const char *const *f = trace_triggers[i].functions; f && *f; f++)
			if (!fnmatch(pattern, *f, 0))
				return &trace_triggers[i];
	return NULL;
}

const struct trace_trigger *trace_trigger_for(const struct trace_hook *hook)
{
	const char *call;

	switch (hook->kind) {
	case TRACE_KPROBE_MULTI:
		return find_pattern(hook->target);
	case TRACE_KPROBE:
	case TRACE_KRETPROBE:
	case TRACE_FENTRY:
	case TRACE_FEXIT:
	case TRACE_FMOD_RET:
		if (FIND(functions, hook->event))
			return FIND(functions, hook->event);
		call = syscall_of_function(hook->event);
		return call ? FIND(syscalls, call) : NULL;
	case TRACE_TRACEPOINT:
		if (!strncmp(hook->target, "syscalls/sys_enter_", 19))
			return FIND(syscalls, hook->target + 19);
		if (!strncmp(hook->target, "syscalls/sys_exit_", 18))
			return FIND(syscalls, hook->target + 18);
		return FIND(tracepoints, hook->event);
	case TRACE_RAW_TP:
	case TRACE_TP_BTF:
		return FIND(tracepoints, hook->event);
	case TRACE_LSM:
		return FIND(lsm, hook->target);
	case TRACE_UPROBE:
	case TRACE_URETPROBE: {
		const char *slash = strrchr(hook->target, '/');
		const char *file = slash ? slash + 1 : hook->target;

		return strncmp(file, "libc.so", 7) && strncmp(file, "libc-", 5) ? NULL :
			FIND(libc, hook->event);
	}
	case TRACE_PERF_EVENT:
		return trace_trigger_by_name("cpu");
	default:
		return NULL;
	}
}

int trace_trigger_begin(const struct trace_trigger *t, struct trace_trigger_ctx *c, int cpu)
{
	memset(c, 0, sizeof(*c));
	c->partner_cpu = cpu;
	return t->setup ? t->setup(c) : 0;
}

void trace_trigger_end(const struct trace_trigger *t, struct trace_trigger_ctx *c)
{
	if (t->teardown)
		t->teardown(c);
}

static void cell(const char *const *list, const char *pre)
{
	printf(" |");
	for (const char *const *p = list; p && *p; p++)
		printf("%s %s%s", p == list ? "" : ",", pre, *p);
}

void trace_trigger_table(void)
{
	printf("| trigger | one call | system calls (their tracepoints, kprobes on their "
	       "entry) | kernel functions | tracepoints and raw tracepoints | LSM hooks | "
	       "C library (uprobes) |\n|---|---|---|---|---|---|---|\n");
	for (unsigned int i = 0; i < trace_nr_triggers; i++) {
		const struct trace_trigger *t = &trace_triggers[i];

		printf("| `%s` | %s", t->name, t->does);
		cell(t->syscalls, "");
		cell(t->functions, "");
		cell(t->tracepoints, "");
		cell(t->lsm, "");
		cell(t->libc, "");
		printf(" |\n");
	}
}
