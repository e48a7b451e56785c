// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The XDP program in the kernel, one frame shape at a time, through
 * BPF_PROG_TEST_RUN: mean ns per run for a frame of each class, a non-IPv4
 * frame and a VLAN frame, interleaved run by run with a bare XDP_PASS program
 * on the same frame, so each overhead comes from runs a few milliseconds
 * apart, and the ratio over all shapes together. Also the loaded program's
 * static figures. Prints raw samples as
 * "benchmark<TAB>measure<TAB>value" for bench/report.py.
 *
 * Queue state: every classifier run starts on an empty queue sized to hold
 * all of the run's pushes, so each push succeeds, none meets a full queue
 * (which would skip the copy and look cheaper), and the queue is drained,
 * untimed, after the run.
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

/* Empty the queue after a run, and check the run pushed what it should have. */
static int drain_and_check(struct bpf_fixture *fx, const struct kernel_case *c, int repeat)
{
	struct fbf_counters cnt;
	struct fbf_event ev;
	int popped = 0, err;

	while ((err = bpf_fixture_pop(fx, &ev)) == 0)
		popped++;
	if (err != -ENOENT)
		return err;
	err = bpf_fixture_counters(fx, &cnt);
	if (err)
		return err;
	if (popped != (c->pushes ? repeat : 0) || cnt.queue_full || cnt.queue_busy) {
		fprintf(stderr, "kernel_test_run: %s: %d events for %d runs, %llu lost: "
			"the queue skewed the run\n", c->name, popped, repeat,
			(unsigned long long)(cnt.queue_full + cnt.queue_busy));
		return -EPROTO;
	}
	return bpf_fixture_reset(fx);
}

static int print_static_figures(int prog_fd)
{
	struct prog_static_figures fig;
	int err = prog_static_figures(prog_fd, &fig);

	if (err)
		return err;
	printf("kernel/xdp_fizzbuzzfib\tverified-instructions\t%u\n", fig.verified_insns);
	printf("kernel/xdp_fizzbuzzfib\ttranslated-instructions\t%u\n", fig.xlated_insns);
	printf("kernel/xdp_fizzbuzzfib\tjited-bytes\t%u\n", fig.jited_bytes);
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
static void print_overhead(const char *name, double *fbf, double *pass, int rounds)
{
	double fbf_mean = trimmed_mean(fbf, rounds), pass_mean = trimmed_mean(pass, rounds);

	printf("kernel/%s/overhead\tlatency\t%.3f\n", name, fbf_mean - pass_mean);
	printf("kernel/%s/overhead\tratio\t%.4f\n", name, fbf_mean / pass_mean);
}

int main(int argc, char **argv)
{
	struct kernel_case cases[KERNEL_CASES_MAX];
	struct bpf_object *pass_obj = NULL;
	struct bpf_fixture fx = {};
	int rounds = argc > 2 ? atoi(argv[2]) : DEFAULT_ROUNDS;
	int repeat = argc > 3 ? atoi(argv[3]) : DEFAULT_REPEAT;
	bool progress = isatty(STDERR_FILENO) && !getenv("CI");
	size_t nr_cases = kernel_cases_build(cases);
	/* Samples by shape, then round; the last row sums all shapes. */
	double *fbf = NULL, *pass = NULL;
	int pass_fd, err, ret = 1;

	if (argc < 2 || rounds < 1 || repeat < 1) {
		fprintf(stderr, "usage: kernel_test_run XDP_PASS_OBJ [ROUNDS [REPEAT]]\n");
		return 2;
	}
	fbf = calloc((nr_cases + 1) * rounds, sizeof(*fbf));
	pass = calloc((nr_cases + 1) * rounds, sizeof(*pass));
	if (!fbf || !pass) {
		fprintf(stderr, "kernel_test_run: out of memory for %d rounds\n", rounds);
		goto out;
	}
	libbpf_set_print(NULL);
	err = bpf_fixture_load(&fx, FBF_TRANSPORT_QUEUE, repeat);
	if (err) {
		fprintf(stderr, "kernel_test_run: loading xdp_fizzbuzzfib: %s%s\n", strerror(-err),
			bpf_fixture_unavailable(err) ? " (run as root)" : "");
		goto out;
	}
	pass_fd = load_pass(argv[1], &pass_obj);
	if (pass_fd < 0) {
		fprintf(stderr, "kernel_test_run: loading %s: %s\n", argv[1], strerror(-pass_fd));
		goto out;
	}
	err = print_static_figures(fx.prog_fd);
	if (err) {
		fprintf(stderr, "kernel_test_run: reading the program's info: %s\n",
			strerror(-err));
		goto out;
	}

	for (int round = 0; round < rounds; round++) {
		double *fbf_all = &fbf[nr_cases * rounds + round];
		double *pass_all = &pass[nr_cases * rounds + round];

		for (size_t i = 0; i < nr_cases; i++) {
			const struct kernel_case *c = &cases[i];
			double *pass_ns = &pass[i * rounds + round];
			double *fbf_ns = &fbf[i * rounds + round];

			/* Alternate which goes first, so neither always runs on a warmer cache. */
			if (round % 2 == 0)
				err = kernel_case_time(pass_fd, c, repeat, pass_ns) ?:
				      kernel_case_time(fx.prog_fd, c, repeat, fbf_ns);
			else
				err = kernel_case_time(fx.prog_fd, c, repeat, fbf_ns) ?:
				      kernel_case_time(pass_fd, c, repeat, pass_ns);
			err = err ?: drain_and_check(&fx, c, repeat);
			if (err) {
				fprintf(stderr, "kernel_test_run: %s: %s\n", c->name,
					strerror(-err));
				goto out;
			}
			printf("kernel/%s/xdp_pass\tlatency\t%.0f\n", c->name, *pass_ns);
			printf("kernel/%s/xdp_fizzbuzzfib\tlatency\t%.0f\n", c->name, *fbf_ns);
			*pass_all += *pass_ns;
			*fbf_all += *fbf_ns;
		}
		if (progress)
			fprintf(stderr, "\rkernel_test_run: round %d/%d", round + 1, rounds);
	}
	if (progress)
		fprintf(stderr, "\n");
	for (size_t i = 0; i < nr_cases; i++)
		print_overhead(cases[i].name, &fbf[i * rounds], &pass[i * rounds], rounds);
	/* One figure for the whole mix of frame shapes. */
	print_overhead("all", &fbf[nr_cases * rounds], &pass[nr_cases * rounds], rounds);
	warn_if_stats_were_on(fx.prog_fd);
	ret = 0;
out:
	free(fbf);
	free(pass);
	bpf_object__close(pass_obj);
	bpf_fixture_destroy(&fx);
	return ret;
}
