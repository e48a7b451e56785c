/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The benchmark tools that take a BPF program by id: parse it and open it. */
#ifndef FBF_PROG_ID_H
#define FBF_PROG_ID_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>

#include "parse_num.h"

/*
 * An fd for the program whose id is the text @arg, or, after one line on
 * stderr prefixed with @tool, -2 for text that is no id (a usage error) and
 * -1 for an id the kernel will not open: the negated exit status.
 */
static inline int fbf_prog_fd_from_arg(const char *tool, const char *arg)
{
	__u64 id;
	int fd;

	if (parse_u64_range(arg, 1, UINT32_MAX, &id)) {
		fprintf(stderr, "%s: '%s' is not a program id (see bpftool prog)\n", tool, arg);
		return -2;
	}
	fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0) {
		fprintf(stderr, "%s: program %llu: %s\n", tool, id, strerror(errno));
		return -1;
	}
	return fd;
}

#endif /* FBF_PROG_ID_H */
