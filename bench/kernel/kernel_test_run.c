// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The XDP program in the kernel, one frame shape at a time, through
 * BPF_PROG_TEST_RUN: mean ns per run for a frame of each class, a non-IPv4
 * frame and a VLAN frame, on both transports (queue map and ring buffer)
 * and on the queue sampled at 1 in 16 (--sample 16), interleaved run by run
 * with a bare XDP_PASS program on the same frame, so each overhead comes
 * from runs a few milliseconds apart, and the ratio over all shapes
 * together. Also each loaded program's static figures. Prints raw samples
 * as "benchmark<TAB>measure<TAB>value" for bench/report.py.
 *
 * Queue and ring state: every classifier run starts on an empty queue (or
 * ring) sized to hold all of the run's events, so each push succeeds, none
 * meets a full one (which would skip the copy and look cheaper), and it is
 * drained, untimed, after the run.
 *
 *   kernel_test_run XDP_PASS_OBJ [ROUNDS [REPEAT]]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf_fixture.h"
#include "kernel_cases.h"

#define DEFAULT_ROUNDS 10
#define DEFAULT_REPEAT 100000

/*
 * Empty the queue after a run, and check the run pushed what it should have:
 * with 1-in-@sample sampling from a zeroed countdown, the first of every
 * @sample runs.
 */
static int drain_and_check(struct bpf_fixture *fx, const struct kernel_case *c, int repeat,
			   int sample)
{
	int popped = 0, want = c->pushes ? (repeat + sample - 1) / sample : 0, err;
	struct fbf_counters cnt;
	struct fbf_event ev;

	while ((err = bpf_fixture_pop(fx, &ev)) == 0)
		popped++;
	if (err != -ENOENT)
		return err;
	err = bpf_fixture_counters(fx, &cnt);
	if (err)
		return err;
	if (popped != want || cnt.not_sampled != (__u64)(c->pushes ? repeat - want : 0) ||
	    cnt.queue_full || cnt.queue_busy) {
		fprintf(stderr, "kernel_test_run: %s: %d events for %d runs, %llu lost: "
			"the queue skewed the run\n", c->name, popped, repeat,
			(unsigned long long)(cnt.queue_full + cnt.queue_busy));
		return -EPROTO;
	}
	return bpf_fixture_reset(fx);
}

static int print_static_figures(int prog_fd, const char *name)
{
	struct prog_static_figures fig;
	int err = prog_static_figures(prog_fd, &fig);

	if (err)
		return err;
	printf("kernel/%s\tverified-instructions\t%u\n", name, fig.verified_insns);
	printf("kernel/%s\ttranslated-instructions\t%u\n", name, fig.xlated_insns);
	printf("kernel/%s\tjited-bytes\t%u\n", name, fig.jited_bytes);
	return 0;
}

/*
 * A program's run_cnt moves only while BPF run-time statistics are on. They
 * are off here unless another process switched them on, and then every run
 * measured includes their cost (about 20 ns): warn, since the timings are
 * then not comparable with a quiet run's.
 */
static void warn_if_stats_were_on(int prog_fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (!bpf_obj_get_info_by_fd(prog_fd, &info, &len) && info.run_cnt)
		fprintf(stderr, "kernel_test_run: warning: another process had BPF run-time "
			"statistics on during %llu of the runs; those include the statistics' "
			"own cost, so these timings are not comparable with a quiet run's\n",
			(unsigned long long)info.run_cnt);
}

static int load_pass(const char *path, struct bpf_object **obj)
{
	struct bpf_program *prog;

	*obj = bpf_object__open_file(path, NULL);
	if (!*obj)
		return -errno;
	if (bpf_object__load(*obj))
		return -errno;
	prog = bpf_object__next_program(*obj, NULL);
	return prog ? bpf_program__fd(prog) : -ENOENT;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * Mean of @n samples without the highest and lowest tenth: robust to a run
 * the machine interrupted, unlike the plain mean, and unlike the median it
 * keeps the resolution that noise dithers into whole-nanosecond samples, as
 * a 3.6 ns run reads 3 or 4 in proportion. Sorts @v.
 */
static double trimmed_mean(double *v, int n)
{
	int cut = n / 10, kept = n - 2 * cut;
	double sum = 0;

	qsort(v, n, sizeof(*v), cmp_double);
	for (int i = cut; i < n - cut; i++)
		sum += v[i];
	return sum / kept;
}

/* The classifier's overhead over XDP_PASS from the rounds' samples of one shape. */
static void print_overhead(const char *name, const char *suffix, double *fbf, double *pass,
			   int rounds)
{
	double fbf_mean = trimmed_mean(fbf, rounds), pass_mean = trimmed_mean(pass, rounds);

	printf("kernel/%s/overhead%s\tlatency\t%.3f\n", name, suffix, fbf_mean - pass_mean);
	printf("kernel/%s/overhead%s\tratio\t%.4f\n", name, suffix, fbf_mean / pass_mean);
}

/*
 * The programs timed side by side: bare XDP_PASS, then the classifier on
 * each transport, and on the queue sending 1 event in 16. The queue's names
 * are those from before the ring buffer, so their history goes on.
 */
enum arm { ARM_PASS, ARM_QUEUE, ARM_RING, ARM_SAMPLE16, NR_ARMS };

static const char *const arm_name[NR_ARMS] = {
	[ARM_PASS] = "xdp_pass",
	[ARM_QUEUE] = "xdp_fizzbuzzfib",
	[ARM_RING] = "xdp_fizzbuzzfib-ringbuf",
	[ARM_SAMPLE16] = "xdp_fizzbuzzfib-sample16",
};
static const char *const arm_suffix[NR_ARMS] = {
	[ARM_RING] = "-ringbuf",
	[ARM_SAMPLE16] = "-sample16",
};
static const int arm_sample[NR_ARMS] = {
	[ARM_QUEUE] = 1, [ARM_RING] = 1, [ARM_SAMPLE16] = 16,
};

int main(int argc, char **argv)
{
	struct kernel_case cases[KERNEL_CASES_MAX];
	struct bpf_object *pass_obj = NULL;
	struct bpf_fixture fx[NR_ARMS] = {};
	int rounds = argc > 2 ? atoi(argv[2]) : DEFAULT_ROUNDS;
	int repeat = argc > 3 ? atoi(argv[3]) : DEFAULT_REPEAT;
	bool progress = isatty(STDERR_FILENO) && !getenv("CI");
	size_t nr_cases = kernel_cases_build(cases);
	/* Samples by arm, then shape, then round; the last shape row sums all shapes. */
	double *ns[NR_ARMS] = {};
	int prog_fd[NR_ARMS];
	int a, err, ret = 1;

	if (argc < 2 || rounds < 1 || repeat < 1) {
		fprintf(stderr, "usage: kernel_test_run XDP_PASS_OBJ [ROUNDS [REPEAT]]\n");
		return 2;
	}
	for (a = 0; a < NR_ARMS; a++) {
		ns[a] = calloc((nr_cases + 1) * rounds, sizeof(double));
		if (!ns[a]) {
			fprintf(stderr, "kernel_test_run: out of memory for %d rounds\n", rounds);
			goto out;
		}
	}
	libbpf_set_print(NULL);
	for (a = ARM_QUEUE; a < NR_ARMS; a++) {
		err = bpf_fixture_load_sampled(&fx[a], a == ARM_RING ? FBF_TRANSPORT_RINGBUF :
					       FBF_TRANSPORT_QUEUE, repeat, arm_sample[a]);
		if (err) {
			fprintf(stderr, "kernel_test_run: loading %s: %s%s\n", arm_name[a],
				strerror(-err),
				bpf_fixture_unavailable(err) ? " (run as root)" : "");
			goto out;
		}
		prog_fd[a] = fx[a].prog_fd;
		err = print_static_figures(prog_fd[a], arm_name[a]);
		if (err) {
			fprintf(stderr, "kernel_test_run: reading %s's info: %s\n", arm_name[a],
				strerror(-err));
			goto out;
		}
	}
	prog_fd[ARM_PASS] = load_pass(argv[1], &pass_obj);
	if (prog_fd[ARM_PASS] < 0) {
		fprintf(stderr, "kernel_test_run: loading %s: %s\n", argv[1],
			strerror(-prog_fd[ARM_PASS]));
		goto out;
	}

	for (int round = 0; round < rounds; round++) {
		for (size_t i = 0; i < nr_cases; i++) {
			const struct kernel_case *c = &cases[i];

			/* Rotate which goes first, so none always runs on a warmer cache. */
			for (int k = 0; k < NR_ARMS; k++) {
				a = (round + k) % NR_ARMS;
				err = kernel_case_time(prog_fd[a], c, repeat,
						       &ns[a][i * rounds + round]);
				if (!err && a != ARM_PASS)
					err = drain_and_check(&fx[a], c, repeat, arm_sample[a]);
				if (err) {
					fprintf(stderr, "kernel_test_run: %s on %s: %s\n",
						c->name, arm_name[a], strerror(-err));
					goto out;
				}
			}
			for (a = 0; a < NR_ARMS; a++) {
				printf("kernel/%s/%s\tlatency\t%.0f\n", c->name, arm_name[a],
				       ns[a][i * rounds + round]);
				ns[a][nr_cases * rounds + round] += ns[a][i * rounds + round];
			}
		}
		if (progress)
			fprintf(stderr, "\rkernel_test_run: round %d/%d", round + 1, rounds);
	}
	if (progress)
		fprintf(stderr, "\n");
	/* The last shape row is the whole mix of frame shapes. */
	for (size_t i = 0; i <= nr_cases; i++)
		for (a = ARM_QUEUE; a < NR_ARMS; a++)
			print_overhead(i < nr_cases ? cases[i].name : "all", arm_suffix[a] ?: "",
				       &ns[a][i * rounds], &ns[ARM_PASS][i * rounds], rounds);
	for (a = ARM_QUEUE; a < NR_ARMS; a++)
		warn_if_stats_were_on(prog_fd[a]);
	ret = 0;
out:
	for (a = 0; a < NR_ARMS; a++) {
		free(ns[a]);
		bpf_fixture_destroy(&fx[a]);
	}
	bpf_object__close(pass_obj);
	return ret;
}
