// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Print the verifier's and the JIT's figures for a loaded BPF program:
 *
 *   profile_prog_info PROG_ID [JIT_FILE]
 *   name=xdp_fizzbuzzfib verified_insns=N xlated_insns=N jited_bytes=N
 *
 * and with JIT_FILE, write the JIT-compiled machine code there, raw, for
 * objdump -b binary. Debian's bpftool 7.1 can do neither: it does not print
 * verified_insns (how many instructions the verifier walked, the cost of
 * proving the program safe), and it is built without libbfd, which its
 * `prog dump jited` needs even to write the raw image to a file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "prog_id.h"

/* A second bpf_prog_info query, this time with a buffer for the JIT image. */
static int jited_write(int fd, __u32 size, const char *path)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	unsigned char *image;
	FILE *f;
	int err = 0;

	image = malloc(size ?: 1);
	if (!image)
		return -ENOMEM;
	info.jited_prog_len = size;
	info.jited_prog_insns = (__u64)(unsigned long)image;
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		err = -errno;
		goto out;
	}
	f = fopen(path, "w");
	if (!f) {
		err = -errno;
		goto out;
	}
	if (fwrite(image, 1, size, f) != size)
		err = -EIO;
	if (fclose(f) && !err)
		err = -errno;
out:
	free(image);
	return err;
}

int main(int argc, char **argv)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	int fd, err;

	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: profile_prog_info PROG_ID [JIT_FILE]\n");
		return 2;
	}
	fd = fbf_prog_fd_from_arg("profile_prog_info", argv[1]);
	if (fd < 0)
		return -fd;
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		fprintf(stderr, "profile_prog_info: reading program %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	/* The kernel fills in only the fields it knows: 0 here means before 5.16. */
	printf("name=%s verified_insns=%u xlated_insns=%zu jited_bytes=%u\n", info.name,
	       info.verified_insns, info.xlated_prog_len / sizeof(struct bpf_insn),
	       info.jited_prog_len);
	if (argc == 3) {
		err = jited_write(fd, info.jited_prog_len, argv[2]);
		if (err) {
			fprintf(stderr, "profile_prog_info: writing the JIT image to %s: %s\n",
				argv[2], strerror(-err));
			return 1;
		}
	}
	return 0;
}
