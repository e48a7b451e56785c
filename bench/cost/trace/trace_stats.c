// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Run-time statistics from fdinfo: see trace_stats.h. */
#include <errno.h>
#include <stdio.h>
#include <bpf/bpf.h>

#include "trace_stats.h"

int trace_stats_read(int fd, struct trace_stats *s)
{
	char path[64], line[256];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	s->run_time_ns = s->run_cnt = 0;
	while (fgets(line, sizeof(line), f))
		found += sscanf(line, "run_time_ns: %llu", &s->run_time_ns) == 1 ||
			 sscanf(line, "run_cnt: %llu", &s->run_cnt) == 1;
	fclose(f);
	return found == 2 ? 0 : -ENOTSUP;
}

int trace_stats_enable(void)
{
	int fd = bpf_enable_stats(BPF_STATS_RUN_TIME);

	return fd < 0 ? -errno : fd;
}

bool trace_stats_always_on(void)
{
	FILE *f = fopen("/proc/sys/kernel/bpf_stats_enabled", "r");
	int on = 0;

	if (f) {
		if (fscanf(f, "%d", &on) != 1)
			on = 0;
		fclose(f);
	}
	return on;
}
