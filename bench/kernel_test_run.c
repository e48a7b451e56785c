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
#include <linux/if_ether.h>

#include "bpf_fixture.h"
#include "frames.h"

#define DEFAULT_ROUNDS 10
#define DEFAULT_REPEAT 100000

struct bench_case {
	const char *name;
	__u8 frame[FRAME_MAX_LEN];
	size_t len;
	bool pushes;
};

static const struct frame_l2 one_vlan = { .nr_tags = 1, .tpid = { ETH_P_8021Q } };

static size_t build_cases(struct bench_case *cases)
{
	/*
	 * Last octets of 233 and above: the longest walk for a classifier that
	 * loops over the Fibonacci sequence, as the original's v3 did (its
	 * regression was found on x.x.x.255), so such a regression shows here.
	 */
	static const struct {
		const char *name;
		__u32 saddr;
	} ipv4[] = {
		{ "ipv4-none", IPV4_ADDR(10, 0, 0, 253) },
		{ "ipv4-fizz", IPV4_ADDR(10, 0, 0, 254) },
		{ "ipv4-buzz", IPV4_ADDR(10, 0, 0, 255) },
		{ "ipv4-fizzbuzz", IPV4_ADDR(10, 0, 0, 245) },
		{ "ipv4-fibonacci", IPV4_ADDR(10, 0, 0, 233) },
	};
	size_t n = 0;

	for (size_t i = 0; i < sizeof(ipv4) / sizeof(ipv4[0]); i++, n++) {
		struct frame_ipv4 ip = FRAME_IPV4(ipv4[i].saddr);

		cases[n].name = ipv4[i].name;
		cases[n].len = frame_build_ipv4(cases[n].frame, FRAME_MAX_LEN, NULL, &ip);
		cases[n].pushes = fbf_classify(ipv4[i].saddr) != FBF_NONE;
	}

	struct frame_ipv4 vlan_ip = FRAME_IPV4(IPV4_ADDR(10, 0, 0, 254));

	cases[n].name = "vlan-ipv4-fizz";
	cases[n].len = frame_build_ipv4(cases[n].frame, FRAME_MAX_LEN, &one_vlan, &vlan_ip);
	cases[n++].pushes = true;

	cases[n].name = "ipv6";
	cases[n].len = frame_build_ipv6(cases[n].frame, FRAME_MAX_LEN, NULL);
	cases[n++].pushes = false;
	return n;
}

/*
 * Mean ns per run of @prog_fd over @repeat runs of @c's frame, as the kernel
 * timed it. The kernel truncates it to whole nanoseconds, a coarse step for
 * XDP_PASS's few ns, but timing the syscall here instead is worse: each test
 * run with repeat > 1 costs a fixed ~16 ms (an RCU grace period), which no
 * practical repeat amortises below a nanosecond.
 */
static int time_runs(int prog_fd, const struct bench_case *c, int repeat, double *ns)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = c->frame, .data_size_in = c->len,
		    .repeat = repeat);

	if (bpf_prog_test_run_opts(prog_fd, &opts))
		return -errno;
	if (opts.retval != XDP_PASS)
		return -EPROTO;
	*ns = opts.duration;
	return 0;
}

/* Empty the queue after a run, and check the run pushed what it should have. */
static int drain_and_check(struct bpf_fixture *fx, const struct bench_case *c, int repeat)
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
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return -errno;
	printf("kernel/xdp_fizzbuzzfib\tverified-instructions\t%u\n", info.verified_insns);
	printf("kernel/xdp_fizzbuzzfib\ttranslated-instructions\t%u\n",
	       info.xlated_prog_len / 8);
	printf("kernel/xdp_fizzbuzzfib\tjited-bytes\t%u\n", info.jited_prog_len);
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
	struct bench_case cases[8];
	struct bpf_object *pass_obj = NULL;
	struct bpf_fixture fx = {};
	int rounds = argc > 2 ? atoi(argv[2]) : DEFAULT_ROUNDS;
	int repeat = argc > 3 ? atoi(argv[3]) : DEFAULT_REPEAT;
	bool progress = isatty(STDERR_FILENO) && !getenv("CI");
	size_t nr_cases = build_cases(cases);
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
	err = bpf_fixture_load(&fx, repeat);
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
			const struct bench_case *c = &cases[i];
			double *pass_ns = &pass[i * rounds + round];
			double *fbf_ns = &fbf[i * rounds + round];

			/* Alternate which goes first, so neither always runs on a warmer cache. */
			if (round % 2 == 0)
				err = time_runs(pass_fd, c, repeat, pass_ns) ?:
				      time_runs(fx.prog_fd, c, repeat, fbf_ns);
			else
				err = time_runs(fx.prog_fd, c, repeat, fbf_ns) ?:
				      time_runs(pass_fd, c, repeat, pass_ns);
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
