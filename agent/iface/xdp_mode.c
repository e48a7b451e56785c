// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* XDP attach modes by name: see xdp_mode.h. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <linux/if_link.h>

#include "iface/xdp_mode.h"

__u32 xdp_mode_flags(enum xdp_attach_mode mode)
{
	return mode == XDP_MODE_SKB ? XDP_FLAGS_SKB_MODE :
	       mode == XDP_MODE_HW ? XDP_FLAGS_HW_MODE : XDP_FLAGS_DRV_MODE;
}

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

/*
 * What auto takes per driver (xdp_mode.h); where one is not named here the
 * kernel picks: native where the driver has it, else skb.
 *
 * veth: skb. A native program on a veth makes the receiving end convert
 * every skb to an xdp_buff and back through its NAPI loop, which costs the
 * path more than generic XDP's run on the skb as it is: a one-CPU raw flood
 * reached 579 k frames/s with bare XDP_PASS native and 696 k in skb mode,
 * 820 k with nothing (docs/benchmarks.md).
 * virtio_net: the kernel's pick, native, not measured against skb: the
 * kernel matrix runs it under emulation, whose rates say nothing of a real
 * host. Native runs the program before the skb is built; it also takes the
 * host's receive offloads away from the guest while attached (see below).
 */
static const struct {
	const char *driver;
	enum xdp_attach_mode mode;
	const char *why;		/* when auto takes @mode */
	const char *native_needs;	/* when the driver refuses native as configured */
} xdp_drivers[] = {
	{ "veth", XDP_MODE_SKB, "cheaper than native on veth", NULL },
	{ "virtio_net", XDP_MODE_UNSPEC, NULL,
	  "the host must not force receive offloads on the guest: give the device "
	  "VIRTIO_NET_F_CTRL_GUEST_OFFLOADS (QEMU: ctrl_guest_offloads=on, the default) or "
	  "switch them off on the host (QEMU: guest_csum=off,guest_tso4=off,guest_tso6=off,"
	  "guest_ecn=off,guest_ufo=off; libvirt: <driver><guest csum='off' tso4='off' "
	  "tso6='off' ecn='off' ufo='off'/></driver>)" },
};

#define XDP_DRIVERS (sizeof(xdp_drivers) / sizeof(xdp_drivers[0]))

enum xdp_attach_mode xdp_mode_for_driver(const char *driver, const char **why)
{
	size_t i;

	*why = NULL;
	for (i = 0; i < XDP_DRIVERS; i++) {
		if (!strcmp(driver, xdp_drivers[i].driver)) {
			*why = xdp_drivers[i].why;
			return xdp_drivers[i].mode;
		}
	}
	return XDP_MODE_UNSPEC;
}

const char *xdp_mode_native_needs(const char *driver)
{
	size_t i;

	for (i = 0; i < XDP_DRIVERS; i++)
		if (!strcmp(driver, xdp_drivers[i].driver) && xdp_drivers[i].native_needs)
			return xdp_drivers[i].native_needs;
	return "switch off what the kernel names ('ethtool -k IFACE' lists the offloads, "
	       "'ethtool -K IFACE FEATURE off' switches one off)";
}
