// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The event maps of every CPU: see event_maps.h. */
#define _GNU_SOURCE /* F_DUPFD_CLOEXEC */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "event_maps.h"

/*
 * The CPU maps this process made, each fd kept with its map's id: turning
 * the ids an array of maps gives back into fds is BPF_MAP_GET_FD_BY_ID,
 * which the kernel allows only under CAP_SYS_ADMIN (kernel/bpf/syscall.c,
 * bpf_map_get_fd_by_id()), and the maps' maker needs no such thing. Kept
 * for the process's life: the agent makes one array, a test or benchmark a
 * few.
 */
#define KEPT_MAX 4096

static struct {
	__u32 id;
	int fd;
} kept[KEPT_MAX];
static unsigned int nr_kept;

static void map_keep(int fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	int dup;

	if (nr_kept == KEPT_MAX || bpf_obj_get_info_by_fd(fd, &info, &len))
		return;
	dup = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dup < 0)
		return;
	kept[nr_kept].id = info.id;
	kept[nr_kept++].fd = dup;
}

/* A new fd of map @id: from those kept if this process made it, else by id. Or -errno. */
static int map_fd_by_id(__u32 id)
{
	int fd;

	for (unsigned int i = 0; i < nr_kept; i++)
		if (kept[i].id == id) {
			fd = fcntl(kept[i].fd, F_DUPFD_CLOEXEC, 0);
			return fd < 0 ? -errno : fd;
		}
	fd = bpf_map_get_fd_by_id(id);
	return fd < 0 ? -errno : fd;
}

/* CPU @cpu's map. Its fd, or -errno. */
static int cpu_map_create(const char *name, int cpu, enum bpf_map_type type, __u32 value_size,
			  __u32 max_entries)
{
	char cpu_name[BPF_OBJ_NAME_LEN];
	int fd;

	snprintf(cpu_name, sizeof(cpu_name), "%s_cpu%d", name, cpu);
	fd = bpf_map_create(type, cpu_name, 0, value_size, max_entries, NULL);
	return fd < 0 ? -errno : fd;
}

int fbf_event_maps_create(const char *name, enum bpf_map_type type, __u32 value_size,
			  __u32 max_entries)
{
	int ncpus = libbpf_num_possible_cpus(), cpu, fd, outer, err = 0;

	if (ncpus < 0)
		return ncpus;
	/* CPU 0's map is also the template the kernel checks the others against. */
	fd = cpu_map_create(name, 0, type, value_size, max_entries);
	if (fd < 0)
		return fd;
	LIBBPF_OPTS(bpf_map_create_opts, opts, .inner_map_fd = fd);
	outer = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, name, sizeof(__u32), sizeof(__u32),
			       ncpus, &opts);
	if (outer < 0)
		err = -errno;
	for (cpu = 0; !err && cpu < ncpus; cpu++) {
		if (cpu)
			fd = cpu_map_create(name, cpu, type, value_size, max_entries);
		if (fd < 0)
			err = fd;
		/* The array holds the map from here on; the reader's fd is kept. */
		else if (bpf_map_update_elem(outer, &cpu, &fd, BPF_ANY))
			err = -errno;
		else
			map_keep(fd);
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	if (fd >= 0)
		close(fd);
	if (err && outer >= 0)
		close(outer);
	return err ?: outer;
}

int fbf_event_maps_open(struct fbf_event_maps *m, int events_fd, int spare_fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), key, id;
	int fd, err = 0;

	memset(m, 0, sizeof(*m));
	if (bpf_obj_get_info_by_fd(events_fd, &info, &len))
		return -errno;
	m->fds = calloc(info.max_entries + 1, sizeof(*m->fds));
	if (!m->fds)
		return -ENOMEM;
	/* An array of maps gives its maps' ids to userspace, not their fds. */
	for (key = 0; key < info.max_entries && !err; key++) {
		if (bpf_map_lookup_elem(events_fd, &key, &id)) {
			err = errno == ENOENT ? 0 : -errno;
			continue;
		}
		fd = map_fd_by_id(id);
		if (fd < 0)
			err = fd;
		else
			m->fds[m->nr++] = fd;
	}
	if (!err && spare_fd >= 0) {
		fd = fcntl(spare_fd, F_DUPFD_CLOEXEC, 0);
		if (fd < 0)
			err = -errno;
		else
			m->fds[m->nr++] = fd;
	}
	if (err)
		fbf_event_maps_close(m);
	return err;
}

void fbf_event_maps_close(struct fbf_event_maps *m)
{
	for (unsigned int i = 0; i < m->nr; i++)
		close(m->fds[i]);
	free(m->fds);
	memset(m, 0, sizeof(*m));
}
