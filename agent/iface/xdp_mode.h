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

/* The mode's name; "hw" too, which the agent never asks for but may be told of. */
const char *xdp_mode_name(enum xdp_attach_mode mode);

#endif /* AGENT_XDP_MODE_H */
