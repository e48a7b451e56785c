// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
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

const char *transport_memory_refusal(enum fbf_transport transport, __u32 events, char *buf,
				     size_t size)
{
	char total[32], avail[32];
	struct transport_memory m;
	__u64 available;

	if (transport_memory(transport, events, &m))
		return NULL; /* the map's creation says what is wrong */
	if (!m.per_cpu) {
		snprintf(buf, size, "a ring buffer of %u events would pass the kernel's 2 GiB",
			 events);
		return buf;
	}
	available = memory_available();
	if (!available || m.total <= available)
		return NULL;
	transport_memory_format(m.total, total, sizeof(total));
	transport_memory_format(available, avail, sizeof(avail));
	snprintf(buf, size, "%d CPUs x %llu bytes (%u events) = %s of kernel memory, more than "
		 "the %s this host has available", m.cpus, (unsigned long long)m.per_cpu, events,
		 total, avail);
	return buf;
}
