/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * XDP attach modes by name, for the command line and for what the agent
 * says: one table (xdp_mode.c) both ways, as xdp-tools names its options'
 * values.
 */
#ifndef AGENT_XDP_MODE_H
#define AGENT_XDP_MODE_H

#include <xdp/libxdp.h>

/* "native", "skb" or "auto" (XDP_MODE_UNSPEC: the kernel picks): 0, or -EINVAL. */
int xdp_mode_parse(const char *s, enum xdp_attach_mode *out);

/* The kernel's XDP_FLAGS_*_MODE of @mode, for bpf_xdp_attach() and bpf_xdp_detach(). */
__u32 xdp_mode_flags(enum xdp_attach_mode mode);

/* The mode's name; "hw" too, which the agent never asks for but may be told of. */
const char *xdp_mode_name(enum xdp_attach_mode mode);

/*
 * The mode auto takes on @driver (ethtool's name for it) before the kernel
 * picks: XDP_MODE_SKB where skb mode was measured cheaper for a program that
 * passes every frame, with *why saying so; else XDP_MODE_UNSPEC, *why NULL.
 */
enum xdp_attach_mode xdp_mode_for_driver(const char *driver, const char **why);

/* What would let @driver, which refused native XDP as configured, take it. */
const char *xdp_mode_native_needs(const char *driver);

#endif /* AGENT_XDP_MODE_H */
