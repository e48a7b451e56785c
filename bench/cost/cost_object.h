/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Any XDP object a user brings, loaded as its own loader would: its one XDP
 * program (or the one named), its maps created as declared but private to
 * this process (never pinned, so nothing shared is reused or left behind),
 * and filled from a file of entries if the program reads configuration.
 */
#ifndef FBF_COST_OBJECT_H
#define FBF_COST_OBJECT_H

#include <bpf/libbpf.h>

struct cost_prog {
	struct bpf_object *obj;
	struct bpf_program *prog;
	int fd;
};

/*
 * Call once before any load: libbpf's messages are kept, not printed, so a
 * refusal is told in the verifier log's last lines.
 */
void cost_object_init(void);

/*
 * Open @path, choose its XDP program (@name, or the only one if NULL), load
 * it and fill its maps from @maps_file (NULL: none). Returns 0, or prints one
 * line on stderr (and a refused program's last log lines) and returns the
 * cost_exit status that says what went wrong.
 */
int cost_prog_load(struct cost_prog *cp, const char *path, const char *name,
		   const char *maps_file);

void cost_prog_close(struct cost_prog *cp);

#endif /* FBF_COST_OBJECT_H */
