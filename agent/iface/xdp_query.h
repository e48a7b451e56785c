/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The XDP programs on one interface, asked of the kernel for that interface
 * alone. libbpf's bpf_xdp_query() (libbpf 1.1, and libxdp through it) dumps
 * every link of the namespace and keeps one, so on a node of hundreds of
 * pods' veths each look cost the whole list, several times an attach.
 */
#ifndef AGENT_XDP_QUERY_H
#define AGENT_XDP_QUERY_H

#include <bpf/libbpf.h>

/*
 * Fill @q's attach_mode and program ids for @ifindex, as bpf_xdp_query()
 * does (its feature flags not). 0, or -errno: -ENODEV when it is gone.
 */
int xdp_query(int ifindex, struct bpf_xdp_query_opts *q);

struct rtattr;

/* The same from a link message's IFLA_XDP, @xdp: a link event says it too. */
void xdp_query_attrs(const struct rtattr *xdp, struct bpf_xdp_query_opts *q);

#endif /* AGENT_XDP_QUERY_H */
