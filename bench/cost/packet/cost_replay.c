// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A capture's frames through one program, in order: see cost_replay.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "cost_replay.h"

/* Room for what a program may grow a frame by (bpf_xdp_adjust_head's headroom). */
#define OUT_ROOM 512
/* Distinct actions counted one by one; the rest as other. */
#define COST_REPLAY_ACTIONS 16

int cost_replay_init(struct cost_replay *r, const struct cost_capture *cap, int rounds)
{
	memset(r, 0, sizeof(*r));
	r->cap = cap;
	r->rounds = rounds;
	r->ns = calloc((size_t)(rounds ?: 1) * cap->nr_frames, sizeof(*r->ns));
	r->actions = calloc(cap->nr_frames, sizeof(*r->actions));
	r->refused = calloc(cap->nr_frames, sizeof(*r->refused));
	if (!r->ns || !r->actions || !r->refused) {
		cost_replay_free(r);
		return -ENOMEM;
	}
	return 0;
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

/* The value below which @q of the sorted @v[@n] lie (nearest rank). */
static float quantile(const float *v, size_t n, double q)
{
	size_t k = (size_t)(q * n + 0.999999);

	return v[k ? k - 1 : 0];
}

/* One frame, one run; in the first round, its data out against its data in. */
static int run_frame(struct cost_replay *r, int round, int prog_fd, size_t i, float *ns)
{
	static __u8 out[COST_CAPTURE_MAX_LEN + OUT_ROOM];
	const struct cost_capture_frame *f = &r->cap->frames[i];
	const __u8 *in = cost_capture_data(r->cap, i);
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = in, .data_size_in = f->len,
		    .repeat = 1);

	if (!round) {
		opts.data_out = out;
		opts.data_size_out = sizeof(out);
	}
	if (bpf_prog_test_run_opts(prog_fd, &opts)) {
		if (round || errno != EINVAL)
			return -errno;
		r->refused[i] = true;
		if (!r->nr_refused++)
			r->first_refused = f->index;
		return 0;
	}
	*ns = opts.duration;
	if (round)
		return 0;
	r->actions[i] = opts.retval;
	if (opts.data_size_out != f->len || memcmp(out, in, f->len)) {
		if (!r->rewrites++)
			r->first_rewrite = f->index;
	}
	return 0;
}

int cost_replay_round(struct cost_replay *r, int round, const char *arm, int prog_fd,
		      int (*drain)(void *ctx), void *ctx, size_t drain_every, size_t *frame)
{
	size_t n = r->cap->nr_frames, ran = 0;
	float *ns = r->ns + (size_t)round * n, *sorted;
	double sum = 0;
	int err;

	sorted = malloc(n * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		err = r->refused[i] ? 0 : run_frame(r, round, prog_fd, i, &ns[i]);
		if (!err && ((i + 1) % drain_every == 0 || i + 1 == n))
			err = drain(ctx);
		if (err) {
			*frame = i;
			free(sorted);
			return err;
		}
		if (r->refused[i])
			continue;
		sum += ns[i];
		sorted[ran++] = ns[i];
	}
	if (!ran) {
		*frame = 0;
		free(sorted);
		return -EINVAL;
	}
	n = ran;
	qsort(sorted, n, sizeof(*sorted), cmp_float);
	printf("%s\tcost/capture\tlatency\t%.2f\n", arm, sum / n);
	printf("%s\tcost/capture/p50\tlatency\t%.0f\n", arm, quantile(sorted, n, 0.50));
	printf("%s\tcost/capture/p90\tlatency\t%.0f\n", arm, quantile(sorted, n, 0.90));
	printf("%s\tcost/capture/p99\tlatency\t%.0f\n", arm, quantile(sorted, n, 0.99));
	printf("%s\tcost/capture/max\tlatency\t%.0f\n", arm, sorted[n - 1]);
	free(sorted);
	return 0;
}

/* Frame @i's median over @rounds rounds. */
static float frame_median(const struct cost_replay *r, size_t i, int rounds)
{
	float v[rounds];

	for (int k = 0; k < rounds; k++)
		v[k] = r->ns[(size_t)k * r->cap->nr_frames + i];
	qsort(v, rounds, sizeof(v[0]), cmp_float);
	return rounds % 2 ? v[rounds / 2] : (v[rounds / 2 - 1] + v[rounds / 2]) / 2;
}

void cost_replay_print(const struct cost_replay *r, const char *arm, int rounds)
{
	size_t n = r->cap->nr_frames, top[COST_REPLAY_TOP], nr_top = 0;
	float top_ns[COST_REPLAY_TOP];
	char summary[COST_SUMMARY_LEN];

	/* A program answers with a handful of actions: counted in the order first met. */
	__u32 seen[COST_REPLAY_ACTIONS];
	size_t counts[COST_REPLAY_ACTIONS] = {}, nr_seen = 0, other = 0;

	for (size_t i = 0; i < n; i++) {
		size_t k = 0;

		if (r->refused[i])
			continue;
		while (k < nr_seen && seen[k] != r->actions[i])
			k++;
		if (k == nr_seen && nr_seen < COST_REPLAY_ACTIONS)
			seen[nr_seen++] = r->actions[i];
		if (k < nr_seen)
			counts[k]++;
		else
			other++;
	}
	for (size_t k = 0; k < nr_seen; k++)
		printf("#capture-actions\t%s\t%u\t%zu\n", arm, seen[k], counts[k]);
	if (other)
		printf("#capture-actions\t%s\tother\t%zu\n", arm, other);
	printf("#capture-rewrites\t%s\t%zu\t%u\n", arm, r->rewrites, r->first_rewrite);
	if (rounds < 1)
		return;
	/* The costliest, kept sorted by insertion: the list is short. */
	for (size_t i = 0; i < n; i++) {
		float ns;
		size_t k;

		if (r->refused[i])
			continue;
		ns = frame_median(r, i, rounds);
		/* Every frame, for the HTML report's figures (bench/cost/cost_html.py). */
		printf("#capture-frame\t%s\t%u\t%.0f\t%u\n", arm, r->cap->frames[i].index, ns,
		       r->actions[i]);
		k = nr_top < COST_REPLAY_TOP ? nr_top++ : COST_REPLAY_TOP;

		for (; k > 0 && top_ns[k - 1] < ns; k--) {
			if (k < COST_REPLAY_TOP) {
				top[k] = top[k - 1];
				top_ns[k] = top_ns[k - 1];
			}
		}
		if (k < COST_REPLAY_TOP) {
			top[k] = i;
			top_ns[k] = ns;
		}
	}
	for (size_t k = 0; k < nr_top; k++) {
		cost_capture_summary(r->cap, top[k], summary, sizeof(summary));
		printf("#capture-costliest\t%s\t%u\t%.0f\t%u\t%s\n", arm,
		       r->cap->frames[top[k]].index, top_ns[k], r->actions[top[k]], summary);
	}
}

void cost_replay_print_changed(const struct cost_replay *from, const struct cost_replay *to)
{
	char summary[COST_SUMMARY_LEN];
	size_t changed = 0;

	for (size_t i = 0; i < from->cap->nr_frames; i++) {
		if (from->refused[i] || to->refused[i] || from->actions[i] == to->actions[i])
			continue;
		if (changed++ < COST_REPLAY_TOP) {
			cost_capture_summary(from->cap, i, summary, sizeof(summary));
			printf("#capture-changed-frame\t%u\t%u\t%u\t%s\n",
			       from->cap->frames[i].index, from->actions[i], to->actions[i],
			       summary);
		}
	}
	printf("#capture-changed\t%zu\n", changed);
}

void cost_replay_free(struct cost_replay *r)
{
	free(r->ns);
	free(r->actions);
	free(r->refused);
	r->ns = NULL;
	r->actions = NULL;
	r->refused = NULL;
}
