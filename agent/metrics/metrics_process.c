// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The agent process's own figures for a scrape, read as Prometheus' client
 * libraries read theirs: CPU time from getrusage(), memory from
 * /proc/self/statm, descriptors from /proc/self/fd and RLIMIT_NOFILE.
 */
#include <dirent.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/resource.h>

#include "metrics/metrics.h"

void process_figures_read(struct process_figures *p, double start_time_seconds)
{
	unsigned long long size, resident;
	long page = sysconf(_SC_PAGESIZE);
	struct rusage ru;
	struct rlimit rl;
	struct dirent *e;
	FILE *statm;
	DIR *fds;

	*p = (struct process_figures){ .start_time_seconds = start_time_seconds };
	if (!getrusage(RUSAGE_SELF, &ru))
		p->cpu_seconds = ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
				 (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	if (!getrlimit(RLIMIT_NOFILE, &rl))
		p->max_fds = rl.rlim_cur;
	statm = fopen("/proc/self/statm", "re");
	if (statm && fscanf(statm, "%llu %llu", &size, &resident) == 2) {
		p->virtual_bytes = size * page;
		p->resident_bytes = resident * page;
	}
	if (statm)
		fclose(statm);
	fds = opendir("/proc/self/fd");
	if (!fds)
		return;
	while ((e = readdir(fds)))
		p->open_fds += e->d_name[0] != '.';
	closedir(fds);
	/* The directory's own descriptor, open while it was read, is not the agent's. */
	if (p->open_fds)
		p->open_fds--;
}
