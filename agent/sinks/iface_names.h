/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * An agent over several interfaces: their names by the slot each event
 * carries (struct fbf_event's iface), as the outputs write them. Kept by
 * the interface set (iface/ifset.h), changed by the drain's thread only,
 * between events, which is the thread that formats them.
 */
#ifndef AGENT_IFACE_NAMES_H
#define AGENT_IFACE_NAMES_H

#include <stdbool.h>
#include <linux/types.h>

#include "base/escape.h"

struct iface_names {
	__u32 slots;
	char (*log)[ESCAPE_IFNAME_SIZE];	/* by slot, escaped for a text line */
	char (*json)[ESCAPE_IFNAME_SIZE];	/* ... for a JSON string */
};

/* An event's slot is one the agent gave; "?" should the kernel ever say otherwise. */
static inline const char *iface_name(const struct iface_names *n, __u16 slot, bool json)
{
	return slot >= n->slots ? "?" : json ? n->json[slot] : n->log[slot];
}

#endif /* AGENT_IFACE_NAMES_H */
