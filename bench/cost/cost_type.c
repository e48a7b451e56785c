// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The program types the cost tool measures: see cost_type.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "cost_type.h"

static const struct cost_type *const types[] = { &cost_type_xdp, &cost_type_tc };
#define NR_TYPES (sizeof(types) / sizeof(types[0]))

const struct cost_type *cost_type_by_kernel(enum bpf_prog_type type)
{
	for (size_t i = 0; i < NR_TYPES; i++)
		if (types[i]->prog_type == type)
			return types[i];
	return NULL;
}

const struct cost_type *cost_type_of(struct bpf_program *prog)
{
	for (size_t i = 0; i < NR_TYPES; i++)
		if (types[i]->claims ? types[i]->claims(prog) :
		    bpf_program__type(prog) == types[i]->prog_type)
			return types[i];
	return NULL;
}

void cost_type_unlink(struct cost_attached *at)
{
	if (at->link_fd >= 0)
		close(at->link_fd);
	at->link_fd = -1;
}

bool cost_type_is_bare(const char *arm)
{
	for (size_t i = 0; i < NR_TYPES; i++)
		if (!strcmp(types[i]->bare_arm, arm))
			return true;
	return false;
}

const char *cost_type_list(char *buf, size_t size, bool sections)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < NR_TYPES && len < size; i++)
		len += snprintf(buf + len, size - len, "%s%s", i ? " or " : "",
				sections ? types[i]->sections : types[i]->label);
	return buf;
}

bool cost_type_takes_mode(const struct cost_type *type, const char *mode)
{
	size_t len = strlen(mode);
	const char *m = type->modes;

	while (len) {
		size_t word = strcspn(m, "|");

		if (word == len && !strncmp(m, mode, len))
			return true;
		if (!m[word])
			break;
		m += word + 1;
	}
	return false;
}

__u32 cost_type_pass(const struct cost_type *type)
{
	/* TC_ACT_OK is 0. */
	return type->prog_type == BPF_PROG_TYPE_XDP ? XDP_PASS : 0;
}

int cost_type_stub(const struct cost_type *type, __u32 retval, enum bpf_attach_type attach)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = retval },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = attach);
	int fd = bpf_prog_load(type->prog_type, "cost_stub", "GPL", insns, 2, &opts);

	return fd < 0 ? -errno : fd;
}
