/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The source line of each piece of a loaded program's JIT image, for the cost
 * tool's hot lines (cost_run run -L, bench/cost/cost_lines.py): what
 * bpf_prog_info holds and no Debian tool prints (bpftool 7.1 has no libbfd,
 * perf cannot annotate a JIT image).
 */
#ifndef FBF_COST_LINES_H
#define FBF_COST_LINES_H

#include <stdio.h>

/*
 * The line table of program @fd, loaded as arm @arm, as rows of @f:
 *
 *   #func<TAB>ARM<TAB>INDEX<TAB>NAME<TAB>START<TAB>BYTES
 *       each function of the JIT image (the program and its subprograms),
 *       START its address in hex
 *   #line<TAB>ARM<TAB>ADDRESS<TAB>FILE<TAB>LINE<TAB>COLUMN<TAB>TEXT
 *       each BTF line entry: the address in the image where its code starts,
 *       and the source line's text as BTF keeps it (tabs made spaces)
 *   #nolines<TAB>ARM<TAB>WHY
 *       in place of those where the kernel gives no such table: a program
 *       built without -g, or JIT addresses the kernel hides
 *
 * 0, or -errno where the kernel could not be asked.
 */
int cost_lines_print(FILE *f, const char *arm, int fd);

#endif /* FBF_COST_LINES_H */
