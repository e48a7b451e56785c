// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The regression gate's in-kernel measures: several builds of the XDP
 * program, loaded side by side into this kernel from their object files,
 * and run in turn through BPF_PROG_TEST_RUN on the same frames.
 *
 *   gate_kernel ROUNDS REPEAT ARM=OBJECT...
 *
 * ROUNDS 0 prints the static figures alone: what the gate takes from each
 * kernel of the matrix, booted under emulation, where timing means nothing.
 *
 * Each ARM is one loaded copy of OBJECT's xdp_fizzbuzzfib: the base, the base
 * loaded a second time (the A/A comparison that tells how far two copies of
 * the same code drift apart in this run) and the candidate. Every round runs
 * each frame shape on every arm, starting from a different arm each round so
 * that none always runs first on a cold cache; so the arms' samples come from
 * runs milliseconds apart, under the same load, and can be compared round by
 * round. Prints "ARM<TAB>benchmark<TAB>measure<TAB>value" rows: each arm's
 * static figures once, then one latency sample per shape and round, and the
 * round's sum over all shapes as kernel/all.
 *
 * The program comes from an object file, not from a skeleton, so a base built
 * from another revision is measured by this same tool. Its queue (or ring
 * buffer) is sized to hold a whole run's events and emptied, untimed, after
 * each run: a push into a full queue skips the copy and would look cheaper.
 * Objects built for the ring buffer are named so: kernel/all/ringbuf.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "fizzbuzzfib.h"
#include "fbf_object.h"
#include "kernel_cases.h"

#define PROG_NAME "xdp_fizzbuzzfib"
#define MAX_ARMS 4
/* The verifier's statistics alone (BPF_LOG_STATS, 5.2): a few lines, whatever the program. */
#define LOG_LEVEL_STATS 4
#define LOG_SIZE 4096

struct arm {
	const char *name;
	const char *path;
	struct bpf_object *obj;
	int prog_fd;
	int queue_fd;
	struct ring_buffer *ring;	/* a ring buffer object's reader, NULL for a queue */
	__u64 taken;			/* events the reader took */
	double all_ns;	/* this round's sum over the shapes */
	char log[LOG_SIZE];		/* the verifier's statistics of the load */
};

static int count_event(void *ctx, void *data, size_t size)
{
	(void)data;
	(void)size;
	((struct arm *)ctx)->taken++;
	return 0;
}

static int arm_load(struct arm *arm, __u32 queue_size)
{
	struct bpf_program *prog;
	struct bpf_map *events;
	bool is_ring;
	int err;

	arm->obj = bpf_object__open_file(arm->path, NULL);
	if (!arm->obj)
		return -errno;
	/* By name: an object may have other rings (the doorbell) beside its events. */
	events = bpf_object__find_map_by_name(arm->obj, "events");
	prog = bpf_object__find_program_by_name(arm->obj, PROG_NAME);
	if (!events || !prog)
		return -ENOENT;
	is_ring = bpf_map__type(events) == BPF_MAP_TYPE_RINGBUF;
	err = bpf_map__set_max_entries(events, is_ring ? fbf_ring_bytes(queue_size) :
							      queue_size) ?:
	      bpf_program__set_log_buf(prog, arm->log, sizeof(arm->log)) ?:
	      bpf_program__set_log_level(prog, LOG_LEVEL_STATS);
	if (err)
		return err;
	if (bpf_object__load(arm->obj))
		return -errno;
	arm->prog_fd = bpf_program__fd(prog);
	arm->queue_fd = -1;
	if (!is_ring) {
		arm->queue_fd = bpf_map__fd(events);
		return 0;
	}
	arm->ring = ring_buffer__new(bpf_map__fd(events), count_event, arm, NULL);
	return arm->ring ? 0 : -errno;
}

/* What the arm's benchmarks are named after: "" for a queue, "/ringbuf" for a ring. */
static const char *arm_suffix(const struct arm *arm)
{
	return arm->ring ? "/ringbuf" : "";
}

/* Empty the arm's queue or ring; a run sends an event for every repetition or for none. */
static int arm_drain(struct arm *arm, const struct kernel_case *c, int repeat)
{
	struct fbf_event ev;
	int popped = 0;

	if (arm->ring) {
		arm->taken = 0;
		if (ring_buffer__consume(arm->ring) < 0)
			return -errno;
		popped = arm->taken;
	} else {
		while (!bpf_map_lookup_and_delete_elem(arm->queue_fd, NULL, &ev))
			popped++;
		if (errno != ENOENT)
			return -errno;
	}
	if (popped && popped != repeat) {
		fprintf(stderr, "gate_kernel: %s: %s: %d events for %d runs: the queue skewed "
			"the run\n", arm->name, c->name, popped, repeat);
		return -EPROTO;
	}
	return 0;
}

/*
 * The instructions the verifier processed, from its log: the number that
 * verified_insns holds from 5.16 on, which older kernels leave at 0. The
 * same count (env->insn_processed), so one kernel's figures compare whichever
 * way they were read.
 */
static __u32 log_verified_insns(const struct arm *arm)
{
	const char *line = strstr(arm->log, "processed ");
	unsigned int insns;

	return line && sscanf(line, "processed %u insns", &insns) == 1 ? insns : 0;
}

static int print_static_figures(const struct arm *arm)
{
	const char *name = arm->ring ? "xdp_fizzbuzzfib-ringbuf" : "xdp_fizzbuzzfib";
	struct prog_static_figures fig;
	int err = prog_static_figures(arm->prog_fd, &fig);

	if (err)
		return err;
	if (!fig.verified_insns)
		fig.verified_insns = log_verified_insns(arm);
	printf("%s\tkernel/%s\tverified-instructions\t%u\n", arm->name, name,
	       fig.verified_insns);
	printf("%s\tkernel/%s\ttranslated-instructions\t%u\n", arm->name, name,
	       fig.xlated_insns);
	printf("%s\tkernel/%s\tjited-bytes\t%u\n", arm->name, name, fig.jited_bytes);
	return 0;
}

static int parse_arm(struct arm *arm, char *arg)
{
	char *eq = strchr(arg, '=');

	if (!eq || eq == arg || !eq[1])
		return -EINVAL;
	*eq = '\0';
	arm->name = arg;
	arm->path = eq + 1;
	return 0;
}

int main(int argc, char **argv)
{
	struct kernel_case cases[KERNEL_CASES_MAX];
	size_t nr_cases = kernel_cases_build(cases);
	struct arm arms[MAX_ARMS] = {};
	int nr_arms = argc - 3, rounds, repeat, err = 0, ret = 1;

	rounds = argc > 1 ? atoi(argv[1]) : -1;
	repeat = argc > 2 ? atoi(argv[2]) : 0;
	if (rounds < 0 || repeat < 1 || nr_arms < 1 || nr_arms > MAX_ARMS) {
		fprintf(stderr, "usage: gate_kernel ROUNDS REPEAT ARM=OBJECT... (1 to %d arms)\n",
			MAX_ARMS);
		return 2;
	}
	for (int a = 0; a < nr_arms; a++) {
		if (parse_arm(&arms[a], argv[a + 3])) {
			fprintf(stderr, "gate_kernel: '%s' is not ARM=OBJECT\n", argv[a + 3]);
			return 2;
		}
	}
	libbpf_set_print(NULL);
	for (int a = 0; a < nr_arms; a++) {
		err = arm_load(&arms[a], repeat);
		if (err) {
			fprintf(stderr, "gate_kernel: loading %s from %s: %s%s\n", arms[a].name,
				arms[a].path, strerror(-err), err == -EPERM ? " (run as root)" : "");
			goto out;
		}
		err = print_static_figures(&arms[a]);
		if (err) {
			fprintf(stderr, "gate_kernel: %s: reading the program's info: %s\n",
				arms[a].name, strerror(-err));
			goto out;
		}
	}

	for (int round = 0; round < rounds; round++) {
		for (int a = 0; a < nr_arms; a++)
			arms[a].all_ns = 0;
		for (size_t i = 0; i < nr_cases; i++) {
			for (int k = 0; k < nr_arms; k++) {
				struct arm *arm = &arms[(round + k) % nr_arms];
				double ns;

				err = kernel_case_time(arm->prog_fd, &cases[i], repeat, &ns) ?:
				      arm_drain(arm, &cases[i], repeat);
				if (err) {
					fprintf(stderr, "gate_kernel: %s: %s: %s\n", arm->name,
						cases[i].name, strerror(-err));
					goto out;
				}
				arm->all_ns += ns;
				printf("%s\tkernel/%s%s\tlatency\t%.0f\n", arm->name,
				       cases[i].name, arm_suffix(arm), ns);
			}
		}
		for (int a = 0; a < nr_arms; a++)
			printf("%s\tkernel/all%s\tlatency\t%.0f\n", arms[a].name,
			       arm_suffix(&arms[a]), arms[a].all_ns);
	}
	ret = 0;
out:
	for (int a = 0; a < nr_arms; a++) {
		ring_buffer__free(arms[a].ring);
		bpf_object__close(arms[a].obj);
	}
	return ret;
}
