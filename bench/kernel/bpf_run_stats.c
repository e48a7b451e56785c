// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Run a command with BPF run-time statistics on, and print how many times a
 * BPF program ran meanwhile and for how long in all:
 *
 *   bpf_run_stats PROG_ID -- COMMAND [ARGS...]
 *   run_cnt=N run_time_ns=N
 *
 * Statistics are switched on through bpf_enable_stats(), which keeps them on
 * only while its fd is open, rather than the kernel.bpf_stats_enabled sysctl,
 * which stays on for everyone if this process dies. They cost about 20 ns
 * per run of every program while on.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <bpf/bpf.h>

#include "prog_id.h"

static int read_stats(int prog_fd, __u64 *cnt, __u64 *ns)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return -errno;
	*cnt = info.run_cnt;
	*ns = info.run_time_ns;
	return 0;
}

static int run_command(char **argv)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "bpf_run_stats: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	__u64 cnt0, ns0, cnt1, ns1;
	int prog_fd, stats_fd, status;

	if (argc < 4 || strcmp(argv[2], "--")) {
		fprintf(stderr, "usage: bpf_run_stats PROG_ID -- COMMAND [ARGS...]\n");
		return 2;
	}
	prog_fd = fbf_prog_fd_from_arg("bpf_run_stats", argv[1]);
	if (prog_fd < 0)
		return -prog_fd;
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats_fd < 0) {
		fprintf(stderr, "bpf_run_stats: enabling run-time stats: %s (needs kernel 5.8 "
			"and CAP_SYS_ADMIN)\n", strerror(errno));
		return 1;
	}
	if (read_stats(prog_fd, &cnt0, &ns0)) {
		fprintf(stderr, "bpf_run_stats: reading program %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	status = run_command(&argv[3]);
	if (read_stats(prog_fd, &cnt1, &ns1)) {
		fprintf(stderr, "bpf_run_stats: reading program %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	close(stats_fd);
	printf("run_cnt=%llu run_time_ns=%llu\n", (unsigned long long)(cnt1 - cnt0),
	       (unsigned long long)(ns1 - ns0));
	return status < 0 ? 1 : status;
}
