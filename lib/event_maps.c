// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The event maps of every CPU: see event_maps.h. */
#define _GNU_SOURCE /* F_DUPFD_CLOEXEC */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "event_maps.h"

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
		fd = bpf_map_get_fd_by_id(id);
		if (fd < 0)
			err = -errno;
		else
			m->fds[m->nr++] = fd;
	}
	if (!err) {
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
