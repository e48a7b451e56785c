/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Any object a user brings, loaded as its own loader would: its one program
 * of a type the tool measures (cost_type.h), or the one named, its maps
 * created as declared but private to this process (never pinned, so nothing
 * shared is reused or left behind), and filled from a file of entries if the
 * program reads configuration.
 */
#ifndef FBF_COST_OBJECT_H
#define FBF_COST_OBJECT_H

#include <bpf/libbpf.h>

#include "cost_events.h"
#include "cost_state.h"
#include "cost_type.h"
#include "kernel_cases.h"

/* The verifier's statistics of a load: a few lines, whatever the program. */
#define COST_STATS_LOG_SIZE 4096
/* The longest program name shown: libbpf's own, past the kernel's 15 characters. */
#define COST_PROG_NAME_LEN 64

struct cost_prog {
	struct bpf_object *obj;		/* NULL for a program loaded by another process */
	struct bpf_program *prog;
	const struct cost_type *type;	/* its program type (cost_type.h) */
	int fd;
	char name[COST_PROG_NAME_LEN];
	struct cost_events events;	/* the maps it sends events to (cost_events.h) */
	struct cost_state state;	/* what MAPS filled, and what the runs changed */
	char log[COST_STATS_LOG_SIZE];	/* the verifier's statistics of the load */
};

/*
 * Call once before any load: libbpf's messages are kept, not printed, so a
 * refusal is told in the verifier log's last lines.
 */
void cost_object_init(void);

/*
 * Open @path and choose its program of a type the tool measures (@name, or
 * the only one if NULL), not yet loaded: 0, or one line and the cost_exit
 * status. cost_prog_close() closes it.
 */
int cost_prog_open(struct cost_prog *cp, const char *path, const char *name);

/*
 * Open @path, choose its program of a type the tool measures (@name, or the
 * only one if NULL), set its global variables from @globals (SET,
 * cost_state_set_globals(); NULL: none), load it and fill its maps from
 * @maps_file (NULL: none): "MAP KEY VALUE" lines, or bpftool's dumps
 * (cost_state_fill_dumps()). A program that sends
 * events is measured sending them, its event maps made to hold @runs runs of
 * a frame on each of @cpus CPUs at once, and an array of them given one per
 * CPU (cost_events_prepare()). Returns 0, or prints one line on stderr (and
 * a refused program's last log lines) and returns the cost_exit status that
 * says what went wrong.
 */
int cost_prog_load(struct cost_prog *cp, const char *path, const char *name,
		   const char *maps_file, const char *globals, __u32 runs, __u32 cpus);

/*
 * The program another process loaded, by its id (bpftool prog list shows
 * them), to be measured as it runs: with its loader's maps, which this tool
 * neither sizes nor fills nor empties. Returns 0, or prints one line and
 * returns the cost_exit status: no such program, or not of a type measured here.
 */
int cost_prog_get(struct cost_prog *cp, __u32 id);

/*
 * Empty every event map of the program, untimed, after a run
 * (cost_events_drain()): 0, or -EOVERFLOW if a queue or stack was full (the
 * run was skewed), or -errno. A program another process loaded is left to
 * it: 0.
 */
int cost_prog_drain(struct cost_prog *cp);

/*
 * The program's static figures. Kernels before 5.16 leave verified_insns at 0:
 * then the count comes from the verifier's statistics line, "processed N
 * insns", the same counter (env->insn_processed), so one kernel's figures
 * compare whichever way they were read.
 */
int cost_prog_figures(const struct cost_prog *cp, struct prog_static_figures *fig);

void cost_prog_close(struct cost_prog *cp);

/*
 * A loaded object's maps filled from @maps_file, bpftool's dumps or "MAP KEY VALUE"
 * lines, as cost_prog_load() fills them: 0, or one line and the cost_exit status.
 */
int cost_object_fill(struct cost_state *st, struct bpf_object *obj, const char *maps_file);

/*
 * After a load that failed: the verifier log's last lines, which say why, on
 * stderr; false if there is none (the failure came before the verifier).
 */
bool cost_object_print_refusal(void);

#endif /* FBF_COST_OBJECT_H */
