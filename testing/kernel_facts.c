// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What this kernel does with the project's programs, one fact a line, for
 * the kernel matrix's table (tests/run-kernels):
 *
 *   kernel=6.1.0-56-amd64
 *   queue=yes verified_insns=308 xlated_insns=128 jited_bytes=652
 *   ringbuf=yes verified_insns=... xlated_insns=... jited_bytes=...
 *   bpf_enable_stats=yes
 *   verified_insns=yes
 *
 * Each program is loaded on its own, as BPF_PROG_TEST_RUN runs it, not as
 * libxdp's dispatcher would load it: its figures are the same whatever the
 * interface runs. A program the kernel refuses is "<transport>=no (reason)".
 * Exits 0 if every fact could be asked, 1 if not (not root, say).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>

#include "bpf_fixture.h"

/* Loads @transport's program and prints its line; returns its verified_insns, or -1. */
static long program_facts(enum fbf_transport transport)
{
	const char *name = fbf_transport_name(transport);
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	struct bpf_fixture fx;
	int err;

	err = bpf_fixture_load(&fx, transport, 64);
	if (err) {
		printf("%s=no (%s)\n", name, strerror(-err));
		return -1;
	}
	if (bpf_obj_get_info_by_fd(fx.prog_fd, &info, &len)) {
		printf("%s=yes (no program info: %s)\n", name, strerror(errno));
		bpf_fixture_destroy(&fx);
		return -1;
	}
	printf("%s=yes verified_insns=%u xlated_insns=%zu jited_bytes=%u\n", name,
	       info.verified_insns, info.xlated_prog_len / sizeof(struct bpf_insn),
	       info.jited_prog_len);
	bpf_fixture_destroy(&fx);
	return info.verified_insns;
}

int main(void)
{
	struct utsname uts;
	long queue, ring;
	int fd;

	if (geteuid() != 0) {
		fprintf(stderr, "kernel_facts: needs root to load BPF programs\n");
		return 1;
	}
	uname(&uts);
	printf("kernel=%s\n", uts.release);
	queue = program_facts(FBF_TRANSPORT_QUEUE);
	ring = program_facts(FBF_TRANSPORT_RINGBUF);
	/* Run-time statistics through an fd, as the benchmarks take them (5.8). */
	fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	printf("bpf_enable_stats=%s\n", fd >= 0 ? "yes" : "no");
	if (fd >= 0)
		close(fd);
	/* The kernel leaves fields it does not know at 0: verified_insns came in 5.16. */
	printf("verified_insns=%s\n", queue > 0 || ring > 0 ? "yes" : "no");
	return 0;
}
