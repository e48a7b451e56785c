// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A loaded program's JIT image, function by function and line by line
 * (cost_lines.h). Two bpf_prog_info queries: the first for the counts, the
 * second with room for the arrays. Each jited_line_info address pairs with
 * the line_info entry of the same index; BTF gives its file and text.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <linux/bpf.h>

#include "cost_lines.h"

struct jit_table {
	__u64 *ksyms, *line_addrs;
	__u32 *func_lens;
	void *line_info, *func_info;
};

static void jit_table_free(struct jit_table *t)
{
	free(t->ksyms);
	free(t->line_addrs);
	free(t->func_lens);
	free(t->line_info);
	free(t->func_info);
}

/* The second query, into @t, with the counts and record sizes of @info. */
static int jit_table_get(int fd, const struct bpf_prog_info *info, struct jit_table *t)
{
	struct bpf_prog_info q = {};
	__u32 len = sizeof(q);

	t->ksyms = calloc(info->nr_jited_ksyms, sizeof(__u64));
	t->func_lens = calloc(info->nr_jited_func_lens, sizeof(__u32));
	t->line_addrs = calloc(info->nr_jited_line_info, info->jited_line_info_rec_size);
	t->line_info = calloc(info->nr_line_info, info->line_info_rec_size);
	t->func_info = calloc(info->nr_func_info ?: 1, info->func_info_rec_size ?: 1);
	if (!t->ksyms || !t->func_lens || !t->line_addrs || !t->line_info || !t->func_info)
		return -ENOMEM;
	q.nr_jited_ksyms = info->nr_jited_ksyms;
	q.jited_ksyms = (__u64)(unsigned long)t->ksyms;
	q.nr_jited_func_lens = info->nr_jited_func_lens;
	q.jited_func_lens = (__u64)(unsigned long)t->func_lens;
	q.nr_jited_line_info = info->nr_jited_line_info;
	q.jited_line_info_rec_size = info->jited_line_info_rec_size;
	q.jited_line_info = (__u64)(unsigned long)t->line_addrs;
	q.nr_line_info = info->nr_line_info;
	q.line_info_rec_size = info->line_info_rec_size;
	q.line_info = (__u64)(unsigned long)t->line_info;
	q.nr_func_info = info->nr_func_info;
	q.func_info_rec_size = info->func_info_rec_size;
	q.func_info = (__u64)(unsigned long)t->func_info;
	return bpf_obj_get_info_by_fd(fd, &q, &len) ? -errno : 0;
}

/* A function's name from its func_info entry, or "" without one. */
static const char *func_name(const struct btf *btf, const struct bpf_prog_info *info,
			     const struct jit_table *t, __u32 k)
{
	const struct bpf_func_info *fi;
	const struct btf_type *type;

	if (k >= info->nr_func_info)
		return "";
	fi = (const void *)((const char *)t->func_info + k * info->func_info_rec_size);
	type = btf__type_by_id(btf, fi->type_id);
	return type ? btf__name_by_offset(btf, type->name_off) ?: "" : "";
}

/* @s on one field of a row: its tabs and newlines made spaces, its leading ones gone. */
static void print_field(FILE *f, const char *s)
{
	s += strspn(s ?: "", " \t");
	for (; s && *s; s++)
		fputc(*s == '\t' || *s == '\n' ? ' ' : *s, f);
}

static void print_table(FILE *f, const char *arm, const struct btf *btf,
			const struct bpf_prog_info *info, const struct jit_table *t)
{
	for (__u32 k = 0; k < info->nr_jited_ksyms; k++)
		fprintf(f, "#func\t%s\t%u\t%s\t0x%llx\t%u\n", arm, k, func_name(btf, info, t, k),
			(unsigned long long)t->ksyms[k],
			k < info->nr_jited_func_lens ? t->func_lens[k] : 0);
	for (__u32 i = 0; i < info->nr_line_info; i++) {
		const struct bpf_line_info *li = (const void *)((const char *)t->line_info +
								i * info->line_info_rec_size);

		fprintf(f, "#line\t%s\t0x%llx\t", arm, (unsigned long long)t->line_addrs[i]);
		print_field(f, btf__name_by_offset(btf, li->file_name_off));
		fprintf(f, "\t%u\t%u\t", BPF_LINE_INFO_LINE_NUM(li->line_col),
			BPF_LINE_INFO_LINE_COL(li->line_col));
		print_field(f, btf__name_by_offset(btf, li->line_off));
		fputc('\n', f);
	}
}

int cost_lines_print(FILE *f, const char *arm, int fd)
{
	struct bpf_prog_info info = {};
	struct jit_table t = {};
	__u32 len = sizeof(info);
	struct btf *btf;
	int err;

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	if (!info.nr_line_info || !info.btf_id) {
		fprintf(f, "#nolines\t%s\tno BTF line info (an object built without -g: "
			"clang -g gives it)\n", arm);
		return 0;
	}
	/* The kernel hides JIT addresses from those it would not show kallsyms to. */
	if (info.nr_jited_line_info != info.nr_line_info ||
	    info.jited_line_info_rec_size != sizeof(__u64) || !info.nr_jited_ksyms) {
		fprintf(f, "#nolines\t%s\tthe kernel gives no JIT address of its lines "
			"(not JIT-compiled, or kernel.kptr_restrict hides them)\n", arm);
		return 0;
	}
	err = jit_table_get(fd, &info, &t);
	if (err)
		goto out;
	/* A zero address: the kernel's bpf_dump_raw_ok() said no to this process. */
	if (!t.ksyms[0]) {
		fprintf(f, "#nolines\t%s\tthe kernel hides JIT addresses "
			"(kernel.kptr_restrict): run as root with it at 0 or 1\n", arm);
		goto out;
	}
	btf = btf__load_from_kernel_by_id(info.btf_id);
	if (!btf) {
		err = -errno;
		goto out;
	}
	print_table(f, arm, btf, &info, &t);
	btf__free(btf);
out:
	jit_table_free(&t);
	return err;
}
