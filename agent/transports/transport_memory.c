// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "transports/transport_memory.h"

int transport_memory(enum fbf_transport transport, __u32 events, struct transport_memory *m)
{
	m->cpus = libbpf_num_possible_cpus();
	if (m->cpus < 0)
		return m->cpus;
	m->per_cpu = fbf_event_map_bytes(transport, events);
	m->total = m->per_cpu * m->cpus;
	return 0;
}

void transport_memory_format(__u64 bytes, char *buf, size_t size)
{
	static const char *const units[] = { "bytes", "KiB", "MiB", "GiB", "TiB" };
	double v = bytes;
	unsigned int u = 0;

	while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, v == (__u64)v ? "%.0f %s" : "%.1f %s", v, units[u]);
}

/* MemAvailable: what the host can give without swapping; 0 if it cannot be told. */
static __u64 memory_available(void)
{
	unsigned long long kib = 0;
	char line[128];
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
			break;
	fclose(f);
	return kib * 1024;
}

/* The number a cgroup file holds; false if it is missing or says "max". */
static bool cgroup_read(const char *dir, const char *file, __u64 *v)
{
	char path[PATH_MAX];
	unsigned long long n;
	bool ok;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "re");
	if (!f)
		return false;
	ok = fscanf(f, "%llu", &n) == 1;
	fclose(f);
	*v = n;
	return ok;
}

/*
 * The least room any memory cgroup from @dir up to @root leaves (limit less
 * usage), into @m where less than what it has: a limit above is a limit too.
 */
static void cgroup_walk(const char *root, char *dir, const char *limit_file,
			const char *usage_file, struct memory_room *m)
{
	__u64 limit, usage, left;
	size_t root_len = strlen(root);
	char *slash;

	for (;;) {
		if (cgroup_read(dir, limit_file, &limit) && cgroup_read(dir, usage_file, &usage)) {
			left = limit > usage ? limit - usage : 0;
			if (left < m->available) {
				m->available = left;
				m->cgroup_limit = limit;
			}
		}
		slash = strrchr(dir, '/');
		if (!slash || (size_t)(slash - dir) < root_len)
			return;
		*slash = '\0';
	}
}

/*
 * The agent's memory cgroup, from /proc/self/cgroup: v2 ("0::/PATH", its
 * memory.max and memory.current) or v1's memory controller ("N:...memory...:/PATH",
 * memory.limit_in_bytes and memory.usage_in_bytes), mounted where systemd
 * and container runtimes mount them.
 */
static void cgroup_room(struct memory_room *m)
{
	char line[PATH_MAX + 64], dir[2 * PATH_MAX], *path, *ctl;
	FILE *f = fopen("/proc/self/cgroup", "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		ctl = strchr(line, ':');
		path = ctl ? strchr(ctl + 1, ':') : NULL;
		if (!path)
			continue;
		*path++ = '\0';
		ctl++;
		if (!*ctl) {
			snprintf(dir, sizeof(dir), "/sys/fs/cgroup%s", path);
			cgroup_walk("/sys/fs/cgroup", dir, "memory.max", "memory.current", m);
			snprintf(dir, sizeof(dir), "/sys/fs/cgroup/unified%s", path);
			cgroup_walk("/sys/fs/cgroup/unified", dir, "memory.max", "memory.current",
				    m);
		} else if (strstr(ctl, "memory")) {
			snprintf(dir, sizeof(dir), "/sys/fs/cgroup/memory%s", path);
			cgroup_walk("/sys/fs/cgroup/memory", dir, "memory.limit_in_bytes",
				    "memory.usage_in_bytes", m);
		}
	}
	fclose(f);
}

void memory_room(struct memory_room *m)
{
	*m = (struct memory_room){ .available = memory_available() ?: ~0ULL };
	cgroup_room(m);
	/*
	 * The maps get three quarters: the rest is the agent's own (its outputs'
	 * chunks, the program, libraries). At the very edge of a cgroup's limit
	 * the maps are made and the OOM killer then ends the agent.
	 */
	m->for_maps = m->available == ~0ULL ? m->available : m->available / 4 * 3;
}

void memory_room_words(const struct memory_room *m, char *buf, size_t size)
{
	char avail[32], limit[32];

	transport_memory_format(m->available, avail, sizeof(avail));
	if (!m->cgroup_limit) {
		snprintf(buf, size, "the %s this host has available", avail);
		return;
	}
	transport_memory_format(m->cgroup_limit, limit, sizeof(limit));
	snprintf(buf, size, "the %s the agent's memory cgroup has left of its %s limit", avail,
		 limit);
}

__u32 transport_memory_fits(enum fbf_transport transport, __u64 available)
{
	__u64 lo = 0, hi = ~0U, mid;
	struct transport_memory m;

	/* The largest size whose maps take at most @available: the bytes only grow with it. */
	while (lo < hi) {
		mid = lo + (hi - lo + 1) / 2;
		if (!transport_memory(transport, mid, &m) && m.per_cpu && m.total <= available)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

const char *transport_memory_refusal(enum fbf_transport transport, __u32 events, char *buf,
				     size_t size)
{
	char total[32], room[128];
	struct transport_memory m;
	struct memory_room r;

	if (transport_memory(transport, events, &m))
		return NULL; /* the map's creation says what is wrong */
	if (!m.per_cpu) {
		snprintf(buf, size, "a ring buffer of %u events would pass the kernel's 2 GiB",
			 events);
		return buf;
	}
	memory_room(&r);
	if (m.total <= r.for_maps)
		return NULL;
	transport_memory_format(m.total, total, sizeof(total));
	memory_room_words(&r, room, sizeof(room));
	snprintf(buf, size, "%d CPUs x %llu bytes (%u events) = %s of kernel memory, more than "
		 "three quarters of %s; at most %u fit", m.cpus, (unsigned long long)m.per_cpu,
		 events, total, room, transport_memory_fits(transport, r.for_maps));
	return buf;
}
