// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* XDP attach modes by name: see xdp_mode.h. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "iface/xdp_mode.h"

static const struct {
	const char *name;
	enum xdp_attach_mode mode;
	bool parsed;		/* a value of --mode */
} xdp_modes[] = {
	{ "native", XDP_MODE_NATIVE, true },
	{ "skb", XDP_MODE_SKB, true },
	{ "auto", XDP_MODE_UNSPEC, true },
	{ "hw", XDP_MODE_HW, false },
};

#define XDP_MODES (sizeof(xdp_modes) / sizeof(xdp_modes[0]))

int xdp_mode_parse(const char *s, enum xdp_attach_mode *out)
{
	size_t i;

	for (i = 0; i < XDP_MODES; i++) {
		if (xdp_modes[i].parsed && !strcmp(s, xdp_modes[i].name)) {
			*out = xdp_modes[i].mode;
			return 0;
		}
	}
	return -EINVAL;
}

const char *xdp_mode_name(enum xdp_attach_mode mode)
{
	size_t i;

	for (i = 0; i < XDP_MODES; i++)
		if (xdp_modes[i].mode == mode)
			return xdp_modes[i].name;
	return "auto";
}
